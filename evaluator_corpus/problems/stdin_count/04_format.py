# spaces around
n = int(input())
w = input().split()
print(' ' + str(len(set(w))) + ' ')
