# TypeError
class Solution:
    def reverse(self, s: str):
        return s[::-1] + 1
