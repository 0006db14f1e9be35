# prints True/False
n = int(input())
print(n % 2 == 0)
