"""difftest regression r_try_pinned_forms (hand-written, not a found bug).

try statements where the harness rules meet kiln's semantics, pinned: an
int64 overflow caught by the program (kiln gives the checked twin's outcome,
not Python's), a site kiln computes with Python ints followed by one it
computes with C ints (kiln gives the outcome of the twin letting the big int
through at the first site, see tests/difftest/worker.py _twin_variants), an
escaping exception's __context__/__cause__/__suppress_context__ (compared),
a finally that replaces the exception or re-raises with a bare `raise`,
continue in a finally dropping a return, and an as-name read after its
handler deleted it (or a local it rebound).
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def caught_overflow(c: int) -> int:
    try:
        c **= 2
    except OverflowError as e:
        return -len(type(e).__name__)
    return c


def object_site(c: int) -> int:
    L = [c]
    v = L[0]
    v = v * v
    n = 0
    try:
        n = c * c
    except OverflowError:
        n = -1
    return n + len(str(v))


def chain_from(a: int, b: int) -> int:
    try:
        q = a // b
    except ZeroDivisionError as e:
        if a > 2:
            raise ValueError(f"v{a}") from None
        raise IndexError("i" + str(a)) from e
    return q


def finally_replaces(a: int, b: int) -> int:
    try:
        x = a // b
    finally:
        if a > 1:
            raise ValueError("fin" + str(a))
    return x


def finally_bare_raise(a: int, b: int) -> int:
    try:
        if a:
            x = 1 // (a - a)
    finally:
        raise


def continue_in_finally(a: int, b: int) -> int:
    s = 0
    for i in range(3):
        try:
            if i == b:
                return 99
            s += 10 // (i - a)
        except ZeroDivisionError as e:
            s += len(str(e))
        finally:
            s += 100
            continue
    return s


def deleted_name(a: int, b: int) -> int:
    try:
        x = a // b
    except ZeroDivisionError as e:
        x = 1
    try:
        return len(str(e)) + x
    except NameError as f:
        return -len(str(f))


def shadowed_local(a: int, b: int) -> int:
    x = 5
    try:
        y = a // b
    except ZeroDivisionError as x:
        y = len(str(x))
    return x + y


CASES = {'caught_overflow': [(499803132161200967,), (3,)],
         'object_site': [(1099511627776,), (3,)],
         'chain_from': [(5, 0), (1, 0), (4, 2)],
         'finally_replaces': [(3, 0), (0, 0), (3, 1)],
         'finally_bare_raise': [(0, 0), (1, 0)],
         'continue_in_finally': [(1, 0), (0, 5), (7, 2)],
         'deleted_name': [(1, 0), (1, 1)],
         'shadowed_local': [(1, 0), (7, 2)]}
TOL = {f: (0.0, 0.0) for f in CASES}
