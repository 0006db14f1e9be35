# floats
class Solution:
    def sortedSquares(self, nums: List[int]):
        return [float(v) for v in sorted(x * x for x in nums)]
