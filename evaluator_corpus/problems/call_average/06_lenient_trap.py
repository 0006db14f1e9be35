# string number
class Solution:
    def average(self, nums: List[int]):
        return str(sum(nums) / len(nums))
