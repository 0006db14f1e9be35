# ends only
class Solution:
    def isPalindrome(self, s: str):
        return s[0] == s[-1]
