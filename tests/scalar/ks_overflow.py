"""int64 overflow detection: where Python would produce an int outside int64,
kiln raises OverflowError naming this file and the line marked `# OVF`.
CASES hold inputs right at the edge that must NOT overflow."""

I64_MAX = 2**63 - 1
I64_MIN = -2**63


def add_ovf(a: int, b: int) -> int:
    return a + b  # OVF


def sub_ovf(a: int, b: int) -> int:
    return a - b  # OVF


def mul_ovf(a: int, b: int) -> int:
    return a * b  # OVF


def neg_ovf(a: int) -> int:
    return -a  # OVF


def floordiv_ovf(a: int, b: int) -> int:
    return a // b  # OVF


def shl_ovf(a: int, n: int) -> int:
    return a << n  # OVF


def aug_ovf(a: int, b: int) -> int:
    c = a
    c += b  # OVF
    return c


def aug_mul_ovf(a: int, b: int) -> int:
    c = a
    c *= b  # OVF
    return c


def loop_ovf(start: int, factor: int, steps: int) -> int:
    x = start
    while steps > 0:
        x = x * factor  # OVF
        steps -= 1
    return x


def intermediate_ovf(a: int, b: int) -> int:
    t = a * b  # OVF
    return t // b


def square_sum_ovf(a: int) -> int:
    s = 0
    i = 0
    while i < a:
        s += i * i  # OVF
        i += 1
    return s


def power_of_two_ovf(n: int) -> int:
    p = 1
    k = 0
    while k < n:
        p = p * 2  # OVF
        k = k + 1
    return p


CASES = {
    "add_ovf": [(I64_MAX, 0), (I64_MAX - 5, 5), (I64_MIN, 0), (I64_MIN + 5, -5), (I64_MAX, I64_MIN)],
    "sub_ovf": [(I64_MIN, 0), (I64_MIN + 1, 1), (-1, I64_MAX), (0, I64_MAX), (I64_MAX, 0)],
    "mul_ovf": [(3037000499, 3037000499), (-2**62, 2), (I64_MIN, 1), (I64_MAX, -1), (2**32, 2**30)],
    "neg_ovf": [(I64_MAX,), (I64_MIN + 1,)],
    "floordiv_ovf": [(I64_MIN, 1), (I64_MAX, -1), (I64_MIN, 2)],
    "shl_ovf": [(1, 62), (-1, 63), (0, 64), (0, 1000), (3, 61), (-1, 0)],
    "aug_ovf": [(I64_MAX - 1, 1), (I64_MIN + 1, -1)],
    "aug_mul_ovf": [(2**31, 2**31), (-2**31, 2**32)],
    "loop_ovf": [(1, 2, 62), (-1, 2, 63), (1, 10, 18), (3, 3, 38)],
    "intermediate_ovf": [(2**31, 2**31), (-3, 5)],
    "square_sum_ovf": [(100,), (1000,)],
    "power_of_two_ovf": [(0,), (62,)],
}

OVERFLOW = {
    "add_ovf": [(I64_MAX, 1), (I64_MIN, -1), (I64_MAX, I64_MAX), (I64_MIN, I64_MIN)],
    "sub_ovf": [(I64_MIN, 1), (0, I64_MIN), (I64_MAX, -1), (-2, I64_MAX)],
    "mul_ovf": [(3037000500, 3037000500), (I64_MIN, -1), (-1, I64_MIN), (2**32, 2**31),
                (I64_MAX, 2), (-2**62, 3)],
    "neg_ovf": [(I64_MIN,)],
    "floordiv_ovf": [(I64_MIN, -1)],
    "shl_ovf": [(1, 63), (1, 64), (-1, 64), (2, 62), (5, 100), (-3, 62)],
    "aug_ovf": [(I64_MAX, 1), (I64_MIN, -1)],
    "aug_mul_ovf": [(2**32, 2**31), (-2**32, 2**32)],
    "loop_ovf": [(1, 2, 63), (1, 10, 19), (-1, 2, 64), (3, 3, 39)],
    "intermediate_ovf": [(2**32, 2**32), (I64_MAX, 2)],
    "square_sum_ovf": [(4_000_000,)],
    "power_of_two_ovf": [(63,), (64,)],
}
