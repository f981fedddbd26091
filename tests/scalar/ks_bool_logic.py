"""Boolean logic: short-circuit `and`/`or` returning operands, `not`, truthiness."""


def and_ints(a: int, b: int):
    return a and b


def or_ints(a: int, b: int):
    return a or b


def and_mixed(a: int, x: float):
    return a and x


def or_mixed(x: float, a: int):
    return x or a


def not_int(a: int) -> bool:
    return not a


def not_float(x: float) -> bool:
    return not x


def both_pos(a: int, b: int) -> bool:
    return a > 0 and b > 0


def short_circuit_div(a: int, b: int) -> bool:
    return b != 0 and a // b > 1


def short_circuit_or_div(a: int, b: int) -> bool:
    return b == 0 or a % b == 0


def bool_ops(p: bool, q: bool, r: bool) -> bool:
    return (p and not q) or (q and r) or (not p and not r)


def truthy_int(a: int) -> str:
    if a:
        return "yes"
    return "no"


def or_default(a: int) -> int:
    return a or 42


def obj_and_or(x, y):
    return (x and y, x or y)


def bool_from_cmp(a: int, b: int) -> bool:
    ok = a < b
    return ok and not a == 0


CASES = {
    "and_ints": [(0, 5), (3, 5), (-1, 0), (0, 0)],
    "or_ints": [(0, 5), (3, 5), (0, 0), (-7, 0)],
    "and_mixed": [(0, 2.5), (1, 2.5), (1, -0.0), (-3, float("nan"))],
    "or_mixed": [(0.0, 3), (-0.0, 3), (0.5, 3), (float("nan"), 0)],
    "not_int": [(0,), (1,), (-1,), (2**63 - 1,)],
    "not_float": [(0.0,), (-0.0,), (float("nan"),), (1e-320,)],
    "both_pos": [(1, 1), (0, 1), (1, 0), (-1, -1)],
    "short_circuit_div": [(5, 0), (5, 2), (1, 2), (-9, 2)],
    "short_circuit_or_div": [(5, 0), (6, 3), (7, 3), (-6, -3)],
    "bool_ops": [(p, q, r) for p in (False, True) for q in (False, True) for r in (False, True)],
    "truthy_int": [(0,), (1,), (-2**63,)],
    "or_default": [(0,), (7,), (-1,)],
    "obj_and_or": [("", "b"), ("a", "b"), ([], [1]), (None, 0), ((0,), ()), (0.0, None)],
    "bool_from_cmp": [(1, 2), (0, 2), (3, 2)],
}
