# wrong case
n = int(input())
print('YES' if n % 2 == 0 else 'NO')
