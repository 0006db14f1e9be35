# prints 1/0
n = int(input())
print(1 if n % 2 == 0 else 0)
