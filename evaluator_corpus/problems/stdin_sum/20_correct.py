# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
n = int(input())
for _ in range(n):
    a, b = map(int, input().split())
    print(a + b)

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
