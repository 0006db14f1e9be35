#
class Solution:
    def reverse(self, s: str):
        return ''.join(reversed(s))
