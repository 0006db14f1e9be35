# fast input
import sys
input = lambda: sys.stdin.readline().rstrip('\n')
a, b = map(int, input().split())
r = a / b
print(int(r) if r == int(r) else r)
