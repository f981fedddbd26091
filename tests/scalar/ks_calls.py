"""Functions calling other functions of the same module; recursion."""

LIMIT = 1000


def square(x: int) -> int:
    return x * x


def sum_squares(n: int) -> int:
    s = 0
    for i in range(n):
        s += square(i)
    return s


def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def fact(n: int) -> int:
    if n <= 1:
        return 1
    return n * fact(n - 1)  # OVF


def gcd_rec(a: int, b: int) -> int:
    if b == 0:
        return a
    return gcd_rec(b, a % b)


def is_even(n: int) -> bool:
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n: int) -> bool:
    if n == 0:
        return False
    return is_even(n - 1)


def ackermann(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


def hyp(x: float, y: float) -> float:
    return (x * x + y * y) ** 0.5


def dist_sum(n: int) -> float:
    t = 0.0
    for i in range(n):
        t += hyp(float(i), 1.0)
    return t


def power(b: float, e: int) -> float:
    if e == 0:
        return 1.0
    if e < 0:
        return 1.0 / power(b, -e)
    half = power(b, e // 2)
    if e % 2 == 0:
        return half * half
    return half * half * b


def apply_limit(x: int) -> int:
    return min(x, LIMIT)


def describe(n: int) -> str:
    return "even" if is_even(abs(n) % 10) else "odd"


def call_object(f, x):
    return f(x)


def raise_if_negative(x: int) -> int:
    if x < 0:
        raise ValueError("negative input: " + str(x))
    return x * 2


def uses_raiser(x: int) -> int:
    return raise_if_negative(x) + raise_if_negative(x + 1)


def depth(n: int) -> int:
    if n == 0:
        return 0
    return 1 + depth(n - 1)


CASES = {
    "square": [(0,), (-3,), (3037000499,)],
    "sum_squares": [(0,), (10,), (1000,)],
    "fib": [(0,), (1,), (2,), (10,), (20,), (-3,)],
    "fact": [(0,), (1,), (5,), (20,), (-4,)],
    "gcd_rec": [(48, 18), (18, 48), (0, 7), (-48, 18), (2**62, 6)],
    "is_even": [(0,), (7,), (10,)],
    "is_odd": [(0,), (7,), (10,)],
    "ackermann": [(0, 0), (1, 2), (2, 3), (3, 3)],
    "hyp": [(3.0, 4.0), (0.0, -0.0), (float("inf"), 1.0)],
    "dist_sum": [(0,), (5,), (100,)],
    "power": [(2.0, 10), (2.0, -2), (0.5, 3), (0.0, -1), (-1.5, 7), (10.0, 400)],
    "apply_limit": [(5,), (1000,), (10**15,)],
    "describe": [(4,), (7,), (-13,)],
    "call_object": [(abs, -3), (str, 7), (len, "abc")],
    "raise_if_negative": [(3,), (-3,), (0,)],
    "uses_raiser": [(1,), (-1,), (-5,)],
    "depth": [(0,), (50,), (500,)],
}

OVERFLOW = {
    "fact": [(21,), (25,)],
}
