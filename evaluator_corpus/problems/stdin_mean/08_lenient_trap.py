# answer printed twice
n = int(input())
a = list(map(int, input().split()))
print(f'{sum(a) / n:.10f}', f'{sum(a) / n:.10f}')
