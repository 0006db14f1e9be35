# explicit imports
from typing import List, Optional
import collections
class Solution:
    def sortedSquares(self, nums: List[int]):
        return sorted(x * x for x in nums)
