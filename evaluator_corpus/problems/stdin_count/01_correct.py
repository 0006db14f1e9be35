#
import sys
_, *w = sys.stdin.read().split()
print(len(set(w)))
