"""Augmented assignment on int, float and object locals."""


def aug_int(a: int, b: int):
    x = a
    x += b
    r1 = x
    x -= 3 * b
    r2 = x
    x *= 2
    r3 = x
    x //= 3
    r4 = x
    x %= 7
    r5 = x
    return (r1, r2, r3, r4, r5)


def aug_bits(a: int, n: int):
    x = a
    x <<= n
    r1 = x
    x >>= 1
    r2 = x
    x &= 0xFF
    r3 = x
    x |= 0x100
    r4 = x
    x ^= a
    return (r1, r2, r3, r4, x)


def aug_float(x: float, y: float):
    z = x
    z += y
    r1 = z
    z *= y
    r2 = z
    z -= x
    r3 = z
    z /= y
    r4 = z
    z //= 0.5
    r5 = z
    z %= 3.0
    r6 = z
    z **= 2.0
    return (r1, r2, r3, r4, r5, r6, z)


def aug_pow_int(a: int, e: int) -> int:
    x = a
    x **= e
    return x


def aug_div_zero(a: int, b: int) -> int:
    a //= b
    return a


def aug_obj(x, y):
    x += y
    return x


def aug_list_alias(xs, ys):
    zs = xs
    zs += ys
    return xs


def aug_mixed_float(x: float, n: int) -> float:
    x += n
    x *= n
    return x


def running_sum(n: int) -> int:
    s = 0
    for i in range(n):
        s += i
        s -= i // 2
    return s


CASES = {
    "aug_int": [(10, 3), (-10, 3), (0, -1), (2**40, 7), (-2**40, -7)],
    "aug_bits": [(1, 4), (-1, 4), (255, 0), (-200, 3)],
    "aug_float": [(1.5, 2.0), (-1.5, 0.25), (0.0, 1.0), (1.0, 0.0), (float("inf"), 1.0),
                  (float("nan"), 2.0)],
    "aug_pow_int": [(2, 10), (-3, 3), (7, 0), (0, -1)],
    "aug_div_zero": [(7, 2), (7, 0), (-7, 2)],
    "aug_obj": [("ab", "cd"), ([1], [2]), ((1,), (2,)), (1.5, 2), ("a", 1)],
    "aug_list_alias": [([1, 2], [3]), ([], [])],
    "aug_mixed_float": [(1.5, 2), (0.0, -1), (-0.0, 0), (float("inf"), 0)],
    "running_sum": [(0,), (10,), (1000,)],
}
