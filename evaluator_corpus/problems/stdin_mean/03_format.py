# rounded to 8
n = int(input())
a = list(map(int, input().split()))
print(round(sum(a) / n, 8))
