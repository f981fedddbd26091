"""Floor division and modulo: Python flooring with negative operands."""

I64_MAX = 2**63 - 1
I64_MIN = -2**63


def floordiv(a: int, b: int) -> int:
    return a // b


def mod(a: int, b: int) -> int:
    return a % b


def divmod_pair(a: int, b: int):
    return a // b, a % b


def identity_check(a: int, b: int) -> bool:
    return (a // b) * b + a % b == a  # OVF


def ffloordiv(x: float, y: float) -> float:
    return x // y


def fmod_(x: float, y: float) -> float:
    return x % y


def mixed_floordiv(a: int, y: float) -> float:
    return a // y


def mixed_mod(x: float, b: int) -> float:
    return x % b


def digit_sum(n: int) -> int:
    if n < 0:
        n = -n
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


INT_PAIRS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, 5), (0, -5),
             (1, I64_MAX), (-1, I64_MAX), (I64_MAX, -1), (I64_MIN, 2), (I64_MIN, -2),
             (I64_MIN, I64_MAX), (I64_MAX, I64_MIN), (I64_MIN, I64_MIN), (5, 0), (0, 0)]

CASES = {
    "floordiv": INT_PAIRS,
    "mod": INT_PAIRS + [(I64_MIN, -1), (I64_MIN, 1), (-1, 3)],
    "divmod_pair": [(7, 3), (-7, 3), (7, -3), (-7, -3), (I64_MIN, 7), (3, 0)],
    "identity_check": [(17, 5), (-17, 5), (17, -5), (-17, -5), (I64_MIN, 2), (I64_MAX, 7), (I64_MIN, -7)],
    "ffloordiv": [(7.0, 2.0), (-7.0, 2.0), (7.0, -2.0), (-7.5, -2.0), (-0.0, 1.0),
                  (0.0, -1.0), (1.0, float("inf")), (-1.0, float("inf")),
                  (float("inf"), 1.0), (float("nan"), 1.0), (1e308, 1e-308), (1.0, 0.0),
                  (0.0, 0.0), (5.5, 0.1)],
    "fmod_": [(7.0, 2.0), (-7.0, 2.0), (7.0, -2.0), (-7.5, -2.0), (-0.0, 3.0), (0.0, -3.0),
              (-1.0, 3.0), (1.0, float("inf")), (-1.0, float("inf")), (1.0, float("-inf")),
              (float("inf"), 1.0), (float("nan"), 2.0), (1.0, 0.0), (5.5, 0.1), (-1e-300, 1e300)],
    "mixed_floordiv": [(7, 2.0), (-7, 2.0), (7, -0.5), (0, -1.0), (3, 0.0)],
    "mixed_mod": [(7.5, 2), (-7.5, 2), (7.5, -2), (-0.0, 5), (1.0, 0)],
    "digit_sum": [(0,), (9,), (1234,), (-1234,), (I64_MAX,), (I64_MIN + 1,)],
}

# (a // b) * b floors below INT64_MIN / above INT64_MAX before `% b` brings it back.
OVERFLOW = {
    "identity_check": [(I64_MIN, 3), (I64_MAX, -3)],
}
