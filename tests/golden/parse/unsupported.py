def has_class():
    class A:
        pass
    return A


def has_lambda(x):
    return (lambda v: v)(x)


def has_generator(xs):
    return sum(x for x in xs)


def has_try_star():
    try:
        return 1
    except* ValueError:
        return 2


def has_varargs(*args):
    return args


@staticmethod
def decorated():
    return 1


async def coro():
    return 1


def fine(x: int) -> int:
    return x + 1
