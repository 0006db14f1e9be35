# ValueError
class Solution:
    def twoSum(self, nums: List[int], target: int):
        return [nums.index(target)]
