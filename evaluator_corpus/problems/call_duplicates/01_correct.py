#
class Solution:
    def findDuplicates(self, nums: List[int]):
        c = Counter(nums)
        return sorted(x for x in c if c[x] > 1)
