# string booleans
class Solution:
    def isPalindrome(self, s: str):
        return 'true' if s == s[::-1] else 'false'
