#
import sys
n, *a = map(int, sys.stdin.buffer.read().split())
sys.stdout.write(' '.join(map(str, sorted(a))) + '\n')
