# matches the format exactly
a, b = map(int, input().split())
r = a / b
print(int(r) if r == int(r) else r)
