# module-level setup
import sys
sys.setrecursionlimit(10 ** 6)
class Solution:
    def average(self, nums: List[int]):
        return sum(nums) / len(nums)
