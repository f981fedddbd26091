def h(x, y):
    r = x.mean(dim=1, keepdim=False)
    s = y[1:2, ::3]
    t = f(x, y, z=1)(2).attr[0]
    obj.field = [1, 2.5, "s", b"b", None, True, ...]
    d = {1: 2, "k": (3,)}
    e = {4, 5}
    return r, s, t, d, e
