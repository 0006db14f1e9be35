# all values
class Solution:
    def findDuplicates(self, nums: List[int]):
        return sorted(set(nums))
