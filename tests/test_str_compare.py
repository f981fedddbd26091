"""`x == "literal"` and `x != "literal"` (either side, in chains, in `if`,
`elif`, match value patterns): an exact str is compared by its text inline,
as str.__eq__ would (emit.c kl_str_compare); anything else, a str subclass
with its own __eq__ included, goes through PyObject_RichCompare as before.
Each function is compared with its Python original on many values: ASCII,
Latin-1, BMP and astral text (every PyUnicode kind), equal text in a
different object, the empty string, lone surrogates, str subclasses (with
and without __eq__, which must be called when Python calls it, on the side
Python calls it), and non-str objects (int, None, bytes, an object whose
__eq__ answers anything).

Only kiln and the standard library are imported.
"""

from __future__ import annotations

import textwrap

import pytest

import kiln

SRC = textwrap.dedent(r'''
    LOG = []

    class Sub(str):
        pass

    class LoudSub(str):
        def __eq__(self, other):
            LOG.append(("eq", str(self), other))
            return NotImplemented if str(self) == "defer" else str.__eq__(self, other)
        def __ne__(self, other):
            LOG.append(("ne", str(self), other))
            return str.__ne__(self, other)
        __hash__ = str.__hash__

    class Anything:
        def __eq__(self, other):
            LOG.append(("any-eq", other))
            return "yes"
        def __ne__(self, other):
            LOG.append(("any-ne", other))
            return 0

    def eq(x):
        return x == "relu", "relu" == x, x != "relu", "relu" != x

    def wide(x):
        return x == "é", x == "😀x", x == "\u20ac", x != "", x == "\ud800"

    def chain(x, y):
        return x == "a" == y, "a" == x != y, x != "a" == y

    def branch(x) -> int:
        if x == "relu":
            return 1
        elif x == "gelu":
            return 2
        elif "tanh" == x:
            return 3
        return 0

    def matched(x) -> int:
        match x:
            case "relu":
                return 1
            case "gelu" | "silu":
                return 2
            case "":
                return 3
            case _:
                return 0

    def counted(xs: list) -> int:
        n = 0
        for x in xs:
            if x != "skip":
                n += 1
        return n
''')

NAMES = ["eq", "wide", "chain", "branch", "matched", "counted"]


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    d = tmp_path_factory.mktemp("strcmp")
    (d / "strcmp_mod.py").write_text(SRC, encoding="utf-8")
    return kiln.build(str(d / "strcmp_mod.py"), out_dir=str(d))


def values(m):
    return ["relu", "".join(["re", "lu"]), "gelu", "tanh", "silu", "", "é", "😀x", "\u20ac", "\ud800",
            "relu2", "rel", "RELU", "a", "b", m.Sub("relu"), m.Sub("x"), m.LoudSub("relu"),
            m.LoudSub("defer"), m.LoudSub("a"), m.Anything(), 1, None, b"relu", 2.5, ("relu",)]


def run(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:
        return "raised", type(e).__name__, str(e)


def check(m, name, *args):
    m.LOG.clear()
    want = run(m.__kiln_python__[name], *args)
    want_log = m.LOG[:]
    m.LOG.clear()
    got = run(getattr(m, name), *args)
    assert got == want and type(got[-1]) is type(want[-1]), (name, args, got, want)
    assert m.LOG == want_log, (name, args, m.LOG, want_log)


@pytest.mark.parametrize("name", ["eq", "wide", "branch", "matched"])
def test_one_value(mod, name):
    for v in values(mod):
        check(mod, name, v)


def test_chain(mod):
    vs = values(mod)
    for x in vs[:12] + vs[15:21]:
        for y in ("a", "b", mod.LoudSub("a"), mod.Anything(), 3):
            check(mod, "chain", x, y)


def test_loop(mod):
    check(mod, "counted", ["skip", "".join(["sk", "ip"]), "x", mod.LoudSub("skip"), 3, None] * 5)


def test_native(mod):
    for name in NAMES:
        assert getattr(mod, name) is not mod.__kiln_python__[name], name
