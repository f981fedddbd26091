def forms(xs, ys, n: int):
    a = [x * 2 for x in xs]
    b = {x for x in xs if x if x > 1}
    c = {k: v for k, v in zip(xs, ys)}
    d = [(x, y) for x in range(n) for y in xs if x != y]
    e = [[y for y in x] for x in xs]
    f = [x for (x, (y, z)) in xs]
    g = [x for x in (xs if n else ys)]
    return a, b, c, d, e, f, g


def generator_stays_python(xs):
    return sum(x for x in xs)


def generator_argument_stays_python(xs):
    return max((x for x in xs), default=0)


def attribute_target_stays_python(self, xs):
    return [0 for self.x in xs]


def async_stays_python(xs):
    return [x async for x in xs]
