"""A name rebound to values of different types: each independent use keeps
its own native type (webs), while merges (if/else, loops) join types."""


def int_then_float(n: int) -> float:
    s = 0
    for i in range(n):
        s = s + i
    s = s / 4
    return s


def float_then_int(x: float) -> int:
    y = x * 2.0
    y = int(y)
    return y + 1


def merge_if(flag: bool, n: int):
    if flag:
        v = n * 2
    else:
        v = n / 2
    return v


def loop_changes_type(n: int):
    acc = 0
    for i in range(n):
        if i == 3:
            acc = acc + 0.5
        else:
            acc = acc + 1
    return acc


def param_rebound(a: int, b: float) -> float:
    a = a * b
    return a + 1.0


def del_and_rebind(n: int):
    t = n + 1
    del t
    t = "text"
    return t * 2


def maybe_bound_in_loop(n: int) -> int:
    for i in range(n):
        last = i * i
    return last


def swap_types(a: int, b: float):
    a, b = b, a
    return a, b


def aug_rebind(n: int) -> float:
    x = n
    x += 1
    x /= 2
    return x


CASES = {
    "int_then_float": [(0,), (1,), (10,), (1000,)],
    "float_then_int": [(0.0,), (1.25,), (-3.75,), (1e10,)],
    "merge_if": [(True, 3), (False, 3), (True, -7), (False, -7)],
    "loop_changes_type": [(0,), (3,), (4,), (10,)],
    "param_rebound": [(2, 1.5), (0, -0.0), (-4, 2.25)],
    "del_and_rebind": [(1,), (5,)],
    "maybe_bound_in_loop": [(1,), (5,), (0,)],
    "swap_types": [(1, 2.5), (-3, 0.0)],
    "aug_rebind": [(0,), (3,), (-8,)],
}
