# drops duplicates
class Solution:
    def sortedSquares(self, nums: List[int]):
        return sorted(set(x * x for x in nums))
