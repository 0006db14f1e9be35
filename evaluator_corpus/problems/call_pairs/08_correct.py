# module-level setup
import sys
sys.setrecursionlimit(10 ** 6)
class Solution:
    def grid(self, n: int):
        return [[i, j] for i in range(n) for j in range(n)]
