def uses_except_star(path):
    try:
        return open(path)
    except* OSError:
        return None


def uses_lambda_over_comprehension_variable(xs):
    return [(lambda: v + 1)() for v in xs]
