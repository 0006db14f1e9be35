# fast input
import sys
input = lambda: sys.stdin.readline().rstrip('\n')
n = int(input())
for _ in range(n):
    a, b = map(int, input().split())
    print(a + b)
