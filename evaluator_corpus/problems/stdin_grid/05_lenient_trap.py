# misses the last row
n, m = map(int, input().split())
for i in range(1, n):
    print(*[i * j for j in range(1, m + 1)])
