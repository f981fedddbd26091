"""for loops over range with every kind of step, for/else, loop variable after the loop."""

I64_MAX = 2**63 - 1
I64_MIN = -2**63


def sum_range(start: int, stop: int, step: int) -> int:
    s = 0
    for i in range(start, stop, step):
        s += i  # OVF
    return s


def count_range(start: int, stop: int, step: int) -> int:
    c = 0
    for _ in range(start, stop, step):
        c += 1
    return c


def last_value(start: int, stop: int, step: int) -> int:
    for i in range(start, stop, step):
        pass
    return i


def range1(n: int) -> int:
    s = 0
    for i in range(n):
        s = s * 3 + i
    return s


def range2(a: int, b: int) -> int:
    s = 0
    for i in range(a, b):
        s ^= i * (i + 3)
    return s


def find_index(n: int, target: int) -> int:
    for i in range(n):
        if i * i == target:
            break
    else:
        return -1
    return i


def for_else_no_break(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    else:
        total += 1000
    return total


def modify_loop_var(n: int) -> int:
    s = 0
    for i in range(n):
        i = i * 10
        s += i
    return s


def reversed_digits(n: int) -> int:
    r = 0
    p = 1
    for k in range(19):
        if n < p:
            break
        r = r * 10 + (n // p) % 10
        if k < 18:
            p *= 10
    return r


def loop_with_continue(n: int) -> int:
    s = 0
    for i in range(-n, n + 1):
        if i % 3 == 0:
            continue
        s += i * i
    return s


def edge_range(start: int, stop: int) -> int:
    c = 0
    for i in range(start, stop):
        c += 1
        last = i
    return c * 1000 + (last - start)


def float_sum_range(n: int) -> float:
    s = 0.0
    for i in range(1, n + 1):
        s += 1.0 / i
    return s


CASES = {
    "sum_range": [(0, 10, 1), (0, 10, 3), (10, 0, -1), (10, 0, -3), (0, 10, -1), (10, 0, 1),
                  (-5, 5, 2), (5, -5, -2), (0, 0, 1), (0, 10, 0), (0, 1, I64_MAX),
                  (0, 100, 7), (I64_MAX - 1, I64_MAX, 1)],
    "count_range": [(0, 10, 1), (0, 10, 4), (-10, 10, 5), (10, -10, -5), (3, 3, -1),
                    (I64_MIN, I64_MAX, 2**62), (I64_MAX, I64_MIN, -2**62), (5, 6, 0),
                    (I64_MAX - 1, I64_MAX, I64_MAX), (I64_MIN, I64_MIN + 2, 1)],
    "last_value": [(0, 10, 1), (0, 10, 3), (10, 0, -4), (0, 0, 1), (I64_MAX - 3, I64_MAX, 1),
                   (I64_MIN + 3, I64_MIN, -1), (I64_MIN, I64_MAX, I64_MAX), (I64_MAX, I64_MIN, I64_MIN),
                   (0, 5, 0)],
    "range1": [(0,), (1,), (5,), (-3,)],
    "range2": [(0, 16), (-8, 8), (5, 1)],
    "find_index": [(10, 49), (10, 50), (0, 0), (5, 0)],
    "for_else_no_break": [(0,), (4,)],
    "modify_loop_var": [(0,), (5,)],
    "reversed_digits": [(0,), (1234,), (1000,), (987654321,), (2**62,)],
    "loop_with_continue": [(0,), (5,), (20,)],
    "edge_range": [(I64_MAX - 5, I64_MAX), (I64_MIN, I64_MIN + 3), (0, 0)],
    "float_sum_range": [(0,), (1,), (10,), (1000,)],
}

OVERFLOW = {
    "sum_range": [(I64_MAX - 3, I64_MAX, 1), (I64_MIN + 3, I64_MIN, -1)],
}
