def calls(f, o, a, b, m, n):
    r = f(*a)
    s = f(1, *a, 2, *b)
    t = f(k=1, **m)
    u = f(**m, k=2, **n)
    v = f(a=1, *b)
    w = o.meth(*a, **m)
    print(*a, sep="-")
    return r, s, t, u, v, w, max(*a), len(*a), dict(**m), range(*a)


def displays(a, b, m, n):
    x = [*a, b]
    y = (*a, b)
    z = *a, b
    s = {*a, b}
    d = {**m, "k": 1, **n}
    e = {"k": 1, **m}
    return *x, *y, z, s, d, e


def targets(v, rows, o, d):
    a, *b, c = v
    *p, q = v
    [g, *h] = v
    (i, *j), k = v
    x = l, *r = v
    a, *o.x = v
    a, *d["k"] = v
    *only, = v
    for e, *rest in rows:
        pass
    for *init, last in rows:
        pass
    return a, b, c, p, q, g, h, i, j, k, x, l, r, only


def lambda_bodies(f, a, m):
    g = lambda *p, **k: f(*p, *a, **k, **m)
    h = lambda x=[*a], y={**m}: (x, y)
    return g, h


def starred_comprehension_target(rows):
    return [a for a, *b in rows]
