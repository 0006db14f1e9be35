# rounded to 7 decimals
class Solution:
    def average(self, nums: List[int]):
        return round(sum(nums) / len(nums), 7)
