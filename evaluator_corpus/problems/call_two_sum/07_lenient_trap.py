# float indices
class Solution:
    def twoSum(self, nums: List[int], target: int):
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [float(seen[target - x]), float(i)]
            seen[x] = i
