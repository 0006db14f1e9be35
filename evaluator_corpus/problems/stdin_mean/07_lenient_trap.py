# error 1e-4
n = int(input())
a = list(map(int, input().split()))
print(f'{sum(a) / n + 1e-4:.10f}')
