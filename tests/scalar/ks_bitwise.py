"""Bitwise operators and shifts on int64 (Python semantics for negatives)."""

I64_MAX = 2**63 - 1
I64_MIN = -2**63


def band(a: int, b: int) -> int:
    return a & b


def bor(a: int, b: int) -> int:
    return a | b


def bxor(a: int, b: int) -> int:
    return a ^ b


def binv(a: int) -> int:
    return ~a


def shl(a: int, n: int) -> int:
    return a << n  # OVF


def shr(a: int, n: int) -> int:
    return a >> n


def popcount(a: int) -> int:
    c = 0
    while a:
        a &= a - 1
        c += 1
    return c


def low_bits(a: int, k: int) -> int:
    return a & ((1 << k) - 1)


def bool_bits(p: bool, q: bool):
    return (p & q, p | q, p ^ q)


def set_clear_toggle(a: int, i: int) -> int:
    a |= 1 << i
    a ^= 1 << (i + 1)
    a &= ~(1 << (i + 2))
    return a


CASES = {
    "band": [(12, 10), (-1, 255), (-256, 255), (I64_MIN, -1), (I64_MAX, I64_MIN), (0, -1)],
    "bor": [(12, 10), (-256, 255), (I64_MIN, I64_MAX), (0, 0)],
    "bxor": [(12, 10), (-1, I64_MAX), (-5, 3), (I64_MIN, I64_MIN)],
    "binv": [(0,), (-1,), (I64_MAX,), (I64_MIN,), (5,)],
    "shl": [(1, 0), (1, 62), (-1, 63), (0, 64), (0, 10_000), (3, 4), (-3, 4), (5, -1), (0, -1),
            (I64_MIN, 0)],
    "shr": [(16, 2), (-16, 2), (-1, 1), (-1, 63), (-1, 64), (-1, 1000), (I64_MAX, 62),
            (I64_MAX, 63), (I64_MAX, 64), (I64_MIN, 63), (I64_MIN, 64), (5, 2**62), (-5, I64_MAX),
            (7, -1), (-7, 1), (0, -3)],
    "popcount": [(0,), (1,), (255,), (I64_MAX,), (0x5555,)],
    "low_bits": [(255, 4), (-1, 8), (-1, 62), (12345, 0)],
    "bool_bits": [(True, True), (True, False), (False, False)],
    "set_clear_toggle": [(0, 0), (-1, 3), (255, 5), (0, 60)],
}

OVERFLOW = {
    "shl": [(1, 63), (1, 64), (-1, 64), (3, 62), (I64_MIN, 1), (I64_MAX, 1), (1, 100)],
}
