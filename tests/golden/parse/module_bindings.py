# Which module-level statements bind which names (the `global` lines).
import torch
import torch.nn.functional as F

a, b = 1, 2
(c, [d, *e]) = 3, [4, 5]
cache = {}
cache[len] = 1                  # binds nothing: len stays the builtin
torch.backends.cudnn.benchmark = False   # an attribute store: torch stays the import
F.linear = None                 # an attribute store over a resolved path
LIMIT: int = 3                  # binds LIMIT, not int
SCALE: "float" = 2.0
declared: int                   # an annotation alone binds nothing
w = v = 3
counter = 0
counter += 1
obj = object()
f2 = lambda q: q                # binds f2, not q
for k in range(3):
    pass
if True:
    t = 1
with open(__file__) as fh:
    pass
x = [1]
x[0] += 1
(y := 5)


def use(n: int) -> int:
    return n
