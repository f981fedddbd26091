def starred_comprehension_target(rows):
    return [a for a, *b in rows]


def frame_builtin_with_unpacking(a):
    return dir(*a)


def compiles(f, a, m):
    x, *y = f(*a, **m)
    return [*x, *y], {**m}
