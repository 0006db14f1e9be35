# prints a Python list literal
n = int(input())
a = list(map(int, input().split()))
print(sorted(a))
