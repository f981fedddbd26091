"""difftest regression r_display_items_before_build (hand-reduced from a
shrunk reproducer; `python -m tests.difftest.run --seed 1031 --programs 300
--unpack-weight 6 --per-module 25 --cases 16`, module 8, function f6, 11
cases; the shrinker gave `8 in {[c]: c, w2 // c: c, **dict(enumerate([0,
4611686018427387904]))}` with c = 0).

CPython evaluates a set display's items (those before the first `*`) and a
dict display's run of key: value pairs (up to the next `**`, or all of them)
before it builds the set or dict from them (BUILD_SET / BUILD_MAP), so an
unhashable item or key raises only after the items after it were evaluated:
their exceptions come first, and their side effects happen.  kiln adds each
item (PySet_Add / PyDict_SetItem) as soon as it is evaluated, in displays
that unpack and in plain ones alike (fixed: emit.c display_groups).

dict_unpack  expected (python): ZeroDivisionError('integer division or modulo by zero')
             observed (kiln):   TypeError("unhashable type: 'list'")
set_unpack, dict_plain, set_plain, shrunk_f6: the same
set_order    expected (python): int 1     observed (kiln): int 0
dict_order   expected (python): int 2     observed (kiln): int 0
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def u_log(T, n, v):
    T.append(n)
    return v


def dict_unpack(c: int) -> int:
    return len({[c]: 1, 1 // c: 2, **{}})


def set_unpack(c: int) -> int:
    return len({[c], 1 // c, *[]})


def dict_plain(c: int) -> int:
    return len({[c]: 1, 1 // c: 2})


def set_plain(c: int) -> int:
    return len({[c], 1 // c})


def shrunk_f6(c: int) -> int:
    w2 = 3
    if 8 in {[c]: c, w2 // c: c, **dict(enumerate([0, 4611686018427387904]))}:
        pass
    return 0


def set_order(c: int) -> int:
    T = []
    try:
        return len({[c], u_log(T, 1, c), *[c]})
    except TypeError:
        return len(T)


def dict_order(c: int) -> int:
    T = []
    try:
        return len({**{}, [c]: u_log(T, 1, c), c: u_log(T, 2, c)})
    except TypeError:
        return len(T)


CASES = {'dict_unpack': [(0,)], 'set_unpack': [(0,)], 'dict_plain': [(0,)], 'set_plain': [(0,)],
         'shrunk_f6': [(0,)], 'set_order': [(3,)], 'dict_order': [(3,)]}
TOL = {name: (0.0, 0.0) for name in CASES}
# Fixed on 2026-12-02 (emit.c display_groups): a regression now, no XFAIL.
