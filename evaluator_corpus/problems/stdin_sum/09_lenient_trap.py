# prints integers as x.0 (Decimal equal, but the answer is an integer)
n = int(input())
for _ in range(n):
    a, b = map(int, input().split())
    print(f'{a + b}.0')
