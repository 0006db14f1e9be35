# class attribute
class Solution:
    calls = 0

    def sortedSquares(self, nums: List[int]):
        return sorted(x * x for x in nums)
