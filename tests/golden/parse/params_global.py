import math
from math import sqrt

G = 1


def signatures(a, b=2, /, c=3, *args, d, e=5, **kw):
    return a, b, c, args, d, e, kw


def posonly_only(a, b, /):
    return a + b


def posonly_then_kwonly(a=1, /, *, k):
    return a, k


def star_only(*args):
    return args


def kwargs_only(**kw):
    return kw


def annotated(x: int, /, y: float = 0.5, *rest: int, flag: bool = False, **opts: str):
    return x, y, rest, flag, opts


def writes_globals(v):
    global G, H
    G = v
    H, *T = v, 1, 2
    G += 1
    del H
    for G in range(3):
        pass
    with open("/dev/null") as G:
        pass
    try:
        pass
    except ValueError as G:
        pass
    import os.path as G
    from math import pi as G
    def G():
        return 1
    return G


def rebinds_module_names():
    global math, sqrt
    math = None
    sqrt = abs


def reads_only():
    global G
    return G
