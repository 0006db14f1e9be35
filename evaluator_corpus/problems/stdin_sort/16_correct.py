# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
n = int(input())
a = list(map(int, input().split()))
print(*sorted(a))

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
