"""Builtins whose Python result leaves int64 when stored as a kiln int
(abs, int() of a float, math.gcd, round).
Per the contract kiln raises OverflowError naming the `# OVF` line."""

import math

I64_MIN = -2**63


def abs_min(a: int) -> int:
    r = abs(a)  # OVF
    return r


def int_of_big_float(x: float) -> int:
    n = int(x)  # OVF
    return n


def gcd_min(a: int, b: int) -> int:
    g = math.gcd(a, b)  # OVF
    return g


def round_big(x: float) -> int:
    n = round(x)  # OVF
    return n


CASES = {
    "abs_min": [(I64_MIN + 1,), (0,)],
    "int_of_big_float": [(9.2e18,), (-9.223372036854775808e18,), (1.5,)],
    "gcd_min": [(I64_MIN, 3), (6, 4)],
    "round_big": [(9.2e18,), (-2.5,)],
}

OVERFLOW = {
    "abs_min": [(I64_MIN,)],
    "int_of_big_float": [(1e19,), (-1e19,), (9.223372036854775808e18,), (1e300,)],
    "gcd_min": [(I64_MIN, 0), (0, I64_MIN), (I64_MIN, I64_MIN)],
    "round_big": [(1e19,), (-1e20,)],
}
