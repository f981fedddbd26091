"""`with` of any context manager, compiled natively (the torch guards kiln
applies itself are tested in test_torch_plugin): each function of SOURCE is
run natively and as its Python original (`module.__kiln_python__[name]`, the
oracle) on the same inputs, and everything a caller can observe must agree:

- the result (type and value), or the exception: type, message, the type and
  message of its __context__ and __cause__, __suppress_context__, and the
  (line, function) entries of its traceback in this source (a native
  function adds the same entries Python's frames would: one where the
  exception first enters it, none when it is re-raised);
- LOG, the order of everything the managers saw: the lookups of __enter__
  and __exit__ (a descriptor on the class records them), the calls and
  their arguments (exception type, message, whether the traceback is the
  exception's), sys.exc_info() inside __exit__, and what the body did;
- sys.exc_info() after the call, also when the call is made inside a
  caller's `except` block.

Managers: ones that suppress or not, whose __enter__/__exit__ raise, a
__exit__ returning a truthy non-bool or an object whose truth raises, classes
missing either method (AttributeError on 3.10, TypeError with the running
version's message from 3.11), instance attributes named __enter__ (ignored:
special lookup reads the type), contextlib's managers and a threading lock.
Exits: the body's end, return (the value computed before __exit__), break
and continue (for and while), exceptions from the body, from the `as` store
(inside the block: __exit__ sees them), nested `with` items, and with/try in
each other. The expected outcome is always the original's on the running
interpreter; the sources are valid on CPython 3.10 to 3.13.
"""

from __future__ import annotations

import sys
import traceback

import pytest

from oracle import build_cache, check_report_status

SOURCE = '''
import contextlib
import sys
import threading

LOG = []


def note(*what):
    LOG.append(what)
    return what[-1] if what else None


class Traced:
    """A method descriptor that notes each lookup through the class."""
    def __init__(self, fn):
        self.fn = fn

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        note("lookup", self.name)
        return self.fn.__get__(obj, owner)


def _exc_info_name():
    e = sys.exc_info()[1]
    return None if e is None else type(e).__name__


class CM:
    def __init__(self, name, result=None, enter_fails=False, exit_fails=False, value=None):
        self.name, self.result = name, result
        self.enter_fails, self.exit_fails = enter_fails, exit_fails
        self.value = self if value is None else value

    @Traced
    def __enter__(self):
        note("enter", self.name)
        if self.enter_fails:
            raise KeyError("enter " + self.name)
        return self.value

    @Traced
    def __exit__(self, t, v, tb):
        note("exit", self.name, t.__name__ if t else None, str(v) if v is not None else None,
             tb is (v.__traceback__ if v is not None else None), _exc_info_name())
        if self.exit_fails:
            raise KeyError("exit " + self.name)
        return self.result


class Truthy:
    def __init__(self, truth):
        self.truth = truth

    def __bool__(self):
        note("bool", self.truth)
        if self.truth is None:
            raise ValueError("no truth")
        return self.truth


class NoEnter:
    def __exit__(self, *a):
        note("exit?")


class NoExit:
    def __enter__(self):
        note("enter?")
        return 1


class InstanceOnly:
    def __init__(self):
        self.__enter__ = lambda: 1
        self.__exit__ = lambda *a: None


def body_end(x: int) -> object:
    with CM("a") as c:
        note("body", c.name)
        y = x * 2
    return [y, c.name]


def body_raises(x: int) -> int:
    with CM("a"):
        note("body")
        y = 10 // x
    return y


def suppressing(x: int) -> int:
    y = -1
    with CM("s", result=True):
        y = 10 // x
        y += 1
    return y


def truthy_result(x: int, truth: object) -> int:
    y = -1
    with CM("t", result=Truthy(truth)):
        y = 10 // x
    return y


def enter_fails(x: int) -> int:
    with CM("e", enter_fails=True):
        note("never")
    return x


def exit_fails(x: int) -> int:
    with CM("f", exit_fails=True):
        if x:
            raise ValueError(x)
    return x


def returns(x: int) -> object:
    with CM("r"):
        return note("value", x + 1)


def return_then_exit_fails(x: int) -> object:
    with CM("r", exit_fails=True):
        return note("value", x)


def nested_items(x: int) -> object:
    with CM("o") as o, CM("i", result=x == 2) as i:
        if x == 1:
            return [o.name, i.name]
        z = 10 // (x - 2)
    return z if x != 2 else None


def nested_blocks(x: int) -> object:
    with CM("o", result=x == 3):
        with CM("i", exit_fails=x == 4):
            note("inner", x)
            if x == 0:
                raise IndexError("deep")
        note("between")
        if x == 3:
            raise OSError("outer body")
    return x


def for_exits(n: int) -> int:
    s = 0
    for k in range(n):
        with CM(str(k), result=k == 6):
            if k == 2:
                continue
            if k == 4:
                break
            if k == 6:
                raise ValueError("six")
            s += k
    return s


def while_exits(n: int) -> int:
    s = 0
    k = 0
    while k < n:
        k += 1
        with CM(str(k)):
            if k == 2:
                continue
            s += k
            if k == 3:
                break
    else:
        s += 100
    return s


def as_targets(x: object) -> object:
    with CM("u", value=x) as (a, b):
        note("unpacked", a, b)
    return [a, b]


def as_attribute(box: object, x: int) -> object:
    with CM("t", value=x) as box.v:
        note("stored", box.v)
    return box.v


def in_try(x: int) -> object:
    try:
        with CM("t"):
            return 10 // x
    except ZeroDivisionError as e:
        return ["caught", str(e)]
    finally:
        note("finally")


def try_in_with(x: int) -> object:
    with CM("w"):
        try:
            y = 10 // x
        except ZeroDivisionError:
            note("handler", _exc_info_name())
            raise
        finally:
            note("finally", _exc_info_name())
    return y


def in_handler(x: int) -> object:
    try:
        raise KeyError(x)
    except KeyError:
        with CM("h", result=x > 0):
            raise ValueError("in handler")
        return _exc_info_name()


def missing_enter(x: int) -> int:
    with NoEnter():
        note("never")
    return x


def missing_exit(x: int) -> int:
    with NoExit() as v:
        note("never")
    return x + v


def instance_attributes(x: int) -> int:
    with InstanceOnly():
        note("never")
    return x


def not_a_manager(x: int) -> int:
    with x:
        note("never")
    return x


def stdlib(xs: list) -> object:
    lock = threading.Lock()
    total = 0
    for v in xs:
        with lock, contextlib.suppress(ZeroDivisionError):
            total += 100 // v
    with contextlib.nullcontext(total) as t:
        pass
    return [t, lock.locked()]


def exit_stack(n: int) -> object:
    with contextlib.ExitStack() as stack:
        for k in range(n):
            stack.enter_context(CM(str(k)))
        stack.callback(note, "callback")
        if n == 2:
            raise ValueError("stack")
    return n


@contextlib.contextmanager
def generated(name, swallow):
    note("gen enter", name)
    try:
        yield name
    except ValueError as e:
        note("gen caught", str(e))
        if not swallow:
            raise
    finally:
        note("gen exit", name)


def generator_manager(x: int, swallow: bool) -> object:
    with generated("g", swallow) as g:
        if x:
            raise ValueError(g)
    return g


def bare_raise_inside(x: int) -> object:
    with CM("b", result=x > 0):
        raise
    return x


def parenthesised_items(x: int) -> object:  # two items, as in Python 3.10+
    with (CM("a", enter_fails=x == 1, exit_fails=x == 2) as a,
          CM("b", enter_fails=x == 3, exit_fails=x == 4) as b,):
        note("body", x)
        if x == 5:
            raise ValueError("body")
    return a.name + b.name


def parenthesised_no_as(x: int) -> object:
    with (
        CM("a", exit_fails=x == 1),
        CM("b", enter_fails=x == 2),
    ):
        return x


def parenthesised_expression(x: int) -> object:  # `(expr) as y` and `(a, b) as t` are one item each
    with (CM("a", exit_fails=x == 1)) as y:
        pass
    try:
        with (CM("a"), CM("b")) as t:
            return t
    except (AttributeError, TypeError) as e:
        return type(e).__name__, y.name


def items_on_lines(x: int) -> object:  # errors at the statement's line to 3.12, the item's from 3.13
    with CM("a", enter_fails=x == 1) as a, \
         CM("b", enter_fails=x == 2, exit_fails=x == 3) as b:
        for i in range(2):
            if x == 4:
                break
            if x == 5:
                return i
    return a.name, b.name
'''

FUNCTIONS = ["body_end", "body_raises", "suppressing", "truthy_result", "enter_fails", "exit_fails",
             "returns", "return_then_exit_fails", "nested_items", "nested_blocks", "for_exits",
             "while_exits", "as_targets", "as_attribute", "in_try", "try_in_with", "in_handler",
             "missing_enter", "missing_exit", "instance_attributes", "not_a_manager", "stdlib",
             "exit_stack", "generator_manager", "bare_raise_inside", "parenthesised_items",
             "parenthesised_no_as", "parenthesised_expression", "items_on_lines"]


class Box:
    pass


CASES = {
    "body_end": [(3,)],
    "body_raises": [(2,), (0,)],
    "suppressing": [(0,), (5,)],
    "truthy_result": [(0, 1), (0, 0), (0, "yes"), (0, None), (5, None)],
    "enter_fails": [(1,)],
    "exit_fails": [(0,), (3,)],
    "returns": [(1,)],
    "return_then_exit_fails": [(1,)],
    "nested_items": [(0,), (1,), (2,), (3,)],
    "nested_blocks": [(0,), (1,), (3,), (4,)],
    "for_exits": [(0,), (2,), (4,), (8,)],
    "while_exits": [(0,), (2,), (5,)],
    "as_targets": [((1, 2),), ((1,),), (5,), ("ab",)],
    "as_attribute": [(Box(), 4), (None, 4)],
    "in_try": [(0,), (5,)],
    "try_in_with": [(0,), (5,)],
    "in_handler": [(0,), (1,)],
    "missing_enter": [(1,)],
    "missing_exit": [(1,)],
    "instance_attributes": [(1,)],
    "not_a_manager": [(1,)],
    "stdlib": [([1, 0, 5],), ([],)],
    "exit_stack": [(0,), (1,), (2,), (3,)],
    "generator_manager": [(0, False), (1, False), (1, True)],
    "bare_raise_inside": [(0,), (1,)],
    "parenthesised_items": [(0,), (1,), (2,), (3,), (4,), (5,)],
    "parenthesised_no_as": [(0,), (1,), (2,)],
    "parenthesised_expression": [(0,), (1,)],
    "items_on_lines": [(0,), (1,), (2,), (3,), (4,), (5,)],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    def write(stem, out):
        path = out / f"{stem}.py"
        path.write_text(SOURCE, encoding="utf-8")
        return path
    return build_cache(tmp_path_factory, write)


def _describe_exc(e: BaseException | None):
    if e is None:
        return None
    return (type(e).__name__, str(e))


def _outcome(mod, fn, args):
    """What a caller observes of fn(*args): result or exception, LOG, exc_info."""
    del mod.LOG[:]
    try:
        result = ("ok", repr(fn(*args)))
    except BaseException as e:  # noqa: BLE001
        source = getattr(mod, "__file__", None)
        tb = [(f.lineno, f.name) for f in traceback.extract_tb(e.__traceback__)
              if f.filename.endswith("kiln_with.py")]
        result = ("raised", _describe_exc(e), _describe_exc(e.__context__), _describe_exc(e.__cause__),
                  e.__suppress_context__, tb)
        del source
        e.__traceback__ = None  # the frames it holds would outlive the case
    return result, list(mod.LOG), _describe_exc(sys.exc_info()[1])


def _args(name, args):
    # a fresh Box per run: as_attribute stores into it
    return tuple(Box() if isinstance(a, Box) else a for a in args)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_report_status(built, name):
    check_report_status(built("kiln_with"), "kiln_with", name, ())


@pytest.mark.parametrize("name,args", [(n, a) for n in FUNCTIONS for a in CASES[n]])
def test_same_as_python(built, name, args):
    mod = built("kiln_with").module
    want = _outcome(mod, mod.__kiln_python__[name], _args(name, args))
    got = _outcome(mod, getattr(mod, name), _args(name, args))
    assert got == want, f"{name}{args!r}:\n  kiln:   {got}\n  python: {want}"


@pytest.mark.parametrize("name,args", [("body_raises", (0,)), ("suppressing", (0,)), ("bare_raise_inside", (0,)),
                                       ("in_handler", (1,)), ("exit_fails", (3,))])
def test_inside_a_callers_handler(built, name, args):
    """Called from a caller's `except` block: __exit__ and a bare raise see
    the caller's exception where Python's frames would, and the caller's
    exception is the handled one again afterwards."""
    mod = built("kiln_with").module

    def from_handler(fn):
        try:
            raise LookupError("caller's")
        except LookupError:
            out = _outcome(mod, fn, args)
            return out, _describe_exc(sys.exc_info()[1])

    assert from_handler(getattr(mod, name)) == from_handler(mod.__kiln_python__[name])


def test_no_reference_left_behind(built):
    """Managers, bound __exit__ methods and exceptions are released on
    every path: 2,000 calls through each leave no object alive."""
    import gc
    mod = built("kiln_with").module
    calls = [("body_raises", (0,)), ("suppressing", (0,)), ("for_exits", (8,)), ("returns", (1,)),
             ("exit_fails", (3,)), ("nested_blocks", (4,)), ("missing_exit", (1,)), ("exit_stack", (2,))]
    for name, args in calls:
        fn = getattr(mod, name)

        def run(n):
            for _ in range(n):
                try:
                    fn(*args)
                except Exception:  # noqa: BLE001
                    pass
                del mod.LOG[:]
        run(50)
        gc.collect()
        before = len(gc.get_objects())
        run(2000)
        gc.collect()
        grown = len(gc.get_objects()) - before
        assert grown < 50, f"{name}: {grown} more objects after 2,000 calls"
