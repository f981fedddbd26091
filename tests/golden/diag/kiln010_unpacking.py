def generator_unpacked_before_keyword(f, rows):
    return f(*(r for r in rows), k=1)


def frame_builtin_with_unpacking(a):
    return dir(*a)


def compiles(f, a, m):
    x, *y = f(*a, **m)
    return [*x, *y], {**m}
