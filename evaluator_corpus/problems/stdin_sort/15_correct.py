# fast input
import sys
input = lambda: sys.stdin.readline().rstrip('\n')
n = int(input())
a = list(map(int, input().split()))
print(*sorted(a))
