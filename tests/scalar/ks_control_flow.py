"""Conditional expressions and if/elif/else chains."""


def classify(a: int) -> str:
    if a < 0:
        return "negative"
    elif a == 0:
        return "zero"
    elif a < 10:
        return "small"
    else:
        return "large"


def abs_cond(a: int) -> int:
    return a if a >= 0 else -a


def cond_mixed(a: int, x: float):
    return a if a > x else x


def nested_cond(a: int, b: int) -> int:
    return (a if a > b else b) if a + b > 0 else (a - b if a > b else b - a)


def fizzbuzz(n: int) -> str:
    if n % 15 == 0:
        return "FizzBuzz"
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    return str(n)


def grade(score: float) -> str:
    if score >= 90.0:
        g = "A"
    elif score >= 80.0:
        g = "B"
    elif score >= 70.0:
        g = "C"
    else:
        g = "F"
    return g


def nested_if(a: int, b: int) -> int:
    r = 0
    if a > 0:
        if b > 0:
            r = 1
        else:
            r = 2
    else:
        if b > 0:
            r = 3
        elif b == 0:
            r = 4
    return r


def no_return(a: int):
    if a > 0:
        return a


def pass_branch(a: int) -> int:
    if a > 0:
        pass
    else:
        a = 0
    return a


def cond_short_circuit(a: int, b: int) -> int:
    return a // b if b != 0 else 0


CASES = {
    "classify": [(-5,), (0,), (3,), (10,), (2**63 - 1,), (-2**63,)],
    "abs_cond": [(0,), (-7,), (7,), (-2**63 + 1,)],
    "cond_mixed": [(3, 2.5), (2, 2.5), (2, 2.0), (1, float("nan"))],
    "nested_cond": [(3, 1), (1, 3), (-3, 1), (1, -3), (-1, -1)],
    "fizzbuzz": [(15,), (9,), (10,), (7,), (0,), (-3,)],
    "grade": [(95.0,), (90.0,), (89.999,), (70.0,), (float("nan"),), (float("inf"),)],
    "nested_if": [(1, 1), (1, -1), (-1, 1), (-1, 0), (-1, -1), (0, 0)],
    "no_return": [(5,), (-5,), (0,)],
    "pass_branch": [(5,), (-5,)],
    "cond_short_circuit": [(7, 2), (7, 0), (-7, 2)],
}
