# int 3 for 3.0: LeetCode compares numbers
class Solution:
    def average(self, nums: List[int]):
        s = sum(nums)
        return s // len(nums) if s % len(nums) == 0 else s / len(nums)
