import math
from os import path as p


def f(x: int) -> int:
    total = x + offset          # KILN020: bound nowhere in the module
    total += offset             # reported once per name
    return total + later + counter + math.floor(1.5) + len(__name__) + int(p is None)


def g(x: float) -> float:
    if x > 0:
        raise ValueError("negative")  # a builtin: no warning
    return x * scale + missing_too    # `scale` is bound below; `missing_too` is not


def h() -> None:
    global counter              # h binds `counter` in the module
    counter = 1


later = 2
scale = 3.0
