def uses_except_star(path):
    try:
        return open(path)
    except* OSError:
        return None


def uses_walrus_in_lambda(xs):
    return [(lambda: (w := v + 1))() for v in xs]
