# class attribute
class Solution:
    calls = 0

    def isPalindrome(self, s: str):
        return s == s[::-1]
