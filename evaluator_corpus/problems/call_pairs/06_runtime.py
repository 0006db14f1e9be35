# exits
class Solution:
    def grid(self, n: int):
        import sys
        sys.exit(1)
