# reads past the end (EOFError)
n = int(input())
for _ in range(n + 1):
    a, b = map(int, input().split())
    print(a + b)
