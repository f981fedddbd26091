"""Special float values: inf, nan, -0.0 and float power/overflow rules."""

import math

INF = float("inf")
NAN = float("nan")


def is_nan(x: float) -> bool:
    return x != x


def self_equal(x: float) -> bool:
    return x == x


def sign_of_zero(x: float) -> float:
    return math.copysign(1.0, x)


def clamp_pos(x: float) -> float:
    if x < 0.0:
        return 0.0
    return x


def nan_compare(x: float, y: float):
    return (x < y, x <= y, x == y, x != y, x > y, x >= y)


def fpow(x: float, y: float):
    return x ** y


def ipow(b: int, e: int):
    return b ** e  # OVF


def mixed_pow(b: int, e: float):
    return b ** e


def reciprocal_sign(x: float) -> float:
    return 1.0 / x


def inf_arith(x: float) -> float:
    return x * INF - INF


def float_truth(x: float) -> bool:
    if x:
        return True
    return False


CASES = {
    "is_nan": [(NAN,), (INF,), (0.0,), (-0.0,)],
    "self_equal": [(NAN,), (-INF,), (-0.0,)],
    "sign_of_zero": [(0.0,), (-0.0,), (NAN,), (-INF,)],
    "clamp_pos": [(-1.0,), (-0.0,), (0.0,), (NAN,), (-INF,), (INF,)],
    "nan_compare": [(NAN, 1.0), (1.0, NAN), (NAN, NAN), (0.0, -0.0), (-INF, INF), (INF, INF)],
    "fpow": [(2.0, 10.0), (2.0, -1.0), (0.0, 0.0), (NAN, 0.0), (1.0, NAN), (-1.0, INF),
             (0.0, -1.0), (-0.0, -1.0), (10.0, 400.0), (-8.0, 1.0 / 3.0), (-2.0, 3.0),
             (-0.0, 3.0), (INF, -1.0), (0.5, -INF), (2.0, 0.5), (1e-300, 2.0)],
    "ipow": [(2, 10), (2, 0), (0, 0), (-3, 3), (2, -1), (-2, -2), (10, -3), (0, -1),
             (1, -100), (-1, 2**62 + 1), (2, 62), (-2, 63)],
    "mixed_pow": [(2, 0.5), (4, -0.5), (-4, 0.5), (0, -1.0), (10, 308.0), (10, 309.0)],
    "reciprocal_sign": [(0.0,), (-0.0,), (INF,), (-INF,)],
    "inf_arith": [(1.0,), (0.0,), (-1.0,), (NAN,)],
    "float_truth": [(0.0,), (-0.0,), (NAN,), (5e-324,), (-INF,)],
}

OVERFLOW = {
    "ipow": [(2, 63), (-2, 64), (3, 40), (10, 19)],
}
