"""difftest regression r_ok_int_vs_systemerror_31ca31.

Found by `python -m tests.difftest.run --seed 2026` (module 0, function f10), shrunk.

expected (python): int 23
observed (kiln):   SystemError('Objects/object.c:722: bad argument to internal function')
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f10(a: int, b: int, c: int) -> int:
    v2 = c
    v3 = True * (0.0 <= v2 != 9.9 == v2)
    w5 = 3
    for i8 in range(b, w5, 1):
        c = math.isfinite(2.0) - (0.5 >= w5 < c)
    return a


CASES = {'f10': [(23, -358, 0)]}
TOL = {'f10': (0.0, 0.0)}
