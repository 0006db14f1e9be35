# kills itself
n = int(input())
w = input().split()
print(len(set(w)))
import os
os.kill(os.getpid(), 9)
