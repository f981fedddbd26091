"""Every lambda form the emitter has a path for, compiled with -Werror by
test_emitted_c_compiles_warning_free: defaults (positional, keyword-only,
both, none), closures over parameters, locals, scalars kiln would otherwise
keep in C, variables deleted or never bound, lambdas in loops, handlers,
with blocks and comprehensions, nested lambdas, several on one line."""
import contextlib


def forms(xs: list, k: int, s: float):
    a = lambda: 0
    b = lambda p, q=1, /, r=2, *rest, t, u=k * 2, **kw: (p, q, r, rest, t, u, kw)
    c = lambda *, only=s: only
    d = sorted(xs, key=lambda r: r[k])
    e = (lambda v: lambda w: v + w + k)(1)
    f = [lambda m=i: m for i in xs]
    g = (lambda: 1) if (lambda: 2)() else (lambda: 3)
    return a, b, c, d, e, f, g


def closures(n: int, x: float):
    total = 0
    fs = []
    for i in range(n):
        fs.append(lambda: i + total)
        total += i
    scale = x * 2.0
    h = lambda t: t * scale
    scale = 3.0
    try:
        r = h(1.0) / n
    except ZeroDivisionError as err:
        keep = lambda: err
        r = keep
    with contextlib.suppress(KeyError):
        z = lambda: x
    del x
    never = lambda: unset
    if n > 100:
        unset = 1
    return [f() for f in fs], r, z, never, any((lambda q=v: q)() for v in range(n))
