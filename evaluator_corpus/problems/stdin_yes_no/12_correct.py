# fast input
import sys
input = lambda: sys.stdin.readline().rstrip('\n')
n = int(input())
print('Yes' if n % 2 == 0 else 'No')
