# list literals
n, m = map(int, input().split())
for i in range(1, n + 1):
    print([i * j for j in range(1, m + 1)])
