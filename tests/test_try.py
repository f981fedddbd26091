"""try/except/else/finally and raise compiled natively: every form (one or
more handlers matching a class, a subclass, a tuple, any expression, a bare
`except:` last; `as` names; `else`; `finally`; try/finally alone), every way
out of a try region (falling off, an exception, return, break, continue, in
each clause and in `for` and `while` loops), nested try statements in bodies,
handlers, else and finally blocks, and the raise forms (bare raise, raise X,
raise X from Y) are compared with the original Python function
(`module.__kiln_python__[name]`, the oracle), run on this interpreter:

- the result (type and value, recursively), or the exception: its type, its
  message, and for it and every exception chained to it (__context__,
  __cause__): type, message, args, __suppress_context__ and the traceback
  entries (line, function) that belong to the source file (kiln adds a
  synthetic entry for a native frame where CPython adds the frame's: where
  the exception first enters the frame; re-raises add none). The entries of
  CPython's comprehension and generator-expression frames, which kiln
  inlines, are left out there and compared by test_comprehension_frames;
- the arguments afterwards and the side effects in order (the module's LOG:
  which clauses ran, which handler expressions were evaluated, when
  exceptions, temporaries and loop iterators with a __del__ or a finally are
  freed, where CPython's own order is fixed: not for objects an escaping
  exception's traceback keeps alive in the Python frame);
- sys.exc_info() after the call. Every case runs twice: called plainly
  (sys.exc_info() is empty around the call, a bare raise has nothing to
  re-raise) and called from inside a Python `except` block (the function sees
  that exception as the one being handled: sys.exc_info(), a bare raise, the
  __context__ of what it raises; it is the handled one again after the call,
  however the call ended).

Each group of functions is one source (the *_SRC strings below, each after
PRELUDE: LOG, note, pick, boom and the exception classes), built once per
module with `kiln.build`; every function of a source is expected to be
reported "native" (classes stay Python: their methods are the Python
callees). RANDOM_SRC is generated (fixed seed): nested try statements, loops,
re-raises, returns, breaks and continues, native int/float locals and maybe
unbound variables drawn at random. Cases of open kiln bugs run as
xfail(strict=True) on the interpreters where they show (BUG_CASES), each
naming the bug.

Also: a try in a loop of 10,000 iterations catching every time leaves no
reference behind (reference counts, traced memory); native int operations
raising inside a try (ZeroDivisionError as Python, and OverflowError past
int64, kiln's documented contract); RecursionError caught; threads and
generators each seeing their own handled exception; a native tensor op
raising RuntimeError caught by a handler, and no_grad/inference_mode blocks
left by exceptions, break and continue (torch, when importable).

Native int/float/bool parameters are passed values of exactly their type.
The sources are valid on CPython 3.10 to 3.13 (no except*).
"""

from __future__ import annotations

import ast
import copy
import gc
import itertools
import json
import os
import pathlib
import subprocess
import sys
import tracemalloc
import types

import pytest

try:
    import kiln._compiler  # noqa: F401  (the C compiler extension)
except ImportError as exc:  # the compiler has not landed in this checkout yet
    pytest.skip(f"kiln._compiler cannot be imported ({exc}); the try tests need the compiler",
                allow_module_level=True)

from oracle import Built, build_cache, check_report_status, same_value

ROOT = pathlib.Path(__file__).resolve().parent.parent
ROOT_PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
NAN = float("nan")
I64_MAX = 2**63 - 1


# --------------------------------------------------------------------------
# Sources (one module each, PRELUDE first)
# --------------------------------------------------------------------------

# The helpers every source shares. boom(tag, k) logs tag and raises by code:
# 0 nothing, 1 ValueError, 2 KeyError, 3 MyError (a ValueError), 4 Halt (a
# BaseException), 5 TypeError, 6 KeyboardInterrupt, 7 SystemExit.
PRELUDE = r'''
import sys

LOG = []


class Halt(BaseException):
    pass


class MyError(ValueError):
    pass


class Swapped(ValueError):
    pass


class Weird(Exception):
    def __new__(cls, *args):
        return 42


class Other(Exception):
    def __new__(cls, *args):
        return KeyError("made by Other")


class BadInit(Exception):
    def __init__(self, *args):
        raise KeyError("from __init__")


class Meta(type):
    def __subclasscheck__(cls, sub):
        LOG.append("__subclasscheck__")
        return True

    def __instancecheck__(cls, obj):
        LOG.append("__instancecheck__")
        return True


class Catcher(Exception, metaclass=Meta):
    pass


class Tracked(Exception):
    def __init__(self, tag):
        super().__init__(tag)
        LOG.append(f"new {tag}")

    def __del__(self):
        LOG.append(f"del {self.args[0] if self.args else '?'}")


class Item:
    def __init__(self, tag):
        self.tag = tag
        LOG.append(f"new item {tag}")

    def __del__(self):
        LOG.append(f"del item {self.tag}")


class Thing:
    def __init__(self, v):
        self.v = v

    def method(self, k):
        LOG.append(f"method {k}")
        if k == 1:
            raise ValueError(f"method {k}")
        if k == 2:
            raise KeyError(k)
        return self.v


def note(x) -> None:
    LOG.append(x)


def pick(tag, value):
    LOG.append(tag)
    return value


def boom(tag, k: int):
    LOG.append(tag)
    if k == 1:
        raise ValueError(tag)
    elif k == 2:
        raise KeyError(tag)
    elif k == 3:
        raise MyError(tag)
    elif k == 4:
        raise Halt(tag)
    elif k == 5:
        raise TypeError(tag)
    elif k == 6:
        raise KeyboardInterrupt(tag)
    elif k == 7:
        raise SystemExit(tag)
    return tag
'''

PRELUDE_FUNCTIONS = {"note", "pick", "boom"}

# Every combination of handlers, else and finally; each clause raising or not.
FORMS_SRC = r'''
def f_except(a: int, b: int) -> str:
    try:
        boom("body", a)
        note("body done")
    except ValueError:
        boom("handler", b)
        note("handler done")
    note("after")
    return "end"


def f_except_as(a: int, b: int) -> str:
    try:
        boom("body", a)
    except ValueError as e:
        note(f"caught {e!r}")
        boom("handler", b)
    return "end"


def f_two_handlers(a: int, b: int) -> str:
    try:
        boom("body", a)
    except KeyError:
        note("K")
        boom("handler K", b)
    except ValueError as e:
        note(f"V {e}")
        boom("handler V", b)
    return "end"


def f_except_else(a: int, b: int, c: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        boom("handler", b)
    else:
        boom("else", c)
    note("after")
    return "end"


def f_except_finally(a: int, b: int, d: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        boom("handler", b)
    finally:
        boom("finally", d)
    note("after")
    return "end"


def f_all(a: int, b: int, c: int, d: int) -> str:
    try:
        boom("body", a)
    except KeyError as e:
        note(repr(e))
        boom("handler K", b)
    except ValueError:
        boom("handler V", b)
    else:
        boom("else", c)
    finally:
        boom("finally", d)
    note("after")
    return "end"


def f_finally(a: int, d: int) -> str:
    try:
        boom("body", a)
    finally:
        boom("finally", d)
    return "end"


def f_bare(a: int, b: int) -> str:
    try:
        boom("body", a)
    except:
        note("bare")
        boom("handler", b)
    return "end"


def f_typed_then_bare(a: int, b: int, c: int, d: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        boom("V", b)
    except:
        note(repr(sys.exc_info()[1]))
        boom("bare", b)
    else:
        boom("else", c)
    finally:
        boom("finally", d)
    return "end"


def f_bare_else(a: int, c: int) -> str:
    try:
        boom("body", a)
    except:
        note("bare")
    else:
        boom("else", c)
    return "end"


def f_inline_raise(a: int) -> str:
    try:
        if a == 1:
            raise ValueError("inline")
        if a == 2:
            raise KeyError("inline")
        if a == 4:
            raise Halt
        note("no raise")
    except ValueError as e:
        return f"V {e}"
    except KeyError:
        return "K"
    else:
        return "else"
    finally:
        note("finally")


def f_pass_everywhere(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        pass
    except KeyError:
        pass
    else:
        pass
    finally:
        pass
    return "end"


def f_values_through(a: int) -> int:
    x = 0
    try:
        x = 1
        boom("body", a)
        x = 2
    except ValueError:
        x = x + 10
    else:
        x = x + 100
    finally:
        x = x * 2
    return x


def f_object_local(a: int, o):
    r = o
    try:
        r = [r]
        boom("body", a)
        r = (r,)
    except ValueError:
        r = {"h": r}
    finally:
        note(repr(r))
    return r


def f_sequential(a: int, b: int) -> list:
    out = []
    try:
        boom("first", a)
    except ValueError as e:
        out.append(str(e))
    try:
        boom("second", b)
    except KeyError as e:
        out.append(str(e))
    finally:
        out.append("finally")
    return out


def f_one_line_clauses(a: int) -> str:
    try: boom("body", a)
    except ValueError: note("V")
    else: note("else")
    finally: note("finally")
    return "end"


def f_python_callee(k: int, t) -> str:
    try:
        v = t.method(k)
    except ValueError as e:
        return f"V {e}"
    except KeyError as e:
        return f"K {e}"
    return f"ok {v}"
'''

# Handler matching: classes, subclasses, tuples, expressions; when the
# handler expression is evaluated; what is not a valid handler.
MATCH_SRC = r'''
def m_class(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        return "ValueError"
    return "none"


def m_subclass_order(a: int) -> str:
    try:
        boom("body", a)
    except MyError:
        return "MyError"
    except ValueError:
        return "ValueError"
    except Exception as e:
        return f"Exception {type(e).__name__}"
    return "none"


def m_base_first(a: int) -> str:
    try:
        boom("body", a)
    except Exception:
        return "Exception"
    except ValueError:
        return "never"
    return "none"


def m_exception(a: int) -> str:
    try:
        boom("body", a)
    except Exception as e:
        return type(e).__name__
    return "none"


def m_baseexception(a: int) -> str:
    try:
        boom("body", a)
    except BaseException as e:
        return type(e).__name__
    return "none"


def m_lookup_error(a: int) -> str:
    try:
        boom("body", a)
    except LookupError as e:
        return type(e).__name__
    return "none"


def m_tuple(a: int) -> str:
    try:
        boom("body", a)
    except (KeyError, MyError) as e:
        return type(e).__name__
    return "none"


def m_tuple_one(a: int) -> str:
    try:
        boom("body", a)
    except (ValueError,):
        return "ValueError"
    return "none"


def m_empty_tuple(a: int) -> str:
    try:
        boom("body", a)
    except ():
        return "never"
    return "none"


def m_nested_tuple(a: int) -> str:
    try:
        boom("body", a)
    except (KeyError, (ValueError, TypeError)):
        return "caught"
    return "none"


def m_int_literal(a: int) -> str:
    try:
        boom("body", a)
    except 5:
        return "never"
    return "none"


def m_instance(a: int) -> str:
    try:
        boom("body", a)
    except ValueError("x"):
        return "never"
    return "none"


def m_after_invalid(a: int) -> str:
    try:
        boom("body", a)
    except KeyError:
        return "K"
    except "ValueError":
        return "never"
    except ValueError:
        return "V"
    return "none"


def m_param(a: int, excs) -> str:
    try:
        boom("body", a)
    except excs as e:
        return type(e).__name__
    return "none"


def m_param_second(a: int, excs) -> str:
    try:
        boom("body", a)
    except KeyError:
        return "KeyError"
    except excs:
        return "param"
    return "none"


def m_evaluated_when_reached(a: int) -> str:
    try:
        boom("body", a)
    except pick("first", KeyError):
        return "K"
    except pick("second", ValueError) as e:
        return f"V {e}"
    except pick("third", BaseException):
        return "base"
    return "none"


def m_expression_raises(a: int) -> str:
    try:
        boom("body", a)
    except pick("first", KeyError):
        return "K"
    except boom("second", 5):
        return "never"
    return "none"


def m_attribute(a: int, ns) -> str:
    try:
        boom("body", a)
    except ns.cls as e:
        return type(e).__name__
    return "none"


def m_subscript(a: int, excs) -> str:
    try:
        boom("body", a)
    except excs[1] as e:
        return type(e).__name__
    return "none"


def m_conditional(a: int, c: bool) -> str:
    try:
        boom("body", a)
    except (KeyError if c else ValueError):
        return "caught"
    return "none"


def m_metaclass(a: int) -> str:
    try:
        boom("body", a)
    except Catcher:
        return "Catcher"
    except ValueError:
        return "ValueError"
    return "none"


def m_oserror_subclass(k: int) -> str:
    try:
        raise OSError(k, "message")
    except FileNotFoundError as e:
        return f"FileNotFoundError {e.errno}"
    except PermissionError as e:
        return f"PermissionError {e.errno}"
    except OSError as e:
        return f"{type(e).__name__} {e.errno}"


def m_excinfo_while_matching(a: int) -> str:
    try:
        boom("body", a)
    except pick(repr(sys.exc_info()[1]), KeyError):
        return "K"
    except pick(repr(sys.exc_info()[1]), ValueError):
        return "V"
    return "none"


def m_in_loop(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except pick(f"handler {i}", ValueError):
            out.append(i)
    return out
'''

# The `as` name: bound in the handler, deleted at its end however it ends.
AS_SRC = r'''
def as_read(a: int):
    r = None
    try:
        boom("body", a)
    except ValueError as e:
        note(str(e))
        note(type(e).__name__)
        r = e.args
    return r


def as_read_after(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        note("handler")
    return e


def as_del_inside(a: int) -> str:
    try:
        boom("body", a)
    except ValueError as e:
        note(str(e))
        del e
    return "end"


def as_del_inside_then_read(a: int) -> str:
    try:
        boom("body", a)
    except ValueError as e:
        del e
        note(repr(e))
    return "end"


def as_int_elsewhere(a: int, k: int) -> int:
    e = k * 2
    try:
        boom("body", a)
    except ValueError as e:
        note(str(e))
    e = k + 1
    return e


def as_int_read_after(a: int, k: int):
    e = k * 2
    try:
        boom("body", a)
    except ValueError as e:
        note(str(e))
    return e


def as_int_param(e: int, a: int):
    try:
        boom("body", a)
    except ValueError as e:
        note(repr(e))
    return e


def as_float_param(e: float, a: int):
    try:
        boom("body", a)
    except ValueError as e:
        note(repr(e))
    return e


def as_object_param(e, a: int):
    try:
        boom("body", a)
    except ValueError as e:
        note(repr(e))
    return e


def as_object_elsewhere(o, a: int):
    e = [o]
    try:
        boom("body", a)
    except ValueError as e:
        note(repr(e))
    e = (o,)
    return e


def as_two_handlers_same_name(a: int) -> str:
    r = "none"
    try:
        boom("body", a)
    except ValueError as e:
        r = f"V {e}"
    except KeyError as e:
        r = f"K {e}"
    return r


def as_two_trys_same_name(a: int, b: int) -> list:
    out = []
    try:
        boom("first", a)
    except ValueError as e:
        out.append(repr(e))
    try:
        boom("second", b)
    except KeyError as e:
        out.append(repr(e))
    return out


def as_rebound_in_handler(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        e = 5
        note(e)
    return e


def as_rebound_int_in_handler(a: int, k: int):
    r = 0
    try:
        boom("body", a)
    except ValueError as e:
        e = k + 1
        r = e * 2
    return r


def as_in_loop(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError as e:
            out.append(str(e))
    return out


def as_read_in_loop_after(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError as e:
            out.append(str(e))
        if i == 1:
            out.append(repr(e))
    return out


def as_read_after_break(n: int, a: int) -> str:
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError as e:
            break
    return repr(e)


def as_returned(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        return e
    return None


def as_stored(a: int):
    saved = None
    try:
        boom("body", a)
    except ValueError as e:
        saved = e
    return saved


def as_in_comprehension(a: int) -> list:
    try:
        boom("body", a)
    except ValueError as e:
        return [f"{e} {i}" for i in range(2)]
    return []


def as_deleted_after_return(a: int) -> str:
    try:
        boom("body", a)
    except ValueError as e:
        return str(e)
    finally:
        note("finally")
    return "none"


def as_then_other_handler_reads(a: int, b: int):
    try:
        boom("body", a)
    except ValueError as e:
        note(str(e))
    try:
        boom("second", b)
    except KeyError:
        return e
    return "none"


def as_nested_same_name(a: int, b: int) -> list:
    out = []
    try:
        boom("outer", a)
    except ValueError as e:
        try:
            boom("inner", b)
        except KeyError as e:
            out.append(repr(e))
        out.append(repr(e))
    return out


def as_deleted_on_exceptional_exit(a: int, b: int) -> str:
    try:
        try:
            boom("body", a)
        except ValueError as e:
            boom("handler", b)
    finally:
        note(repr(e))
    return "end"


def as_loop_variable(n: int, a: int) -> list:
    out = []
    for e in range(n):
        out.append(e)
        try:
            boom(f"body {e}", a)
        except ValueError as e:
            out.append(str(e))
    return out


def as_read_before_bound(a: int):
    try:
        boom("body", a)
    except ValueError:
        return e
    except KeyError as e:
        return str(e)
    return "none"


def as_attributes(a: int) -> tuple:
    try:
        boom("body", a)
    except ValueError as e:
        return (type(e), e.args, e.__context__ is None, e.__cause__, e.__suppress_context__,
                e.__traceback__ is not None)
    return ()
'''

# return, break and continue out of every clause; loops around and inside.
FLOW_SRC = r'''
def fl_return_in_try(a: int) -> str:
    try:
        boom("body", a)
        return "try"
    except ValueError:
        return "handler"
    finally:
        note("finally")


def fl_return_in_else(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        note("handler")
    else:
        return "else"
    finally:
        note("finally")
    return "after"


def fl_finally_overrides(a: int) -> str:
    try:
        boom("body", a)
        return "try"
    except KeyError:
        return "handler"
    finally:
        note("finally")
        return "finally"


def fl_finally_swallows(a: int, b: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        boom("handler", b)
    finally:
        return "swallowed"


def fl_finally_conditional_return(a: int, c: bool) -> str:
    try:
        boom("body", a)
        return "try"
    finally:
        if c:
            return "finally"
        note("fall through")


def fl_return_evaluated_before_finally(a: int) -> str:
    try:
        return pick("return value", "value")
    finally:
        boom("finally", a)


def fl_return_list_mutated(xs) -> list:
    try:
        return xs
    finally:
        xs.append("finally")


def fl_return_int_rebound(k: int) -> int:
    try:
        return k
    finally:
        k = k + 100
        note(k)


def fl_return_float_rebound(x: float) -> float:
    try:
        return x * 2.0
    finally:
        x = -1.0
        note(x)


def fl_nested_finally_return(a: int) -> str:
    try:
        try:
            boom("body", a)
            return "inner"
        finally:
            note("inner finally")
    finally:
        note("outer finally")


def fl_return_in_handler_finally_raises(a: int, d: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        return "handler"
    finally:
        boom("finally", d)
    return "after"


def fl_return_both_finally(a: int) -> str:
    try:
        try:
            boom("body", a)
        finally:
            return "inner finally"
    finally:
        note("outer finally")


def fl_break_in_try(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            if i == 2:
                break
            boom(f"body {i}", a)
            out.append(i)
        except ValueError:
            out.append(-i)
        finally:
            note(f"finally {i}")
    return out


def fl_continue_in_try(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            if i % 2 == 0:
                continue
            boom(f"body {i}", a)
            out.append(i)
        except ValueError:
            out.append(-i)
        finally:
            note(f"finally {i}")
    return out


def fl_break_in_handler(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
            out.append(i)
        except ValueError:
            if i >= 1:
                break
            out.append(-i)
        finally:
            note(f"finally {i}")
    return out


def fl_continue_in_handler(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError:
            continue
        finally:
            note(f"finally {i}")
        out.append(i)
    return out


def fl_break_in_finally(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
            out.append(i)
        finally:
            if i == 1:
                break
    return out


def fl_continue_in_finally(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
            out.append(i)
        finally:
            continue
    return out


def fl_break_in_else(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError:
            out.append(-i)
        else:
            if i == 1:
                break
            out.append(i)
        finally:
            note(f"finally {i}")
    return out


def fl_continue_in_else(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except KeyError:
            out.append(-i)
        else:
            continue
        out.append(i)
    return out


def fl_while_break_continue(n: int, a: int) -> list:
    out = []
    i = 0
    while True:
        try:
            i += 1
            if i > n:
                break
            if i == 2:
                continue
            boom(f"body {i}", a)
            out.append(i)
        except ValueError:
            out.append(-i)
            continue
        finally:
            note(f"finally {i}")
    return out


def fl_while_break_in_finally(n: int, a: int) -> int:
    i = 0
    while i < n:
        try:
            i += 1
            boom(f"body {i}", a)
        finally:
            if i == 2:
                break
    return i


def fl_nested_loops(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            for j in range(n):
                try:
                    if j == 1:
                        break
                    if i == 1:
                        continue
                    boom(f"body {i} {j}", a)
                    out.append((i, j))
                finally:
                    note(f"inner finally {i} {j}")
            if i == 2:
                continue
            out.append(i)
        finally:
            note(f"outer finally {i}")
    return out


def fl_break_outer_from_inner_finally(n: int, a: int) -> list:
    out = []
    for i in range(n):
        for j in range(n):
            try:
                boom(f"body {i} {j}", a)
            finally:
                out.append((i, j))
                if j == 1:
                    break
        else:
            out.append("inner else")
    return out


def fl_loop_else(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError:
            break
        finally:
            out.append(i)
    else:
        out.append("else")
    return out


def fl_return_from_loop(n: int, a: int):
    for i in range(n):
        try:
            if i == 1:
                return i
            boom(f"body {i}", a)
        finally:
            note(f"finally {i}")
    return -1


def fl_try_around_loop(n: int, a: int) -> list:
    out = []
    try:
        for i in range(n):
            if i == 2:
                break
            boom(f"body {i}", a)
            out.append(i)
    except ValueError:
        out.append("handler")
    finally:
        out.append("finally")
    return out


def fl_return_in_finally_in_loop(n: int, a: int) -> str:
    for i in range(n):
        try:
            boom(f"body {i}", a)
        finally:
            if i == 1:
                return f"finally {i}"
    return "end"


def fl_continue_through_two_finallies(n: int, a: int) -> list:
    out = []
    for i in range(n):
        try:
            try:
                if i == 1:
                    continue
                boom(f"body {i}", a)
            finally:
                out.append(f"inner {i}")
        finally:
            out.append(f"outer {i}")
        out.append(i)
    return out


def fl_break_handler_then_finally_raises(n: int, d: int) -> list:
    out = []
    for i in range(n):
        try:
            raise ValueError(i)
        except ValueError:
            break
        finally:
            boom(f"finally {i}", d)
    out.append("after")
    return out


def fl_return_from_loop_in_finally_try(it, k: int):
    try:
        for x in it:
            if x == k:
                return x
            note(f"item {x}")
    finally:
        note("finally")
    return -1


def fl_return_from_nested_loops(it, k: int):
    try:
        for x in it:
            for y in it:
                if x + y == k:
                    return (x, y)
    finally:
        note("finally")
    return None


def fl_return_from_loop_in_handler(it, k: int):
    try:
        boom("body", 1)
    except ValueError:
        for x in it:
            if x == k:
                return x
    finally:
        note("finally")
    return -1


def fl_break_from_loop_in_try(it, k: int) -> str:
    try:
        for x in it:
            if x == k:
                break
    finally:
        note("finally")
    note("after")
    return "end"


def fl_raise_from_loop_in_try(it, k: int) -> str:
    try:
        for x in it:
            if x == k:
                raise KeyError(x)
    except KeyError:
        note("handler")
    finally:
        note("finally")
    return "end"


def fl_continue_outer_from_inner_loop(it, k: int) -> list:
    out = []
    for i in range(2):
        try:
            for x in it:
                if x == k:
                    continue
                out.append(x)
        finally:
            note(f"finally {i}")
    return out


def fl_loop_over_iterator(xs, a: int) -> list:
    out = []
    it = iter(xs)
    for x in it:
        try:
            if x == "stop":
                break
            boom(f"item {x}", a)
        except ValueError:
            continue
        finally:
            out.append(x)
    out.append(list(it))
    return out
'''

# Try statements in bodies, handlers, else and finally blocks; re-raises
# at every level; the exception chained as __context__.
NESTED_SRC = r'''
def n_in_body(a: int, b: int, d: int) -> str:
    try:
        try:
            boom("inner", a)
        except KeyError:
            boom("inner handler", b)
        finally:
            boom("inner finally", d)
        note("inner done")
    except ValueError as e:
        note(f"outer V {e!r}")
    except TypeError as e:
        note(f"outer T {e!r}")
    return "end"


def n_in_handler(a: int, b: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        try:
            boom("handler", b)
        except KeyError as e:
            note(f"inner {e!r}")
        note(repr(sys.exc_info()[1]))
        raise
    return "end"


def n_in_else(a: int, c: int) -> str:
    try:
        boom("body", a)
    except KeyError:
        note("handler")
    else:
        try:
            boom("else", c)
        except KeyError:
            note(repr(sys.exc_info()[1]))
            raise
        finally:
            note("else finally")
    return "end"


def n_else_not_caught_by_own_handlers(a: int, c: int) -> str:
    try:
        try:
            boom("body", a)
        except KeyError:
            return "inner handler"
        else:
            boom("else", c)
    except KeyError as e:
        return f"outer {e!r}"
    return "end"


def n_in_finally(a: int, d: int) -> str:
    try:
        boom("body", a)
    finally:
        try:
            boom("finally", d)
        except TypeError:
            note(repr(sys.exc_info()[1]))
        note(repr(sys.exc_info()[1]))
    return "end"


def n_reraise_levels(a: int) -> str:
    try:
        try:
            try:
                boom("deep", a)
            except ValueError:
                note("level 3")
                raise
        except ValueError:
            note("level 2")
            raise
        finally:
            note("level 2 finally")
    except ValueError:
        note("level 1")
        raise
    return "none"


def n_reraise_after_inner(a: int, b: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        try:
            boom("inner", b)
        except KeyError:
            pass
        raise
    return "end"


def n_raise_new_in_handler(a: int) -> str:
    try:
        boom("body", a)
    except ValueError as e:
        raise KeyError(f"from handler {e}")
    return "end"


def n_context_chain(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        try:
            raise KeyError("second")
        except KeyError:
            raise TypeError("third")
    return "end"


def n_raise_in_finally(a: int) -> str:
    try:
        boom("body", a)
    finally:
        raise TypeError("finally")


def n_caught_context(a: int):
    try:
        try:
            boom("body", a)
        finally:
            raise TypeError("finally")
    except TypeError as e:
        return e.__context__


def n_raise_caught_again(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        raise e


def n_raise_caught_from_itself(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        raise e from e


def n_raise_older(a: int, b: int):
    try:
        boom("first", a)
    except ValueError as e:
        first = e
    try:
        boom("second", b)
    except KeyError:
        raise first


def n_deep_finally(a: int) -> str:
    try:
        try:
            try:
                try:
                    boom("body", a)
                finally:
                    note("f4")
            finally:
                note("f3")
        finally:
            note("f2")
    finally:
        note("f1")
    return "end"


def n_handler_in_finally_pending(a: int) -> str:
    try:
        boom("body", a)
    finally:
        try:
            raise KeyError("in finally")
        except KeyError as e:
            note(repr(e.__context__))
        note(repr(sys.exc_info()[1]))
    return "end"


def n_try_in_handler_return(a: int, b: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        try:
            boom("inner", b)
            return "inner body"
        except KeyError:
            return "inner handler"
        finally:
            note("inner finally")
    finally:
        note("outer finally")
    return "end"


def n_handler_catches_handler(a: int, b: int) -> str:
    try:
        try:
            boom("body", a)
        except ValueError:
            boom("handler", b)
    except KeyError as e:
        return f"outer {e!r} ctx {e.__context__!r}"
    return "end"


def n_recursive_handlers(n: int) -> list:
    try:
        raise ValueError(n)
    except ValueError:
        if n > 0:
            r = n_recursive_handlers(n - 1)
            r.append(repr(sys.exc_info()[1]))
            return r
        return [repr(sys.exc_info()[1])]


def n_nine_deep(a: int) -> list:
    out = []
    try:
        boom("0", a)
    except ValueError as e:
        out.append(repr(sys.exc_info()[1]))
        try:
            raise KeyError(1)
        except KeyError as e:
            out.append(repr(sys.exc_info()[1]))
            try:
                raise KeyError(2)
            except KeyError as e:
                try:
                    raise KeyError(3)
                except KeyError as e:
                    try:
                        raise KeyError(4)
                    except KeyError as e:
                        try:
                            raise KeyError(5)
                        except KeyError as e:
                            try:
                                raise KeyError(6)
                            except KeyError as e:
                                try:
                                    raise KeyError(7)
                                except KeyError as e:
                                    out.append(repr(sys.exc_info()[1]))
                                    out.append(repr(sys.exc_info()[1].__context__.__context__))
                                out.append(repr(sys.exc_info()[1]))
                            out.append(repr(sys.exc_info()[1]))
        out.append(repr(sys.exc_info()[1]))
    out.append(repr(sys.exc_info()[1]))
    return out


def n_python_callee_in_handler(a: int, k: int, t) -> str:
    try:
        boom("body", a)
    except ValueError:
        return f"method {t.method(k)}"
    return "end"
'''

# The raise forms.
RAISE_SRC = r'''
def r_class(a: int):
    raise ValueError


def r_instance(k: int):
    raise ValueError("message", k)


def r_param(x):
    raise x


def r_param_in_try(x) -> str:
    try:
        raise x
    except TypeError as e:
        return f"TypeError {e}"
    except ValueError as e:
        return f"ValueError {e!r}"


def r_weird_class(a: int):
    raise Weird


def r_weird_instance_call(a: int):
    raise Weird("x")


def r_bad_init(a: int):
    raise BadInit


def r_from(x):
    raise ValueError("effect") from x


def r_class_from(x):
    raise ValueError from x


def r_from_in_handler(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        raise KeyError("new") from e


def r_from_none_in_handler(a: int):
    try:
        boom("body", a)
    except ValueError:
        raise KeyError("new") from None


def r_from_other_in_handler(a: int):
    try:
        boom("body", a)
    except ValueError:
        raise KeyError("new") from TypeError("cause")


def r_from_evaluation_order(a: int):
    raise pick("exception", ValueError("effect")) from pick("cause", KeyError("cause"))


def r_from_raises(a: int):
    raise ValueError("effect") from boom("cause", a)


def r_exception_raises(a: int):
    raise boom("exception", a) from pick("cause", None)


def r_bare(a: int):
    raise


def r_bare_in_branch(a: int) -> str:
    if a:
        raise
    return "end"


def r_bare_after_handler(a: int):
    try:
        boom("body", a)
    except ValueError:
        note("handled")
    raise


def r_bare_in_finally(a: int) -> str:
    try:
        boom("body", a)
    finally:
        note(repr(sys.exc_info()[1]))
        raise


def r_bare_in_else(a: int) -> str:
    try:
        boom("body", a)
    except KeyError:
        return "handler"
    else:
        raise
    return "end"


def r_instance_reused(x):
    try:
        raise x
    except ValueError as e:
        note(str(e))
    raise x


def r_previously_raised(x):
    raise x


def r_stop_iteration(a: int):
    try:
        raise StopIteration(a)
    except StopIteration as e:
        return e.value


def r_in_expression_context(a: int) -> str:
    x = 0
    try:
        x = 1 if a else boom("else branch", 1)
    except ValueError as e:
        return f"caught {e}"
    return f"x {x}"


def r_cause_kept_through_reraise(a: int):
    try:
        try:
            raise ValueError("effect") from KeyError("cause")
        except ValueError:
            raise
    except ValueError as e:
        return (repr(e.__cause__), e.__suppress_context__)


def r_set_cause_then_raise(a: int):
    e = ValueError("effect")
    e.__cause__ = KeyError("cause")
    try:
        raise e
    except ValueError:
        raise e from None


def r_reraise_traceback_cleared(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        e.__traceback__ = None
        raise


def r_excinfo_traceback_cleared(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        e.__traceback__ = None
        return sys.exc_info()[2]
    return None


def r_reraise_context_changed(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        e.__context__ = KeyError("replaced")
        raise


def r_raise_e_traceback_cleared(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        raise e.with_traceback(None)


def r_other_class_from(a: int):
    raise Other from KeyError("cause")


def clear_traceback(value):
    sys.exc_info()[1].__traceback__ = None
    return value


def r_finally_clears_traceback(a: int) -> str:
    try:
        boom("body", a)
    finally:
        sys.exc_info()[1].__traceback__ = None
    return "end"


def r_finally_clears_traceback_native(a: int) -> str:
    try:
        boom("body", a)
    finally:
        e = sys.exc_info()[1]
        if e is not None:
            e.__traceback__ = None
        e = None
    return "end"


def r_matching_clears_traceback(a: int) -> str:
    try:
        boom("body", a)
    except clear_traceback(KeyError):
        return "K"
    return "end"


def r_handler_replaces_traceback(a: int) -> str:
    try:
        try:
            boom("body", a)
        except ValueError as e:
            try:
                raise KeyError("other")
            except KeyError as f:
                e.__traceback__ = f.__traceback__
            raise
    except ValueError as g:
        note(repr(g))
        raise


def r_class_changed(a: int):
    try:
        boom("body", a)
    except MyError as e:
        e.__class__ = Swapped
        return (sys.exc_info()[0], type(e))
    return None


def r_class_changed_reraise(a: int) -> str:
    try:
        try:
            boom("body", a)
        except MyError as e:
            e.__class__ = Swapped
            raise
    except Swapped as e:
        return f"Swapped {type(e).__name__} {sys.exc_info()[0].__name__}"
    except MyError as e:
        return f"MyError {type(e).__name__} {sys.exc_info()[0].__name__}"
    return "none"


def r_class_changed_finally(a: int) -> str:
    try:
        try:
            boom("body", a)
        finally:
            e = sys.exc_info()[1]
            if type(e) is MyError:
                e.__class__ = Swapped
            e = None
    except Swapped as e:
        return f"Swapped {type(e).__name__} {sys.exc_info()[0].__name__}"
    except MyError as e:
        return f"MyError {type(e).__name__} {sys.exc_info()[0].__name__}"
    return "none"


def r_systemexit(k: int):
    raise SystemExit(k)


def r_keyboard_interrupt(a: int):
    try:
        raise KeyboardInterrupt("ki")
    except Exception:
        return "never"
'''

# Errors raised by kiln's own native code (int arithmetic, subscripts,
# attributes, unpacking, comprehensions, sum/min/max of generator
# expressions, calls) caught by handlers.
SOURCES_SRC = r'''
def s_div(k: int):
    try:
        return 10 // k
    except ZeroDivisionError as e:
        return f"ZeroDivisionError {e}"


def s_mod(k: int):
    try:
        return 10 % k
    except ZeroDivisionError as e:
        return f"caught {e}"


def s_true_div(k: int):
    try:
        return 10 / k
    except ZeroDivisionError as e:
        return f"caught {e}"


def s_float_div(x: float, y: float):
    try:
        return x / y
    except ZeroDivisionError as e:
        return f"caught {e}"


def s_div_escapes(k: int) -> int:
    try:
        r = 100 // k
    finally:
        note("finally")
    return r


def s_index(xs, i: int):
    try:
        return xs[i]
    except IndexError as e:
        return f"IndexError {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_key(d, k):
    try:
        return d[k]
    except KeyError as e:
        return f"KeyError {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_store_index(xs, i: int):
    try:
        xs[i] = "stored"
    except IndexError as e:
        return f"IndexError {e}"
    except TypeError as e:
        return f"TypeError {e}"
    return xs


def s_attribute(o):
    try:
        return o.v
    except AttributeError as e:
        return f"AttributeError {e}"


def s_method(o, k: int):
    try:
        return o.method(k)
    except AttributeError as e:
        return f"AttributeError {e}"
    except ValueError as e:
        return f"ValueError {e}"


def s_unpack(xs):
    try:
        a, b = xs
    except ValueError as e:
        return f"ValueError {e}"
    except TypeError as e:
        return f"TypeError {e}"
    return (b, a)


def s_for_unpack(ps) -> list:
    out = []
    try:
        for a, b in ps:
            out.append(a + b)
    except (ValueError, TypeError) as e:
        out.append(f"{type(e).__name__} {e}")
    return out


def s_listcomp(xs):
    try:
        return [10 // x for x in xs]
    except ZeroDivisionError as e:
        return f"ZeroDivisionError {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_int_listcomp(n: int, k: int):
    try:
        return [i // (i - k) for i in range(n)]
    except ZeroDivisionError as e:
        return f"ZeroDivisionError {e}"


def s_dictcomp(xs):
    try:
        return {x: 1 // x for x in xs}
    except ZeroDivisionError as e:
        return f"caught {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_sum_genexp(xs):
    try:
        return sum(12 // x for x in xs)
    except ZeroDivisionError as e:
        return f"caught {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_sum_int_genexp(n: int, k: int):
    try:
        return sum(12 // (i - k) for i in range(n))
    except ZeroDivisionError as e:
        return f"caught {e}"


def s_min_genexp(xs):
    try:
        return min(x[0] for x in xs)
    except ValueError as e:
        return f"ValueError {e}"
    except (IndexError, TypeError) as e:
        return f"{type(e).__name__} {e}"


def s_max_genexp(xs):
    try:
        return max(x * 2 for x in xs)
    except ValueError as e:
        return f"ValueError {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_any_genexp(xs):
    try:
        return any(1 // x for x in xs)
    except ZeroDivisionError as e:
        return f"caught {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_int_conversion(s):
    try:
        return int(s)
    except ValueError as e:
        return f"ValueError {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_str_index(s, i: int):
    try:
        return s[i]
    except IndexError as e:
        return f"IndexError {e}"


def s_iterate(o) -> list:
    out = []
    try:
        for x in o:
            out.append(x)
    except TypeError as e:
        out.append(f"TypeError {e}")
    return out


def s_assert(k: int) -> str:
    try:
        assert k > 0, f"k is {k}"
    except AssertionError as e:
        return f"AssertionError {e}"
    return "ok"


def s_compare(x, y):
    try:
        return x < y
    except TypeError as e:
        return f"TypeError {e}"


def s_add(x, y):
    try:
        return x + y
    except TypeError as e:
        return f"TypeError {e}"


def s_native_helper(tag, k: int):
    try:
        return boom(tag, k)
    except LookupError as e:
        return f"{type(e).__name__} {e}"


def s_call_helper_bad_arg(x):
    try:
        return boom("t", x)
    except TypeError as e:
        return "TypeError"


def s_dict_method(d, k):
    try:
        return d.pop(k)
    except KeyError as e:
        return f"KeyError {e}"


def s_list_method(xs, x):
    try:
        return xs.index(x)
    except ValueError as e:
        return f"ValueError {e}"


def s_name_error(a: int):
    try:
        return undefined_name_xyz
    except NameError as e:
        return f"NameError {e}"


def s_len(o):
    try:
        return len(o)
    except TypeError as e:
        return f"TypeError {e}"


def s_float_pow(x: float, y: float):
    try:
        return x ** y
    except OverflowError as e:
        return f"OverflowError {e}"
    except ZeroDivisionError as e:
        return f"ZeroDivisionError {e}"


def s_float_to_int(x: float):
    try:
        return int(x)
    except (ValueError, OverflowError) as e:
        return f"{type(e).__name__} {e}"


def s_shift(k: int, m: int):
    try:
        return k << m
    except ValueError as e:
        return f"ValueError {e}"


def s_range_step(k: int) -> list:
    out = []
    try:
        for i in range(0, 5, k):
            out.append(i)
    except ValueError as e:
        out.append(f"ValueError {e}")
    return out


def s_format(x):
    try:
        return f"{x:d}"
    except ValueError as e:
        return f"ValueError {e}"


def s_contains(x, o):
    try:
        return x in o
    except TypeError as e:
        return f"TypeError {e}"


def s_min_list(xs):
    try:
        return min(xs)
    except ValueError as e:
        return f"ValueError {e}"
    except TypeError as e:
        return f"TypeError {e}"


def s_while_condition(xs) -> int:
    i = 0
    try:
        while xs[i] > 0:
            i += 1
    except IndexError:
        i = -i
    except TypeError:
        i = 1000
    return i


def s_escapes_with_traceback(xs, i: int):
    try:
        note("body")
        v = xs[i]
    finally:
        note("finally")
    return v


def s_int_arith_escapes(k: int, m: int) -> int:
    x = k + 1
    try:
        x = x * 3
        x = x // m
    except TypeError:
        x = -1
    return x
'''

# sys.exc_info() inside the function; it is the caller's handled exception
# where the function handles none.
EXCINFO_SRC = r'''
def ei_in_handler(a: int):
    try:
        boom("body", a)
    except ValueError:
        t, v, tb = sys.exc_info()
        return (t, v.args, tb is not None)
    return sys.exc_info()


def ei_after_handler(a: int):
    try:
        boom("body", a)
    except ValueError:
        note("handler")
    return sys.exc_info()


def ei_in_else(a: int):
    try:
        boom("body", a)
    except KeyError:
        note("handler")
    else:
        return sys.exc_info()
    return "none"


def ei_in_finally(a: int) -> str:
    try:
        boom("body", a)
    finally:
        note(repr(sys.exc_info()[1]))
    return "end"


def ei_in_finally_after_handler(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        note(repr(sys.exc_info()[1]))
    finally:
        note(repr(sys.exc_info()[1]))
    return "end"


def ei_in_finally_after_return(a: int) -> str:
    try:
        try:
            boom("body", a)
        except ValueError:
            return "handler"
        finally:
            note(repr(sys.exc_info()[1]))
    except KeyError:
        note("outer")
    return "end"


def ei_nested_levels(a: int, b: int) -> list:
    out = []
    try:
        boom("outer", a)
    except ValueError:
        out.append(repr(sys.exc_info()[1]))
        try:
            boom("inner", b)
        except KeyError:
            out.append(repr(sys.exc_info()[1]))
        out.append(repr(sys.exc_info()[1]))
    out.append(repr(sys.exc_info()[1]))
    return out


def ei_top_level() -> str:
    return repr(sys.exc_info()[1])


def ei_bare_raise() -> str:
    raise


def ei_bare_raise_after_own_handler(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        note("handled")
    raise


def ei_new_exception(a: int) -> str:
    boom("body", a)
    return "end"


def ei_handler_restores(a: int):
    try:
        boom("body", a)
    except BaseException:
        note(repr(sys.exc_info()[1]))
    return sys.exc_info()[1]


def ei_return_from_handler(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        return "handler"
    return "end"


def ei_break_from_handler(n: int, a: int):
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError:
            break
    return repr(sys.exc_info()[1])


def ei_continue_from_handler(n: int, a: int):
    for i in range(n):
        try:
            boom(f"body {i}", a)
        except ValueError:
            continue
        finally:
            note(repr(sys.exc_info()[1]))
    return repr(sys.exc_info()[1])


def ei_escape_from_handler(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        raise KeyError("escape")
    return "end"


def ei_callback(a: int, f):
    try:
        boom("body", a)
    except ValueError:
        return f()
    return f()


def ei_callback_in_finally(a: int, f):
    try:
        boom("body", a)
    finally:
        note(f())
    return "end"


def ei_native_callee_sees(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        return ei_top_level()
    return ei_top_level()


def ei_native_callee_reraises(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        ei_bare_raise()
    return "end"


def ei_native_callee_handles(a: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        r = ei_handler_restores(1)
        return f"{r!r} {sys.exc_info()[1]!r}"
    return "end"


def ei_generator(a: int, g) -> list:
    try:
        boom("body", a)
    except ValueError:
        return list(g)
    return list(g)


def ei_python_callee_raises_in_handler(a: int, t) -> str:
    try:
        boom("body", a)
    except ValueError:
        try:
            t.method(1)
        except ValueError as e:
            note(repr(e.__context__))
    return repr(sys.exc_info()[1])
'''

# Native int/float/bool locals across try regions.
SCALAR_SRC = r'''
def sc_count(n: int) -> int:
    total = 0
    for i in range(n):
        try:
            total += 100 // (i % 4)
        except ZeroDivisionError:
            total -= 1000
        finally:
            total += 1
    return total


def sc_value_at_raise(k: int) -> int:
    x = 1
    try:
        x = 2
        x = 10 // k
        x = x + 1000
    except ZeroDivisionError:
        return x
    return x


def sc_float_at_raise(x: float, a: int) -> float:
    y = x
    try:
        y = y * 2.0
        boom("body", a)
        y = 100.0
    except ValueError:
        y = y + 0.5
    return y


def sc_bool_flag(a: int) -> bool:
    ok = False
    try:
        boom("body", a)
        ok = True
    except ValueError:
        ok = not ok
    return ok


def sc_finally_modifies(k: int, a: int) -> int:
    try:
        k = k + 1
        boom("body", a)
        k = k * 10
    finally:
        k = k - 1
        note(k)
    return k


def sc_while(n: int) -> int:
    i = 0
    acc = 0
    while i < n:
        i += 1
        try:
            acc += 60 // (i - 3)
        except ZeroDivisionError:
            acc += 1000
            continue
        finally:
            acc += 1
        acc *= 2
    return acc


def sc_int_in_handler(k: int) -> int:
    r = 0
    try:
        r = 7 // k
    except ZeroDivisionError as e:
        r = len(str(e))
        r = r * k
    return r


def sc_mixed(n: int, x: float, b: bool) -> tuple:
    i = 0
    y = x
    c = b
    for i in range(n):
        try:
            y = y / (i - 1)
            c = not c
        except ZeroDivisionError:
            y = -y
    return (i, y, c)


def sc_range_loop_in_try(n: int, k: int) -> int:
    s = 0
    try:
        for i in range(n):
            s += 1000 // (i - k)
    except ZeroDivisionError:
        s = -s
    return s


def sc_maybe_unbound(a: int) -> int:
    try:
        boom("body", a)
        v = 1
    except ValueError:
        note("handler")
    return v


def sc_float_maybe_unbound(a: int, x: float) -> float:
    try:
        boom("body", a)
        y = x * 2.0
    except ValueError:
        note("handler")
    return y


def sc_unbound_in_handler(k: int) -> int:
    try:
        v = 10 // k
    except ZeroDivisionError:
        return v
    return v


def sc_bound_in_finally_only(a: int) -> int:
    try:
        boom("body", a)
    except ValueError:
        note("handler")
    finally:
        w = 5
    return w


def sc_del_in_try(k: int, a: int) -> int:
    v = k
    try:
        del v
        boom("body", a)
        v = 3
    except ValueError:
        note("handler")
    return v


def sc_bool_unbound(a: int) -> bool:
    try:
        flag = a > 0
        boom("body", a)
    except ValueError:
        del flag
    return flag


def sc_types_join(a: int, k: int):
    try:
        v = k
        boom("body", a)
        v = 1.5
    except ValueError:
        v = "handler"
    finally:
        note(repr(v))
    return v


def sc_else_only(a: int) -> int:
    try:
        boom("body", a)
    except ValueError:
        note("handler")
    else:
        v = 2
    return v


def sc_loop_var_in_handler(n: int, k: int) -> int:
    try:
        for i in range(n):
            x = 10 // (i - k)
    except ZeroDivisionError:
        return i
    return -1


def sc_as_name_mixed_types(n: int, a: int):
    e = n
    try:
        boom("body", a)
    except ValueError as e:
        for i in range(n):
            note(repr(e))
            e = i
    return e


def sc_as_name_int_then_deleted(a: int, k: int, b: int):
    e = k
    try:
        try:
            boom("body", a)
        except ValueError as e:
            note(repr(e))
            boom("handler", b)
    finally:
        note(repr(e))
    return e


def sc_loop_var_after_handler(n: int) -> int:
    j = -1
    for j in range(n):
        try:
            if j == 2:
                raise ValueError(j)
        except ValueError:
            break
    return j
'''

# When exceptions (and other objects) with a __del__ are freed, where
# CPython's order is fixed.
LIFETIME_SRC = r'''
def lt_handler(a: int) -> str:
    try:
        if a:
            raise Tracked("t")
    except Tracked:
        note("handler")
    note("after")
    return "end"


def lt_as(a: int) -> str:
    try:
        if a:
            raise Tracked("t")
    except Tracked as e:
        note(f"handler {e}")
    note("after")
    return "end"


def lt_as_del(a: int) -> str:
    try:
        if a:
            raise Tracked("t")
    except Tracked as e:
        del e
        note("deleted")
    note("after")
    return "end"


def lt_as_rebound(a: int) -> str:
    try:
        if a:
            raise Tracked("t")
    except Tracked as e:
        e = None
        note("rebound")
    note("after")
    return "end"


def lt_in_loop(n: int) -> str:
    for i in range(n):
        try:
            raise Tracked(i)
        except Tracked:
            note(f"handler {i}")
    return "end"


def lt_as_in_loop(n: int) -> str:
    for i in range(n):
        try:
            raise Tracked(i)
        except Tracked as e:
            note(f"handler {e}")
    return "end"


def lt_context_chain(a: int) -> str:
    try:
        try:
            raise Tracked("first")
        except Tracked:
            raise Tracked("second")
    except Tracked as e:
        note(f"outer {e} ctx {e.__context__}")
    note("after")
    return "end"


def lt_reraised(a: int) -> str:
    try:
        try:
            raise Tracked("t")
        except Tracked:
            note("inner")
            raise
    except Tracked:
        note("outer")
    note("after")
    return "end"


def lt_return_in_handler(a: int) -> str:
    try:
        raise Tracked("t")
    except Tracked:
        return pick("return value", "handler")
    finally:
        note("finally")


def lt_break_in_handler(n: int) -> str:
    for i in range(n):
        try:
            raise Tracked(i)
        except Tracked:
            break
        finally:
            note(f"finally {i}")
    note("after")
    return "end"


def lt_continue_in_handler(n: int) -> str:
    for i in range(n):
        try:
            raise Tracked(i)
        except Tracked:
            continue
        finally:
            note(f"finally {i}")
    note("after")
    return "end"


def lt_finally_return_swallows(a: int) -> str:
    try:
        raise Tracked("t")
    finally:
        note("finally")
        return "swallowed"


def lt_finally_break_swallows(n: int) -> str:
    for i in range(n):
        try:
            raise Tracked(i)
        finally:
            note(f"finally {i}")
            break
    note("after")
    return "end"


def lt_finally_continue_swallows(n: int) -> str:
    for i in range(n):
        try:
            raise Tracked(i)
        finally:
            note(f"finally {i}")
            continue
    note("after")
    return "end"


def lt_handled_in_finally(a: int) -> str:
    try:
        note("body")
    finally:
        try:
            raise Tracked("in finally")
        except Tracked:
            note("handler")
        note("finally end")
    return "end"


def lt_without_traceback_stored(a: int) -> str:
    saved = None
    try:
        raise Tracked("t")
    except Tracked as e:
        saved = e.with_traceback(None)
    note(f"saved {saved}")
    saved = None
    note("after")
    return "end"


def lt_items_in_try(a: int) -> str:
    x = Item("a")
    try:
        x = Item("b")
        boom("body", a)
        x = Item("c")
    except ValueError:
        x = Item("h")
    finally:
        note("finally")
    x = None
    note("after")
    return "end"


def lt_return_value_dropped_by_raise(a: int) -> str:
    try:
        try:
            return Item("r")
        finally:
            boom("finally", a)
    except ValueError as e:
        note(f"caught, context {e.__context__!r}")
    return "end"


def lt_return_value_dropped_by_break(n: int) -> str:
    for i in range(n):
        try:
            return Item(f"r{i}")
        finally:
            note(f"finally {i}")
            break
    note("after")
    return "end"


def lt_return_value_replaced(a: int) -> str:
    try:
        return Item("first")
    finally:
        note("finally")
        return "second"


def lt_temporary_freed_before_handler(a: int) -> str:
    try:
        t = (Item("tmp"), boom("body", a))
        note("body done")
    except ValueError:
        note("handler")
    note("after")
    return "end"


def lt_attribute_error_object(a: int) -> str:
    try:
        pick("picked", Item("obj")).missing
    except AttributeError:
        note("handler")
    note("after")
    return "end"


def lt_call_argument_freed(a: int) -> str:
    try:
        note(Item("arg").tag + boom("body", a))
    except ValueError:
        note("handler")
    note("after")
    return "end"


def lt_return_from_loop_in_handler(it, k: int):
    try:
        raise Tracked("t")
    except Tracked:
        for x in it:
            if x == k:
                return x
    return -1


def lt_return_from_loop_in_as_handler(it, k: int):
    try:
        raise Tracked("t")
    except Tracked as e:
        for x in it:
            if x == k:
                return x
    return -1


def lt_native_error(k: int) -> str:
    x = Item("x")
    try:
        r = 10 // k
    except ZeroDivisionError:
        x = None
        note("handler")
    note("after")
    return "end"
'''

# Traceback entries: which line each frame's entry names, for statements and
# expressions spanning several lines, and re-raises adding none.
TRACEBACK_SRC = r'''
def tb_multiline_call(a: int) -> str:
    try:
        boom(
            "body",
            a,
        )
    except KeyError:
        raise
    return "end"


def tb_multiline_raise(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        raise KeyError(
            "new",
            str(e),
        ) from e


def tb_multiline_binop(k: int, m: int) -> int:
    try:
        r = (k
             + 10
             // m)
    finally:
        note("finally")
    return r


def tb_multiline_attribute(o):
    try:
        return (o
                .missing)
    finally:
        note("finally")


def tb_multiline_subscript(xs, i: int):
    try:
        return xs[
            i
        ]
    finally:
        note("finally")


def tb_multiline_method(o, k: int):
    try:
        return o.method(
            k)
    except KeyError:
        raise


def tb_condition(xs, k: int) -> str:
    try:
        if (len(xs) > 0 and
                xs[k] > 0):
            return "positive"
    except TypeError:
        note("handler")
    return "other"


def tb_handler_expression(a: int) -> str:
    try:
        boom("body", a)
    except (KeyError,
            boom("matching", 5)):
        return "never"
    return "end"


def tb_in_else(a: int, c: int) -> str:
    try:
        boom("body", a)
    except KeyError:
        return "handler"
    else:
        boom("else", c)
    return "end"


def tb_in_finally_after_return(d: int) -> str:
    try:
        return "try"
    finally:
        boom("finally", d)


def tb_reraise_in_finally_loop(n: int, a: int) -> int:
    i = 0
    for i in range(n):
        try:
            boom(f"body {i}", a)
        finally:
            note(i)
    return i


def tb_reraise_nested_handlers(a: int) -> str:
    try:
        try:
            boom("body", a)
        except ValueError:
            raise
        finally:
            note("inner finally")
    except ValueError:
        note("outer")
        raise
    return "end"


def tb_raise_caught_twice(a: int):
    try:
        boom("body", a)
    except ValueError as e:
        try:
            raise e
        except ValueError as f:
            raise f


def tb_loop_raise_line(n: int) -> int:
    total = 0
    for i in range(n):
        total += 12 // (2 - i)
    return total


def tb_two_frames(a: int) -> str:
    try:
        return tb_in_else(a, 2)
    except KeyError:
        raise


def tb_recursive(n: int, a: int) -> int:
    try:
        if n > 0:
            return tb_recursive(n - 1, a) + 1
        boom("bottom", a)
        return 0
    finally:
        note(n)
'''


# Which definitions reach a use across try regions: a variable bound in a
# finally block and read after a break, a continue or an outer handler; in a
# handler that raises; in an else block; typed differently on each path.
RESOLVE_SRC = r'''
def rd_finally_defines_break(n: int) -> int:
    for i in range(n):
        try:
            if i == 1:
                break
        finally:
            v = i * 10
    return v


def rd_finally_defines_continue(n: int) -> list:
    out = []
    for i in range(n):
        try:
            if i % 2:
                continue
            out.append(v)
        finally:
            v = i
    return out


def rd_finally_defines_reraise(a: int) -> int:
    try:
        try:
            boom("body", a)
        finally:
            v = 5
    except ValueError:
        return v
    return -v


def rd_handler_defines_then_raises(a: int, b: int) -> int:
    try:
        try:
            boom("body", a)
        except ValueError:
            v = 7
            boom("handler", b)
        v = 1
    except KeyError:
        return v
    return v


def rd_else_defines(a: int, c: int) -> str:
    try:
        boom("body", a)
    except ValueError:
        note("handler")
    else:
        v = 3
        boom("else", c)
    finally:
        note(v)
    return "end"


def rd_types_per_path(a: int, k: int):
    v = k
    try:
        boom("body", a)
        v = "body"
    except KeyError:
        v = 2.5
    finally:
        note(repr(v))
        if k > 1:
            v = [k]
    return v


def rd_float_in_finally_after_break(n: int, x: float) -> float:
    y = x
    for i in range(n):
        try:
            y = y * 2.0
            if i == 1:
                break
        finally:
            y = y + 0.25
    return y


def rd_int_deleted_in_handler_loop(n: int, a: int) -> list:
    out = []
    v = 0
    for i in range(n):
        try:
            out.append(v)
            boom(f"body {i}", a)
            v = i
        except ValueError:
            del v
            continue
        finally:
            note(i)
    return out


def rd_handler_continue_defines(n: int, a: int) -> list:
    out = []
    for i in range(n):
        if i > 0:
            out.append(w)
        try:
            boom(f"body {i}", a)
            w = "body"
        except ValueError:
            w = i
            continue
        out.append("after")
    return out


def rd_bool_across(a: int, b: bool) -> bool:
    f = b
    try:
        f = not f
        boom("body", a)
        f = not f
    except ValueError:
        pass
    return f


def rd_return_in_finally_uses_body_def(a: int) -> int:
    v = 1
    try:
        v = 2
        boom("body", a)
        v = 3
    finally:
        return v


def rd_nested_finally_chain(a: int, d: int) -> tuple:
    try:
        try:
            u = 1
            boom("body", a)
        finally:
            w = 2
            boom("inner finally", d)
    except (ValueError, TypeError):
        pass
    finally:
        note(repr(locals_of(u, w)))
    return (u, w)


def locals_of(u, w) -> tuple:
    return (u, w)


def rd_comprehension_in_handler(a: int, xs) -> list:
    try:
        boom("body", a)
    except ValueError as e:
        return [str(e) + str(1 // x) for x in xs]
    except KeyError as e:
        return [e for e in range(2)] + [repr(e)]
    finally:
        note(repr(sys.exc_info()[1]))
    return []


def rd_sum_in_finally(a: int, xs) -> str:
    try:
        boom("body", a)
    finally:
        note(sum(12 // x for x in xs))
    return "end"


def rd_min_in_else(a: int, xs) -> str:
    try:
        boom("body", a)
    except KeyError:
        return "handler"
    else:
        note(min(12 // x for x in xs))
    return "end"


def rd_return_expression_raises(a: int, k: int) -> int:
    try:
        boom("body", a)
    except ValueError as e:
        return 10 // k
    finally:
        note(repr(sys.exc_info()[1]))
    return -1


def rd_augassign_subscript(xs, i: int) -> list:
    try:
        xs[i] += 1
    except (IndexError, TypeError) as e:
        xs.append(type(e).__name__)
    return xs


def rd_del_subscript(d, k) -> str:
    try:
        del d[k]
    except KeyError as e:
        return f"KeyError {e}"
    return "deleted"


def rd_method_keyword_error(t) -> str:
    try:
        return t.method(k=1, z=2)
    except TypeError as e:
        return "TypeError"
'''


# A try in a long loop, catching each time: nothing may leak.
MANY_SRC = r'''
def many_except(n: int, obj) -> int:
    count = 0
    for i in range(n):
        try:
            if i % 3 == 0:
                raise ValueError(obj)
            elif i % 3 == 1:
                x = obj.missing_attribute
            else:
                x = [obj][i]
        except (ValueError, AttributeError) as e:
            count += 1
        except IndexError:
            count += 2
        finally:
            count += 0
    return count


def many_nested_reraise(n: int, obj) -> int:
    count = 0
    for i in range(n):
        try:
            try:
                raise KeyError(obj)
            except KeyError:
                raise ValueError(obj)
        except ValueError as e:
            count += len(e.args)
    return count


def many_finally_continue(n: int, obj) -> int:
    count = 0
    for i in range(n):
        try:
            raise TypeError(obj)
        finally:
            count += 1
            continue
    return count


def many_native_errors(n: int, obj) -> int:
    count = 0
    for i in range(n):
        try:
            count += 1 // (i % 2)
        except ZeroDivisionError:
            count += 10
        try:
            count += [obj][i % 3]
        except IndexError:
            count += 100
        except TypeError:
            count += 1000
    return count


def many_partial_results(n: int, obj) -> int:
    count = 0
    xs = [0, 1, 2, 3]
    for i in range(n):
        try:
            count += int(sum(1.5 / (x - 2) for x in xs))
        except ZeroDivisionError:
            count += 1
        try:
            count += len([1.5 / (x - 2) for x in xs])
        except ZeroDivisionError:
            count += 1
        try:
            count += int(min(str(x) + str(1 // (x - 2)) for x in xs))
        except ZeroDivisionError:
            count += 1
        try:
            count += len({x: [obj] * (1 // (x - 3)) for x in xs})
        except ZeroDivisionError:
            count += 1
    return count


def many_return_from_handler(obj) -> int:
    try:
        raise ValueError(obj)
    except ValueError as e:
        return len(e.args)
'''


def _random_trys(count: int = 12, seed: int = 20261202) -> str:
    """Functions drawn at random (fixed seed): try statements (one to three
    handlers of classes, tuples, Exception, BaseException, a bare except
    last; `as` names shared between handlers; else; finally) nested up to
    three deep inside each other and inside `for` and `while` loops, their
    blocks calling boom with the arguments' codes, appending to `out`,
    updating a native int x and float y (and dividing by c - r:
    ZeroDivisionError), binding, reading and deleting w (always an int) and
    z (an int or a str), maybe unbound there, reading sys.exc_info(),
    re-raising, raising anew (from None), reading an `as` name (maybe
    unbound), returning, breaking and continuing."""
    import random
    rng = random.Random(seed)
    funcs = []
    for fi in range(count):
        tags = itertools.count()

        def simple(ind, loops, handler_names, in_handler):
            tag = f"t{next(tags)}"
            pad = "    " * ind
            opts = ["boom", "boom", "boom", "append", "x", "y", "div", "excinfo", "raise_new",
                    "w", "z", "read"]
            if loops:
                opts += ["break", "continue", "break_if", "continue_if"]
            if in_handler:
                opts += ["reraise"]
            if handler_names:
                opts += ["read_as", "read_as"]
            if rng.random() < 0.05:
                opts += ["read_any_as", "return"]
            kind = rng.choice(opts)
            if kind == "boom":
                code = rng.choice(["a", "b", "c", "0", "1", "2", "a if x % 2 else b"])
                return [f"{pad}out.append(boom({tag!r}, {code}))"]
            if kind == "append":
                return [f"{pad}out.append({tag!r})"]
            if kind == "x":
                return [f"{pad}x = (x * 3 + {rng.randint(1, 9)}) % 1009"]
            if kind == "y":
                return [f"{pad}y = y * 0.5 + {rng.randint(1, 9)}.25"]
            if kind == "div":
                return [f"{pad}x += 10 // (c - {rng.randint(0, 2)})"]
            if kind == "excinfo":
                return [f"{pad}out.append(repr(sys.exc_info()[1]))"]
            if kind == "raise_new":
                form = rng.choice([f"KeyError({tag!r})", f"ValueError({tag!r}) from None",
                                   f"MyError({tag!r})", "TypeError"])
                return [f"{pad}if x % 3 == {rng.randint(0, 2)}:", f"{pad}    raise {form}"]
            if kind == "w":
                return [rng.choice([f"{pad}w = x + {rng.randint(0, 5)}"] * 3 + [f"{pad}del w"])]
            if kind == "z":
                return [rng.choice([f"{pad}z = x * 2", f"{pad}z = {tag!r}"] * 2 + [f"{pad}del z"])]
            if kind == "read":
                return [f"{pad}out.append({rng.choice(['w', 'z'])})"]
            if kind == "break":
                return [f"{pad}break"]
            if kind == "continue":
                return [f"{pad}continue"]
            if kind in ("break_if", "continue_if"):
                v = rng.choice(loops)
                return [f"{pad}if {v} == {rng.randint(0, 1)}:",
                        f"{pad}    {kind.split('_')[0]}"]
            if kind == "reraise":
                return [f"{pad}if x % 2:", f"{pad}    raise"]
            if kind == "read_as":
                return [f"{pad}out.append(repr({rng.choice(handler_names)}))"]
            if kind == "read_any_as":
                return [f"{pad}out.append(repr({rng.choice(['e', 'f'])}))"]
            return [f"{pad}return (out, x, y)"]

        def block(ind, depth, loops, handler_names, in_handler):
            lines = []
            for _ in range(rng.choice([1, 1, 2, 2, 3])):
                r = rng.random()
                if depth < 3 and r < 0.3:
                    lines += try_stmt(ind, depth + 1, loops, handler_names, in_handler)
                elif depth < 3 and r < 0.38:
                    v = f"i{depth}"
                    lines.append(f"{'    ' * ind}for {v} in range(n):")
                    lines += block(ind + 1, depth + 1, loops + [v], handler_names, in_handler)
                elif depth < 3 and r < 0.42:
                    v = f"j{depth}"
                    lines.append(f"{'    ' * ind}{v} = 0")
                    lines.append(f"{'    ' * ind}while {v} < n:")
                    lines.append(f"{'    ' * (ind + 1)}{v} += 1")
                    lines += block(ind + 1, depth + 1, loops + [v], handler_names, in_handler)
                else:
                    lines += simple(ind, loops, handler_names, in_handler)
            return lines

        def try_stmt(ind, depth, loops, handler_names, in_handler):
            pad = "    " * ind
            lines = [f"{pad}try:"] + block(ind + 1, depth, loops, handler_names, in_handler)
            classes = rng.sample(["ValueError", "KeyError", "(KeyError, MyError)", "LookupError",
                                  "Exception", "BaseException", "(TypeError, ValueError)",
                                  "NameError"],
                                 rng.choice([0, 1, 1, 2, 2, 3]))
            bare = rng.random() < 0.15
            for cls in classes:
                name = rng.choice([None, None, "e", "f"])
                lines.append(f"{pad}except {cls}{' as ' + name if name else ''}:")
                names = handler_names + [name] if name else handler_names
                lines += block(ind + 1, depth, loops, names, True)
            if bare:
                lines.append(f"{pad}except:")
                lines += block(ind + 1, depth, loops, handler_names, True)
            has_handlers = bool(classes) or bare
            if has_handlers and rng.random() < 0.3:
                lines.append(f"{pad}else:")
                lines += block(ind + 1, depth, loops, handler_names, in_handler)
            if not has_handlers or rng.random() < 0.5:
                lines.append(f"{pad}finally:")
                lines += block(ind + 1, depth, loops, handler_names, in_handler)
            return lines

        body = try_stmt(1, 1, [], [], False)
        if rng.random() < 0.5:
            body = try_stmt(1, 1, [], [], False) + body
        funcs.append("\n".join([f"def rt{fi}(a: int, b: int, c: int, n: int) -> tuple:",
                                "    out = []", "    x = 0", "    y = 1.0", "    w = 1",
                                "    z = 0"] + body +
                               ["    return (out, x, y)"]) + "\n")
    return "\n\n".join(funcs)


RANDOM_SRC = _random_trys()
RANDOM_ARGS = [(0, 0, 0, 2), (1, 2, 3, 2), (2, 1, 0, 1), (3, 0, 1, 3), (4, 1, 2, 1),
               (0, 2, 1, 2), (1, 1, 1, 0), (2, 2, 2, 2), (6, 0, 1, 1), (0, 3, 0, 3),
               (1, 0, 2, 3), (7, 1, 1, 1), (2, 0, 1, 3), (0, 1, 2, 1), (3, 3, 0, 2),
               (1, 2, 0, 3)]


# kiln's documented contract: native ints are int64, OverflowError past it
# (where Python goes on with a big int); caught like any exception.
CONTRACT_SRC = r'''
def ov_caught(k: int) -> int:
    try:
        r = k * k
    except OverflowError as e:
        note(type(e).__name__)
        r = -1
    finally:
        note("finally")
    return r


def ov_escapes(k: int) -> int:
    try:
        r = k + 1
    finally:
        note("finally")
    return r


def ov_in_loop(n: int, k: int) -> list:
    out = []
    for i in range(n):
        try:
            out.append(k + i)
        except OverflowError:
            out.append(-1)
    return out
'''

# Recursion past the limit, caught at every level.
RECURSION_SRC = r'''
def rec(n: int) -> int:
    try:
        return rec(n + 1)
    except RecursionError:
        return -n


def rec_finally(n: int) -> int:
    try:
        return rec_finally(n + 1)
    finally:
        if n % 100 == 0:
            note(n)
'''

# Each thread handles its own exception: what sys.exc_info() and a bare raise
# see after a callback that lets the other threads run.
THREADS_SRC = r'''
def th_worker(tag, f) -> str:
    try:
        raise ValueError(tag)
    except ValueError:
        f()
        return repr(sys.exc_info()[1])


def th_reraise(tag, f):
    try:
        raise KeyError(tag)
    except KeyError:
        f()
        raise
'''


def _pre(src: str) -> str:
    return PRELUDE + src


GROUPS = {
    "try_forms": (_pre(FORMS_SRC), set()),
    "try_match": (_pre(MATCH_SRC), set()),
    "try_as": (_pre(AS_SRC), set()),
    "try_flow": (_pre(FLOW_SRC), set()),
    "try_nested": (_pre(NESTED_SRC), set()),
    "try_raise": (_pre(RAISE_SRC), set()),
    "try_sources": (_pre(SOURCES_SRC), set()),
    "try_excinfo": (_pre(EXCINFO_SRC), set()),
    "try_scalar": (_pre(SCALAR_SRC), set()),
    "try_lifetime": (_pre(LIFETIME_SRC), set()),
    "try_traceback": (_pre(TRACEBACK_SRC), set()),
    "try_many": (_pre(MANY_SRC), set()),
    "try_resolve": (_pre(RESOLVE_SRC), set()),
    "try_random": (_pre(RANDOM_SRC), set()),
    "try_contract": (_pre(CONTRACT_SRC), set()),
    "try_recursion": (_pre(RECURSION_SRC), set()),
    "try_threads": (_pre(THREADS_SRC), set()),
}

# Groups compared by their own tests below, not case by case.
OWN_TESTS = {"try_contract", "try_recursion", "try_threads"}


def _functions(source: str) -> list[str]:
    return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]


def _params(source: str) -> dict[str, list[str]]:
    return {n.name: [a.arg for a in n.args.args] for n in ast.parse(source).body
            if isinstance(n, ast.FunctionDef) and n.name not in PRELUDE_FUNCTIONS}


def _arity(source: str) -> dict[str, tuple[int, int]]:
    return {n.name: (len(n.args.args) - len(n.args.defaults), len(n.args.args))
            for n in ast.parse(source).body
            if isinstance(n, ast.FunctionDef) and n.name not in PRELUDE_FUNCTIONS}


# --------------------------------------------------------------------------
# Building (once per group)
# --------------------------------------------------------------------------

def _write_source(stem: str, out):
    path = out / f"{stem}.py"
    path.write_text(GROUPS[stem][0], encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    yield build_cache(tmp_path_factory, _write_source)
    if _frozen:
        gc.unfreeze()
        _frozen.clear()


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

class Make:
    """An argument made afresh for each run by factory(module): the
    module's own objects, exceptions that must not be shared."""

    def __init__(self, desc: str, factory):
        self.desc = desc
        self.factory = factory

    def __repr__(self) -> str:
        return self.desc


class Outer(Exception):
    """The exception a caller is handling around the call (second run)."""


def _safe_str(value) -> str:
    try:
        return str(value)
    except Exception as exc:  # noqa: BLE001
        return f"<str raised {type(exc).__name__}>"


def _safe_repr(value) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001
        return f"<{type(value).__name__}: repr raised {type(exc).__name__}>"
    return text if len(text) <= 400 else text[:400] + "..."


# The frames of comprehensions and generator expressions, which kiln inlines
# into the function: their entries are compared by test_comprehension_frames
# only (an open kiln bug), not by every case.
COMPREHENSION_FRAMES = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}


def _tb_entries(tb, filename: str, keep_comprehensions: bool = False) -> list:
    """(line, function) of each traceback entry of the source file."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and (keep_comprehensions
                                             or code.co_name not in COMPREHENSION_FRAMES):
            out.append((tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out


def _norm(value, filename: str, seen=None):
    """value with every exception replaced by what is compared of it (type,
    message, args, __suppress_context__, its source-file traceback entries,
    its __cause__ and __context__, recursively) and every traceback by its
    entries; containers recursively."""
    seen = {} if seen is None else seen
    if isinstance(value, BaseException):
        if id(value) in seen:
            return ("exception seen", seen[id(value)])
        seen[id(value)] = len(seen)
        return ("exception", type(value), _safe_str(value), _norm(value.args, filename, seen),
                value.__suppress_context__, _tb_entries(value.__traceback__, filename),
                ("cause", _norm(value.__cause__, filename, seen)),
                ("context", _norm(value.__context__, filename, seen)))
    if isinstance(value, types.TracebackType):
        return ("traceback", _tb_entries(value, filename))
    if isinstance(value, tuple):
        return tuple(_norm(v, filename, seen) for v in value)
    if isinstance(value, list):
        return [_norm(v, filename, seen) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v, filename, seen) for k, v in value.items()}
    return value


def _same(x, y) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    if isinstance(x, dict):
        return list(x) == list(y) and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, type):
        return x is y
    return same_value(x, y)


def _materialize(args, mod):
    args = copy.deepcopy(args)
    return tuple(a.factory(mod) if isinstance(a, Make) else a for a in args)


def _drop_tracebacks(obj, seen=None):
    """Drops the tracebacks of every exception reachable from obj (a result
    or a caught exception, through containers and chains): they hold frames,
    the frames hold the exceptions, a cycle only the garbage collector would
    free, later, into another case's LOG."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, BaseException):
        obj.__traceback__ = None
        _drop_tracebacks(obj.__cause__, seen)
        _drop_tracebacks(obj.__context__, seen)
        _drop_tracebacks(obj.args, seen)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _drop_tracebacks(v, seen)
    elif isinstance(obj, dict):
        for v in obj.values():
            _drop_tracebacks(v, seen)


def _exc_info_desc(filename):
    t, v, tb = sys.exc_info()
    return _norm((t, v), filename)


def _run(fn, args, mod, filename: str, outer: bool):
    """One call: (outcome, LOG, arguments afterwards, exc_info record), all
    normalised. outer: called inside `except Outer`."""
    args = _materialize(args, mod)
    log = mod.LOG
    log.clear()
    info = []
    if not outer:
        try:
            value = fn(*args)
            info.append(("after return", _exc_info_desc(filename)))
        except BaseException as exc:  # noqa: BLE001 — compared by the caller
            outcome = ("raise", exc)
        else:
            outcome = ("return", value)
        logged = list(log)
    else:
        marker = Outer("outer")
        try:
            raise marker
        except Outer:
            try:
                value = fn(*args)
                info.append(("after return", sys.exc_info()[1] is marker))
            except BaseException as exc:  # noqa: BLE001
                outcome = ("raise", exc)
                info.append(("context is outer", exc.__context__ is marker))
            else:
                outcome = ("return", value)
            logged = list(log)
            info.append(("restored", sys.exc_info()[1] is marker))
        marker.__traceback__ = None
        del marker
    info.append(("at end", _exc_info_desc(filename)))
    normed = (outcome[0], _norm(outcome[1], filename))
    desc = (outcome[0], type(outcome[1]).__name__, _safe_repr(outcome[1]))
    result = (normed, desc, _norm(logged, filename), _norm(list(args), filename), info)
    _drop_tracebacks(outcome[1])
    _drop_tracebacks(logged)
    return result


def _describe(desc) -> str:
    kind, tname, text = desc
    return f"raised {tname}: {text}" if kind == "raise" else f"returned {tname} {text}"


_frozen = []


def _collect():
    """gc.collect(), fast: the objects alive at the first call (pytest's, the
    modules') are frozen out of later collections (gc.freeze); unfrozen at
    the end of the module (the `built` fixture)."""
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen.append(True)
    gc.collect()


def check(b: Built, stem: str, name: str, *args, modes=(False, True)):
    """Calls the native function and the Python original on fresh copies of
    args, plainly and inside a caller's except block; asserts the same
    outcome (value, or exception with its chain and traceback entries), the
    same LOG, the same arguments afterwards and the same sys.exc_info()."""
    mod = b.module
    native = getattr(mod, name)
    oracle = mod.__kiln_python__[name]
    assert native is not oracle, f"{name}: the module exposes the Python function"
    filename = oracle.__code__.co_filename
    if stem == "try_lifetime":  # no garbage of earlier cases left to be freed into LOG
        _collect()
    for outer in modes:
        where = f"{name}(*{_safe_repr(args)}){' inside except' if outer else ''}"
        want = _run(oracle, args, mod, filename, outer)
        got = _run(native, args, mod, filename, outer)
        assert got[0][0] == want[0][0], \
            f"{where}: python {_describe(want[1])}, kiln {_describe(got[1])}"
        assert _same(got[0], want[0]), \
            f"{where}: python {_describe(want[1])}, kiln {_describe(got[1])}\n" \
            f"  python: {want[0]!r}\n  kiln:   {got[0]!r}"
        assert _same(got[2], want[2]), f"{where}: LOG differs: python {want[2]!r}, kiln {got[2]!r}"
        assert _same(got[3], want[3]), \
            f"{where}: arguments after the call differ: python {want[3]!r}, kiln {got[3]!r}"
        assert _same(got[4], want[4]), \
            f"{where}: sys.exc_info() differs: python {want[4]!r}, kiln {got[4]!r}"


def _short(args) -> str:
    text = _safe_repr(args)
    return text if len(text) <= 60 else text[:57] + "..."


def _cases(source: str, pools: dict, explicit: dict | None = None) -> list:
    """(name, args) for every function of source: explicit[name] if given,
    else every combination of the pools named by its parameters (the body
    code `a` from A_SHORT where other parameters multiply the cases)."""
    explicit = explicit or {}
    out = []
    for name, params in _params(source).items():
        if name in explicit:
            out += [(name, tuple(a)) for a in explicit[name]]
            continue
        missing = [p for p in params if p not in pools]
        assert not missing, f"{name}: no pool for {missing}"
        chosen = [A_SHORT if p == "a" and len(params) > 1 and pools[p] is A else pools[p]
                  for p in params]
        out += [(name, combo) for combo in itertools.product(*chosen)]
    return out


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

A = [0, 1, 2, 3, 4, 6, 7]   # body: nothing, ValueError, KeyError, MyError, Halt, KI, SystemExit
A_SHORT = [0, 1, 2, 3, 4]   # with other parameters
B = [0, 1, 2]               # handler
C = [0, 2]                  # else
D = [0, 5]                  # finally
N = [0, 1, 3]
K = [0, 1, 2, -3]

POOLS = {"a": A, "b": B, "c": C, "d": D, "n": N, "k": K}


def _thing(v):
    return Make(f"Thing({v!r})", lambda m, v=v: m.Thing(v))


def _ns(cls):
    return Make(f"ns(cls={cls!r})", lambda m, cls=cls: types.SimpleNamespace(cls=cls))


def _mod_attr(attr, desc=None):
    return Make(desc or attr, lambda m, attr=attr: getattr(m, attr))


FORMS_CASES = _cases(FORMS_SRC, {**POOLS, "o": [None, 7, "s"], "t": [_thing(5)]})

EXCS = [ValueError, (KeyError, ValueError), (KeyError,), (), Exception, BaseException,
        (ValueError, (KeyError,)), (ValueError, 5), 5, "ValueError", None, int, [ValueError],
        ValueError("x"), _mod_attr("Catcher"), _mod_attr("MyError"), (object, ValueError)]

MATCH_CASES = _cases(MATCH_SRC, {**POOLS, "excs": EXCS, "c": [False, True],
                                 "ns": [_ns(ValueError), _ns((KeyError, ValueError)), _ns(5)]},
                     {"m_subscript": [(a, e) for a in (0, 1, 2)
                                      for e in ([KeyError, ValueError], (ValueError, KeyError),
                                                {1: LookupError}, [KeyError, 5], [ValueError])],
                      "m_oserror_subclass": [(k,) for k in (0, 1, 2, 13, 11, 4, 10, 17)]})

AS_CASES = _cases(AS_SRC, {**POOLS, "e": [None, "e", [1]], "o": [None, 3]},
                  {"as_int_param": [(e, a) for e in (0, 5) for a in A],
                   "as_float_param": [(e, a) for e in (0.5, -0.0) for a in A]})

class LoggedIterable:
    """Each iter() is a fresh generator, which logs when it is closed (the
    loop, its only holder, freed it)."""

    def __init__(self, log, n):
        self.log, self.n = log, n

    def __iter__(self):
        try:
            for i in range(self.n):
                yield i
        finally:
            self.log.append("iterator closed")


def _iterable(n):
    return Make(f"LoggedIterable({n})", lambda m, n=n: LoggedIterable(m.LOG, n))


FLOW_CASES = _cases(FLOW_SRC, {**POOLS, "n": [0, 1, 2, 4], "c": [False, True],
                               "it": [_iterable(3)],
                               "xs": [[], [1, 2], ["a", "b"]], "x": [0.5, -2.0, NAN]},
                    {"fl_loop_over_iterator": [(xs, a) for xs in ([], [1, 2, "stop", 3], [4, 5])
                                               for a in (0, 1, 2)]})

NESTED_CASES = _cases(NESTED_SRC, {**POOLS, "t": [_thing(7)], "k": [0, 1, 2]})


def _excinfo_gen():
    yield repr(sys.exc_info()[1])
    try:
        raise KeyError("in generator")
    except KeyError:
        yield repr(sys.exc_info()[1])
    yield repr(sys.exc_info()[1])


def _raised(factory_name, desc):
    """An exception raised and caught once already (by the Python helper
    below, the same way for both runs): it has a traceback."""
    def make(m):
        try:
            raise factory_name()
        except BaseException as exc:  # noqa: BLE001
            return exc
    return Make(desc, make)


RAISE_CASES = _cases(
    RAISE_SRC, {**POOLS, "k": [0, 3]},
    {"r_param": [(x,) for x in (ValueError, ValueError("v"), KeyError, _mod_attr("Halt"), 5,
                                "text", None, int, Make("object()", lambda m: object()),
                                _mod_attr("Weird"), _mod_attr("BadInit"), _mod_attr("MyError"),
                                StopIteration, _mod_attr("Other"),
                                _mod_attr("Tracked", "Tracked (class: no argument)"))],
     "r_param_in_try": [(x,) for x in (ValueError, ValueError("v"), 5, None, _mod_attr("Weird"),
                                       KeyError)],
     "r_from": [(x,) for x in (KeyError, KeyError("c"), None, 5, "text", _mod_attr("Weird"),
                               _mod_attr("BadInit"), ValueError, _mod_attr("Halt"),
                               _raised(lambda: KeyError("old"), "KeyError('old') raised"))],
     "r_class_from": [(x,) for x in (KeyError, KeyError("c"), None, 5)],
     "r_instance_reused": [(_raised(lambda: ValueError("old"), "ValueError('old') raised"),),
                           (ValueError("fresh"),)],
     "r_previously_raised": [(_raised(lambda: ValueError("old"), "ValueError('old') raised"),),
                             (_raised(lambda: Outer("other"), "Outer('other') raised"),)],
     "r_systemexit": [(0,), (3,)],
     "clear_traceback": [(KeyError,)]})

SRC_XS = [[], [1, 2], [0, 1], [1, "a"], [(1,), ()], [[2], [1]], [1.5, 0.0], "ab"]
SOURCES_CASES = _cases(
    SOURCES_SRC, {**POOLS, "k": [0, 2, -3], "m": [0, 2], "x": [1.0, -0.0], "y": [0.0, 2.0],
                  "xs": SRC_XS, "i": [0, 1, 5, -1, -3], "s": ["12", "x", None, "", "ab"],
                  "o": [None, _thing(3), [1], 5], "ps": [[(1, 2)], [(1, 2), (3,)], [(1, "a")], [5]],
                  "tag": ["tag"]},
    {"s_key": [(d, key) for d in ({"a": 1}, {}, [1]) for key in ("a", "b", [])],
     "s_compare": [(1, 2), (1, "a"), ("a", "b"), (None, None)],
     "s_add": [(1, 2), (1, "a"), ([1], [2]), (None, 1)],
     "s_call_helper_bad_arg": [(1,), ("s",), (None,), (1.5,)],
     "s_dict_method": [({"a": 1}, "a"), ({}, "a"), ({}, [])],
     "s_list_method": [([1, 2], 2), ([], 1)],
     "s_len": [([1],), (5,), (None,)],
     "s_iterate": [([1, 2],), (5,), (None,), ("ab",)],
     "s_escapes_with_traceback": [([1, 2], 1), ([1, 2], 5), (5, 0)],
     "s_int_arith_escapes": [(1, 2), (1, 0), (-5, 3)],
     "s_float_pow": [(10.0, 400.0), (0.0, -1.0), (-8.0, 0.5), (2.0, 3.0), (NAN, 0.0)],
     "s_float_to_int": [(NAN,), (float("inf"),), (-2.5,), (1e18,)],
     "s_shift": [(1, -1), (3, 2), (-5, 0)],
     "s_range_step": [(0,), (2,), (-1,)],
     "s_format": [(1,), (1.5,), ("s",), (True,)],
     "s_contains": [(1, [1]), (1, 5), ("a", "abc"), (1, "abc"), ([], {})],
     "s_min_list": [([],), ([3, 1],), ([1, "a"],)],
     "s_while_condition": [([1, 2, 0],), ([1, 2],), ([1, None],), ([],)]})

EXCINFO_CASES = _cases(
    EXCINFO_SRC, {**POOLS,
                  "f": [Make("lambda: repr(sys.exc_info()[1])",
                             lambda m: (lambda: repr(sys.exc_info()[1])))],
                  "t": [_thing(1)],
                  "g": [Make("generator of sys.exc_info()", lambda m: _excinfo_gen())]})

SCALAR_CASES = _cases(SCALAR_SRC, {**POOLS, "n": [0, 1, 3, 6], "k": [0, 1, 5, -2],
                                   "x": [1.5, -0.0, NAN], "b": [False, True]})

LIFETIME_CASES = _cases(LIFETIME_SRC, {"a": [0, 1, 2], "n": [0, 1, 3], "k": [0, 2],
                                       "it": [_iterable(3)]},
                        # an escaping exception keeps the Python frame (its locals) alive
                        {"lt_items_in_try": [(0,), (1,)]})

TRACEBACK_CASES = _cases(
    TRACEBACK_SRC, {**POOLS, "m": [0, 3], "o": [None, _thing(2)], "xs": [[1, 2], [-1], [], ["a"]],
                    "i": [0, 2], "k": [0, 1, 2, 5], "n": [0, 2]},
    {"tb_recursive": [(n, a) for n in (0, 3) for a in (0, 1, 2)]})

RESOLVE_CASES = _cases(
    RESOLVE_SRC, {**POOLS, "n": [0, 1, 2, 4], "k": [0, 1, 2], "x": [0.5, -0.0],
                  "b": [False, True], "xs": [[1, 2], [1, 0], []], "u": [1], "w": [2]},
    {"rd_augassign_subscript": [([1, 2], 0), ([1, 2], 5), (["a"], 0)],
     "rd_del_subscript": [({"a": 1}, "a"), ({}, "a"), ({}, [])],
     "rd_method_keyword_error": [(_thing(1),)]})

MANY_CASES = _cases(MANY_SRC, {"n": [0, 5], "obj": [None, "x"]})

ALL_CASES = {"try_forms": FORMS_CASES, "try_match": MATCH_CASES, "try_as": AS_CASES,
             "try_flow": FLOW_CASES, "try_nested": NESTED_CASES, "try_raise": RAISE_CASES,
             "try_sources": SOURCES_CASES, "try_excinfo": EXCINFO_CASES,
             "try_scalar": SCALAR_CASES, "try_lifetime": LIFETIME_CASES,
             "try_traceback": TRACEBACK_CASES, "try_many": MANY_CASES,
             "try_resolve": RESOLVE_CASES,
             "try_random": [(name, args) for name in _functions(RANDOM_SRC)
                            for args in RANDOM_ARGS]}

# (stem, name, args, reason, applies): cases of open kiln bugs,
# xfail(strict=True) on the interpreters where the bug shows (applies).
BUG_CASES: list = []  # none open
# Fixed, kept as ordinary cases: a binary operation spanning lines (the
# traceback names the line it starts on); `raise X from C` with C() not an exception
# (3.13's TypeError); 3.10's re-raise of the (type, traceback) saved when
# caught; a return leaving a for loop inside a try/finally or a handler frees
# the iterator before the finally block runs / the handler ends.

def _params_for(stem):
    bugs = {(s, n, repr(a)): r for s, n, a, r, applies in BUG_CASES if applies}
    out = []
    for name, args in ALL_CASES[stem]:
        reason = bugs.get((stem, name, repr(args)))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(stem, name, args, id=f"{stem}:{name}{_short(args)}", marks=marks))
    return out


CASE_PARAMS = [p for stem in ALL_CASES for p in _params_for(stem)]


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

def test_every_function_has_cases():
    for stem, (src, _) in GROUPS.items():
        if stem in OWN_TESTS:
            continue
        arity = _arity(src)
        called = {name for name, _ in ALL_CASES[stem]}
        assert set(arity) == called, f"{stem}: no cases for {sorted(set(arity) - called)}"
        for name, args in ALL_CASES[stem]:
            lo, hi = arity[name]
            assert lo <= len(args) <= hi, f"{stem}.{name}{args!r}: arity"


def test_bug_cases_exist():
    for stem, name, args, _, _ in BUG_CASES:
        assert (name, repr(args)) in {(n, repr(a)) for n, a in ALL_CASES[stem]}, \
            f"{stem}.{name}{args!r}: no such case"


def test_sources_are_python_310_syntax():
    for stem, (src, _) in GROUPS.items():
        ast.parse(src, filename=f"{stem}.py", feature_version=(3, 10))


STATUS_PARAMS = [pytest.param(stem, name, id=f"{stem}:{name}")
                 for stem, (src, _) in GROUPS.items() for name in _functions(src)]


@pytest.mark.parametrize("stem,name", STATUS_PARAMS)
def test_report_status(built, stem, name):
    check_report_status(built(stem), stem, name, GROUPS[stem][1])


def test_kiln_check_cli(tmp_path):
    """`kiln check` leaves none of these functions as Python: no KILN010."""
    stem = "try_forms"
    src = tmp_path / f"{stem}.py"
    src.write_text(GROUPS[stem][0], encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "kiln", "check", str(src), "-o", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "PYTHONPATH": ROOT_PYTHONPATH})
    assert r.returncode == 0, r.stderr
    assert "KILN010" not in r.stderr, r.stderr
    report = json.loads((tmp_path / f"{stem}.kiln.json").read_text(encoding="utf-8"))
    assert {f["name"]: f["status"] for f in report["functions"]} == \
        {name: "native" for name in _functions(GROUPS[stem][0])}


@pytest.mark.parametrize("stem,name,args", CASE_PARAMS)
def test_try(built, stem, name, args):
    check(built(stem), stem, name, *args)


# --------------------------------------------------------------------------
# Comprehension frames in tracebacks
# --------------------------------------------------------------------------

# Fixed on 2026-12-02: an exception raised inside a generator expression (or,
# before 3.12, a list, set or dict comprehension) now has the traceback entry
# of CPython's '<genexpr>' ('<listcomp>', ...) frame.
def _frames_case(name):
    return pytest.param(name, id=name)


@pytest.mark.parametrize("name", [_frames_case("rd_comprehension_in_handler"),
                                  _frames_case("rd_sum_in_finally")])
def test_comprehension_frames(built, name):
    """The traceback entries of an error raised inside a comprehension or a
    generator expression, the comprehension's own frame included."""
    m = built("try_resolve").module
    filename = m.__kiln_python__[name].__code__.co_filename
    got = []
    for fn in (m.__kiln_python__[name], getattr(m, name)):
        with pytest.raises(ZeroDivisionError) as info:
            fn(1, [1, 0])
        got.append(_tb_entries(info.value.__traceback__, filename, keep_comprehensions=True))
        _drop_tracebacks(info.value)
    assert got[1] == got[0], f"{name}: python {got[0]}, kiln {got[1]}"


# --------------------------------------------------------------------------
# A try in a loop of 10,000 iterations: no reference left behind
# --------------------------------------------------------------------------

def _loop_footprint(fn, name: str, obj, n: int):
    """(result, change of obj's reference count, traced memory growth in
    bytes) of one call with n iterations (after a warm-up call)."""
    def call(count):
        if name == "many_return_from_handler":
            return sum(fn(obj) for _ in range(count))
        return fn(count, obj)
    call(10)
    gc.collect()
    before = sys.getrefcount(obj)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = call(n)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    return result, sys.getrefcount(obj) - before, grown


class Shared:
    """An argument whose reference count is watched."""


@pytest.mark.parametrize("name", _functions(MANY_SRC))
def test_long_loop_no_leak(built, name):
    """Each call catches 10,000 exceptions (or more) carrying obj: the
    native function gives the original's result, and leaves obj's reference
    count and the traced memory where they were (the original's footprint
    is measured the same way, for comparison)."""
    m = built("try_many").module
    obj = Shared()
    want = _loop_footprint(m.__kiln_python__[name], name, obj, 10_000)
    got = _loop_footprint(getattr(m, name), name, obj, 10_000)
    assert got[0] == want[0], f"{name}: python returned {want[0]!r}, kiln {got[0]!r}"
    assert got[1] == want[1] == 0, f"{name}: reference count of obj changed: " \
                                   f"python {want[1]}, kiln {got[1]}"
    assert got[2] < 64 * 1024, f"{name}: traced memory grew by {got[2]} bytes " \
                               f"(python: {want[2]})"


# --------------------------------------------------------------------------
# Native int64 overflow, kiln's contract, caught by handlers
# --------------------------------------------------------------------------

def _statement_line(source: str, func: str, text: str) -> int:
    """The line (in the built file, PRELUDE included) of the statement of
    func whose source is text."""
    tree = ast.parse(source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func)
    for node in ast.walk(fn):
        if isinstance(node, ast.stmt) and ast.get_source_segment(source, node) == text:
            return node.lineno
    raise AssertionError(f"{func}: no statement {text!r}")


def test_overflow_within_int64_as_python(built):
    b = built("try_contract")
    for name, args in [("ov_caught", (3,)), ("ov_caught", (-(2**31),)), ("ov_escapes", (5,)),
                       ("ov_in_loop", (3, 7))]:
        check(b, "try_contract", name, *args)


def test_overflow_caught_by_handler(built):
    """k * k past int64: the native handler catches OverflowError (the
    original computes the big int; the contract applies only past int64)."""
    m = built("try_contract").module
    k = 2**32
    m.LOG.clear()
    want = m.__kiln_python__["ov_caught"](k)
    want_log = list(m.LOG)
    assert want > I64_MAX and want_log == ["finally"]
    m.LOG.clear()
    got = m.ov_caught(k)
    assert (got, m.LOG) == (-1, ["OverflowError", "finally"])
    assert sys.exc_info() == (None, None, None)


def test_overflow_escapes_through_finally(built):
    """I64_MAX + 1 raises OverflowError naming the .py line; the finally
    block runs; the traceback has this function's entry once, at the
    statement."""
    b = built("try_contract")
    m = b.module
    m.LOG.clear()
    with pytest.raises(OverflowError, match="integer overflow") as info:
        m.ov_escapes(I64_MAX)
    assert m.LOG == ["finally"]
    filename = m.__kiln_python__["ov_escapes"].__code__.co_filename
    line = _statement_line(GROUPS["try_contract"][0], "ov_escapes", "r = k + 1")
    assert _tb_entries(info.value.__traceback__, filename) == [(line, "ov_escapes")]
    assert m.ov_in_loop(3, I64_MAX - 1) == [I64_MAX - 1, I64_MAX, -1]


# --------------------------------------------------------------------------
# sys.exc_info() inside generators
# --------------------------------------------------------------------------

def _handling_generator(fn, tag):
    """A generator handling its own exception while it calls fn (the native
    function or the original) at each step."""
    try:
        raise KeyError(tag)
    except KeyError:
        yield fn(1)
        yield repr(sys.exc_info()[1])
        yield fn(2)
        yield repr(sys.exc_info()[1])
    yield repr(sys.exc_info()[1])
    yield fn(0)


def _drive(fn):
    """Two generators interleaved, each resumed inside a different handler
    of the caller's: what each step gives."""
    out = []
    g1, g2 = _handling_generator(fn, "g1"), _handling_generator(fn, "g2")
    for step in range(6):
        try:
            raise ValueError(f"caller {step}")
        except ValueError:
            for g in (g1, g2):
                value = next(g)
                out.append(_norm(value, "") if not isinstance(value, str) else value)
            out.append(repr(sys.exc_info()[1]))
    out.append(repr(sys.exc_info()[1]))
    return out


def test_excinfo_inside_generators(built):
    """The handled exception seen by a native function called from inside
    generators (each handling its own exception, resumed inside the
    caller's handlers), and restored for the generator when it returns."""
    m = built("try_excinfo").module
    name = "ei_handler_restores"
    m.LOG.clear()
    want = _drive(m.__kiln_python__[name])
    want_log = list(m.LOG)
    m.LOG.clear()
    got = _drive(getattr(m, name))
    assert got == want, f"python {want}, kiln {got}"
    assert m.LOG == want_log


# --------------------------------------------------------------------------
# Recursion past the limit; threads
# --------------------------------------------------------------------------

def test_recursion_error_caught(built):
    """RecursionError raised in a deep native recursion is caught by the
    handlers (no crash); the result is a depth (negative), like the
    original's; try/finally at every level runs every finally block."""
    m = built("try_recursion").module
    want = m.__kiln_python__["rec"](0)
    got = m.rec(0)
    assert type(got) is type(want) is int and got < 0 and want < 0, (want, got)
    for fn in (m.__kiln_python__["rec_finally"], m.rec_finally):
        m.LOG.clear()
        with pytest.raises(RecursionError):
            fn(0)
        assert m.LOG and m.LOG[-1] == 0 and m.LOG == sorted(m.LOG, reverse=True), m.LOG


def test_threads_see_their_own_exception(built):
    """Eight threads, each in a handler of its own exception, switching
    threads inside it (time.sleep(0)): sys.exc_info() and a bare raise give
    each thread its own exception."""
    import threading
    import time

    m = built("try_threads").module
    errors = []

    def run(tag):
        try:
            for i in range(200):
                want = repr(ValueError(f"{tag} {i}"))
                got = m.th_worker(f"{tag} {i}", lambda: time.sleep(0))
                if got != want:
                    errors.append((want, got))
                try:
                    m.th_reraise(f"{tag} {i}", lambda: time.sleep(0))
                except KeyError as exc:
                    if exc.args != (f"{tag} {i}",):
                        errors.append(("reraise", exc.args))
                if sys.exc_info() != (None, None, None):
                    errors.append(("exc_info", sys.exc_info()))
        except BaseException as exc:  # noqa: BLE001
            errors.append(("raised", repr(exc)))

    threads = [threading.Thread(target=run, args=(f"t{j}",)) for j in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], errors[:5]


# --------------------------------------------------------------------------
# A native tensor op raising inside a try (torch)
# --------------------------------------------------------------------------

TORCH_SRC = r"""
from kiln.torch import TensorF32Cpu2D
import torch

LOG = []


def note(x) -> None:
    LOG.append(x)


def guarded_matmul(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    try:
        y = x @ w
    except RuntimeError:
        note("handler")
        y = x
    finally:
        note("finally")
    return y


def guarded_chain(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> str:
    try:
        y = (x @ w).relu()
        note("body done")
    except RuntimeError as e:
        note(type(e).__name__)
        return "caught"
    else:
        note("else")
    return "ok"


def reraised(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    try:
        return x @ w + 1.0
    except RuntimeError:
        note("handler")
        raise


def no_grad_inside_try(x: TensorF32Cpu2D, w: TensorF32Cpu2D, f) -> TensorF32Cpu2D:
    try:
        with torch.no_grad():
            y = x @ w
    except RuntimeError:
        note(f())
        y = x
    note(f())
    return y


def try_inside_no_grad(x: TensorF32Cpu2D, w: TensorF32Cpu2D, f) -> TensorF32Cpu2D:
    with torch.no_grad():
        try:
            y = x @ w
        except RuntimeError:
            note(f())
            y = x
    note(f())
    return y


def inference_mode_exits(x: TensorF32Cpu2D, w: TensorF32Cpu2D, f, n: int) -> int:
    for i in range(n):
        try:
            with torch.inference_mode():
                if i == 1:
                    continue
                if i == 2:
                    break
                y = x @ w
        finally:
            note(f())
    return n


def in_loop(x: TensorF32Cpu2D, w: TensorF32Cpu2D, n: int) -> int:
    caught = 0
    for i in range(n):
        try:
            y = x @ w
        except RuntimeError:
            caught += 1
            continue
        finally:
            note(i)
    return caught
"""


def test_torch_native_op_in_try(tmp_path):
    """A shape mismatch in a native matmul raises RuntimeError (kiln's
    message, which differs from torch's by design): caught by the handler,
    re-raised by a bare raise with the same traceback entries as the
    original's, the same LOG; results equal where the shapes match. A
    no_grad/inference_mode block left by an exception, continue or break
    restores the grad mode before the handler or finally runs (LOG records
    the modes there)."""
    torch = pytest.importorskip("torch")
    import kiln

    src = tmp_path / "try_torch.py"
    src.write_text(TORCH_SRC, encoding="utf-8")
    m = kiln.build(str(src), out_dir=str(tmp_path))
    report = json.loads((tmp_path / "try_torch.kiln.json").read_text(encoding="utf-8"))
    assert {f["name"]: f["status"] for f in report["functions"]} == \
        {name: "native" for name in _functions(TORCH_SRC)}
    filename = m.__kiln_python__["reraised"].__code__.co_filename
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    inputs = [(x, torch.ones(3, 2)), (x, torch.ones(4, 5))]
    def modes():
        return (torch.is_grad_enabled(), torch.is_inference_mode_enabled())

    for name, extra in [("guarded_matmul", ()), ("guarded_chain", ()), ("reraised", ()),
                        ("in_loop", (3,)), ("no_grad_inside_try", (modes,)),
                        ("try_inside_no_grad", (modes,)), ("inference_mode_exits", (modes, 4))]:
        for args in inputs:
            outs = []
            for fn in (m.__kiln_python__[name], getattr(m, name)):
                m.LOG.clear()
                try:
                    r = ("return", fn(*(a.clone() for a in args), *extra))
                except Exception as exc:  # noqa: BLE001
                    r = ("raise", type(exc), _tb_entries(exc.__traceback__, filename),
                         exc.__context__, exc.__cause__)
                outs.append((r, list(m.LOG), (sys.exc_info(), modes())))
            (want, want_log, want_info), (got, got_log, got_info) = outs
            where = f"{name}{tuple(tuple(a.shape) for a in args)}"
            assert got[0] == want[0], f"{where}: python {want}, kiln {got}"
            if want[0] == "return" and isinstance(want[1], torch.Tensor):
                torch.testing.assert_close(got[1], want[1])
            else:
                assert got == want, f"{where}: python {want}, kiln {got}"
            assert got_log == want_log, f"{where}: LOG python {want_log}, kiln {got_log}"
            assert got_info == want_info == ((None, None, None), (True, False))
