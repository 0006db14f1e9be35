# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
a, b = map(int, input().split())
r = a / b
print(int(r) if r == int(r) else r)

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
