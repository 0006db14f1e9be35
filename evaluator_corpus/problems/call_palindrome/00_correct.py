#
class Solution:
    def isPalindrome(self, s: str):
        return s == s[::-1]
