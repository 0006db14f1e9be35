# prints while defining
class Solution:
    def grid(self, n: int):
        return [[i, j] for i in range(n) for j in range(n)]

print('debug output is ignored')
