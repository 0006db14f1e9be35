# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
n = int(input())
w = input().split()
print(len(set(w)))

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
