"""Unbound locals (UnboundLocalError) and undefined globals (NameError)."""


def maybe_unbound(flag: bool) -> int:
    if flag:
        y = 1
    return y


def unbound_after_empty_loop(n: int) -> int:
    for i in range(n):
        pass
    return i


def used_before_assign(x: int) -> int:
    if x > 0:
        return z + 1
    z = x
    return z


def unbound_float(x: float) -> float:
    if x > 0.0:
        r = x * 2.0
    elif x < 0.0:
        r = -x
    return r


def unbound_obj(xs):
    for v in xs:
        last = v
    return last


def undefined_global(x: int) -> int:
    return x + undefined_name_kiln_test


def unbound_in_while(n: int) -> int:
    while n > 0:
        acc = n
        n -= 1
    return acc


def unbound_in_branch_loop(n: int) -> int:
    total = 0
    for i in range(n):
        if i == 3:
            seen = i
        total += i
    return total + seen


CASES = {
    "maybe_unbound": [(True,), (False,)],
    "unbound_after_empty_loop": [(3,), (0,), (-1,)],
    "used_before_assign": [(0,), (-5,), (5,)],
    "unbound_float": [(1.0,), (-1.0,), (0.0,), (float("nan"),)],
    "unbound_obj": [([1, 2],), ([],), ("ab",)],
    "undefined_global": [(1,)],
    "unbound_in_while": [(3,), (0,)],
    "unbound_in_branch_loop": [(5,), (3,)],
}
