#
class Solution:
    def grid(self, n: int):
        return [[i, j] for i in range(n) for j in range(n)]
