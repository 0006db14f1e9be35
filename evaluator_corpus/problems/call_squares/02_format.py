# tuple
class Solution:
    def sortedSquares(self, nums: List[int]):
        return tuple(sorted(x * x for x in nums))
