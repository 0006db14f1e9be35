# 1/0 for true/false
class Solution:
    def isPalindrome(self, s: str):
        return int(s == s[::-1])
