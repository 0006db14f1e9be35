# each duplicate repeated
class Solution:
    def findDuplicates(self, nums: List[int]):
        return [x for x in nums if nums.count(x) > 1]
