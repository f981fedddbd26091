def starred_comprehension_target(rows):
    return [a for a, *b in rows]


def starred_for_iterable(a):
    out = []
    for x in *a, 0:
        out.append(x)
    return out


def starred_augassign_value(t, a):
    t += *a, 1
    return t


def frame_builtin_with_unpacking(a):
    return dir(*a)


def compiles(f, a, m):
    x, *y = f(*a, **m)
    return [*x, *y], {**m}
