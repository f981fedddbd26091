"""Every nested-class form the emitter has a path for, compiled with -Werror
by test_emitted_c_compiles_warning_free: plain and one-line classes, bases
given by expressions, `*bases` (alone and after other bases), `**keywords`
(alone, repeated, after and before named keywords), metaclass= and other
keywords, several decorators (one a lambda), classes reading the function's
variables (body, methods, f-strings, nonlocal), zero-arg super(), nested
classes, classes in loops, handlers, with blocks and finally blocks, lambdas
on the class's line, `global` class names, a class name over a typed
parameter."""
import functools


def forms(xs: list, k: int, s: float, bases: tuple, kw: dict):
    class Plain:
        """doc"""
        v = k

        def m(self):
            return super().__repr__() and (self.v, s, __class__)

    class One: w = s; z = f"{k!r:>{k}}"

    class Sub(Plain, *bases, metaclass=type, **kw):
        pass

    class Starred(*bases):
        pass

    class Keywords(**kw, **{}):
        pass

    class Mixed(Plain, flag=k, **kw, other=s, metaclass=lambda n, b, ns, **kws: (n, sorted(kws))):
        pass

    @functools.total_ordering
    @(lambda c: c)
    class Decorated(Plain):
        def __eq__(self, o):
            return True

        def __lt__(self, o):
            return False

    total = 0

    class Bump:
        def inc(self):
            nonlocal total
            total += k
            return total

    Bump().inc()

    class Outer:
        class Inner:
            deep = [v * k for v in xs]

    made = []
    for i in range(3):
        class Late(object, metaclass=(lambda n, b, ns: type(n, b, ns))): f = lambda self: i * s
        made.append(Late)
    try:
        1 // (k - k)
    except ZeroDivisionError as err:
        class Keep:
            e = err
    finally:
        class Fin:
            pass
    with open(__file__) as fh:
        class InWith:
            h = fh
    global GlobalClass

    class GlobalClass(dict):
        pass

    class k:
        pass
    return Plain, One, Sub, Starred, Keywords, Mixed, Decorated, total, Outer, made, Keep, Fin, InWith, k


def errors(n: int):
    class Conflict(int, str):
        pass
    return Conflict
