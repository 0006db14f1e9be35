# infinite loop
class Solution:
    def twoSum(self, nums: List[int], target: int):
        while True:
            pass
