def forms(x, k):
    a = lambda: 0
    b = lambda p, q=1, /, r=2, *rest, s, t=3, **kw: (p, q, r, rest, s, t, kw)
    c = lambda *, only: only
    d = sorted(x, key=lambda r: r[k])
    e = (lambda u: lambda w: u + w + k)(1)
    f = [lambda m=i: m for i in x]
    return a, b, c, d, e, f
