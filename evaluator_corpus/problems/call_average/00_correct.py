#
class Solution:
    def average(self, nums: List[int]):
        return sum(nums) / len(nums)
