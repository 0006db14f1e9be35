# unsorted
class Solution:
    def sortedSquares(self, nums: List[int]):
        return [x * x for x in nums]
