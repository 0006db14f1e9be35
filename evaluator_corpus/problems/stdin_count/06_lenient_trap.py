# printed twice
n = int(input())
w = input().split()
print(len(set(w)), len(set(w)))
