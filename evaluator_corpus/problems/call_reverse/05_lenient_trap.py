# trailing space in a string value
class Solution:
    def reverse(self, s: str):
        return s[::-1] + ' '
