"""`import` and `from ... import` statements inside compiled functions
(commit 8e1bccf): they used to leave the function as Python (KILN010
"import inside a function"); kiln now emits CPython's IMPORT_NAME (through
builtins.__import__, its C function called directly when it is the
original) and IMPORT_FROM (a plain module's own global from its dict,
anything else through CPython's own IMPORT_FROM). Each function runs
natively and as its Python original (`module.__kiln_python__[name]`, the
oracle) on the same inputs, and what a caller can observe must agree:

- the result, normalised recursively (closure_oracle.norm; lambdas by their
  code object's identity and cell contents), or the exception: type,
  message, ImportError's `name`, `path` and `name_from` (3.12+), every
  traceback entry (file, line, function; kiln's helper frame must not
  show), the types of `__context__` and `__cause__`;
- the side effects: the module's LOG (what a replaced builtins.__import__
  received: the name, whether globals is the module's dict, locals, the
  fromlist, the level; what a module's or object's `__getattr__` was asked
  for), the helper packages' log (which module bodies ran, which lazy names
  their `__getattr__` was asked for), which helper modules are in
  sys.modules afterwards, the warnings issued (category and message) and
  whether builtins.__import__ was left as found.

The helper packages (`kiln_imp_a`, ...) are written to a temporary
directory on sys.path and dropped from sys.modules before every run, so
both runs import them afresh. Relative imports need the compiled module to
live in a package: PKG_SOURCE is built as `kpkg.inner.mod` (the .so written
next to its source by `kiln build`) and compared in a fresh interpreter
that imports it by its package name (one .so is never loaded under two
names in one process: their module globals would be shared).

Also: every function is reported native (nothing says "import inside a
function"), kiln.compile'd functions of a package module import relative to
it; what a replaced __import__ receives (the module's dict, None, the
fromlist, one tuple object per statement, the level); 2,000 calls of the
import paths leave no reference behind. The sources are valid on CPython
3.10 to 3.13.

Bugs these tests found, fixed in 5dea816 (their tests are plain now): a
METH_STATIC builtin as builtins.__import__ (str.maketrans) crashed the native
import; CPython's IMPORT_FROM helper was compiled at run time (audit hooks saw
"compile" events) and ran in a frame of its own (a module __getattr__'s
warning with stacklevel=2 pointed at '<kiln import>'). The helper now only
words the error, compiled once when kiln's runtime loads.
"""

from __future__ import annotations

import builtins
import gc
import json
import os
import subprocess
import sys
import textwrap
import traceback
import types
import warnings
from pathlib import Path

import pytest

try:
    import kiln._compiler  # noqa: F401  (the C compiler extension)
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

from closure_oracle import norm
from oracle import build_cache, check_report_status

ROOT = Path(__file__).resolve().parents[1]
STEM = "kiln_local_import"
REAL_IMPORT = builtins.__import__

# ---------------------------------------------------------------------------
# Helper packages imported by the compiled functions (absolute imports)

HELPERS = {
    "kiln_imp_log.py": """
        LOG = []
        HOOK = None
    """,
    "kiln_imp_many.py": "".join(f"n{i} = {i}\n" for i in range(130)),
    "kiln_imp_a/__init__.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        ATTR = "a.ATTR"
        _private = "a._private"


        def __getattr__(name):
            kiln_imp_log.LOG.append(("getattr", __name__, name))
            if name in ("lazy", "lazy2", "caf\\u00e9"):
                return "lazy:" + name
            if name == "explode":
                raise RuntimeError("explode from __getattr__")
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    """,
    "kiln_imp_a/b/__init__.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        VALUE = "b"
    """,
    "kiln_imp_a/b/c.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        VALUE = "c"
    """,
    "kiln_imp_a/fromlist_sub.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        VALUE = "fromlist_sub"
    """,
    "kiln_imp_a/plain.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        X = "plain.X"
    """,
    "kiln_imp_a/fails.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        raise ValueError("module body failed")
    """,
    "kiln_imp_a/inner_missing.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        import kiln_imp_nosuch_inner
    """,
    "kiln_imp_a/circ.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec", __name__))
        EARLY = "early"
        SEEN = kiln_imp_log.HOOK()
        LATE = "late"
    """,
    "kiln_imp_a/circ_x.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec start", __name__))
        from kiln_imp_a import circ_y
        X_NAME = __name__
        kiln_imp_log.LOG.append(("exec end", __name__))
    """,
    "kiln_imp_a/circ_y.py": """
        import kiln_imp_log
        kiln_imp_log.LOG.append(("exec start", __name__))
        from kiln_imp_a import circ_x
        Y_SEES = circ_x.__name__
        kiln_imp_log.LOG.append(("exec end", __name__))
    """,
}


def write_tree(root: Path, files: dict) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


SOURCE = '''
import builtins
import sys
import types

LOG = []
G = 10
json = "the global json"
ORIGINAL_IMPORT = builtins.__import__
MODULE_GLOBALS = globals()


def note(x):
    LOG.append(x)
    return x


def set_global(name, value):
    setattr(sys.modules[__name__], name, value)


def global_json():
    return json


def install(name, obj):
    sys.modules[name] = obj


def __getattr__(name):
    LOG.append(("module __getattr__", name))
    if name == "LAZY_SELF":
        return "lazy self"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class FakeModule:
    """Not a module: an object in sys.modules, with a __getattr__."""

    def __init__(self, tag):
        self.tag = tag
        self.value = "fake value"
        self._under = "fake _under"

    def __getattr__(self, name):
        LOG.append(("fake getattr", name))
        if name == "dynamic":
            return "dynamic value"
        raise AttributeError(name)


class ModSub(types.ModuleType):
    """A module subclass: a property that logs, a __getattr__."""

    @property
    def prop(self):
        LOG.append("prop read")
        return "property value"

    def __getattr__(self, name):
        LOG.append(("modsub getattr", name))
        if name == "dyn":
            return "modsub dyn"
        raise AttributeError(name)


def logging_import(name, globals=None, locals=None, fromlist=(), level=0):
    # other modules' imports by their name; importlib's own (of _io, ...) not at all
    if globals is MODULE_GLOBALS or type(globals) is not dict:
        LOG.append(("__import__", name, globals is MODULE_GLOBALS, type(globals).__name__, locals,
                    fromlist, level))
    elif not str(globals.get("__name__")).startswith("importlib"):
        LOG.append(("__import__ by", globals.get("__name__"), name, type(locals).__name__, fromlist, level))
    return ORIGINAL_IMPORT(name, globals, locals, fromlist, level)


def raise_runtime(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise RuntimeError("plain module __getattr__: " + name)


def returning_import(name, globals=None, locals=None, fromlist=(), level=0):
    LOG.append(("returning", name, fromlist, level))
    return types.SimpleNamespace(name=name, b=types.SimpleNamespace(c="deep c"), x="x value")


def raising_import(name, globals=None, locals=None, fromlist=(), level=0):
    LOG.append(("raising", name, fromlist, level))
    raise LookupError("no imports today: " + name)


def self_removing_import(name, globals=None, locals=None, fromlist=(), level=0):
    LOG.append(("self removing", name))
    del builtins.__import__
    return ORIGINAL_IMPORT(name, globals, locals, fromlist, level)


def kw_only_import(name, globals, locals, fromlist, level, *, extra="x"):
    LOG.append(("kw only", name, level, extra))
    return ORIGINAL_IMPORT(name, globals, locals, fromlist, level)


# ---- the standard library -------------------------------------------------

def stdlib_json(x):
    import json
    return json.dumps(x), json.loads(json.dumps(x)) == x


def os_path(p: str):
    import os.path
    return os.path.basename(p), os.__name__


def os_path_as(p: str):
    import os.path as osp
    return osp.basename(p), osp.__name__


def math_in_loop(n: int) -> int:
    total = 0
    for i in range(n):
        import math
        total += math.isqrt(i) * 2 + i % 3
    return total


def from_math_while(n: int) -> float:
    acc = 0.0
    i = 0
    while i < n:
        from math import sqrt, floor as fl
        acc += sqrt(i) + fl(i / 3)
        i += 1
    return acc


def typed_around(n: int) -> int:
    s = 0
    k = n * 3
    for i in range(k):
        from math import gcd
        s += gcd(i, n) + i
    return s + k


def several_aliases():
    import json, math as m, os.path, os.path as p
    return json.__name__, m.__name__, os.__name__, p.__name__


def xml_deep():
    import xml.etree.ElementTree as ET
    import xml.etree.ElementTree
    return ET.__name__, xml.__name__, xml.etree.ElementTree is ET


def parenthesised():
    from json import (
        dumps,
        loads as ld,
    )
    from os.path import (join)
    return dumps.__name__, ld.__name__, join("a", "b")


def from_submodules():
    from os.path import join, basename as bn
    from collections.abc import Mapping, Sequence as Seq
    return join("x", "y"), bn("/a/b"), Mapping.__name__, Seq.__name__


def from_sys(k: int):
    from sys import maxsize, modules as mods
    return maxsize > k, "sys" in mods


def same_name_twice():
    from json import dumps as d, dumps as e
    import math as d2, math as d3
    return d is e, d2 is d3


def alias_is_name():
    from json import dumps as dumps
    import json as json
    return dumps is json.dumps


def discard_alias():
    import json as _
    from math import pi as _
    return _


def c_names():
    import json as kr, math as ks
    from os import path as kg_globals, sep as double
    import sys as struct, json as goto, math as t0
    from json import dumps as NULL, loads as Py_None
    return (kr.__name__, ks.__name__, kg_globals.__name__, double, struct.__name__, goto.__name__,
            t0.__name__, NULL.__name__, Py_None.__name__)


def c_names_typed(n: int):
    import math as register
    from math import floor as int8_t, pi as errno
    total = 0
    for i in range(n):
        total += int8_t(register.sqrt(i)) + i
    return total, errno


def many_names():
    from kiln_imp_many import (MANY_NAMES)
    return n0 + n64 + n129


# ---- a.b.c ----------------------------------------------------------------

def import_abc():
    import kiln_imp_a.b.c
    return kiln_imp_a.__name__, kiln_imp_a.b.VALUE, kiln_imp_a.b.c.VALUE


def import_abc_as():
    import kiln_imp_a.b.c as d
    return d.__name__, d.VALUE


def import_ab_as_then_abc():
    import kiln_imp_a.b as b
    import kiln_imp_a.b.c
    return b.VALUE, kiln_imp_a.b is b, kiln_imp_a.b.c.VALUE


def import_as_attribute_replaced():
    import kiln_imp_a.b.c
    kiln_imp_a.b = "replaced"
    import kiln_imp_a.b.c as d
    return d


def import_as_attribute_replaced_by_object():
    import kiln_imp_a.b.c
    kiln_imp_a.b = types.SimpleNamespace(c="namespace c")
    import kiln_imp_a.b.c as d
    return d


def import_as_attribute_deleted():
    import kiln_imp_a.b.c
    del kiln_imp_a.b.c
    import kiln_imp_a.b.c as d
    return d.VALUE, hasattr(kiln_imp_a.b, "c")


def import_as_parent_attribute_deleted():
    import kiln_imp_a.b.c
    del kiln_imp_a.b
    import kiln_imp_a.b.c as d
    return d.VALUE


def import_as_sys_modules_gone():
    import kiln_imp_a.b.c
    del kiln_imp_a.b.c
    del sys.modules["kiln_imp_a.b.c"]
    import kiln_imp_a.b.c as d
    return d.VALUE


# ---- missing modules and names --------------------------------------------

def missing_top():
    import kiln_no_such_module


def missing_dotted():
    import kiln_no_such_module.sub.deeper


def missing_as():
    import kiln_no_such_module as m
    return m


def missing_sub_of_package():
    import json.kiln_nosuch


def missing_sub_of_module():
    import math.kiln_nosuch


def missing_sub_of_helper():
    import kiln_imp_a.b.kiln_nosuch as n
    return n


def missing_from_module():
    from kiln_no_such_module import x
    return x


def from_json_nosuch():
    from json import nosuch
    return nosuch


def from_json_second_missing():
    from json import dumps, nosuch
    return dumps, nosuch


def from_sys_nosuch():
    from sys import kiln_nosuch
    return kiln_nosuch


def from_plain_nosuch():
    from kiln_imp_a.plain import nosuch
    return nosuch


def from_package_nosuch():
    from kiln_imp_a import nosuch
    return nosuch


def from_dotted_missing_module():
    from kiln_imp_a.kiln_nosuch import x
    return x


def none_in_sys_modules():
    install("kiln_imp_none", None)
    import kiln_imp_none


def none_in_sys_modules_from():
    install("kiln_imp_none", None)
    from kiln_imp_none import x


def partial_binding():
    d = None
    try:
        from json import dumps as d, kiln_nosuch as n
    except ImportError as e:
        return d is not None, e.name, str(e)[:30]
    return n


def partial_multi_import():
    j = None
    try:
        import json as j, kiln_no_such_module as k
    except ImportError as e:
        return j.__name__, e.name
    return k


def multi_line_missing():
    from json import (
        dumps,
        loads,
        kiln_nosuch,
    )


def continued_line_missing():
    import json, \\
        kiln_no_such_module


# ---- module bodies that raise ---------------------------------------------

def module_body_raises():
    import kiln_imp_a.fails


def module_body_raises_fromlist():
    from kiln_imp_a import fails
    return fails


def module_body_missing_inner():
    import kiln_imp_a.inner_missing


def retry_after_failure():
    try:
        import kiln_imp_a.fails
    except ValueError as e:
        first = str(e)
    try:
        import kiln_imp_a.fails
    except ValueError as e:
        return first, str(e)


# ---- dunders and underscores ----------------------------------------------

def dunder_from():
    from json import __name__, __file__ as f, __doc__ as d, __dict__ as dd, __spec__ as sp
    import json
    return __name__, f == json.__file__, d == json.__doc__, dd is json.__dict__, sp.name


def dunder_class():
    from json import __class__ as c
    return c


def dunder_missing():
    from json import __kiln_nosuch__
    return __kiln_nosuch__


def underscore_private():
    from kiln_imp_a import _private
    return _private


def underscore_missing():
    from kiln_imp_a import _kiln_nope
    return _kiln_nope


def dunder_all_of_package():
    from kiln_imp_a import __name__ as n, __path__ as p, __package__ as pk
    return n, len(p), pk


# ---- __getattr__ of modules -----------------------------------------------

def lazy_getattr():
    from kiln_imp_a import lazy, ATTR, lazy2 as l2
    return lazy, ATTR, l2


def lazy_non_ascii():
    from kiln_imp_a import café
    return café


def getattr_raises():
    from kiln_imp_a import explode
    return explode


def getattr_raises_plain_module():
    m = types.ModuleType("kiln_imp_fake_mod")
    m.__getattr__ = raise_runtime
    install("kiln_imp_fake_mod", m)
    from kiln_imp_fake_mod import anything
    return anything


def getattr_raises_after_import():
    import kiln_imp_a
    from kiln_imp_a import ATTR
    kiln_imp_a.lazy3 = "set later"
    from kiln_imp_a import lazy3, lazy
    return ATTR, lazy3, lazy


def fromlist_loads_submodule():
    from kiln_imp_a import fromlist_sub
    import kiln_imp_a
    return fromlist_sub.VALUE, kiln_imp_a.fromlist_sub is fromlist_sub


def fromlist_mixed():
    from kiln_imp_a import ATTR, plain, lazy, b
    return ATTR, plain.X, lazy, b.VALUE


def self_import():
    import kiln_local_import as me
    from kiln_local_import import G, LOG as log
    return me is sys.modules[__name__], G, log is LOG


def self_lazy_getattr():
    from kiln_local_import import LAZY_SELF
    return LAZY_SELF


def self_getattr_missing():
    from kiln_local_import import KILN_NOSUCH
    return KILN_NOSUCH


def exact_module_object():
    m = types.ModuleType("kiln_imp_fake_mod")
    m.value = "mod value"
    m._under = "mod _under"
    m.__getattr__ = lambda name: note(("mod getattr", name)) and "from getattr"
    install("kiln_imp_fake_mod", m)
    from kiln_imp_fake_mod import value, _under, missing_one
    import kiln_imp_fake_mod
    return value, _under, missing_one, kiln_imp_fake_mod is m


def module_subclass():
    install("kiln_imp_modsub", ModSub("kiln_imp_modsub"))
    from kiln_imp_modsub import prop, dyn
    return prop, dyn


def module_subclass_missing():
    install("kiln_imp_modsub", ModSub("kiln_imp_modsub"))
    from kiln_imp_modsub import nosuch
    return nosuch


def module_without_name():
    m = types.ModuleType("kiln_imp_noname")
    del m.__name__
    install("kiln_imp_noname", m)
    from kiln_imp_noname import nosuch
    return nosuch


# ---- objects that are not modules -----------------------------------------

def fake_object_import():
    install("kiln_imp_fake", FakeModule("t"))
    import kiln_imp_fake
    from kiln_imp_fake import value, dynamic, tag as t, _under
    return kiln_imp_fake.tag, value, dynamic, t, _under


def fake_object_missing():
    install("kiln_imp_fake", FakeModule("t"))
    from kiln_imp_fake import nosuch
    return nosuch


def fake_object_import_as_dotted():
    install("kiln_imp_fake", types.SimpleNamespace(inner=types.SimpleNamespace(leaf="leaf value")))
    install("kiln_imp_fake.inner", "not used")
    import kiln_imp_fake.inner as i
    return i


def fake_namespace_with_name():
    install("kiln_imp_fake", types.SimpleNamespace(__name__="fake_name", __file__="/fake/file.py"))
    from kiln_imp_fake import nosuch
    return nosuch


def fake_string_in_sys_modules():
    install("kiln_imp_fake", "a string module")
    import kiln_imp_fake
    from kiln_imp_fake import upper
    return kiln_imp_fake, upper()


# ---- builtins.__import__ replaced or deleted -------------------------------

def replaced_import():
    saved = builtins.__import__
    builtins.__import__ = logging_import
    try:
        import json
        import os.path
        import os.path as osp
        from json import dumps, loads as ld
        from collections import (OrderedDict,)
        return json.__name__, os.__name__, osp.__name__, dumps.__name__, ld.__name__, OrderedDict.__name__
    finally:
        builtins.__import__ = saved


def replaced_import_relative():
    saved = builtins.__import__
    builtins.__import__ = logging_import
    try:
        from . import x
        return x
    finally:
        builtins.__import__ = saved


def replaced_import_relative_dotted():
    saved = builtins.__import__
    builtins.__import__ = logging_import
    try:
        from ..pkg.mod import x as y
        return y
    finally:
        builtins.__import__ = saved


def replaced_import_missing():
    saved = builtins.__import__
    builtins.__import__ = logging_import
    try:
        import kiln_no_such_module.sub
    finally:
        builtins.__import__ = saved


def replaced_returns_object():
    saved = builtins.__import__
    builtins.__import__ = returning_import
    try:
        import anything.b.c as d
        import anything.b
        from whatever import x, name
        return d, anything.name, x, name
    finally:
        builtins.__import__ = saved


def replaced_returns_object_missing():
    saved = builtins.__import__
    builtins.__import__ = returning_import
    try:
        from whatever import nosuch
        return nosuch
    finally:
        builtins.__import__ = saved


def replaced_raises():
    saved = builtins.__import__
    builtins.__import__ = raising_import
    try:
        import json
        return json
    finally:
        builtins.__import__ = saved


def replaced_not_callable():
    saved = builtins.__import__
    builtins.__import__ = 42
    try:
        import json
        return json
    finally:
        builtins.__import__ = saved


def replaced_by_other_builtin():
    saved = builtins.__import__
    builtins.__import__ = getattr
    try:
        import json
        return json
    finally:
        builtins.__import__ = saved


def replaced_by_max():
    saved = builtins.__import__
    builtins.__import__ = max
    try:
        import json
        return json
    finally:
        builtins.__import__ = saved


def replaced_self_removing():
    saved = builtins.__import__
    builtins.__import__ = self_removing_import
    try:
        import json
        first = json.__name__
        import math
        return first, math
    finally:
        builtins.__import__ = saved


def replaced_kw_only():
    saved = builtins.__import__
    builtins.__import__ = kw_only_import
    try:
        import json
        from math import pi
        return json.__name__, pi
    finally:
        builtins.__import__ = saved


def replaced_by_importlib():
    import importlib
    saved = builtins.__import__
    builtins.__import__ = importlib.__import__
    try:
        import json
        import kiln_imp_a.b.c as d
        from kiln_imp_a import lazy, plain
        return json.__name__, d.VALUE, lazy, plain.X
    finally:
        builtins.__import__ = saved


def replaced_by_importlib_missing():
    import importlib
    saved = builtins.__import__
    builtins.__import__ = importlib.__import__
    try:
        from kiln_imp_a import nosuch
        return nosuch
    finally:
        builtins.__import__ = saved


def replaced_and_left():
    builtins.__import__ = logging_import
    import json
    return json.__name__


def deleted_import():
    saved = builtins.__import__
    del builtins.__import__
    try:
        import json
        return json
    finally:
        builtins.__import__ = saved


def deleted_import_from():
    saved = builtins.__import__
    del builtins.__import__
    try:
        from json import dumps
        return dumps
    finally:
        builtins.__import__ = saved


def deleted_import_caught():
    saved = builtins.__import__
    del builtins.__import__
    try:
        try:
            import json
        except ImportError as e:
            return type(e).__name__, str(e), e.name, e.path
    finally:
        builtins.__import__ = saved


# ---- locals, cells, control flow ------------------------------------------

def captured_by_lambda(x: float):
    import json
    from math import sqrt as s
    f = lambda: json.dumps(s(x))
    return f(), f


def captured_late(n: int):
    fs = []
    for i in range(n):
        import json as j
        fs.append(lambda: j)
        from math import pi as j
    return [f() for f in fs]


def captured_default(n: int):
    import math
    fs = [lambda k=i, m=math: m.factorial(k) for i in range(n)]
    return [f() for f in fs]


def nested_def_uses_import(v):
    import json

    def inner(w):
        return json.dumps(w)
    return inner(v), inner


def nested_def_imports():
    def inner():
        from json import dumps
        import os.path as p
        return dumps.__name__, p.__name__
    return inner()


def comprehension_uses(xs: list):
    import math
    return [math.floor(x) for x in xs], {math.ceil(x) for x in xs}


def try_fallback(name: str):
    try:
        if name == "missing":
            import kiln_no_such_fast_json as fast
        else:
            import json as fast
    except ImportError:
        import json as fast
        return "fallback", fast.__name__
    return "first", fast.__name__


def try_fallback_from():
    try:
        from json import kiln_speedups
    except ImportError as e:
        kiln_speedups = None
        return type(e).__name__, e.name, kiln_speedups


def except_module_not_found():
    try:
        import kiln_no_such_module.deep
    except ModuleNotFoundError as e:
        return type(e).__name__, e.name, e.path, str(e)


def import_error_not_caught():
    try:
        import kiln_no_such_module
    except ValueError:
        return "wrong handler"


def import_in_handler():
    try:
        1 // (G - G)
    except ZeroDivisionError:
        from json import kiln_nosuch


def import_in_handler_missing():
    try:
        1 // (G - G)
    except ZeroDivisionError:
        import kiln_no_such_module


def import_raise_from():
    try:
        from json import kiln_nosuch
    except ImportError as e:
        raise KeyError("translated") from e


def import_in_finally(n: int):
    out = []
    try:
        out.append(n // n)
    finally:
        import json
        out.append(json.__name__)
    return out


def import_in_with():
    import contextlib
    with contextlib.suppress(ImportError):
        import kiln_no_such_module
        return "not reached"
    return "suppressed"


def import_in_loop(n: int):
    names = []
    for i in range(n):
        if i % 2 == 0:
            import json as m
        else:
            import math as m
        names.append(m.__name__)
    return names


def break_after_import(n: int):
    i = 0
    while True:
        from math import pi
        i += 1
        if i >= n:
            break
    return i, pi


def shadows_global():
    before = global_json()
    import json
    return json.__name__, before, global_json()


def read_before_import():
    r = json
    import json
    return r


def read_if_imported(flag: bool):
    if flag:
        import json
    return json.__name__


def del_then_read():
    import json
    del json
    return json


def del_from_name():
    from json import dumps
    del dumps
    return dumps


def del_then_reimport():
    import json
    del json
    from json import dumps as json
    return json.__name__


def del_captured():
    import json
    f = lambda: json
    del json
    return f()


def rebind_after_import(n: int):
    import math as x
    y = x.floor(2.5)
    x = n + 3
    return x * 2 + y


def typed_param_rebound(n: int):
    m = n + 1
    from math import pi as n
    return m, n


def typed_local_rebound(n: int):
    x = n + 1
    y = x * 2
    import math as x
    return y, x.__name__


def list_param_rebound(xs: list):
    k = len(xs)
    import json as xs
    return k, xs.__name__


def float_param_rebound(x: float):
    y = x * 2.0
    import math as x
    return y, x.__name__


def join_int_and_module(n: int):
    x = 1
    out = []
    for i in range(n):
        out.append(x if type(x) is int else x.__name__)
        if i % 2:
            import math as x
        else:
            x = i + 10
    return out


def import_shadows_len(xs: list):
    from json import dumps as len
    return len(xs)


def import_shadows_len_late(xs: list):
    n = len(xs)
    from json import dumps as len
    return n


def import_shadows_int_float(x: float):
    from math import floor as int, ceil as float
    return int(x), float(x)


def import_shadows_range(n: int):
    from itertools import repeat as range
    out = []
    for x in range(n, 3):
        out.append(x)
    return out


def import_shadows_isinstance_abs(x: int):
    from operator import neg as abs, is_ as isinstance
    return abs(x), isinstance(x, int)


def loop_var_rebound(n: int):
    out = []
    for i in range(n):
        out.append(i)
        from math import pi as i
        out.append(i)
    return out


def counter_rebound(n: int):
    i = 0
    seen = []
    while i < n:
        import math as m
        seen.append(m.__name__)
        i = i + 1
    return i, seen


def augassign_module(n: int):
    x = n
    import math as x
    x += 1
    return x


def nested_nonlocal_import():
    json = None

    def inner():
        nonlocal json
        import json
    before = json
    inner()
    return before, json.__name__


def relative_no_parent():
    from . import x
    return x


def relative_sub_no_parent():
    from .sub import y
    return y


def relative_level2_no_parent():
    from .. import z
    return z


def relative_level4_no_parent():
    from .... import z
    return z


def relative_spaced_dots():
    from . . import z
    return z


def relative_with_package_set():
    set_global("__package__", "kiln_imp_a")
    try:
        from . import ATTR, lazy
        from .b import VALUE
        from .b.c import VALUE as cv
        return ATTR, lazy, VALUE, cv
    finally:
        set_global("__package__", "")


def sys_modules_swapped():
    install("kiln_imp_fake", types.SimpleNamespace(v=1))
    import kiln_imp_fake as first
    install("kiln_imp_fake", types.SimpleNamespace(v=2))
    import kiln_imp_fake as second
    from kiln_imp_fake import v
    return first.v, second.v, v


# ---- circular imports (called from kiln_imp_a.circ's body) ----------------

def circ_fallback():
    from kiln_imp_a import circ
    from kiln_imp_a.circ import EARLY
    return circ.__name__, EARLY


def circ_absolute_as():
    import kiln_imp_a.circ as c
    return c.EARLY


def circ_partial():
    from kiln_imp_a.circ import LATE
    return LATE


def circ_partial_then_fallback():
    try:
        from kiln_imp_a.circ import LATE
    except ImportError as e:
        from kiln_imp_a.circ import EARLY
        return EARLY, str(e)[:40], e.name
    return LATE


def circ_pair():
    from kiln_imp_a import circ_x
    return circ_x.X_NAME, circ_x.circ_y.Y_SEES


# ---- leaks -----------------------------------------------------------------

def leak_workload(k: int, sentinel):
    install("kiln_imp_sentinel", sentinel)
    import kiln_imp_sentinel
    import kiln_imp_sentinel as s2
    from kiln_imp_sentinel import value, _under, __name__ as nm
    try:
        from kiln_imp_sentinel import nosuch
    except ImportError:
        pass
    try:
        import kiln_no_such_module
    except ImportError:
        pass
    f = lambda: kiln_imp_sentinel
    return k + (f() is s2) + (value is not None) + (_under is not None) + len(nm)
'''

# 130 names in one statement (more than C's 127 guaranteed call arguments:
# the fromlist is one PyTuple_Pack call).
SOURCE = SOURCE.replace("MANY_NAMES", ", ".join(f"n{i}" for i in range(130)))

# Functions called from kiln_imp_a.circ's module body (kiln_imp_log.HOOK).
CIRC_HOOKS = ("circ_fallback", "circ_absolute_as", "circ_partial", "circ_partial_then_fallback")

HELPER_FUNCTIONS = ("note", "set_global", "global_json", "install", "__getattr__", "logging_import",
                    "returning_import", "raising_import", "self_removing_import", "kw_only_import",
                    "raise_runtime")


def _function_names():
    import ast
    return [n.name for n in ast.parse(SOURCE).body
            if isinstance(n, ast.FunctionDef) and n.name not in HELPER_FUNCTIONS]


FUNCTIONS = _function_names()

SENTINEL_CASE = types.ModuleType("kiln_imp_sentinel")
SENTINEL_CASE.value = "sentinel value"
SENTINEL_CASE._under = "sentinel _under"

CASES = {
    "stdlib_json": [([1, "a", None],), ({"k": 2.5},), ("s",)],
    "os_path": [("/a/b/c.txt",), ("",)],
    "os_path_as": [("/x/y",), ("rel",)],
    "math_in_loop": [(0,), (1,), (50,)],
    "from_math_while": [(0,), (7,)],
    "typed_around": [(0,), (5,), (12,)],
    "several_aliases": [()],
    "xml_deep": [()],
    "parenthesised": [()],
    "from_submodules": [()],
    "from_sys": [(3,), (2**62,)],
    "same_name_twice": [()],
    "alias_is_name": [()],
    "discard_alias": [()],
    "c_names": [()],
    "c_names_typed": [(0,), (10,)],
    "many_names": [()],
    "import_abc": [()],
    "import_abc_as": [()],
    "import_ab_as_then_abc": [()],
    "import_as_attribute_replaced": [()],
    "import_as_attribute_replaced_by_object": [()],
    "import_as_attribute_deleted": [()],
    "import_as_parent_attribute_deleted": [()],
    "import_as_sys_modules_gone": [()],
    "missing_top": [()],
    "missing_dotted": [()],
    "missing_as": [()],
    "missing_sub_of_package": [()],
    "missing_sub_of_module": [()],
    "missing_sub_of_helper": [()],
    "missing_from_module": [()],
    "from_json_nosuch": [()],
    "from_json_second_missing": [()],
    "from_sys_nosuch": [()],
    "from_plain_nosuch": [()],
    "from_package_nosuch": [()],
    "from_dotted_missing_module": [()],
    "none_in_sys_modules": [()],
    "none_in_sys_modules_from": [()],
    "partial_binding": [()],
    "partial_multi_import": [()],
    "multi_line_missing": [()],
    "continued_line_missing": [()],
    "module_body_raises": [()],
    "module_body_raises_fromlist": [()],
    "module_body_missing_inner": [()],
    "retry_after_failure": [()],
    "dunder_from": [()],
    "dunder_class": [()],
    "dunder_missing": [()],
    "underscore_private": [()],
    "underscore_missing": [()],
    "dunder_all_of_package": [()],
    "lazy_getattr": [()],
    "lazy_non_ascii": [()],
    "getattr_raises": [()],
    "getattr_raises_plain_module": [()],
    "getattr_raises_after_import": [()],
    "fromlist_loads_submodule": [()],
    "fromlist_mixed": [()],
    "self_import": [()],
    "self_lazy_getattr": [()],
    "self_getattr_missing": [()],
    "exact_module_object": [()],
    "module_subclass": [()],
    "module_subclass_missing": [()],
    "module_without_name": [()],
    "fake_object_import": [()],
    "fake_object_missing": [()],
    "fake_object_import_as_dotted": [()],
    "fake_namespace_with_name": [()],
    "fake_string_in_sys_modules": [()],
    "replaced_import": [()],
    "replaced_import_relative": [()],
    "replaced_import_relative_dotted": [()],
    "replaced_import_missing": [()],
    "replaced_returns_object": [()],
    "replaced_returns_object_missing": [()],
    "replaced_raises": [()],
    "replaced_not_callable": [()],
    "replaced_by_other_builtin": [()],
    "replaced_by_max": [()],
    "replaced_self_removing": [()],
    "replaced_kw_only": [()],
    "replaced_by_importlib": [()],
    "replaced_by_importlib_missing": [()],
    "replaced_and_left": [()],
    "deleted_import": [()],
    "deleted_import_from": [()],
    "deleted_import_caught": [()],
    "captured_by_lambda": [(2.0,), (0.25,)],
    "captured_late": [(0,), (3,)],
    "captured_default": [(0,), (5,)],
    "nested_def_uses_import": [([1, 2],), ("s",)],
    "nested_def_imports": [()],
    "comprehension_uses": [([1.5, -2.5, 3.0],), ([],)],
    "try_fallback": [("missing",), ("json",)],
    "try_fallback_from": [()],
    "except_module_not_found": [()],
    "import_error_not_caught": [()],
    "import_in_handler": [()],
    "import_in_handler_missing": [()],
    "import_raise_from": [()],
    "import_in_finally": [(1,), (0,)],
    "import_in_with": [()],
    "import_in_loop": [(0,), (5,)],
    "break_after_import": [(1,), (4,)],
    "shadows_global": [()],
    "read_before_import": [()],
    "read_if_imported": [(True,), (False,)],
    "del_then_read": [()],
    "del_from_name": [()],
    "del_then_reimport": [()],
    "del_captured": [()],
    "rebind_after_import": [(2,), (-7,)],
    "typed_param_rebound": [(3,), (-2**63,)],
    "typed_local_rebound": [(4,), (2**61,)],
    "list_param_rebound": [([1, 2],), ([],)],
    "float_param_rebound": [(1.5,), (-0.0,)],
    "join_int_and_module": [(0,), (5,)],
    "import_shadows_len": [([1, 2],), ([],)],
    "import_shadows_len_late": [([1, 2],)],
    "import_shadows_int_float": [(2.5,), (-1.5,)],
    "import_shadows_range": [(0,), (7,)],
    "import_shadows_isinstance_abs": [(5,), (-2**63,)],
    "loop_var_rebound": [(0,), (3,)],
    "counter_rebound": [(0,), (3,)],
    "augassign_module": [(1,)],
    "nested_nonlocal_import": [()],
    "relative_no_parent": [()],
    "relative_sub_no_parent": [()],
    "relative_level2_no_parent": [()],
    "relative_level4_no_parent": [()],
    "relative_spaced_dots": [()],
    "relative_with_package_set": [()],
    "sys_modules_swapped": [()],
    "circ_fallback": [()],
    "circ_absolute_as": [()],
    "circ_partial": [()],
    "circ_partial_then_fallback": [()],
    "circ_pair": [()],
    "leak_workload": [(1, SENTINEL_CASE)],
}

# Open kiln bugs: name -> (condition on the running interpreter, reason).
BUGS: dict = {}


def _marked(name, *rest):
    cond, reason = BUGS.get(name, (False, ""))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if cond else []
    return pytest.param(name, *rest, marks=marks)


# ---------------------------------------------------------------------------
# Running a case


def raised(e: BaseException) -> tuple:
    """An exception as data: type, message, ImportError's attributes, every
    traceback entry (file name, line, function), context and cause types."""
    tb = [(os.path.basename(f.filename), f.lineno, f.name) for f in traceback.extract_tb(e.__traceback__)]
    attrs = tuple(repr(getattr(e, a, "<absent>")) for a in ("name", "path", "name_from")) \
        if isinstance(e, ImportError) else ()
    return ("raised", type(e).__name__, str(e), attrs, tb,
            None if e.__context__ is None else type(e.__context__).__name__,
            None if e.__cause__ is None else type(e.__cause__).__name__)


def helper_modules() -> list:
    return sorted(k for k in sys.modules if k.startswith("kiln_imp_") and k != "kiln_imp_log")


def purge_helpers() -> None:
    for k in helper_modules():
        del sys.modules[k]


def run_case(mod, fn, name, args) -> tuple:
    """fn(*args) as data with every side effect, from a fresh import state."""
    implog = sys.modules["kiln_imp_log"]
    purge_helpers()
    del mod.LOG[:]
    del implog.LOG[:]
    mod.G = 10
    mod.__package__ = ""
    if name in CIRC_HOOKS:
        implog.HOOK = fn

        def call():
            import kiln_imp_a.circ
            return kiln_imp_a.circ.SEEN
    else:
        def call():
            return fn(*args)
    left = "as found"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            try:
                result = call()
            finally:
                now = builtins.__dict__.get("__import__", "<deleted>")
                if now is not REAL_IMPORT:
                    left = repr(getattr(now, "__name__", now))
                builtins.__import__ = REAL_IMPORT
            out = ("ok", norm(result))
        except Exception as e:  # noqa: BLE001
            out = raised(e)
            e.__traceback__ = None
    implog.HOOK = None
    seen_warnings = [(w.category.__name__, str(w.message)) for w in caught]
    return (out, [norm(x) for x in mod.LOG], [norm(x) for x in implog.LOG], helper_modules(),
            seen_warnings, left)


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    root = tmp_path_factory.mktemp("kiln_imp_helpers")
    write_tree(root, HELPERS)
    sys.path.insert(0, str(root))
    import kiln_imp_log  # noqa: F401
    yield root
    purge_helpers()
    sys.modules.pop("kiln_imp_log", None)
    sys.path.remove(str(root))


@pytest.fixture(scope="module")
def built(tmp_path_factory, helpers):
    def write(stem, out):
        path = out / f"{stem}.py"
        path.write_text(SOURCE, encoding="utf-8")
        return path
    return build_cache(tmp_path_factory, write)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_report_status(built, name):
    b = built(STEM)
    check_report_status(b, STEM, name, ())
    assert type(getattr(b.module, name)).__name__ == "builtin_function_or_method", f"{name} is not native"


def test_no_import_reason_left(built):
    b = built(STEM)
    text = (b.out_dir / f"{STEM}.kiln.json").read_text(encoding="utf-8")
    assert "import inside a function" not in text
    assert all(f.get("status") == "native" for f in b.report["functions"]), \
        [(f["name"], f.get("reason")) for f in b.report["functions"] if f.get("status") != "native"]


def test_every_function_has_cases():
    assert sorted(CASES) == sorted(FUNCTIONS)


@pytest.mark.parametrize("name,args", [_marked(n, a) for n in FUNCTIONS for a in CASES[n]])
def test_same_as_python(built, name, args):
    mod = built(STEM).module
    want = run_case(mod, mod.__kiln_python__[name], name, args)
    got = run_case(mod, getattr(mod, name), name, args)
    assert got == want, f"{name}{args!r}:\n  kiln:   {got}\n  python: {want}"


def test_replaced_import_sees_cpythons_arguments(built):
    """What a replaced __import__ receives: the module's dict as globals,
    None as locals (a function's frame), the fromlist tuple (None for a
    plain import), the level."""
    mod = built(STEM).module
    for fn in (mod.replaced_import, mod.__kiln_python__["replaced_import"]):
        del mod.LOG[:]
        fn()
        assert mod.LOG == [
            ("__import__", "json", True, "dict", None, None, 0),
            ("__import__", "os.path", True, "dict", None, None, 0),
            ("__import__", "os.path", True, "dict", None, None, 0),
            ("__import__", "json", True, "dict", None, ("dumps", "loads"), 0),
            ("__import__", "collections", True, "dict", None, ("OrderedDict",), 0),
        ], type(fn)
    for fn in (mod.replaced_import_relative_dotted, mod.__kiln_python__["replaced_import_relative_dotted"]):
        del mod.LOG[:]
        with pytest.raises(ImportError):
            fn()
        assert mod.LOG == [("__import__", "pkg.mod", True, "dict", None, ("x",), 2)]
    assert builtins.__import__ is REAL_IMPORT


def test_fromlist_is_one_tuple(built):
    """The fromlist is a constant: the same tuple object every call, as
    CPython's code object keeps it."""
    mod = built(STEM).module
    for fn in (mod.replaced_import, mod.__kiln_python__["replaced_import"]):
        seen = []
        for _ in range(2):
            del mod.LOG[:]
            fn()
            seen.append(mod.LOG[3][5])
        assert seen[0] == ("dumps", "loads") and seen[0] is seen[1]


def test_no_reference_left_behind(built):
    """2,000 calls of the import paths (the fast path from a module's dict,
    CPython's IMPORT_FROM for dunders and errors, ModuleNotFoundError, a
    lambda's cell) keep no reference to the imported module or its values."""
    mod = built(STEM).module
    sentinel = types.ModuleType("kiln_imp_sentinel")
    value = object()
    sentinel.value = value
    sentinel._under = "under"
    sys.modules["kiln_imp_sentinel"] = sentinel
    try:
        fn = mod.leak_workload
        for _ in range(50):
            fn(1, sentinel)
        gc.collect()
        refs = (sys.getrefcount(sentinel), sys.getrefcount(value))
        before = len(gc.get_objects())
        for _ in range(2000):
            assert fn(1, sentinel) == 4 + len("kiln_imp_sentinel")
        others = [("stdlib_json", ([1],)), ("import_abc_as", ()), ("from_json_nosuch", ()),
                  ("lazy_getattr", ()), ("dunder_from", ()), ("fake_object_missing", ()),
                  ("replaced_import", ()), ("deleted_import", ()), ("captured_by_lambda", (2.0,)),
                  ("del_then_read", ()), ("relative_no_parent", ()), ("exact_module_object", ())]
        for name, args in others:
            f = getattr(mod, name)
            for _ in range(2000):
                try:
                    f(*args)
                except Exception:  # noqa: BLE001
                    pass
        del mod.LOG[:]
        del sys.modules["kiln_imp_log"].LOG[:]
        purge_helpers()
        sys.modules["kiln_imp_sentinel"] = sentinel
        gc.collect()
        grown = len(gc.get_objects()) - before
        assert (sys.getrefcount(sentinel), sys.getrefcount(value)) == refs
        assert grown < 50, f"{grown} more objects after 2,000 calls"
    finally:
        sys.modules.pop("kiln_imp_sentinel", None)
        builtins.__import__ = REAL_IMPORT


def test_helper_frame_not_in_traceback(built):
    """CPython's IMPORT_FROM runs in a helper's frame, taken off the
    traceback: the first entry after the function's own is the module's
    __getattr__ that raised."""
    mod = built(STEM).module
    try:
        mod.getattr_raises_plain_module()
    except RuntimeError as e:
        names = [(os.path.basename(f.filename), f.name) for f in traceback.extract_tb(e.__traceback__)]
    assert names[-2:] == [(f"{STEM}.py", "getattr_raises_plain_module"), (f"{STEM}.py", "raise_runtime")], names
    assert not any("<kiln" in n for n, _ in names)
    purge_helpers()


# A replacement __import__ that is a static method of a C type:
# PyCFunction_GET_SELF gives NULL for METH_STATIC, and runtime.c's
# default_import passes it to PyModule_Check. Run in a fresh interpreter.
STATIC_IMPORT_CODE = """
import builtins, importlib.util, sys
spec = importlib.util.spec_from_file_location({stem!r}, {so!r})
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
out = []
for f in (m.__kiln_python__["stdlib_json"], m.stdlib_json):
    saved = builtins.__import__
    builtins.__import__ = str.maketrans
    try:
        f(1)
    except TypeError as e:
        out.append((type(f).__name__, "TypeError", str(e)))
    finally:
        builtins.__import__ = saved
    print(out[-1], flush=True)
"""


def test_static_method_as_import(built):
    b = built(STEM)
    code = STATIC_IMPORT_CODE.format(stem=STEM, so=b.module.__file__)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, f"exit {r.returncode}: {r.stdout}{r.stderr[-2000:]}"
    py, native = r.stdout.strip().splitlines()
    assert py.replace("'function'", "'builtin_function_or_method'") == native


# CPython's IMPORT_FROM runs in a helper compiled on first use per name:
# an audit hook sees a "compile" event the original never raises, and a hook
# refusing compile() (a sandbox's) makes the native import fail.
AUDIT_CODE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location({stem!r}, {so!r})
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
events = []


def hook(event, args):
    if event == "compile" and "kiln_audit" in str(args):
        events.append(event)
        raise RuntimeError("compile refused")


sys.addaudithook(hook)
out = []
for f in (m.__kiln_python__["kiln_audit_fn"], m.kiln_audit_fn):
    del events[:]
    try:
        r = ("ok", f())
    except Exception as e:
        r = ("raised", type(e).__name__, str(e))
    out.append((r, list(events)))
print(out[0] == out[1], out)
"""

AUDIT_SOURCE = '''
def kiln_audit_fn():
    try:
        from json import kiln_audit_missing
    except ImportError as e:
        missing = e.name
    from json import __name__ as kiln_audit_name
    return missing, kiln_audit_name
'''


def test_audit_hook_sees_no_compile(tmp_path):
    import kiln
    (tmp_path / "kiln_imp_audit.py").write_text(AUDIT_SOURCE, encoding="utf-8")
    m = kiln.build(str(tmp_path / "kiln_imp_audit.py"), out_dir=str(tmp_path / "out"))
    code = AUDIT_CODE.format(stem="kiln_imp_audit", so=m.__file__)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("True"), r.stdout


WARN_MODULE = '''
import warnings


def __getattr__(name):
    if name == "old":
        warnings.warn("old is deprecated", DeprecationWarning, stacklevel=2)
        return 1
    raise AttributeError(name)
'''

WARN_SOURCE = '''
def by_import():
    from kiln_imp_warnmod import old
    return old


def by_attribute():
    import kiln_imp_warnmod
    return kiln_imp_warnmod.old
'''


def test_getattr_warning_attribution(tmp_path):
    """A native function has no frame: a warning's stacklevel skipping it
    lands in its caller's frame, as for `m.old` read natively. `from m
    import old` should land there too."""
    import kiln
    (tmp_path / "kiln_imp_warnmod.py").write_text(WARN_MODULE, encoding="utf-8")
    (tmp_path / "kiln_imp_warn.py").write_text(WARN_SOURCE, encoding="utf-8")
    m = kiln.build(str(tmp_path / "kiln_imp_warn.py"), out_dir=str(tmp_path / "out"))
    sys.path.insert(0, str(tmp_path))
    try:
        where = {}
        for name in ("by_import", "by_attribute"):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                assert getattr(m, name)() == 1
            assert [str(x.message) for x in w] == ["old is deprecated"]
            where[name] = os.path.basename(w[0].filename)
        assert where["by_attribute"] == os.path.basename(__file__)
        assert where["by_import"] == where["by_attribute"], where
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kiln_imp_warnmod", None)


# ---------------------------------------------------------------------------
# Relative imports: the compiled module as kpkg.inner.mod, in a fresh process

PKG_FILES = {
    "kpkg/__init__.py": """
        LOG = []
        HOOK = None
        LOG.append(("exec", __name__))
        ATTR = "kpkg.ATTR"


        def __getattr__(name):
            LOG.append(("getattr", __name__, name))
            if name.startswith("lazy"):
                return "lazy:" + name
            if name == "explode":
                raise RuntimeError("explode in kpkg.__getattr__")
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    """,
    "kpkg/sub.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        VALUE = "sub.VALUE"
    """,
    "kpkg/later.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        VALUE = "later.VALUE"
    """,
    "kpkg/circ.py": """
        import kpkg
        kpkg.LOG.append(("exec", __name__))
        EARLY = "early"
        SEEN = kpkg.HOOK()
        LATE = "late"
    """,
    "kpkg/circ_a.py": """
        from kpkg import LOG
        LOG.append(("exec start", __name__))
        from . import circ_b
        A_NAME = __name__
        LOG.append(("exec end", __name__))
    """,
    "kpkg/circ_b.py": """
        from kpkg import LOG
        LOG.append(("exec start", __name__))
        from . import circ_a
        B_SEES = circ_a.__name__
        LOG.append(("exec end", __name__))
    """,
    "kpkg/uses_mod.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        from .inner import mod
        CONST_SEEN = mod.CONST
    """,
    "kpkg/inner/__init__.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        INNER = "inner.INNER"


        def __getattr__(name):
            LOG.append(("getattr", __name__, name))
            if name == "lazy_inner":
                return "lazy inner"
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    """,
    "kpkg/inner/sib.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        VALUE = "sib.VALUE"
    """,
    "kpkg/inner/sib_later.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        VALUE = "sib_later.VALUE"
    """,
    "sched.py": """
        # a stdlib module's name, in the driver's sys.path[0] (3.13 says "consider renaming")
        X = 1
    """,
    "kpkg/decorated.py": """
        import builtins

        import kiln

        from kpkg import LOG

        ORIGINAL_IMPORT = builtins.__import__
        MODULE_GLOBALS = globals()


        def logging_import(name, globals=None, locals=None, fromlist=(), level=0):
            if globals is MODULE_GLOBALS or type(globals) is not dict:
                LOG.append(("__import__", name, globals is MODULE_GLOBALS, locals, fromlist, level))
            return ORIGINAL_IMPORT(name, globals, locals, fromlist, level)


        def dec_rel():
            from . import sub, lazy_dec
            from .inner.sib import VALUE
            from .inner import sib
            return sub.__name__, lazy_dec, VALUE, sib.__name__


        def dec_rel_missing():
            from . import kiln_nosuch
            return kiln_nosuch


        def dec_beyond_top():
            from .. import x
            return x


        def dec_logged():
            saved = builtins.__import__
            builtins.__import__ = logging_import
            try:
                from . import sub
                import json
                from .inner import sib as s
                return sub.VALUE, json.__name__, s.VALUE
            finally:
                builtins.__import__ = saved


        # kiln.compile binds the native functions to this module's globals:
        # their relative imports resolve against kpkg.
        NATIVE = {name: kiln.compile(globals()[name])
                  for name in ("dec_rel", "dec_rel_missing", "dec_beyond_top", "dec_logged")}
    """,
    "kpkg/inner/broken.py": """
        from kpkg import LOG
        LOG.append(("exec", __name__))
        from . import kiln_nosuch_sibling
    """,
}

PKG_SOURCE = '''
import builtins
import sys

CONST = "mod.CONST"
LOG = []
ORIGINAL_IMPORT = builtins.__import__
MODULE_GLOBALS = globals()


def logging_import(name, globals=None, locals=None, fromlist=(), level=0):
    # other modules' imports by their name; importlib's own (of _io, ...) not at all
    if globals is MODULE_GLOBALS or type(globals) is not dict:
        LOG.append(("__import__", name, globals is MODULE_GLOBALS, locals, fromlist, level))
    elif not str(globals.get("__name__")).startswith("importlib"):
        LOG.append(("__import__ by", globals.get("__name__"), name, type(locals).__name__, fromlist, level))
    return ORIGINAL_IMPORT(name, globals, locals, fromlist, level)


def rel_lazy():
    from .. import lazy_x, ATTR
    return lazy_x, ATTR


def rel_lazy_inner():
    from . import lazy_inner, INNER
    return lazy_inner, INNER


def rel_sibling():
    from . import sib
    from .sib import VALUE
    return sib.__name__, VALUE


def rel_not_yet_imported():
    from .. import later
    return later.__name__, later.VALUE


def rel_not_yet_imported_inner():
    from . import sib_later, sib
    return sib_later.VALUE, sib.VALUE


def rel_sub_of_parent():
    from ..sub import VALUE as v
    from .. import sub
    return v, sub.__name__


def rel_dotted():
    from ..inner.sib import VALUE
    from ..inner import sib as s
    return VALUE, s.__name__


def rel_self():
    from . import mod
    from .mod import CONST as c
    return mod is sys.modules[__name__], c


def rel_missing_name():
    from . import kiln_nosuch_inner
    return kiln_nosuch_inner


def rel_missing_parent_name():
    from .. import kiln_nosuch
    return kiln_nosuch


def rel_missing_module():
    from .kiln_nosuch_mod import x
    return x


def rel_missing_name_in_sibling():
    from .sib import kiln_nosuch
    return kiln_nosuch


def rel_broken_sibling():
    from . import broken
    return broken


def rel_getattr_raises():
    from .. import explode
    return explode


def rel_beyond_top():
    from ... import x
    return x


def rel_beyond_top4():
    from .... import x
    return x


def rel_beyond_top_dotted():
    from ...kpkg import ATTR
    return ATTR


def rel_spaced_dots():
    from . . import ATTR
    from . .sub import VALUE
    return ATTR, VALUE


def abs_pkg_dotted():
    import kpkg.inner.sib
    import kpkg.inner.sib as s
    return kpkg.__name__, kpkg.inner.__name__, s.__name__


def abs_lazy_parent():
    import kpkg
    from kpkg import lazy_y
    from kpkg.inner import INNER
    return kpkg.__name__, lazy_y, INNER


def rel_in_lambda():
    from . import sib
    from .. import ATTR as a
    f = lambda: (sib.VALUE, a)
    return f()


def rel_try_fallback():
    try:
        from . import kiln_nosuch_inner as chosen
    except ImportError as e:
        from . import sib as chosen
        return chosen.__name__, e.name, str(e)[:60]
    return chosen


def rel_in_loop(n: int):
    out = []
    for i in range(n):
        from .. import lazy_loop
        from . import sib
        out.append((i, lazy_loop, sib.VALUE))
    return out


def rel_uses_mod():
    from .. import uses_mod
    return uses_mod.CONST_SEEN


def rel_circ_pair():
    from .. import circ_a
    return circ_a.A_NAME, circ_a.circ_b.B_SEES


def rel_replaced_import():
    saved = builtins.__import__
    builtins.__import__ = logging_import
    try:
        from . import sib
        from .. import ATTR
        from ..sub import VALUE
        import kpkg.inner.sib as s
        return sib.__name__, ATTR, VALUE, s.__name__
    finally:
        builtins.__import__ = saved


def rel_deleted_import():
    saved = builtins.__import__
    del builtins.__import__
    try:
        from . import sib
        return sib
    finally:
        builtins.__import__ = saved


def shadowed_stdlib_name():
    from sched import kiln_nosuch
    return kiln_nosuch


def circ_fallback():
    from .. import circ
    from ..circ import EARLY
    return circ.__name__, EARLY


def circ_absolute_as():
    import kpkg.circ as c
    return c.EARLY


def circ_partial():
    from ..circ import LATE
    return LATE


def circ_partial_absolute():
    from kpkg.circ import LATE
    return LATE
'''

PKG_CIRC_HOOKS = ("circ_fallback", "circ_absolute_as", "circ_partial", "circ_partial_absolute")

PKG_CASES = {
    "rel_lazy": [()],
    "rel_lazy_inner": [()],
    "rel_sibling": [()],
    "rel_not_yet_imported": [()],
    "rel_not_yet_imported_inner": [()],
    "rel_sub_of_parent": [()],
    "rel_dotted": [()],
    "rel_self": [()],
    "rel_missing_name": [()],
    "rel_missing_parent_name": [()],
    "rel_missing_module": [()],
    "rel_missing_name_in_sibling": [()],
    "rel_broken_sibling": [()],
    "rel_getattr_raises": [()],
    "rel_beyond_top": [()],
    "rel_beyond_top4": [()],
    "rel_beyond_top_dotted": [()],
    "rel_spaced_dots": [()],
    "abs_pkg_dotted": [()],
    "abs_lazy_parent": [()],
    "rel_in_lambda": [()],
    "rel_try_fallback": [()],
    "rel_in_loop": [(0,), (3,)],
    "rel_uses_mod": [()],
    "rel_circ_pair": [()],
    "rel_replaced_import": [()],
    "rel_deleted_import": [()],
    "shadowed_stdlib_name": [()],
    "circ_fallback": [()],
    "circ_absolute_as": [()],
    "circ_partial": [()],
    "circ_partial_absolute": [()],
}

# Functions of kpkg/decorated.py, compiled by kiln.compile at its import
# (KILN_CACHE_DIR a temporary directory): native NATIVE[name], Python the
# module's own function.
DEC_CASES = {"dec_rel": [()], "dec_rel_missing": [()], "dec_beyond_top": [()], "dec_logged": [()]}

PKG_BUGS: dict = {}

# Runs in a fresh interpreter: imports kpkg.inner.mod by its package name and
# runs each case natively and as the Python original, from a fresh import
# state, printing the outcomes as JSON.
PKG_DRIVER = r'''
import builtins, json, os, sys, traceback, warnings
REAL_IMPORT = builtins.__import__
import kpkg.inner.mod as mod

CASES = json.loads(sys.argv[1])
HOOKS = set(json.loads(sys.argv[2]))
FRESH = ("kpkg.later", "kpkg.inner.sib_later", "kpkg.inner.broken", "kpkg.circ", "kpkg.circ_a",
         "kpkg.circ_b", "kpkg.uses_mod", "kpkg.sub", "kpkg.inner.sib")


def data(v):
    if isinstance(v, (list, tuple)):
        return [type(v).__name__, [data(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[data(k), data(x)] for k, x in v.items()]]
    return [type(v).__name__, repr(v)]


def raised(e):
    tb = [[os.path.basename(f.filename), f.lineno, f.name] for f in traceback.extract_tb(e.__traceback__)]
    attrs = [repr(getattr(e, a, "<absent>")) for a in ("name", "path", "name_from")] \
        if isinstance(e, ImportError) else []
    return ["raised", type(e).__name__, str(e), attrs, tb,
            None if e.__context__ is None else type(e.__context__).__name__,
            None if e.__cause__ is None else type(e.__cause__).__name__]


def reset():
    import kpkg, kpkg.inner
    for name in FRESH:
        sys.modules.pop(name, None)
        parent, _, leaf = name.rpartition(".")
        sys.modules[parent].__dict__.pop(leaf, None)
    del kpkg.LOG[:]
    del mod.LOG[:]
    kpkg.HOOK = None


def run(name, fn, args):
    import kpkg
    reset()
    if name in HOOKS:
        kpkg.HOOK = fn

        def call():
            import kpkg.circ
            return kpkg.circ.SEEN
    else:
        def call():
            return fn(*args)
    left = "as found"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            try:
                out = ["ok", data(call())]
            finally:
                now = builtins.__dict__.get("__import__", "<deleted>")
                if now is not REAL_IMPORT:
                    left = repr(now)
                builtins.__import__ = REAL_IMPORT
        except Exception as e:
            out = raised(e)
    mods = sorted(k for k in sys.modules if k.startswith("kpkg"))
    return [out, data(list(kpkg.LOG)), data(list(mod.LOG)), mods,
            [[w.category.__name__, str(w.message)] for w in caught], left]


results = {"types": {}, "package": mod.__package__, "name": mod.__name__, "cases": []}
for name, args in CASES:
    if name.startswith("dec_"):
        import kpkg.decorated as dec
        native, python = dec.NATIVE[name], getattr(dec, name)
    else:
        native, python = getattr(mod, name), mod.__kiln_python__[name]
    results["types"][name] = type(native).__name__
    results["cases"].append([name, args, run(name, native, args), run(name, python, args)])
print(json.dumps(results))
'''


def pkg_data(v):
    """PKG_DRIVER's data(v)."""
    if isinstance(v, (list, tuple)):
        return [type(v).__name__, [pkg_data(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[pkg_data(k), pkg_data(x)] for k, x in v.items()]]
    return [type(v).__name__, repr(v)]


def _pkg_functions():
    import ast
    return [n.name for n in ast.parse(PKG_SOURCE).body
            if isinstance(n, ast.FunctionDef) and n.name != "logging_import"]


PKG_FUNCTIONS = _pkg_functions()


@pytest.fixture(scope="module")
def pkg_run(tmp_path_factory):
    """Writes kpkg, builds kpkg/inner/mod.py with the CLI (the .so next to
    its source), then runs PKG_DRIVER in a fresh interpreter."""
    root = tmp_path_factory.mktemp("kiln_pkg")
    write_tree(root, PKG_FILES)
    src = root / "kpkg" / "inner" / "mod.py"
    src.write_text(PKG_SOURCE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)]),
           "KILN_CACHE_DIR": str(root / "kiln-cache"), "KILN_MODE": "auto"}
    r = subprocess.run([sys.executable, "-m", "kiln", "build", str(src)], capture_output=True, text=True,
                       env=env, cwd=str(root), timeout=300)
    if r.returncode != 0:
        pytest.fail(f"kiln build kpkg/inner/mod.py failed:\n{r.stdout}{r.stderr}")
    report = json.loads((root / "kpkg" / "inner" / "mod.kiln.json").read_text(encoding="utf-8"))
    cases = [(n, list(a)) for n in PKG_FUNCTIONS for a in PKG_CASES[n]]
    cases += [(n, list(a)) for n in DEC_CASES for a in DEC_CASES[n]]
    r = subprocess.run([sys.executable, "-c", PKG_DRIVER, json.dumps(cases), json.dumps(PKG_CIRC_HOOKS)],
                       capture_output=True, text=True, env=env, cwd=str(root), timeout=300)
    if r.returncode != 0:
        pytest.fail(f"the package driver failed (exit {r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-4000:]}")
    results = json.loads(r.stdout.strip().splitlines()[-1])
    results["by_case"] = {(n, json.dumps(a)): (got, want) for n, a, got, want in results["cases"]}
    results["report"] = report
    return results


def test_pkg_every_function_has_cases():
    assert sorted(PKG_CASES) == sorted(PKG_FUNCTIONS)


def test_pkg_module_is_in_its_package(pkg_run):
    assert pkg_run["name"] == "kpkg.inner.mod" and pkg_run["package"] == "kpkg.inner"


@pytest.mark.parametrize("name", PKG_FUNCTIONS)
def test_pkg_report_status(pkg_run, name):
    entry = {f["name"]: f for f in pkg_run["report"]["functions"]}.get(name)
    assert entry is not None and entry.get("status") == "native", entry
    assert pkg_run["types"][name] == "builtin_function_or_method"


def _pkg_marked(name, args):
    cond, reason = PKG_BUGS.get(name, (False, ""))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if cond else []
    return pytest.param(name, args, marks=marks)


@pytest.mark.parametrize("name,args", [_pkg_marked(n, a) for n in PKG_FUNCTIONS for a in PKG_CASES[n]])
def test_pkg_same_as_python(pkg_run, name, args):
    got, want = pkg_run["by_case"][(name, json.dumps(list(args)))]
    assert got == want, f"kpkg.inner.mod.{name}{args!r}:\n  kiln:   {got}\n  python: {want}"


@pytest.mark.parametrize("name", sorted(DEC_CASES))
def test_pkg_kiln_compile_same_as_python(pkg_run, name):
    """kiln.compile'd functions of kpkg.decorated: native (bound to the
    module's globals), and their relative imports agree with the original's."""
    assert pkg_run["types"][name] == "builtin_function_or_method"
    for args in DEC_CASES[name]:
        got, want = pkg_run["by_case"][(name, json.dumps(list(args)))]
        assert got == want, f"kpkg.decorated.{name}{args!r}:\n  kiln:   {got}\n  python: {want}"


def test_pkg_kiln_compile_globals(pkg_run):
    got, want = pkg_run["by_case"][("dec_logged", "[]")]
    assert got == want
    own = [e for e in want[1][1] if e[1][0] == ["str", "'__import__'"]]
    assert own == [pkg_data(("__import__", "", True, None, ("sub",), 1)),
                   pkg_data(("__import__", "json", True, None, None, 0)),
                   pkg_data(("__import__", "inner", True, None, ("sib",), 1))], own


def test_pkg_replaced_import_arguments(pkg_run):
    """A replaced __import__ receives the module's dict, None, the
    fromlist and the level of each relative import."""
    got, want = pkg_run["by_case"][("rel_replaced_import", "[]")]
    assert got == want
    own = [e for e in want[2][1] if e[1][0] == ["str", "'__import__'"]]
    assert own == [pkg_data(("__import__", "", True, None, ("sib",), 1)),
                   pkg_data(("__import__", "", True, None, ("ATTR",), 2)),
                   pkg_data(("__import__", "sub", True, None, ("VALUE",), 2)),
                   pkg_data(("__import__", "kpkg.inner.sib", True, None, None, 0))], own
