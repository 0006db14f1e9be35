# explicit imports
from typing import List, Optional
import collections
class Solution:
    def isPalindrome(self, s: str):
        return s == s[::-1]
