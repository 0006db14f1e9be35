# no method
class Solution:
    pass
