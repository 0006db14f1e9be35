# uses math.inf from the prelude
class Solution:
    def maxProfit(self, prices: List[int]):
        best, lo = 0, inf
        for p in prices:
            lo = min(lo, p)
            best = max(best, p - lo)
        return best
