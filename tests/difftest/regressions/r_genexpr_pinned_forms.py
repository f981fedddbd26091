"""difftest regression r_genexpr_pinned_forms (hand-written, not a found bug).

Generator expressions no consumer takes (kiln makes them as CPython does:
first iterable and iter() here, then the code CPython compiled for them) and
lambdas and lazy generator expressions reading a comprehension's variable,
pinned (native since 699c850 and cb4764a; on 3.10 a line holding such a
generator expression and another function leaves its function as Python):
late binding of what a kept generator reads (a rebinding, a deletion, a
loop variable) while its first iterable was taken at once, a list mutated or
rebound after it, partial consumption (next, gx_take, `in`, zip(g, g)), next
without a default, dict/zip/enumerate/map/filter over them, `*gen` with
keywords, nested ones, a bad first iterable (TypeError at creation, iter()
raising or giving a non-iterator) or a later clause's (when consumed), a body
raising (then finished), close/send/throw and the generator's names, one
returned by a function after it rebinds what it reads, and closures over a
comprehension's variable (all see its last value; a new cell each time the
comprehension starts; nested comprehensions; a dict comprehension's).
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def gx_args(*a, **k):
    s = repr((a, sorted(k.items())))
    return len(a) * 1009 + len(k) * 101 + sum((i + 1) * ord(c) for i, c in enumerate(s)) % 9973


def gx_take(it, n: int):
    out = []
    for v in it:
        if len(out) >= n:
            break
        out.append(v)
    return out


def gx_make(xs, k):
    g = (x * k for x in xs)
    k = k + 1
    return g


class GxIter:
    def __init__(self, n, bad=0):
        self.n = n
        self.bad = bad

    def __iter__(self):
        if self.bad == 1:
            raise ValueError('GxIter ' + str(self.n))
        if self.bad == 2:
            return self.n
        return iter(range(self.n))


def late(a: int, b: float) -> float:
    n = a % 5
    g = (x * b + n for x in range(n))
    h = (x for x in range(n))
    b = b * 2.0
    n = 100
    first = next(g, -1.0)
    return first + sum(g, 0.0) + sum(h) + n


def mutated(a: int) -> int:
    L = [a, 1, 2]
    g = (x + len(L) for x in L)
    L.append(a * 3)
    t = next(g)
    L = [7]
    return t * 1000 + sum(g)


def partial(a: int) -> int:
    g = (x * x for x in range(a % 9))
    s = len(gx_take(g, 2))
    found = 9 in g
    pairs = sum(p - q for p, q in zip(g, g))
    return s * 100 + int(found) * 10 + pairs + sum(g)


def no_default(a: int) -> int:
    g = (x for x in range(a % 3) if x)
    out = 0
    try:
        out += next(g)
        out += next(g)
    except StopIteration as e:
        out -= len(str(e)) + 10 * len(e.args) + 100 * int(e.value is None)
    return out + next(g, 50)


def over_them(a: int, c: float) -> float:
    d = dict((k, k * c) for k in range(a % 6))
    z = sum(p * q for p, q in zip((x for x in range(a % 7)), (c + y for y in [1.0, 2.0, 3.0])))
    e = sum(i * v for i, v in enumerate((x * 2 for x in range(a % 4)), 1))
    m = sum(map(abs, (x - 3 for x in range(a % 8))))
    f = len(list(filter(None, (x % 3 for x in range(a % 10)))))
    n = next((y for y in (x * 3 for x in range(a % 9)) if y > 5), -1)
    return sum(d.values(), 0.0) + z + e + m + f + n + (a in (x * x for x in range(10)))


def starred(a: int) -> int:
    k = a % 4
    v = gx_args(*(x * k for x in range(k)), z=k, w=a)
    try:
        v += max(*(x for x in range(k)), key=abs)
    except TypeError as e:
        v -= len(str(e))
    return v + len((*(x for x in 'ab'), a))


def bad_iterables(a: int) -> int:
    out = 0
    for i in range(6):
        try:
            if i == 0:
                g = (x for x in a)
            elif i == 1:
                g = (x for x in GxIter(a % 4, 1))
            elif i == 2:
                g = (x for x in GxIter(a % 4, 2))
            elif i == 3:
                g = (y for x in range(a % 3) for y in a)
                out += 1
                out += sum(g)
            elif i == 4:
                g = (x for x in [1 // (a % 2)])
            else:
                g = (x for x in GxIter(a % 4))
                out += sum(g)
        except (TypeError, ValueError, ZeroDivisionError) as e:
            out = out * 3 + len(str(e)) + len(type(e).__name__)
    return out


def raising_body(a: int) -> int:
    out = 0
    g = (12 // x for x in [3, a % 3, 2])
    try:
        for h in g:
            out += h
    except ZeroDivisionError as e:
        out -= len(str(e))
    out += next(g, -5)
    r = (next(iter(range(x))) for x in [1, a % 2])
    try:
        out += sum(r)
    except RuntimeError as e:
        out += len(str(e)) + len(type(e.__cause__).__name__)
    return out


def unbound(a: int) -> int:
    v = a * 2
    g = (x + v for x in range(3))
    if a % 2:
        del v
    try:
        return sum(g)
    except NameError as e:
        return -len(str(e))


def made_in_loop(a: int) -> int:
    G = []
    for i in range(a % 5):
        G.append((x + i for x in range(i)))
    return sum(sum(g) for g in G) * 100 + len(list(zip(*G)))


def methods(a: int) -> int:
    g = (x * 2 for x in range(a % 5))
    out = len(g.__name__) + len(g.__qualname__) + len(g.gi_code.co_name)
    out += next(g, 9)
    g.close()
    out += next(g, 7) + int(g.gi_frame is None)
    h = (x for x in range(3))
    try:
        out += h.send(None)
        out += h.send(1)
        h.throw(ValueError('thrown ' + str(a)))
    except (ValueError, TypeError) as e:
        out += len(str(e))
    return out + next(h, 11)


def returned(a: int) -> int:
    return sum(gx_make([1, 2, 3], a)) + sum(gx_make(range(a % 4), 10))


def comp_closures(a: int) -> int:
    fs = [lambda: x * 10 for x in range(a % 4 + 1)]
    rows = [sorted([5, 1, 4, 2], key=lambda v: (v * m) % 7) for m in range(1, a % 5 + 2)]
    firsts = [next((y for y in [1, 5, 9] if y > t), None) for t in range(a % 8)]
    lazy = [(y * m for y in range(3)) for m in range(a % 3 + 1)]
    out = sum(f() for f in fs) + sum(r[0] * 3 + r[-1] for r in rows)
    out += sum(t for t in firsts if t is not None) + 1000 * firsts.count(None)
    return out + sum(sum(g) for g in lazy)


def comp_cells(a: int) -> int:
    F = []
    for i in range(3):
        F += [lambda: x + i for x in range(i + a % 2)]
    nested = [[lambda: x * 10 + y for y in range(2)] for x in range(a % 3 + 1)]
    d = {k: (lambda: x) for k, x in enumerate([a, a + 1, a + 2])}
    inner = sum(next((y for y in range(x) if y > t), 0) for x in range(4) for t in range(2))
    return (sum(f() for f in F) * 7 + sum(f() for r in nested for f in r) * 3
            + sum(f() for f in d.values()) + inner)


CASES = {'late': [(0, 1.5), (3, -2.0), (9, 0.5)],
         'mutated': [(0,), (5,)],
         'partial': [(0,), (4,), (8,)],
         'no_default': [(0,), (1,), (2,)],
         'over_them': [(0, 0.5), (5, -1.25), (13, 3.0)],
         'starred': [(0,), (1,), (3,), (6,)],
         'bad_iterables': [(0,), (1,), (6,)],
         'raising_body': [(0,), (1,), (2,)],
         'unbound': [(0,), (1,)],
         'made_in_loop': [(0,), (3,), (4,)],
         'methods': [(0,), (3,)],
         'returned': [(0,), (3,)],
         'comp_closures': [(0,), (3,), (7,)],
         'comp_cells': [(0,), (1,), (2,)]}
TOL = {f: (0.0, 0.0) for f in CASES}
