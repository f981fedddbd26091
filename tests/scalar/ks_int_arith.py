"""int arithmetic on int64 values (results stay inside int64)."""

I64_MAX = 2**63 - 1
I64_MIN = -2**63


def add(a: int, b: int) -> int:
    return a + b


def sub(a: int, b: int) -> int:
    return a - b


def mul(a: int, b: int) -> int:
    return a * b


def neg(a: int) -> int:
    return -a


def pos(a: int) -> int:
    return +a


def poly(x: int) -> int:
    return 3 * x * x - 7 * x + 2


def true_div(a: int, b: int) -> float:
    return a / b


def precedence(a: int, b: int, c: int) -> int:
    return a + b * c - (a - b) * c


def mixed_float(a: int, x: float) -> float:
    return a * x + a


def int_literals() -> int:
    return 0x7F + 0o17 + 0b101 + 1_000_000


def sum_to(n: int) -> int:
    total = 0
    i = 1
    while i <= n:
        total = total + i
        i = i + 1
    return total


def bool_arith(p: bool, q: bool) -> int:
    return p + q * 2 - p * q


def locals_chain(a: int) -> int:
    b = a * 2
    c = b - a
    d = c * c - b
    return d + 1


CASES = {
    "add": [(0, 0), (1, -1), (-1, -1), (I64_MAX, 0), (I64_MAX - 1, 1),
            (I64_MIN, 0), (I64_MIN + 1, -1), (I64_MAX, I64_MIN), (123456789, 987654321)],
    "sub": [(0, 0), (5, 7), (-5, -7), (I64_MIN, -1), (I64_MAX, I64_MAX),
            (0, I64_MAX), (-1, I64_MAX), (I64_MIN, I64_MIN)],
    "mul": [(0, I64_MIN), (-1, I64_MAX), (I64_MIN, 1), (3037000499, 3037000499),
            (-3037000499, 3037000499), (2**31, 2**31), (2**62, 1), (-2**62, 2), (7, -6)],
    "neg": [(0,), (1,), (-1,), (I64_MAX,), (I64_MIN + 1,)],
    "pos": [(0,), (-5,), (I64_MIN,)],
    "poly": [(0,), (1,), (-1,), (2,), (1000000,), (-1000000,), (1_000_000_000,)],
    "true_div": [(1, 2), (-7, 2), (1, 3), (7, -1), (0, -5), (0, 5), (I64_MAX, 1),
                 (2**53 + 1, 1), (5258986265376043509, 888601),
                 (4154830492154097476, 495188), (I64_MIN, -1), (5, 0), (0, 0)],
    "precedence": [(1, 2, 3), (-1, -2, -3), (0, 0, 0), (10, 3, -4)],
    "mixed_float": [(2, 1.5), (0, -0.0), (-1, 0.0), (3, float("inf")), (0, float("inf")),
                    (1, float("nan")), (2**53 + 1, 1.0), (-4, -0.25)],
    "int_literals": [()],
    "sum_to": [(0,), (1,), (10,), (1000,), (-5,)],
    "bool_arith": [(True, True), (True, False), (False, True), (False, False)],
    "locals_chain": [(0,), (7,), (-7,), (1 << 30,)],
}
