"""Keyword arguments, defaults and keyword-only parameters.

Entries with "binding": True expect an argument-binding TypeError
(missing/duplicate/unexpected/too many arguments): only the type is compared."""

SCALE = 3


def scaled(x: float, factor: float = 2.0, offset: float = 0.0) -> float:
    return x * factor + offset


def clamp(x: int, *, lo: int = 0, hi: int = 10) -> int:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def mixed_defaults(a: int, b: int = 5, c: bool = False):
    if c:
        return a - b
    return a + b


def default_from_const(x: int, k: int = SCALE) -> int:
    return x * k


def required_kwonly(a: int, *, b: int) -> int:
    return a * 10 + b


def object_default(x, acc=None):
    if acc is None:
        acc = []
    acc.append(x)
    return acc


def str_default(name, greeting="hello"):
    return greeting + ", " + name


def caller_kw(x: int) -> int:
    return clamp(x, hi=5) + clamp(x, lo=-5, hi=0) + default_from_const(x) + required_kwonly(x, b=2)


def caller_float_kw(x: float) -> float:
    return scaled(x, offset=1.0) + scaled(x, 0.5) + scaled(factor=-1.0, x=x)


BINDING = True  # marks argument-binding TypeError cases (type compared only)

CASES = {
    "scaled": [
        (1.5,), (1.5, 3.0), (1.5, 3.0, -1.0),
        {"args": (1.5,), "kwargs": {"offset": 2.0}},
        {"args": (), "kwargs": {"x": 2.0, "factor": 0.5}},
        {"args": (), "kwargs": {"factor": -1.0, "offset": 0.25, "x": 4.0}},
        {"args": (), "kwargs": {"x": float("nan")}},
        {"args": (1.0,), "kwargs": {"x": 2.0}, "binding": BINDING},
        {"args": (), "kwargs": {}, "binding": BINDING},
        {"args": (1.0,), "kwargs": {"scale": 2.0}, "binding": BINDING},
        {"args": (1.0, 2.0, 3.0, 4.0), "kwargs": {}, "binding": BINDING},
    ],
    "clamp": [
        (5,), (-5,), (50,),
        {"args": (5,), "kwargs": {"lo": 6}},
        {"args": (5,), "kwargs": {"hi": 4}},
        {"args": (), "kwargs": {"x": 3, "lo": -1, "hi": 1}},
        {"args": (5, 6), "kwargs": {}, "binding": BINDING},
        {"args": (), "kwargs": {"lo": 1}, "binding": BINDING},
        {"args": (5,), "kwargs": {"mid": 1}, "binding": BINDING},
    ],
    "mixed_defaults": [
        (1,), (1, 2), (1, 2, True),
        {"args": (1,), "kwargs": {"c": True}},
        {"args": (), "kwargs": {"b": 7, "a": 1}},
        {"args": (1, 2), "kwargs": {"b": 3}, "binding": BINDING},
        {"args": (), "kwargs": {}, "binding": BINDING},
    ],
    "default_from_const": [(4,), (4, 0), {"args": (-4,), "kwargs": {"k": -1}}],
    "required_kwonly": [
        {"args": (1,), "kwargs": {"b": 2}},
        {"args": (), "kwargs": {"a": 3, "b": 4}},
        {"args": (1,), "kwargs": {}, "binding": BINDING},
        {"args": (1, 2), "kwargs": {}, "binding": BINDING},
    ],
    "object_default": [(1,), (1, [0]), {"args": (), "kwargs": {"x": "a", "acc": ["b"]}}, (2,)],
    "str_default": [
        ("bob",), ("bob", "hi"),
        {"args": (), "kwargs": {"greeting": "yo", "name": "al"}},
        {"args": ("a", "b", "c"), "kwargs": {}, "binding": BINDING},
    ],
    "caller_kw": [(0,), (3,), (-7,), (12,)],
    "caller_float_kw": [(0.0,), (2.5,), (-0.0,), (float("inf"),)],
}
