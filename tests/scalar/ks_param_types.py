"""Entry checks of annotated parameters and the accepted conversions:
float parameters accept ints (converted to float), int parameters accept
bools. TYPE_ERRORS lists calls the native function must refuse with a
TypeError whose message names the argument (no oracle comparison: plain
Python does not check annotations). Parameter names are distinctive so the
message check is meaningful."""


def int_twice(amount: int) -> int:
    return amount * 2


def float_half(ratio: float) -> float:
    return ratio / 2.0


def float_plus_zero(ratio: float) -> float:
    return ratio + 0.0


def float_floor(ratio: float) -> float:
    return ratio // 1.0


def bool_pick(flag: bool, first: int, second: int) -> int:
    if flag:
        return first
    return second


def two_kinds(count: int, scale: float) -> float:
    return count * scale


def untyped_any(item, times: int):
    return item * times


def int_from_bool_arith(amount: int) -> int:
    return amount + 10


CASES = {
    "int_twice": [(0,), (-4,), (True,), (False,), (2**62 - 1,), (-2**62,)],
    "float_half": [(3.0,), (3,), (-1,), (0,), (2**53 + 1,), (-0.0,), (float("inf"),),
                   (2**63 - 1,)],
    "float_plus_zero": [(7,), (-0.0,), (0,), (2**63 - 1,), (-2**63,)],
    "float_floor": [(2.5,), (-2.5,), (-0.0,), (float("nan"),)],
    "bool_pick": [(True, 1, 2), (False, 1, 2), {"args": (True,), "kwargs": {"first": 3, "second": 4}}],
    "two_kinds": [(3, 0.5), (True, 2.5), (0, float("nan")), (-2, -0.0)],
    "untyped_any": [("ab", 2), ([1], 3), (2.5, 2), (None, 1), ("x", True)],
    "int_from_bool_arith": [(True,), (False,), (-10,)],
}

TYPE_ERRORS = {
    "int_twice": [{"args": (1.5,), "arg": "amount"}, {"args": ("3",), "arg": "amount"},
                  {"args": (None,), "arg": "amount"}, {"args": (2.0,), "arg": "amount"},
                  {"args": (), "kwargs": {"amount": [1]}, "arg": "amount"}],
    "float_half": [{"args": ("1.0",), "arg": "ratio"}, {"args": (None,), "arg": "ratio"},
                   {"args": ([1.0],), "arg": "ratio"}, {"args": (1 + 2j,), "arg": "ratio"}],
    "bool_pick": [{"args": (None, 1, 2), "arg": "flag"}, {"args": ("yes", 1, 2), "arg": "flag"},
                  {"args": (True, 1.0, 2), "arg": "first"}, {"args": (True, 1, "2"), "arg": "second"}],
    "two_kinds": [{"args": (1.5, 2.0), "arg": "count"}, {"args": (1, "2.0"), "arg": "scale"},
                  {"args": (), "kwargs": {"count": 1, "scale": None}, "arg": "scale"}],
    "untyped_any": [{"args": ("ab", 2.0), "arg": "times"}],
}
