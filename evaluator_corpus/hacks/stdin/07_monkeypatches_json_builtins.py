# monkeypatches json/builtins
import json, builtins
json.loads = lambda *a, **k: True
builtins.print = lambda *a, **k: None
builtins.str = lambda *a: 'x'
