# a string that looks like a list
class Solution:
    def twoSum(self, nums: List[int], target: int):
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return str([seen[target - x], i])
            seen[x] = i
