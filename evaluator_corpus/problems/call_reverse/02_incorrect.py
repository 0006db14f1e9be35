# identity
class Solution:
    def reverse(self, s: str):
        return s
