# explicit imports
from typing import List, Optional
import collections
class Solution:
    def average(self, nums: List[int]):
        return sum(nums) / len(nums)
