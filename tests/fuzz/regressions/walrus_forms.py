"""Every assignment-expression form the emitter has a path for, compiled
with -Werror by test_emitted_c_compiles_warning_free: targets kept as C
scalars (int, float, bool) and as objects, cells, globals, parameters;
binds that may not run (and/or, if-else, comparison chains, comprehensions
and consumed generators running zero times, asserts) read afterwards; binds
in try bodies read by handlers; every place CPython allows one (tests, call
arguments with * and **, displays, subscripts and slices, f-string fields
and specs, lambda defaults); operands rebound by a later operand."""
import contextlib

G = 0


def scalars(xs: list, x: float, k: int) -> object:
    if (n := len(xs)) > 2:
        k = n + k
    while (k := k - 1) > 0 and (x := x / 2.0) > 0.1:
        n += 1
    if (b := k > 0) or (y := x * 2.0) > 1.0:
        x = x + 1.0
    return n, x, k, b, y


def maybe_unbound(a, b, c, xs):
    r = (p := a) and (q := b) or (s := c)
    v = (t := a) if b else (u := c)
    w = a < (m := b) < (z := c)
    [e := x for x in xs if x]
    f = any((g := x) for x in xs), sum((h := x) for x in xs), max(((i := x) for x in xs), default=0)
    assert (j := a)
    return r, v, w, p, q, s, t, u, m, z, e, f, g, h, i, j


def handlers(a, xs):
    try:
        r = (x := a) / (y := len(xs))
        s = [(w := 10 // v) for v in xs]
    except ZeroDivisionError:
        return x, y, w
    except TypeError as err:
        (err := str(err))
        return err
    finally:
        (fin := a)
    with contextlib.suppress(ValueError):
        (k := int(a))
    return r, s, k, fin


def cells_and_globals(a, xs):
    global G
    f = lambda: c
    (c := a)
    [(c := x) for x in xs]
    g = lambda q=(d := a), *, o=(e := c): (q, o, d)
    if (G := a) and any((G := x) for x in xs):
        c = G
    del d
    return f, g, c, e, G


def places(xs, a, *args, **kw):
    r = len((t := xs), *(u := args), **(v := kw)) if a else 0
    d = {(k := a): (vv := a), **(m := kw)}
    s = {(e := a), *(ss := xs)}
    sub = xs[(i := 0)], xs[(j := 1):(jj := 2)]
    xs[(n := 0)] = (nn := a)
    xs[(o := 0)] += (oo := 1)
    fs = f"{(q := a)!r:>{(width := 5)}}{a:=5}{(dbg := a)=}"
    while (chunk := xs.pop()) is not None:
        if not xs:
            break
    for z in (it := range(a)):
        pass
    return r, d, s, sub, t, u, v, k, vv, m, e, ss, i, j, jj, n, nn, o, oo, q, width, dbg, fs, chunk, it, z


def operands(x, t: int, f: float, s: str):
    r = x + (x := [1]), x == (x := 2), x.count((x := [3])), x[len(x := [4, 5]) - 1]
    t += (t := 3)
    f += (f := 2.0)
    s = s + (s := "z")
    return r, t, f, s, [t - (t := y) for y in range(3)]


def in_lambda(a):
    return (lambda: (z := a))(), (lambda ys: [(w := y) for y in ys])([a])
