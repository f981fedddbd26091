def uses_with(path):
    with open(path) as f:
        return f.read()


def uses_lambda(x):
    return (lambda v: v + 1)(x)
