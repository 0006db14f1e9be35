# module-level setup
import sys
sys.setrecursionlimit(10 ** 6)
class Solution:
    def findDuplicates(self, nums: List[int]):
        c = Counter(nums)
        return  [x for x in c if c[x] > 1]
