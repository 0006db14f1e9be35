# prints while defining
class Solution:
    def average(self, nums: List[int]):
        return sum(nums) / len(nums)

print('debug output is ignored')
