"""What test_lambda.py and test_nested_def.py compare between a compiled
function and its Python original: a result or exception as plain data
(function objects by their attributes, the code object by identity), the
module's LOG, and what calling the returned functions gives (probes, and
calls after writes through their cells)."""

from __future__ import annotations

import copy
import traceback
import types


class ModAttr:
    """A case argument standing for `module.<name>(*args)`, made once the
    module is built (its classes, for subclasses of int and float)."""
    def __init__(self, name, *args):
        self.name, self.args = name, args


def resolve_args(mod, args):
    return tuple(getattr(mod, a.name)(*a.args) if isinstance(a, ModAttr) else a for a in args)


def raised(e, stem):
    """An exception as data: type, message, the traceback entries in the
    source `stem`.py, the type of its context."""
    tb = [(f.lineno, f.name) for f in traceback.extract_tb(e.__traceback__) if f.filename.endswith(f"{stem}.py")]
    return ("raised", type(e).__name__, str(e), tb, None if e.__context__ is None else type(e.__context__).__name__)


def norm(v, depth=0):
    """v as comparable data: type names and values, function objects by
    their attributes (the code object by identity), generators by what they
    yield, recursively."""
    if depth > 6:
        return ("...",)
    if isinstance(v, types.FunctionType):
        cells = []
        for c in v.__closure__ or ():
            try:
                cells.append(norm(c.cell_contents, depth + 1))
            except ValueError:
                cells.append("<empty cell>")
        return ("function", v.__name__, v.__qualname__, v.__module__, v.__doc__, id(v.__code__),
                v.__code__.co_firstlineno, v.__code__.co_varnames, v.__code__.co_freevars,
                norm(v.__defaults__, depth + 1), norm(v.__kwdefaults__, depth + 1), tuple(cells),
                dict(v.__dict__), dict(v.__annotations__))
    if isinstance(v, types.GeneratorType):
        return ("generator", v.__name__, v.__qualname__, id(v.gi_code), norm(list(v), depth + 1))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [norm(x, depth + 1) for x in v])
    if isinstance(v, dict):
        return ("dict", [(norm(k, depth + 1), norm(x, depth + 1)) for k, x in v.items()])
    if isinstance(v, type):
        return ("type", v.__module__, v.__qualname__)
    if isinstance(v, types.CellType):
        try:
            return ("cell", norm(v.cell_contents, depth + 1))
        except ValueError:
            return ("cell", "<empty>")
    if isinstance(v, float):
        return ("float", repr(v))
    if type(v) is object:
        return ("object",)
    return (type(v).__name__, repr(v))



def at(v, path):
    for p in path:
        v = v[p]
    return v


def outcome(mod, fn, name, args, stem, probes, cell_writes):
    """fn(*args) as data, LOG, then each probe of the result (probes[name]:
    (path, args, kwargs)) and each call after a cell write (cell_writes[name]:
    (path, cell index, value))."""
    del mod.LOG[:]
    mod.G = 10
    try:
        result = fn(*resolve_args(mod, args))
    except Exception as e:  # noqa: BLE001
        out = raised(e, stem)
        e.__traceback__ = None
        return out, list(mod.LOG), []
    seen = []
    for path, pargs, pkw in probes.get(name, ()):
        try:
            pargs, pkw = copy.deepcopy((pargs, pkw))
            seen.append(("ok", norm(at(result, path)(*pargs, **pkw))))
        except Exception as e:  # noqa: BLE001
            seen.append(raised(e, stem))
            e.__traceback__ = None
    for path, i, value in cell_writes.get(name, ()):
        f = at(result, path)
        f.__closure__[i].cell_contents = value
        try:
            seen.append(("after cell write", norm(f())))
        except Exception as e:  # noqa: BLE001
            seen.append(raised(e, stem))
            e.__traceback__ = None
    return ("ok", norm(result)), [norm(x) for x in mod.LOG], seen


def functions_in(v, depth=0):
    """Every function object reachable in v (lists, tuples, dicts)."""
    if depth > 4:
        return []
    if isinstance(v, types.FunctionType):
        return [v]
    if isinstance(v, (list, tuple)):
        return [f for x in v for f in functions_in(x, depth + 1)]
    if isinstance(v, dict):
        return [f for x in list(v) + list(v.values()) for f in functions_in(x, depth + 1)]
    return []
