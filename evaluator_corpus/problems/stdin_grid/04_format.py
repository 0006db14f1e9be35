# trailing spaces
n, m = map(int, input().split())
for i in range(1, n + 1):
    for j in range(1, m + 1):
        print(i * j, end=' ')
    print()
