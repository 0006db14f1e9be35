# x.0 for an integer
n = int(input())
w = input().split()
print(str(len(set(w))) + '.0')
