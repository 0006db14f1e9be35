# module-level setup
import sys
sys.setrecursionlimit(10 ** 6)
class Solution:
    def sortedSquares(self, nums: List[int]):
        return sorted(x * x for x in nums)
