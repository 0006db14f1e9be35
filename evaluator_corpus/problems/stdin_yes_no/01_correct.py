#
import sys
n = int(sys.stdin.readline())
print(['Yes', 'No'][n & 1])
