import json


def plain():
    import json
    import os.path
    import xml.etree.ElementTree as ET
    import math as m, os.path as p, sys
    return json, os, ET, m, p, sys


def from_forms():
    from json import dumps
    from os.path import join, basename as bn
    from collections import (
        OrderedDict,
        defaultdict as dd,
    )
    from math import (pi,)
    return dumps, join, bn, OrderedDict, dd, pi


def relative():
    from . import a
    from .b import c as d
    from .. import e, f as g
    from ..h.i import j
    from ... import k
    from .... import l
    from . . import n
    from ...o import q
    return a, d, e, g, j, k, l, n, q


def in_blocks(x):
    try:
        import kiln_missing as fast
    except ImportError:
        import json as fast
    for i in x:
        from math import floor
        if i:
            import sys; sys.stdout
    f = lambda: fast
    del fast
    return floor, f


def typed(n: int) -> int:
    t = 0
    for i in range(n):
        import math
        t += math.isqrt(i)
    return t
