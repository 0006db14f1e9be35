# a string
class Solution:
    def sortedSquares(self, nums: List[int]):
        return ' '.join(map(str, sorted(x * x for x in nums)))
