# off by a relative 1e-7 on large answers: integers must be exact
n = int(input())
for _ in range(n):
    a, b = map(int, input().split())
    print(int((a + b) * 1.0000001))
