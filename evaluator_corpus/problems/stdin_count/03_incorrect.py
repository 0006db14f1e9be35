# counts all
n = int(input())
w = input().split()
print(n)
