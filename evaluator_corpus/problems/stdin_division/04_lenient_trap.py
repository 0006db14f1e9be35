# 0.2 for 0.25
a, b = map(int, input().split())
print(f'{a / b:.1f}')
