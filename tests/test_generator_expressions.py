"""Generator expressions that no consumer takes (`g = (x for x in xs)`,
`dict((k, v) for ...)`, one returned or passed on) leave
the function native: kiln evaluates the first iterable and takes its
iterator, then calls the function CPython compiled for the generator
expression (found at bind, like a lambda's), so the generator is CPython's
own. Each function below is run natively and as its Python original
(`module.__kiln_python__[name]`) on fresh inputs, and everything observable
is compared: results, the exception (type and message) and where it was
raised in the generator's frame, the LOG of evaluation order (the first
iterable and its iter() at creation, the rest only as items are taken),
late binding of the variables the generator reads (they are cells: a later
rebinding is what it sees), the generator protocol (send, throw, close,
names), and that the sources are freed once the generator is.

A variable of a comprehension around it that the generator reads is a cell,
a new one each time that comprehension starts (test_lambda.py has more).
Still Python (KILN010), with Python's results: a generator expression
binding a variable with `:=`.
On 3.10 (no columns in code objects) a function with a line that holds
such a generator expression and any other function runs as Python: kiln
cannot tell them apart there (see runtime.c find_lambdas).
"""

from __future__ import annotations

import gc
import sys
import textwrap
import weakref

import pytest

import kiln

SRC = textwrap.dedent('''
    LOG = []

    def log(tag, v):
        LOG.append((tag, v))
        return v

    class Source:
        """An iterable that logs iter() and each item taken."""
        def __init__(self, items, tag="src"):
            self.items, self.tag = list(items), tag
        def __iter__(self):
            LOG.append(("iter", self.tag))
            for v in self.items:
                LOG.append(("item", self.tag, v))
                yield v

    def consume(it):
        return [v for v in it]

    def assigned(xs: list, k: int):
        g = (x * k for x in xs)
        return list(g)

    def late_binding(xs: list, k: int):
        g = (x + k for x in xs)
        k = 100
        return list(g)

    def late_binding_typed(xs: list, n: int):
        g = (x * n for x in xs)
        n += 1
        first = list(g)
        return first, n * 2

    def loop_cells(xs: list):
        gens = []
        for k in range(3):
            gens.append((x * k for x in xs))
        return [list(g) for g in gens]

    def next_default(xs: list, t: int):
        return next((x for x in xs if x > t), None)

    def next_no_default(xs: list, t: int):
        return next(x for x in xs if x > t)

    def builtins_taking(xs: list):
        d = dict((x, x * x) for x in xs)
        f = frozenset(x % 3 for x in xs)
        e = list(enumerate(x for x in xs))
        z = list(zip((x for x in xs), (-x for x in xs)))
        return d, sorted(f), e, z

    def order(xs: list):
        LOG.clear()
        g = (log("elt", x) for x in Source(xs) if log("cond", x) % 2)
        LOG.append(("made",))
        first = next(g)
        LOG.append(("first", first))
        rest = list(g)
        return first, rest, LOG[:]

    def order_nested(rows: list):
        LOG.clear()
        g = (log("elt", (r, c)) for r in Source(rows, "rows") for c in Source(r, "row"))
        LOG.append(("made",))
        out = list(g)
        return out, LOG[:]

    def creation_error(v):
        LOG.clear()
        g = (x for x in log("iterable", v))
        LOG.append(("made",))
        return list(g), LOG[:]

    def inner_error(rows: list):
        g = (y for x in rows for y in x)
        return list(g)

    def element_error(xs: list):
        g = (10 // x for x in xs)
        return list(g)

    def returned(xs: list, k: int):
        return (x - k for x in xs)

    def passed(xs: list):
        return consume(x * 2 for x in xs)

    def protocol(xs: list):
        g = (x for x in xs)
        a = next(g)
        b = g.send(None)
        g.close()
        try:
            next(g)
        except StopIteration:
            c = "stopped"
        return a, b, c

    def thrown(xs: list):
        g = (x for x in xs)
        next(g)
        try:
            g.throw(KeyError("k"))
        except KeyError as e:
            return "thrown", e.args

    def names(xs: list):
        g = (x for x in xs)
        return (g.__name__, g.__qualname__, type(g).__name__, g.gi_code.co_name,
                g.gi_frame is not None, g.gi_running)

    def unbound_free(xs: list, flag: bool):
        g = (x + z for x in xs)
        if flag:
            z = 1
        return list(g)

    def nested_lazy(rows: list):
        g = ((y * 2 for y in r) for r in rows)
        return [list(i) for i in g]

    def inside_comprehension(xs: list, n: int):
        return [sorted(map(abs, (x - n for x in xs))) for _ in range(2)]

    def inside_consumed(rows: list, k: int):
        return sum(len(list(filter(None, (v * k for v in rows)))) for _ in range(3))

    def two_on_a_line(xs: list):
        a = (x for x in xs); b = (-x for x in xs)
        return list(b), list(a)

    def with_lambda(xs: list, k: int):
        f = lambda v: v * k
        g = (f(x) for x in xs)
        return list(g)

    def in_nested_default(xs: list):
        def inner(a=(x * 3 for x in xs)):
            return list(a)
        return inner()

    def in_try(xs: list):
        try:
            g = (1 // x for x in xs)
            return list(g)
        except ZeroDivisionError as e:
            return "caught", str(e)
        finally:
            LOG.append("finally")

    def in_loop(n: int):
        total = 0
        for i in range(n):
            total += sum(list(j * i for j in range(i)))
            g = (j for j in range(i))
            total += len(list(g))
        return total

    def kept(xs: list):
        g = (x for x in xs)
        return g, xs

    def walrus_left(xs: list):
        g = (y := x for x in xs)
        return list(g), y

    def comp_variable(xs: list):
        return [next((x for x in xs if x > t), None) for t in (1, 2)]

    def shadowed_consumer(fs: list, xs: list):
        # `any` is the comprehension's variable there: not the builtin's consumer
        return [any(x for x in xs) for any in fs], list(list for list in xs)

    def phantom_line(xs: list):
        # the lambda in the generator's body is CPython's: on 3.10 (no columns)
        # it must not be taken for h, on the same line
        g = (
            (lambda: 1) for x in xs); h = lambda: 2
        return [f() for f in g], h()

    def phantom_line_genexpr(xs: list):
        g = (
            (y for y in xs) for x in xs); h = lambda: 3
        return [list(i) for i in g], h()

    def comp_variable_late(xs: list):
        gens = [(x * t for x in xs) for t in (1, 2)]
        return [list(g) for g in gens]

    def record(*a, **k):
        LOG.append(("call", a, k))

    def unpacked_before_keyword(xs: list):
        # CPython evaluates the keyword before it iterates the generator
        record(*(log("item", x) for x in xs), k=log("kw", 1))
        record(*(log("item", x) for x in xs), **{"k": log("kw", 2)})

    def multiline(xs: list,
                  k: int):
        g = (
            x * k
            for x in
            xs
            if x
        )
        return list(g)
''')

PYTHON_NAMES = {"walrus_left"}
HELPERS = {"log", "consume", "record"}
# functions with another function on a generator expression's line: Python on 3.10
NO_COLUMN_PYTHON = {"builtins_taking", "two_on_a_line", "nested_lazy", "inside_consumed",
                    "in_nested_default", "shadowed_consumer"}


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    d = tmp_path_factory.mktemp("genexpr")
    path = d / "genexpr_mod.py"
    path.write_text(SRC, encoding="utf-8")
    return kiln.build(str(path), out_dir=str(d))


def frames(tb):
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_name, tb.tb_lineno))
        tb = tb.tb_next
    return out


def run(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:  # compare type, message and the generator's own frames
        inner = [f for f in frames(e.__traceback__) if f[0] == "<genexpr>"]
        return ("raised", type(e).__name__, str(e), inner)


def both(mod, name, *args):
    native, python = getattr(mod, name), mod.__kiln_python__[name]
    mod.LOG.clear()
    want = run(python, *args)
    want_log = mod.LOG[:]
    mod.LOG.clear()
    got = run(native, *args)
    assert got == want, f"{name}{args}: native {got!r} != python {want!r}"
    assert mod.LOG == want_log, f"{name}{args}: LOG {mod.LOG!r} != {want_log!r}"
    return got


CASES = [
    ("assigned", ([1, 2, 3], 4)), ("assigned", ([], 4)),
    ("late_binding", ([1, 2], 3)),
    ("late_binding_typed", ([1, 2], 3)), ("late_binding_typed", ([], -5)),
    ("loop_cells", ([1, 2],)),
    ("next_default", ([1, 5, 9], 4)), ("next_default", ([1, 2], 4)),
    ("next_no_default", ([1, 5], 2)), ("next_no_default", ([1, 2], 7)),
    ("builtins_taking", ([3, 1, 4, 1, 5],)),
    ("order", ([1, 2, 3, 5],)), ("order", ([2, 4, 7],)),
    ("order_nested", ([[1, 2], [], [3]],)),
    ("creation_error", (5,)), ("creation_error", ([7, 8],)), ("creation_error", (None,)),
    ("inner_error", ([[1], 2],)), ("inner_error", ([[1], [2, 3]],)),
    ("element_error", ([5, 0, 1],)), ("element_error", ([5, 2],)),
    ("passed", ([1, 2],)), ("passed", ("ab",)),
    ("protocol", ([1, 2, 3],)), ("protocol", ([1],)),
    ("thrown", ([1, 2],)),
    ("names", ([1],)),
    ("unbound_free", ([1, 2], True)), ("unbound_free", ([1, 2], False)), ("unbound_free", ([], False)),
    ("nested_lazy", ([[1, 2], [3]],)),
    ("inside_comprehension", ([1, -5, 3], 2)),
    ("inside_consumed", ([0, 1, 2], 3)),
    ("two_on_a_line", ([1, 2],)),
    ("with_lambda", ([1, 2], 5)),
    ("in_nested_default", ([1, 2],)),
    ("in_try", ([1, 2],)), ("in_try", ([1, 0],)),
    ("in_loop", (6,)),
    ("walrus_left", ([1, 2],)),
    ("comp_variable", ([0, 2, 5],)), ("phantom_line", ([1, 2],)), ("phantom_line_genexpr", ([1, 2],)), ("shadowed_consumer", ([sum, max], [1, 3])), ("comp_variable_late", ([0, 2, 5],)),
    ("multiline", ([0, 1, 2], 3)),
    ("unpacked_before_keyword", ([1, 2],)), ("unpacked_before_keyword", (5,)),
]


@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_same_as_python(mod, name, args):
    both(mod, name, *args)


def test_returned_generator(mod):
    for fn in (mod.returned, mod.__kiln_python__["returned"]):
        g = fn([5, 6], 1)
        assert type(g).__name__ == "generator"
        assert g.__qualname__ == "returned.<locals>.<genexpr>"
        assert list(g) == [4, 5] and list(g) == []


def test_frees_its_sources(mod):
    """The generator holds its iterator (and so the source); dropping it
    frees them, and the function keeps nothing."""
    class Items(list):
        pass

    for fn in (mod.kept, mod.__kiln_python__["kept"]):
        src = Items([1, 2, 3])
        ref = weakref.ref(src)
        g, same = fn(src)
        assert same is src
        del src, same
        gc.collect()
        assert ref() is not None  # the generator's iterator holds it
        assert next(g) == 1
        del g
        gc.collect()
        assert ref() is None


def test_no_reference_leak(mod):
    """Making and dropping generators leaves the references to the source,
    to the generator's code and to its cells' contents where they were."""
    xs, ys = [1, 2, 3], [4]
    code = mod.returned(ys, 0).gi_code
    mod.with_lambda(xs, 2)
    gc.collect()
    before = [sys.getrefcount(o) for o in (xs, ys, code)]
    for _ in range(2000):
        mod.assigned(xs, 2)
        next(mod.returned(ys, 0))
        mod.with_lambda(xs, 2)
        mod.passed(xs)
    gc.collect()
    assert [sys.getrefcount(o) for o in (xs, ys, code)] == before


def test_status(mod):
    import json
    from pathlib import Path
    report = json.loads(Path(mod.__file__).with_name("genexpr_mod.kiln.json").read_text(encoding="utf-8"))
    status = {f["name"]: f for f in report["functions"]}
    for name, entry in status.items():
        if name in HELPERS:
            continue
        if name in PYTHON_NAMES:
            assert entry["status"] == "python" and entry["code"] == "KILN010", entry
            assert "generator expression" in entry["reason"], entry
            assert getattr(mod, name) is mod.__kiln_python__[name]
        else:
            assert entry["status"] == "native", entry
            bound_native = getattr(mod, name) is not mod.__kiln_python__[name]
            if sys.version_info < (3, 11) and name in NO_COLUMN_PYTHON:
                assert not bound_native, name
            else:
                assert bound_native, name
