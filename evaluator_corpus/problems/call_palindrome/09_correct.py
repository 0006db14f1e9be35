# prints while defining
class Solution:
    def isPalindrome(self, s: str):
        return s == s[::-1]

print('debug output is ignored')
