def uses_except_star(path):
    try:
        return open(path)
    except* OSError:
        return None


def uses_lambda(x):
    return (lambda v: v + 1)(x)
