# itertools from the prelude
class Solution:
    def maxProfit(self, prices: List[int]):
        return max([0] + [b - a for a, b in combinations(prices, 2)])
