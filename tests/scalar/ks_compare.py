"""Comparisons, chained comparisons and exact int/float mixing."""

I64_MAX = 2**63 - 1
I64_MIN = -2**63
TWO53 = 2**53


def cmp_all(a: int, b: int):
    return (a < b, a <= b, a == b, a != b, a > b, a >= b)


def cmp_int_float(a: int, x: float):
    return (a < x, a <= x, a == x, a != x, a > x, a >= x)


def cmp_float_int(x: float, a: int):
    return (x < a, x <= a, x == a, x != a, x > a, x >= a)


def in_range(lo: int, x: int, hi: int) -> bool:
    return lo <= x < hi


def chain3(a: int, b: int, c: int) -> bool:
    return a < b < c


def chain_mixed(a: int, x: float, b: int) -> bool:
    return a <= x <= b


def chain_eq(a: float, b: float, c: float) -> bool:
    return a == b == c


def chain_long(a: int, b: int, c: int, d: int) -> bool:
    return a < b <= c != d


def sign(a: int) -> int:
    return (a > 0) - (a < 0)


def max_of3(a: int, b: int, c: int) -> int:
    m = a
    if b > m:
        m = b
    if c > m:
        m = c
    return m


def cmp_bools(p: bool, q: bool):
    return (p < q, p == q, p > q)


def cmp_self(a: int, y: float, b: bool):
    # a variable compared with itself: generated C that said `x < x` did
    # not compile warning-free (gcc's -Wtautological-compare; found by fuzzing)
    x = a
    return x < x, x <= x, x == x, x != x, y < y, y == y, y != y, b == b, b < b, x < x < x


CASES = {
    "cmp_all": [(1, 2), (2, 1), (3, 3), (-1, 0), (I64_MIN, I64_MAX), (I64_MAX, I64_MAX)],
    "cmp_int_float": [(1, 1.0), (1, 1.5), (-1, -0.0), (0, -0.0), (TWO53 + 1, float(TWO53)),
                      (TWO53, float(TWO53)), (I64_MAX, 2.0**63), (I64_MIN, -2.0**63),
                      (I64_MIN + 1, -2.0**63), (I64_MAX, 9.223372036854775e18),
                      (5, float("nan")), (0, float("inf")), (I64_MIN, float("-inf")),
                      (TWO53 + 1, TWO53 + 2.0), (-(TWO53 + 1), -float(TWO53))],
    "cmp_float_int": [(2.0**63, I64_MAX), (float(TWO53), TWO53 + 1), (0.5, 0), (-0.5, 0),
                      (float("nan"), 0), (-float("inf"), I64_MIN), (1e300, I64_MAX)],
    "in_range": [(0, 0, 10), (0, 10, 10), (0, -1, 10), (5, 7, 6), (I64_MIN, 0, I64_MAX)],
    "chain3": [(1, 2, 3), (1, 3, 2), (3, 2, 1), (1, 1, 2), (I64_MIN, 0, I64_MAX)],
    "chain_mixed": [(0, 0.5, 1), (1, 0.5, 2), (TWO53 + 1, float(TWO53 + 2), TWO53 + 2),
                    (TWO53 + 1, float(TWO53), TWO53 + 1), (0, float("nan"), 1), (-1, -0.0, 0)],
    "chain_eq": [(1.0, 1.0, 1.0), (0.0, -0.0, 0.0), (float("nan"), float("nan"), 1.0),
                 (1.0, 2.0, 2.0)],
    "chain_long": [(1, 2, 2, 3), (1, 2, 2, 2), (2, 1, 5, 6), (1, 2, 3, 4)],
    "sign": [(0,), (5,), (-5,), (I64_MAX,), (I64_MIN,)],
    "max_of3": [(1, 2, 3), (3, 2, 1), (2, 3, 1), (-1, -1, -1), (I64_MIN, I64_MIN, I64_MAX)],
    "cmp_bools": [(True, False), (False, True), (True, True)],
    "cmp_self": [(3, 1.5, True), (0, float("nan"), False), (I64_MIN, -0.0, True)],
}
