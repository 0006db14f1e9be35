# explicit imports
from typing import List, Optional
import collections
class Solution:
    def reverse(self, s: str):
        return s[::-1]
