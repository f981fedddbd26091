"""Module-level constants read by compiled functions."""

import math

N_BUCKETS = 16
RATE = 0.25
NEG_ZERO = -0.0
BIG = 2**63 - 1
NAME = "kiln"
PRIMES = (2, 3, 5, 7, 11)
TABLE = {"a": 1, "b": 2}
ENABLED = True
HALF_PI = math.pi / 2
DERIVED = N_BUCKETS * 4 + 1


def bucket(h: int) -> int:
    return h % N_BUCKETS


def decay(x: float, steps: int) -> float:
    for _ in range(steps):
        x = x * (1.0 - RATE)
    return x


def signed_zero() -> float:
    return NEG_ZERO * 1.0


def near_max(d: int) -> int:
    return BIG - d  # OVF


def greet(who):
    return NAME + ":" + who


def nth_prime(i: int) -> int:
    return PRIMES[i]


def table_value(k):
    return TABLE[k]


def gated(x: int) -> int:
    if ENABLED:
        return x + DERIVED
    return x


def quarter_turns(theta: float) -> float:
    return theta / HALF_PI


def local_shadows(x: int) -> int:
    N_BUCKETS = 3
    return x % N_BUCKETS


def raw_bytes(b) -> object:
    # not UTF-8: the module's import failed (UnicodeDecodeError) before the fix
    return b == b"\x00\xff\xfe", b + b"\x80", b"\xff" in b


CASES = {
    "raw_bytes": [(b"\x00\xff\xfe",), (b"",), (b"\xff",)],
    "bucket": [(0,), (17,), (-1,), (2**63 - 1,), (-2**63,)],
    "decay": [(1.0, 0), (1.0, 10), (-0.0, 3), (float("inf"), 5)],
    "signed_zero": [()],
    "near_max": [(0,), (1,), (2**63 - 1,)],
    "greet": [("x",), ("",), (1,)],
    "nth_prime": [(0,), (4,), (-1,), (5,)],
    "table_value": [("a",), ("b",), ("c",)],
    "gated": [(0,), (-65,)],
    "quarter_turns": [(math.pi,), (0.0,), (-math.pi * 2,)],
    "local_shadows": [(10,), (-10,)],
}

OVERFLOW = {
    "near_max": [(-1,), (-2**63,)],
}
