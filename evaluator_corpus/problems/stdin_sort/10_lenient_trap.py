# misses the last token
n = int(input())
a = list(map(int, input().split()))
print(*sorted(a)[:-1])
