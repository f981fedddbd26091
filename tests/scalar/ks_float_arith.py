"""float arithmetic: IEEE doubles with Python's rules and error messages."""

INF = float("inf")
NAN = float("nan")
BIG = 1.7976931348623157e308
TINY = 5e-324


def fadd(x: float, y: float) -> float:
    return x + y


def fsub(x: float, y: float) -> float:
    return x - y


def fmul(x: float, y: float) -> float:
    return x * y


def fdiv(x: float, y: float) -> float:
    return x / y


def fneg(x: float) -> float:
    return -x


def fpos(x: float) -> float:
    return +x


def horner(x: float) -> float:
    return ((2.5 * x - 1.25) * x + 0.5) * x - 3.0


def mean3(a: float, b: float, c: float) -> float:
    return (a + b + c) / 3.0


def lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def int_by_float(n: int, x: float) -> float:
    return n / x


def float_accum(n: int) -> float:
    s = 0.0
    i = 0
    while i < n:
        s += 0.1
        i += 1
    return s


def neg_zero_sum(x: float) -> float:
    return x + -0.0


CASES = {
    "fadd": [(0.1, 0.2), (0.0, -0.0), (-0.0, -0.0), (INF, -INF), (INF, 1.0), (NAN, 1.0),
             (BIG, BIG), (TINY, TINY), (1e16, 1.0), (-1.5, 1.5)],
    "fsub": [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (INF, INF), (1.0, 1e-17), (-BIG, BIG)],
    "fmul": [(0.0, -1.0), (-0.0, -0.0), (INF, 0.0), (INF, -2.0), (BIG, 2.0), (TINY, 0.5),
             (1e-200, 1e-200), (3.0, 1.0 / 3.0), (NAN, 0.0)],
    "fdiv": [(1.0, 3.0), (1.0, -0.0), (1.0, 0.0), (0.0, 0.0), (-0.0, 5.0), (INF, INF),
             (1.0, INF), (-1.0, INF), (BIG, TINY), (TINY, 2.0), (NAN, 0.0), (NAN, 2.0), (0.0, -3.0)],
    "fneg": [(0.0,), (-0.0,), (INF,), (NAN,), (1.5,)],
    "fpos": [(-0.0,), (2.5,)],
    "horner": [(0.0,), (-0.0,), (1.0,), (-2.5,), (1e100,), (INF,), (NAN,), (1e-300,)],
    "mean3": [(1.0, 2.0, 4.0), (BIG, BIG, -BIG), (-0.0, -0.0, -0.0), (INF, -INF, 0.0)],
    "lerp": [(0.0, 10.0, 0.5), (1.0, 2.0, 0.0), (1.0, 2.0, 1.0), (-INF, INF, 0.5)],
    "int_by_float": [(1, 3.0), (-7, 0.5), (0, -1.0), (2**53 + 1, 1.0), (1, 0.0), (0, 0.0),
                     (-5, INF)],
    "float_accum": [(0,), (1,), (10,), (1000,)],
    "neg_zero_sum": [(0.0,), (-0.0,), (1.0,), (NAN,)],
}
