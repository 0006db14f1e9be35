# module-level setup
import sys
sys.setrecursionlimit(10 ** 6)
class Solution:
    def reverse(self, s: str):
        return s[::-1]
