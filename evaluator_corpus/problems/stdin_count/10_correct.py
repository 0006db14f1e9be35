# fast input
import sys
input = lambda: sys.stdin.readline().rstrip('\n')
n = int(input())
w = input().split()
print(len(set(w)))
