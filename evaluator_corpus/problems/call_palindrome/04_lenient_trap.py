# "true" string
class Solution:
    def isPalindrome(self, s: str):
        return str(s == s[::-1]).lower()
