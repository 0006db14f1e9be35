# IndexError
class Solution:
    def isPalindrome(self, s: str):
        return s[len(s)] == s[0]
