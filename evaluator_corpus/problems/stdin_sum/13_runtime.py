# correct output, then exit status 1
n = int(input())
for _ in range(n):
    a, b = map(int, input().split())
    print(a + b)
import sys
sys.exit(1)
