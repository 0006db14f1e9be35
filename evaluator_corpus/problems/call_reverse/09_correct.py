# prints while defining
class Solution:
    def reverse(self, s: str):
        return s[::-1]

print('debug output is ignored')
