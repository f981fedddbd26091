"""while loops with break, continue and else."""


def count_down(n: int) -> int:
    steps = 0
    while n > 0:
        n -= 1
        steps += 1
    return steps


def first_multiple(start: int, k: int, limit: int) -> int:
    x = start
    while x < limit:
        if x % k == 0:
            break
        x += 1
    else:
        return -1
    return x


def sum_skip_odd(n: int) -> int:
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 2 is 1:
            continue
        s += i
    return s


def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def while_else_runs(n: int) -> int:
    r = 0
    while n > 0:
        n -= 2
        r += 1
    else:
        r += 100
    return r


def while_true_break(n: int) -> int:
    i = 0
    while True:
        i += 1
        if i * i > n:
            break
    return i


def isqrt_newton(n: int) -> int:
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


def gcd_loop(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def continue_else(n: int) -> int:
    i = 0
    hits = 0
    while i < n:
        i += 1
        if i % 3:
            continue
        hits += 1
    else:
        hits = -hits
    return hits


def float_halving(x: float) -> int:
    n = 0
    while x > 1.0:
        x = x / 2.0
        n += 1
    return n


CASES = {
    "count_down": [(0,), (1,), (100,), (-5,)],
    "first_multiple": [(10, 7, 100), (10, 7, 12), (-10, 4, 0), (5, 5, 6), (0, 3, 0)],
    "sum_skip_odd": [(0,), (1,), (10,), (101,)],
    "collatz_steps": [(1,), (6,), (27,), (97,), (837799,)],
    "while_else_runs": [(0,), (5,), (6,), (-1,)],
    "while_true_break": [(0,), (1,), (99,), (100,), (10**12,)],
    "isqrt_newton": [(0,), (1,), (15,), (16,), (10**18,), (2**63 - 2,)],
    "gcd_loop": [(12, 18), (0, 5), (5, 0), (-12, 18), (12, -18), (2**62, 2**40), (17, 13)],
    "continue_else": [(0,), (3,), (10,)],
    "float_halving": [(1.0,), (1024.0,), (1e308,), (float("nan"),), (-1.0,)],
}
