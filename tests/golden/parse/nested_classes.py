def plain(x, y):
    class A:
        """doc"""
        v = x
        def m(self):
            return super().m() + y + __class__.v
    class B(A): pass
    return A, B


def header(x, bases, kw):
    class C(A, *bases, metaclass=M, flag=x, **kw):
        pass
    class D():
        ...
    class E(flag=x, *bases, **kw,):
        pass
    return C, D, E


def decorated(x):
    @deco(x)
    @other
    class F(object):
        w: int = x
    return F


def body_reads(x, y, n):
    class G:
        s = f"{x!r:>{n}}"
        t = [y for _ in range(n)]
        __private = x
        def m(self, a=x, *, b=y):
            nonlocal n
            n += 1
            return __private
    return G


def in_loop(n):
    out = []
    for i in range(n):
        class K(first_of(lambda: i), metaclass=meta_via(lambda: 2)): f = lambda self: i
        out.append(K)
    return out
