# IndexError
class Solution:
    def findDuplicates(self, nums: List[int]):
        return sorted(nums)[len(nums)]
