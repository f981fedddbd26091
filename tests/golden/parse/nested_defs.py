def outer(xs, k):
    def key(r, /, d=k, *rest, only, dflt=2, **kw):
        total = r[k] + len(f"{k}{xs!r}")
        return total
    def short(): return k
    return key, short


def annotated(x):
    def h(y: int):
        return y
    return h


def returns_annotated(x):
    def h(y) -> int:
        return y
    return h


def decorated(x):
    @deco(x)
    @other
    def h(y, z: x = 1) -> int:
        return y
    return h
