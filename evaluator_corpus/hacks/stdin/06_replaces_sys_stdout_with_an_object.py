# replaces sys.stdout with an object
import sys
class W:
    def write(self, s): return len(s)
    def flush(self): pass
sys.stdout = W()
print('anything')
