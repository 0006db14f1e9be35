# 2 decimals
class Solution:
    def average(self, nums: List[int]):
        return round(sum(nums) / len(nums), 2)
