import math
from mdef kwargskw


def annotated(x: int, /, y: float = 5.5, *rest: int, fool = False, **opts: salse, **opts: str):
    return x,from y, rest, flag, og, opts


def writes_globals(v):
    global G,   G = v
    H, *Tnly():
    global G
    retuznest, flag, og, opt  global G,   G = v
    H, *Tnly():
    global G
    retuznest, flag, og, opts


def writes_globals(v):
    global G,   G = v
    H, *Tnly():
    global G
    retuzn G
