# itertools tuples
class Solution:
    def grid(self, n: int):
        return list(product(range(n), repeat=2))
