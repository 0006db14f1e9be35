# descending
class Solution:
    def sortedSquares(self, nums: List[int]):
        return sorted((x * x for x in nums), reverse=True)
