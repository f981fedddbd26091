"""math functions the compiler runs natively, with CPython's errors."""
import math

INF = float("inf")
NAN = float("nan")


def f_sqrt(x: float) -> float:
    return math.sqrt(x)


def f_sqrt_int(n: int) -> float:
    return math.sqrt(n)


def f_exp(x: float) -> float:
    return math.exp(x)


def f_log(x: float) -> float:
    return math.log(x)


def f_trig(x: float):
    return math.sin(x), math.cos(x), math.tan(x)


def f_tanh_atan_fabs(x: float):
    return math.tanh(x), math.atan(x), math.fabs(x)


def f_floor_ceil(x: float):
    return math.floor(x), math.ceil(x)  # OVF


def f_floor_int(n: int):
    return math.floor(n) + math.ceil(n)


def norm(a: float, b: float) -> float:
    return math.sqrt(a * a + b * b)


CASES = {
    "f_sqrt": [(4.0,), (2.0,), (0.0,), (-0.0,), (-1.0,), (INF,), (-INF,), (NAN,), (1e-310,)],
    "f_sqrt_int": [(0,), (16,), (-4,), (2**62,)],
    "f_exp": [(0.0,), (1.0,), (-745.5,), (709.0,), (710.0,), (INF,), (-INF,), (NAN,)],
    "f_log": [(1.0,), (2.718281828459045,), (0.0,), (-0.0,), (-1.0,), (INF,), (NAN,), (1e-320,)],
    "f_trig": [(0.0,), (-0.0,), (1.0,), (INF,), (-INF,), (NAN,), (1e22,)],
    "f_tanh_atan_fabs": [(0.0,), (-0.0,), (20.0,), (-INF,), (NAN,)],
    "f_floor_ceil": [(1.5,), (-1.5,), (-0.0,), (1e18,), (INF,), (NAN,)],
    "f_floor_int": [(3,), (-7,)],
    "norm": [(3.0, 4.0), (0.0, -0.0), (1e200, 1e200)],
}

# int results past int64 raise OverflowError natively (Python would give a big int)
OVERFLOW = {"f_floor_ceil": [(1e19,), (-1e19,)]}


def tanh_of_constant() -> float:
    # found by the differential tester: a C compiler folding tanh(0.36) at
    # build time rounds differently from libm, which Python calls at run time
    v = 0.36
    return math.tanh(v) + math.exp(v) + math.log(v) + math.sin(v) + math.cos(v) + math.tan(v) + math.atan(v)


CASES["tanh_of_constant"] = [()]
