# prints while defining
class Solution:
    def sortedSquares(self, nums: List[int]):
        return sorted(x * x for x in nums)

print('debug output is ignored')
