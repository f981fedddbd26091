"""Every unpacking form the emitter has a path for, compiled with -Werror by
test_emitted_c_compiles_warning_free: `*` and `**` in calls (alone, mixed,
named keywords before, between and after `**` groups, `*` after a keyword,
methods, builtins kiln otherwise calls natively, scalars boxed for the
helpers), displays with unpacked items (list, tuple, unparenthesised tuple,
set, dict), starred targets (first, middle, last, alone, nested, attribute,
subscript and slice targets, chained, for loops, with targets, typed locals
rebound), in lambdas' defaults and bodies, in comprehensions; and the forms
that stay Python (a starred comprehension target, a starred for iterable)."""
import math


def calls(f, o, a: list, b: list, m: dict, n: dict, k: int, x: float, t: bool):
    r1 = f(*a)
    r2 = f(k, *a, x, *b, t)
    r3 = f(k=k, **m)
    r4 = f(**m, j=x, **n, z=t)
    r5 = f(q=k * 2, *b)
    r6 = o.meth(*a, k + 1, **m, w=x / 2.0)
    r7 = (f(*[k, x]), f(**{"k": k}), f(*(), **{}))
    print(*a, sep="-", end=str(k))
    r8 = (max(*a), min(*a, k), len(*a), abs(*[k]), int(*[x]), float(*[k]), bool(*[t]))
    r9 = (dict(**m), dict(a, **n), list(range(*a)), sorted(*b, **m), isinstance(*a), math.sqrt(*[x]))
    total = 0
    for i in range(*a):
        total += i * k
    return r1, r2, r3, r4, r5, r6, r7, r8, r9, total


def displays(a: list, b: tuple, m: dict, n: dict, k: int, x: float):
    l1 = [*a, k, *b, x]
    t1 = (*a, k)
    t2 = *b, x, *a
    s1 = {*a, k, *b}
    d1 = {**m, "k": k, **n, "x": x}
    d2 = {"first": k, **m}
    nested = [(*r, k) for r in a] + [[*r] for r in b]
    s = f"{[*a]}{(*b,)}{ {**m} }"
    return l1, t1, t2, s1, d1, d2, nested, s, *a, k


def targets(v: list, rows: list, o, d: dict, k: int, x: float):
    a, *b, c = v
    *p, q = v
    p2, *q2 = v
    *only, = v
    [g, *h] = v
    (i, *j), l = v
    a2, (b2, *c2), *d2 = v
    y = w, *z = v
    o.first, *o.rest = v
    d["k"], *d["rest"] = v
    xs = [0, 1, 2]
    xs[0], *xs[1:] = v
    k, *more = v
    x, *others = v
    k += 1
    x *= 2.0
    out = []
    for e, *rest in rows:
        out.append((e, rest))
    for *init, last in rows:
        out.append((init, last))
    for (f1, *f2), *f3 in rows:
        out.append((f1, f2, f3))
    while v:
        head, *v = v
        out.append(head)
    return a, b, c, p, q, p2, q2, only, g, h, i, j, l, a2, b2, c2, d2, y, w, z, xs, k, more, x, others, out


def captured(v: list, cm):
    g = lambda: (a, b)
    a, *b = v

    def h():
        return rest

    *rest, last = v
    with cm as (w, *ws):
        pass
    return g, h, last, w, ws


def lambdas(f, a: list, m: dict, k: int):
    g = lambda *p, **kw: f(*p, *a, **kw, **m)
    h = lambda y=[*a, k], z={**m, "k": k}, *, w=(*a,): (y, z, w)
    return g(1, 2, q=3), h(), g, h


def errors(f, a, m, k: int, x: float):
    out = []
    try:
        f(*k)
    except TypeError as e:
        out.append(str(e))
    try:
        out.append([*x])
    except TypeError as e:
        out.append(str(e))
    try:
        out.append({**k})
    except TypeError as e:
        out.append(str(e))
    try:
        p, *q, r = a
    except ValueError as e:
        out.append(str(e))
    try:
        f(**m, **m)
    except TypeError as e:
        out.append(str(e))
    finally:
        out.append(len(out))
    return out


def still_python(rows, a):
    out = [h for h, *t in rows]
    for x in *a, 0:
        out.append(x)
    return out
