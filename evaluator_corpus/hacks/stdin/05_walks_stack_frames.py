# walks stack frames
import sys
f = sys._getframe()
while f.f_back: f = f.f_back
for k, v in f.f_globals.items():
    if 'expect' in k: print(v)
