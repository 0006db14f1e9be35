# case-folds
n = int(input())
w = input().split()
print(len(set(x.lower() for x in w)))
