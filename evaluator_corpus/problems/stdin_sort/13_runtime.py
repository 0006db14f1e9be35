# unbounded recursion
import sys
sys.setrecursionlimit(10**6)
def f(x): return f(x + 1)
f(0)
