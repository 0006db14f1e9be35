# class attribute
class Solution:
    calls = 0

    def findDuplicates(self, nums: List[int]):
        c = Counter(nums)
        return  [x for x in c if c[x] > 1]
