# Names a conditional import binds: guarded when their other bindings are in
# except handlers only; assigned (dynamic) otherwise.
try:
    import math
    from os import path as osp
except ImportError:
    math = None
    osp = None
try:
    import json
except ImportError:
    json = None
else:
    json = False
try:
    import cmath as cm
except ImportError:
    import math as cm
def f(x):
    return math.sqrt(x)
