"""Every emitter path of generator expressions no consumer takes (made from
CPython's code object), of comprehension variables that closures read (a
cell per run of the comprehension), of str literals holding lone surrogates
and of `==`/`!=` against a str literal (kl_str_compare), compiled with
-Werror by test_emitted_c_compiles_warning_free."""


def helper(it, *rest, **kw):
    return list(it), rest, kw


def lazy(xs: list, k: int, s: float, rows: list):
    a = (x * k for x in xs)
    b = next((x for x in xs if x > k), None)
    c = dict((x, s) for x in xs)
    d = helper((x for x in xs), *(y for y in xs), key=(z for z in xs))
    e = ((y for y in r) for r in rows)
    f = [list(y + k for y in r) for r in rows]
    g = zip((x for x in xs), (-x for x in xs))
    k = k + 1
    s = s * 2.0
    h = (
        x
        for x in
        xs
        if x
    )
    return a, b, c, d, e, f, g, h


def closures_over_comprehensions(rows: list, n: int):
    a = [sorted(r, key=lambda v: v % m) for m, r in enumerate(rows, 1)]
    b = [[lambda: (i, j) for j in range(n)] for i in range(n)]
    c = {k: (lambda: k * 2)() for k in range(n)}
    d = sum((lambda: k)() for k in range(n))
    e = any((lambda: t)() > 3 for t in range(n))
    f = [next((x for x in r if x > t), None) for t in range(n) for r in rows]
    g = [(lambda: (h, t))() for h, *t in rows]
    return a, b, c, d, e, f, g


def strings(x, kinds: list) -> int:
    n = 0
    for kind in kinds:
        if kind == "relu" or "gelu" == kind:
            n += 1
        elif kind != "\ud800" and kind == "\U0001f600\udc80":
            n += 2
    match x:
        case "\udcff":
            n += 3
        case "a" | "b":
            n -= 1
    return n + (x == "é") + (x != "")
