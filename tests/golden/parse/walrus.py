def tests(xs, a, b):
    if (n := len(xs)) > 2:
        return n
    while (chunk := xs.pop()) and a:
        b = chunk
    return not (y := a) or (z := b)


def places(xs, a, *args, **kw):
    f(x := a, *(r := args), k=(v := 1), **(m := kw))
    t = [(p := 1), p + 1], {(s := a), s}, {(kk := a): (vv := b)}, ((w := 2), 3)
    d = xs[i := 0], xs[(j := 1):(k := 2)]
    g = f"{(q := a)}|{q!r:>{(width := 4)}}|{a:=5}|{(e := a)=}"
    h = lambda u=(dflt := a), *, o=(kwd := b): u
    return a < (c1 := b) < (c2 := n), (x1 := a if b else 0), (x2 := lambda: 1)


def comprehensions(xss):
    r = [(last := x) for xs in xss if (cnt := len(xs)) for x in xs if (odd := x % 2)]
    s = any((hit := x) > 3 for x in r)
    u = {(dk := x): (dv := x * 2) for x in r}
    return [((y := x), y * 2) for x in r], last, hit, u


def in_lambda_body(a):
    return (lambda: (inner := a))()
