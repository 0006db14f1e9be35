# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
n, m = map(int, input().split())
for i in range(1, n + 1):
    print(*[i * j for j in range(1, m + 1)])

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
