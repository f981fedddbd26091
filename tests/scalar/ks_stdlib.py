"""Calls into builtins and the math module from typed functions."""

import math

INF = float("inf")
NAN = float("nan")


def gcd(a: int, b: int) -> int:
    return math.gcd(a, b)


def sqrt(x: float) -> float:
    return math.sqrt(x)


def hypot(x: float, y: float) -> float:
    return math.hypot(x, y)


def abs_int(a: int) -> int:
    return abs(a)


def abs_float(x: float) -> float:
    return abs(x)


def min_max_int(a: int, b: int, c: int):
    return (min(a, b, c), max(a, b, c))


def min_max_float(x: float, y: float):
    return (min(x, y), max(x, y))


def min_mixed(a: int, x: float):
    return min(a, x)


def length(s) -> int:
    return len(s)


def to_str_int(a: int) -> str:
    return str(a)


def to_str_float(x: float) -> str:
    return str(x)


def to_int_float(x: float) -> int:
    return int(x)


def to_int_obj(s):
    return int(s)


def to_float_int(a: int) -> float:
    return float(a)


def to_float_obj(s):
    return float(s)


def round0(x: float) -> int:
    return round(x)


def round_nd(x: float, nd: int) -> float:
    return round(x, nd)


def round_int(a: int, nd: int) -> int:
    return round(a, nd)


def floor_ceil(x: float):
    return (math.floor(x), math.ceil(x))


def log_exp(x: float):
    return (math.log(x), math.exp(x))


def trig(x: float) -> float:
    return math.sin(x) ** 2 + math.cos(x) ** 2 - math.fabs(math.tan(0.0))


def isfinite_isinf(x: float):
    return (math.isfinite(x), math.isinf(x), math.isnan(x))


def pi_area(r: float) -> float:
    return math.pi * r * r


def divmod_builtin(a: int, b: int):
    return divmod(a, b)


def bool_of(a: int) -> bool:
    return bool(a)


def pow3(a: int, b: int, m: int) -> int:
    return pow(a, b, m)


CASES = {
    "gcd": [(12, 18), (0, 0), (-12, 18), (17, 0), (2**62, 2**61), (-2**63 + 1, 3)],
    "sqrt": [(4.0,), (2.0,), (0.0,), (-0.0,), (INF,), (NAN,), (-1.0,), (1e-320,)],
    "hypot": [(3.0, 4.0), (INF, NAN), (1e308, 1e308), (-0.0, 0.0)],
    "abs_int": [(0,), (-5,), (2**63 - 1,), (-2**63 + 1,)],
    "abs_float": [(-0.0,), (-INF,), (NAN,), (-1.5,)],
    "min_max_int": [(1, 2, 3), (3, 1, 2), (-2**63, 0, 2**63 - 1), (5, 5, 5)],
    "min_max_float": [(1.0, 2.0), (NAN, 1.0), (1.0, NAN), (0.0, -0.0), (-0.0, 0.0), (-INF, INF)],
    "min_mixed": [(1, 1.0), (1, 0.5), (2, 2.5), (0, -0.0)],
    "length": [("",), ("héllo",), ([1, 2, 3],), ({"a": 1},), ((),), (range(10),), (5,)],
    "to_str_int": [(0,), (-1,), (2**63 - 1,), (-2**63,)],
    "to_str_float": [(0.1,), (-0.0,), (1e16,), (1e-5,), (INF,), (NAN,), (123456789.0,), (2.5e-310,)],
    "to_int_float": [(2.9,), (-2.9,), (-0.0,), (1e18,), (-9.2e18,), (NAN,), (INF,), (-INF,)],
    "to_int_obj": [("42",), (" -7 ",), ("abc",), (3.99,), ("1_000",), (True,)],
    "to_float_int": [(0,), (2**53 + 1,), (2**63 - 1,), (-2**63,)],
    "to_float_obj": [("1.5",), ("-inf",), ("nan",), ("x",), (7,), ("1e400",)],
    "round0": [(2.5,), (3.5,), (-2.5,), (0.49999999999999994,), (-0.0,), (1e18,), (NAN,), (INF,)],
    "round_nd": [(2.675, 2), (1.5, 0), (-1.25, 1), (123.456, -1), (1e300, 2), (NAN, 2), (-0.0, 3)],
    "round_int": [(15, -1), (25, -1), (-15, -1), (12345, 2), (12345, -10)],
    "floor_ceil": [(2.5,), (-2.5,), (-0.0,), (1e18,), (NAN,), (INF,)],
    "log_exp": [(1.0,), (0.5,), (0.0,), (-1.0,), (1000.0,)],
    "trig": [(0.0,), (1.0,), (INF,)],
    "isfinite_isinf": [(1.0,), (INF,), (-INF,), (NAN,)],
    "pi_area": [(1.0,), (0.0,), (-2.0,)],
    "divmod_builtin": [(7, 2), (-7, 2), (7, -2), (1, 0)],
    "bool_of": [(0,), (3,)],
    "pow3": [(2, 10, 1000), (3, -1, 7), (2, 5, 0), (7, 0, 1)],
}

