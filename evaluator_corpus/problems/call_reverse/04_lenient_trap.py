# list of characters
class Solution:
    def reverse(self, s: str):
        return list(s[::-1])
