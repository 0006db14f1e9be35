# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
n = int(input())
a = list(map(int, input().split()))
print(f'{sum(a) / n:.10f}')

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
