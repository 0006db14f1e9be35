# column-major order
class Solution:
    def grid(self, n: int):
        return [[j, i] for i in range(n) for j in range(n)]
