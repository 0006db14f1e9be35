# module-level setup
import sys
sys.setrecursionlimit(10 ** 6)
class Solution:
    def isPalindrome(self, s: str):
        return s == s[::-1]
