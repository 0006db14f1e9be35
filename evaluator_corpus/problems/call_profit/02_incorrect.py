# ignores order
class Solution:
    def maxProfit(self, prices: List[int]):
        return max(prices) - min(prices)
