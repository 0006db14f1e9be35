# scientific notation, 7 significant digits
n = int(input())
a = list(map(int, input().split()))
print(f'{sum(a) / n:.6e}')
