# class attribute
class Solution:
    calls = 0

    def reverse(self, s: str):
        return s[::-1]
