"""Tuple packing/unpacking, swaps and multiple assignment."""


def swap(a: int, b: int):
    a, b = b, a
    return a, b


def rotate3(a: int, b: int, c: int):
    a, b, c = b, c, a
    return (a, b, c)


def fib_iter(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b  # OVF
    return a


def divmod_unpack(a: int, b: int) -> int:
    q, r = a // b, a % b
    return q * 7 + r * 3


def unpack_obj(t):
    x, y = t
    return y, x


def nested_unpack(t):
    (a, b), c = t
    return a + b + c


def chain_assign(a: int) -> int:
    x = y = a * 2
    x += 1
    return x * 100 + y


def mixed_tuple(a: int, x: float):
    return (a, x, a * x, a > x)


def swap_floats(x: float, y: float):
    if x > y:
        x, y = y, x
    return x, y


def enumerate_pairs(xs):
    s = 0
    for i, v in enumerate(xs):
        s += i * v
    return s


def minmax(a: int, b: int, c: int):
    lo, hi = a, a
    for v in (b, c):
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


CASES = {
    "swap": [(1, 2), (0, -1), (2**63 - 1, -2**63)],
    "rotate3": [(1, 2, 3), (-1, 0, 1)],
    "fib_iter": [(0,), (1,), (2,), (10,), (50,), (91,)],
    "divmod_unpack": [(1234, 1000), (-1234, 1000), (7, 0)],
    "unpack_obj": [((1, 2),), ([3, "x"],), ("ab",), ((1, 2, 3),), ((1,),), (5,)],
    "nested_unpack": [(((1, 2), 3),), (([1.5, 2], 3),), (((1,), 2),)],
    "chain_assign": [(0,), (21,), (-4,)],
    "mixed_tuple": [(2, 1.5), (0, -0.0), (-1, float("nan"))],
    "swap_floats": [(2.0, 1.0), (1.0, 2.0), (-0.0, 0.0), (float("nan"), 1.0)],
    "enumerate_pairs": [([],), ([5, 6, 7],), ((1.5, 2.5),)],
    "minmax": [(1, 2, 3), (3, 2, 1), (2, 3, 1), (5, 5, 5)],
}

OVERFLOW = {
    "fib_iter": [(92,), (100,)],
}
