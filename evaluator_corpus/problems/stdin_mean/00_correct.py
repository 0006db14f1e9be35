#
n = int(input())
a = list(map(int, input().split()))
print(f'{sum(a) / n:.10f}')
