"""Strings, lists, dicts and None through unannotated parameters (per-site
Python fallback with exact Python semantics, messages included)."""


def concat(a, b):
    return a + b


def repeat(s, n: int):
    return s * n


def index_at(s, i: int):
    return s[i]


def slice_of(s, a: int, b: int):
    return s[a:b]


def upper_split(s):
    return s.upper().split(",")


def join_words(sep, words):
    return sep.join(words)


def count_in(xs, x) -> int:
    c = 0
    for v in xs:
        if v == x:
            c += 1
    return c


def contains(container, key) -> bool:
    return key in container


def dict_get(d, key):
    return d.get(key, 0) + 1


def dict_lookup(d, key):
    return d[key]


def sum_list(xs):
    total = 0
    for v in xs:
        total = total + v
    return total


def sum_ints_typed(xs) -> int:
    total = 0
    n = len(xs)
    for i in range(n):
        total += xs[i]
    return total


def is_none(x) -> bool:
    return x is None


def none_or(x, default):
    if x is not None:
        return x
    return default


def compare_objs(a, b):
    return (a < b, a == b, a != b)


def build_list(n: int):
    out = []
    for i in range(n):
        out.append(i * i)
    return out


def build_dict(keys):
    d = {}
    i = 0
    for k in keys:
        d[k] = i
        i += 1
    return d


def tuple_literal(a: int, b):
    return (a, b, [a, b], {"a": a})


def mod_format(fmt, x):
    return fmt % x


def negate_obj(x):
    return -x


def obj_plus_int(x, n: int):
    return x + n


def method_chain(s):
    return s.strip().replace(" ", "_").lower()


def set_ops(a, b):
    return sorted(a & b), sorted(a | b)


def small_is(i: int, j: int) -> bool:
    """`is` between ints compares identity (Python's semantics, left to the
    fallback): for the small ints CPython caches (-5..256) that is equality."""
    return i % 4 is j % 4


def chain_is(a: int, b: int, p: bool, q: bool) -> bool:
    """A chain holding `is` / `is not` (found by the fuzzer: it was taken for a
    scalar comparison and indexed past the rich-comparison table)."""
    return a < b is not p is q


CASES = {
    "concat": [("ab", "cd"), ([1], [2, 3]), ((1,), (2,)), (1, 2.5), ("a", 1), ([1], (2,)), (None, 1)],
    "repeat": [("ab", 3), ("ab", 0), ("ab", -1), ([0], 4), ((1, 2), 2)],
    "index_at": [("hello", 0), ("hello", -1), ("hello", 5), ([1, 2, 3], -3), ((1,), 1), ({0: "z"}, 0)],
    "slice_of": [("hello", 1, 3), ("hello", -3, -1), ("hello", 3, 1), ([1, 2, 3, 4], 0, 100)],
    "upper_split": [("a,b,c",), ("",), ("x",)],
    "join_words": [("-", ["a", "b"]), ("", ("x", "y")), (", ", []), ("-", [1, 2])],
    "count_in": [([1, 2, 1, 1], 1), ("banana", "a"), ((), 0), ([1.0, 1, True], 1)],
    "contains": [([1, 2], 2), ({"a": 1}, "a"), ("hello", "ell"), ("hello", "z"), ((1,), 2)],
    "dict_get": [({"a": 1}, "a"), ({"a": 1}, "b"), ({}, None)],
    "dict_lookup": [({"a": 1}, "a"), ({"a": 1}, "b"), ({1: "x"}, 1.0), ({}, (1, 2))],
    "sum_list": [([],), ([1, 2, 3],), ([1.5, 2],), (["a"],), ((True, 2),)],
    "sum_ints_typed": [([],), ([1, 2, 3],), ((10, -20),)],
    "is_none": [(None,), (0,), ("",)],
    "none_or": [(None, 5), (0, 5), ("x", 5)],
    "compare_objs": [("a", "b"), ([1, 2], [1, 3]), ((1,), (1,)), (1, 1.0), ("a", 1)],
    "build_list": [(0,), (5,)],
    "build_dict": [(["a", "b", "a"],), ("xyz",)],
    "tuple_literal": [(1, "x"), (-5, None)],
    "mod_format": [("%d items", 5), ("%.2f", 3.14159), ("%s-%s", ("a", "b")), ("%d", "x")],
    "negate_obj": [(5,), (2.5,), (2**70,), ("s",)],
    "obj_plus_int": [(1, 2), (2**63 - 1, 1), (1.5, 2), ("a", 1)],
    "method_chain": [("  Hello World  ",), ("",)],
    "set_ops": [({1, 2, 3}, {2, 3, 4}), (set(), {1})],
    "small_is": [(1, 5), (2, 3), (-3, 1), (2**63 - 1, 3), (-2**63, 0), (7, 7)],
    "chain_is": [(1, 2, True, True), (1, 2, True, False), (3, 2, True, True), (0, 0, False, False),
                 (-1, 5, False, False)],
}
