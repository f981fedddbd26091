"""difftest regression r_twin_module_name (hand-written, a harness gap, not a kiln bug).

Found by `python -m tests.difftest.run --seed 7003 --programs 200 --match-weight 2
--try-weight 3 --lambda-weight 2 --unpack-weight 2 --comp-weight 2 --per-module 25`
(module 6, function f0): an int leaves int64 in a try whose handler catches
kiln's OverflowError, so kiln goes on where Python raised later (ValueError)
and ends in a TypeError whose message names the function with its module
(`MOD.u_kw() got multiple values for keyword argument 'k'`).  The checked
twin takes the same path, so kiln's outcome is the twin's, but the twin ran
as module `_difftest_checked`; it now runs under the module's own name.
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def u_kw(*, k, m=1.5, **kw):
    return k


def twin_named(a: int) -> int:
    try:
        v = a << 64
        v = int('x' + str(v))
    except ArithmeticError:
        pass
    return u_kw(k=1, **{'k': a})


CASES = {'twin_named': [(0,), (1,), (-3,)]}
