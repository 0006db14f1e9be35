# drops duplicates
n = int(input())
a = list(map(int, input().split()))
print(*sorted(set(a)))
