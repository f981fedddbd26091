"""Attribute and subscript assignment on objects passed in (mutations are
compared too: both the native call and the oracle get their own deep copy)."""

from types import SimpleNamespace


def set_attr(obj, v: int):
    obj.value = v
    return obj.value + 1


def incr_attr(obj, n: int):
    obj.count += n
    return obj.count


def read_missing(obj):
    return obj.missing


def set_item(xs, i: int, v):
    xs[i] = v
    return xs


def incr_item(xs, i: int):
    xs[i] += 1
    return xs[i]


def swap_items(xs, i: int, j: int):
    xs[i], xs[j] = xs[j], xs[i]
    return xs


def dict_count(words):
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


def nested_set(m, i: int, j: int, v: float):
    m[i][j] = v
    return m


def slice_assign(xs, a: int, b: int, ys):
    xs[a:b] = ys
    return xs


def attr_chain(obj, v: int):
    obj.inner.x = v
    obj.inner.x *= 2
    return obj.inner.x


def fill(xs, v: float) -> int:
    n = len(xs)
    for i in range(n):
        xs[i] = v * i
    return n


def attr_float(obj, x: float) -> float:
    obj.total = obj.total + x
    return obj.total


CASES = {
    "set_attr": [(SimpleNamespace(), 5), (SimpleNamespace(value=1), -1), (None, 1)],
    "incr_attr": [(SimpleNamespace(count=0), 3), (SimpleNamespace(count=2.5), 1),
                  (SimpleNamespace(), 1), (SimpleNamespace(count="a"), 1)],
    "read_missing": [(SimpleNamespace(missing=3),), (SimpleNamespace(),)],
    "set_item": [([1, 2, 3], 0, 9), ([1, 2, 3], -1, "x"), ([1], 5, 0), ((1, 2), 0, 5),
                 ({"a": 1}, 7, "b"), ("abc", 0, "z")],
    "incr_item": [([1, 2, 3], 1), ({0: 1.5}, 0), ([1], 3), ({}, 0)],
    "swap_items": [([1, 2, 3], 0, 2), ([1, 2], 1, 1), ([1, 2], 0, 5)],
    "dict_count": [(["a", "b", "a"],), ([],), ("mississippi",)],
    "nested_set": [([[0.0, 0.0], [0.0, 0.0]], 1, 0, 2.5), ([[1.0]], 0, 0, -0.0), ([[1.0]], 1, 0, 1.0)],
    "slice_assign": [([1, 2, 3, 4], 1, 3, [9]), ([1, 2], 0, 0, (7, 8)), ([1], 0, 1, [])],
    "attr_chain": [(SimpleNamespace(inner=SimpleNamespace(x=0)), 21), (SimpleNamespace(), 1)],
    "fill": [([0.0, 0.0, 0.0], 1.5), ([], 2.0), ([0] * 4, -0.0)],
    "attr_float": [(SimpleNamespace(total=1.0), 2.5), (SimpleNamespace(total=float("nan")), 1.0)],
}
