# buffered output
import io, sys
_real, sys.stdout = sys.stdout, io.StringIO()
n = int(input())
print('Yes' if n % 2 == 0 else 'No')

_buf, sys.stdout = sys.stdout, _real
print(_buf.getvalue(), end='')
