# deque from the prelude
class Solution:
    def sortedSquares(self, nums: List[int]):
        out = deque()
        l, r = 0, len(nums) - 1
        while l <= r:
            if abs(nums[l]) > abs(nums[r]):
                out.appendleft(nums[l] ** 2); l += 1
            else:
                out.appendleft(nums[r] ** 2); r -= 1
        return list(out)
