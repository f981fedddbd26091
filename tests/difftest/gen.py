"""Random generator of well-typed kiln programs (scalar, torch and TensorFlow tensor code).

Every generated function is plain Python source text.  The generator keeps
each local at one static type (int / float / bool / tensor of a known
symbolic shape), bounds every loop (range arguments are reduced modulo small
constants or span a constant width; while loops count down a protected
counter ``wN``), and only calls earlier, cheap enough functions, so the
Python oracle always terminates quickly.

Scalar code also gets list/set/dict comprehensions (conditions, up to three
clauses, nesting, tuple targets over ``enumerate``/``zip``/``dict.items()``,
targets that shadow a local) and generator expressions consumed by any, all,
sum (with int/float starts at the edges), min/max (``key=abs``,
``default=``), sorted, list, tuple, set and a string's join; list, set and
dict locals; and functions returning ``list[int]``/``list[float]``.  Each
comprehension makes at most ``COMP_CAP`` items (fewer inside loops);
``comp_weight`` (``run --comp-weight``) scales how often these forms appear.

Scalar code also gets ``try`` statements (``try_weight``, ``run
--try-weight``): bodies of statements that can raise (int and float ``//``,
``%`` and ``/`` by a likely zero, list/tuple items and ``pop`` at any index,
dict items, math domain errors, ``int()`` of NaN/inf/strings, conditional
``raise`` of ValueError/TypeError/... with computed messages), one to three
handlers (classes, tuples, ``Exception``, a bare ``except``) with or without
``as NAME`` (the name's type, message, args, ``__context__``/``__cause__``
folded into accumulators), ``else`` and ``finally`` blocks (finally blocks
update accumulators), return/break/continue in every part (loops stay
bounded: a while's counter goes down first thing in its body), nested try
in every part (sometimes most of a function is one try), bare ``raise``,
``raise NAME``, ``raise X from NAME`` and ``from None``; as-names that an
earlier handler used or that rebind a local, read after their handler (the
handler deleted them), and locals a try leaves possibly unbound.  Handlers
mostly catch what their body raises.  A handler that can catch OverflowError
never folds the message in: kiln's int64 OverflowError says ``integer
overflow (FILE:LINE)`` where Python has a big int and no error at all.

Scalar code also gets lambdas (``lambda_weight``, ``run --lambda-weight``;
0 gives a seed's programs from before), always called and their results
folded in: immediately called with 0-3 parameters, positional and
keyword-only defaults, ``*args``/``**kw``; stored and called after a local
they read was reassigned (late binding); appended in a loop and called after
it (the loop variable read late or passed as a default); made in a handler
reading its as-name and called there (and after it: NameError); from either
branch of an if; reading a local deleted or never bound before the call
(NameError); reading an object local; nested (``lambda p: lambda q: ...``),
a lambda as a lambda's default, several on one line (conditional
expressions, two bound at once), in a comprehension's first iterable and its
element (the comprehension's targets passed as defaults; rarely read by the
body, a cell of the comprehension, see ``genexpr_weight`` for more); ``sorted``/``min``/
``max`` with ``key=``, ``map``/``filter`` consumed by sum/len/any/all.

Scalar code also gets unpacking (``unpack_weight``, ``run --unpack-weight``;
0 gives a seed's programs from before, and no ``u_*`` helpers): ``*``/``**``
in calls of builtins (max/min with ``key=``/``default=``, sorted, sum,
divmod, pow, int, abs, float, math.hypot/fsum/copysign/atan2/fmod, print
into a StringIO), of methods (list.count/index/append/insert/extend,
str.format/count, dict.get/update, set.update, StringIO.write), of earlier
typed functions of the module (arguments split between positionals, ``*``
lists/tuples, keywords and ``**`` dicts; sometimes one too many or missing,
a repeated or unknown keyword) and of module-level helpers (``UNPACK_HELPERS``:
``u_args``/``u_pos``/``u_kw`` take ``*args``/``**kwargs``, positional-only
and keyword-only parameters and are left as Python, returning a digest of
what they got; ``u_typed`` is native with defaults and keyword-only
parameters; ``u_gen`` is a generator that may raise; ``u_log`` records the
order CPython evaluates a call's parts in, a ``*`` after a keyword included,
a lone ``*`` whose iterator logs is only iterated after the keywords);
``[*a, b]``, ``(*a, b)``, ``*a, b``, ``{*a, b}`` and ``{**m, k: v}``
displays; starred, nested (``a, (b, *c) = ...``) and chained targets of
assignments and for statements (rows from zip/enumerate/dict items, displays
of uneven rows, strings, ints; ``for i, (a, *r) in enumerate(rows)``),
sometimes rebinding a local, a list or dict item (IndexError when out of
range) or a list slice (``a, *L[i:j] = ...``).  What is unpacked: displays,
list/set/dict locals, ranges, strings, dicts (keys), map/filter/reversed/iter
and u_gen; sometimes something that is not iterable, not a mapping, a dict
with non-str keys, an iterator raising inside, too few or too many items for
the targets, an unhashable set item or dict key (followed by an item that
raises: CPython evaluates a run of items before it builds them), so the
errors (messages and chains) are compared too, often caught by a try that
folds ``str(e)`` in.  Everything is folded into ints/floats/bools (floats
never go where identity counts).  Bare generator expressions are unpacked
only by the ``genexpr_weight`` forms below.

Scalar code also gets generator expressions no consumer takes
(``genexpr_weight``, ``run --genexpr-weight``; 0 gives a seed's programs from
before, and no ``gx_*``/``GxIter`` helpers), which kiln makes as CPython does
(first iterable and iter() in the function, then the code CPython compiled
for them; what they read is a cell): ``next(gen, default)``, ``next(gen)``
with StopIteration caught (its message, args, value), ``dict(...)``,
``zip`` of two (``strict=True`` too), ``enumerate`` with a start, ``map``/
``filter`` over them, ``x in gen`` (ints), ``*gen`` in calls with keywords
(``gx_args``), ``max(*gen, d)``, ``[*gen, *gen]``, a generator expression
over another, the helpers ``gx_take`` (takes n items: partial
consumption), ``gx_make`` (returns one after rebinding what it reads) and
``gx_pass`` (returns it, or one over it); kept in a local and consumed later
(sum/next/min/max/any/all/list/sorted/``in``/zip(g, g)/gx_take/``*g``/
enumerate/map/filter/a for statement left early, one to four of them in a
row, so later ones get what is left) after rebinding a local the body reads
(late binding; a local read only by the first iterable keeps its old value),
after deleting it or binding it only now (NameError), after mutating or
rebinding the list it iterates (the body reading the list's len too), after
changing the dict or set it iterates (RuntimeError), after reading an
``except`` as-name the handler then deleted, made
in a loop reading the loop variable late and consumed after it; a first
iterable that is not iterable (TypeError at creation), ``GxIter`` whose
``__iter__`` raises or returns a non-iterator, a later clause's iterable
that is not (raising only when consumed), a first iterable raising while it
is evaluated; bodies raising later (``//`` by zero, math domain errors,
IndexError/KeyError, StopIteration turned into RuntimeError) caught by a
try, the finished generator read again; ``close``/``send``/``throw``, an
exhausted one consumed again, ``__name__``/``__qualname__``/``gi_code``/
``gi_frame``/``gi_running``.  Also lambdas and lazy generator expressions
reading a comprehension's variable (a cell, a new one each time the
comprehension starts): lists of lambdas or generators built by a
comprehension and called/consumed after it (each sees the last value; the
variable sometimes shadows a local, itself maybe a cell, read after it),
also extended by a comprehension run in a loop, nested comprehensions of
lambdas reading both variables, a dict comprehension's, ``sorted`` with a
``key=`` lambda reading the variable, ``next((y for y in ys if y > t), d)``
per item.  Results are folded like the others (a handler that may catch
OverflowError never folds its message in).

Scalar code also gets match statements (``match_weight``, ``run
--match-weight``; 0 gives a seed's programs from before, and no ``M*``
helpers).  Subjects: typed int/float/bool expressions (mostly ones with a few
likely values, ``a % 4``; sometimes through ``m_tick``, which logs that the
subject is evaluated once), strs, tuples of locals (``match a, b:``),
list/tuple displays, list locals, comprehensions, ranges, dict displays
(str or int keys) and locals, instances of the module-level helper classes
(``MATCH_HELPERS``: ``MPt``/``MPt3`` with ``__match_args__`` and a subclass,
``MBox`` without, ``MD`` a dataclass, ``MNT`` a namedtuple, ``MLog`` whose
attribute read and ``__eq__`` log into a caller's list and raise,
``MBad`` whose ``__match_args__`` is a list, ``MSeq`` a logging
``Sequence``, ``MMap`` a dict whose logged ``get`` is what the mapping
pattern calls), nested, and ``x if c else y`` of two shapes (None
included).  Patterns: int/float/complex/str/bytes literals (negative,
beyond int64, ``-0.0``, ``0j``), None/True/False, captures, ``_``, dotted
values (``MK.ZERO``, ``math.inf``, ``MK.NAN``, ``MK.ODD`` whose ``__eq__``
a typed subject's ``==`` reaches reflected), or-patterns (their
alternatives binding the same names in different positions, through ``as``
when one lacks a name), ``as``, groups, sequence patterns (``[a, *rest]``,
``(x, _, *_)``, ``[*_, last]``, open ``case a, b:``, nested, a length off
by one), mapping patterns (``{'k': v, **rest}``, ``{}``, a missing key, a
dotted key equal to a literal one: ValueError), class patterns (``int(n)``,
``str()``, ``int(real=r)``, ``C(a, b)``, ``C(x=0, y=v)``, a base class's
``__match_args__`` on a subclass, too many positional sub-patterns, a
keyword repeating a positional one, a non-class: TypeError), each fitting
the subject's shape mostly and sometimes not (a str or a dict against a
sequence pattern, an int against a class pattern); guards reading the
captures and other locals (sometimes raising); bodies folding the captures
into an accumulator (``m_fold`` digests any value by its ``repr``),
assigning a typed local declared before the match, running other
statements (break/continue in loops, return, nested matches, some on a
capture); a capture read after the match (UnboundLocalError when no case
bound it); a typed local rebound by a capture; matches inside try (and a
try around some).  So that what a match did is seen (most cases end in an
exception raised later), a function sometimes begins with a match and a
match is sometimes followed by ``if C: return ACC``.  A capture of a typed value is a local of that type
(kiln keeps every capture but one of the subject itself as an object, as
the checked twin does).  Case-level irrefutable patterns come only last or
with a guard and or-pattern alternatives are refutable and bind the same
names, so every statement compiles on CPython 3.10-3.13.

``gen_module(rng, n_funcs)`` returns a :class:`Module`: source text plus, for
every function, its parameter kinds (used by :mod:`tests.difftest.values` to
draw inputs).
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass, field

INT, FLOAT, BOOL = "int", "float", "bool"
NUM = (INT, FLOAT)
SCALARS = (INT, FLOAT, BOOL)
# collection types (also the type names of tests.difftest.typer): a list, set
# or dict of scalars, written "L:<elem>", "S:<elem>", "D:<key>:<value>"
LI, LF, LB = "L:int", "L:float", "L:bool"
SI = "S:int"
DII, DIF = "D:int:int", "D:int:float"
LIST_OF = {INT: LI, FLOAT: LF, BOOL: LB}
RET_ANN = {LI: "list[int]", LF: "list[float]"}

HEADER = ("import math\n"
          "import torch\n"
          "import torch.nn.functional as F\n"
          "from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D\n")

# The same imports as a conditional import (tests/test_guarded_imports.py):
# kiln resolves them under a guard the runtime checks once the module has run.
GUARDED_HEADER = ("try:\n"
                  "    import math\n"
                  "    import torch\n"
                  "    import torch.nn.functional as F\n"
                  "except ImportError:\n"
                  "    math = torch = F = None\n"
                  "from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D\n")
# ... and as module-level aliases of the imports (resolved under the same guard)
ALIAS_HEADER = ("import math as _math\n"
                "import torch as _torch\n"
                "math = _math\n"
                "torch = _torch\n"
                "F = torch.nn.functional\n"
                "from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D\n")
GUARDED_HEADER_P = 0.3    # share of modules that import so
ALIAS_HEADER_P = 0.2      # share of modules that alias so

I64_MAX = 2**63 - 1

INT_CONSTS = [0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 31, 63, 100, 255, 1000, -1, -2, -3, -7, -100,
              2**31, 2**32 - 1, 2**53 + 1, 2**62, 3037000499, I64_MAX]
FLOAT_CONSTS = ["0.0", "-0.0", "1.0", "0.5", "-2.5", "3.25", "1e300", "-1e-300", "1e16",
                "9007199254740993.0", "2.0", "-1.0", "0.1", "1e-05", "math.inf", "-math.inf",
                "math.nan", "math.pi", "5e-324", "1.7976931348623157e+308"]
# items that stress sum's float path (cancellation, compensation from 3.12,
# inf/nan/-0.0, ints converted to float near int64's limits)
SUM_FLOATS = ["1e16", "1.0", "(-1e16)", "0.1", "0.2", "0.3", "1e300", "(-1e300)", "1e308",
              "math.inf", "(-math.inf)", "math.nan", "(-0.0)", "0.0", "5e-324", "(-5e-324)",
              "9007199254740993.0", "1e-16", "(-1.0)", "2.5"]
# int starts of sum: near int64's limits (the running total leaves int64 where
# Python's would, see typer._cksum)
INT_STARTS = ["0", "1", "(-1)", "9223372036854775807", "9223372036854775806",
              "(-9223372036854775807 - 1)", "(-9223372036854775807)", "4611686018427387904",
              "(-4611686018427387904)", "True", "False", "100"]
FLOAT_STARTS = ["0.0", "(-0.0)", "math.inf", "(-math.inf)", "math.nan", "1e300", "(-1e300)",
                "1e16", "(-1e16)", "0.5", "1.0", "9.2e18", "5e-324"]
COMP_WEIGHT = 1.0         # scales how often comprehension/genexp forms are made (run --comp-weight)
COLL_P = 0.05             # chance (at weight 1) that an expression is such a form
COLL_STMT = 2             # weight (at weight 1) of `NAME = <list/set/dict>` statements (new: 25)
COMP_CAP = 160            # items a comprehension may produce (product of its clauses)
TRY_WEIGHT = 1.0          # scales how often try statements are made (run --try-weight)
TRY_STMT = 5              # weight (at weight 1) of a try statement among statements
TRY_NEST = 3              # try statements inside one another, at most
LAMBDA_WEIGHT = 1.0       # scales how often lambdas are made (run --lambda-weight)
LAMBDA_P = 0.03           # chance (at weight 1) that an expression is a lambda form
LAMBDA_STMT = 3           # weight (at weight 1) of a lambda statement form among statements
UNPACK_WEIGHT = 1.0       # scales how often unpacking forms are made (run --unpack-weight)
UNPACK_P = 0.03           # chance (at weight 1) that an expression is an unpacking form
UNPACK_STMT = 3           # weight (at weight 1) of an unpacking statement form among statements
KW_NAMES = ["k", "m", "z", "p", "q", "w"]     # keywords the u_* helpers get
# module-level helpers of the unpacking forms (in a module only when unpack_weight > 0):
# u_args/u_pos/u_kw take *args/**kwargs (left as Python, KILN011) and return a
# digest of what they got; u_log records the order of a call's parts; u_gen is
# a generator; u_buf a StringIO for print(file=); u_typed is a native function
# with defaults and keyword-only parameters
UNPACK_HELPERS = [
    "def u_args(*a, **k):\n"
    "    s = repr((a, sorted(k.items())))\n"
    "    return len(a) * 100003 + len(k) * 1009 + sum((i + 1) * ord(c) for i, c in enumerate(s)) % 99991\n",
    "def u_pos(p, q=7, /, *a, k=0, **kw):\n"
    "    return u_args(p, q, *a, k=k, **kw) + 1\n",
    "def u_kw(*, k, m=1.5, **kw):\n"
    "    return u_args(k=k, m=m, **kw) + 2\n",
    "def u_log(T, n, v):\n"
    "    T.append(n)\n"
    "    return v\n",
    "def u_gen(*a, fail=None):\n"
    "    for x in a:\n"
    "        if fail is not None and x == fail:\n"
    "            raise ValueError('u_gen got ' + repr(x))\n"
    "        yield x\n",
    "def u_buf():\n"
    "    import io\n"
    "    return io.StringIO()\n",
    "def u_typed(p: int, q: int = 3, *, k: float = 0.5, m: bool = False) -> float:\n"
    "    return p * 0.5 + q + k + (1.0 if m else -1.0)\n",
]
GENEXPR_WEIGHT = 1.0      # scales how often unconsumed generator expressions are made (run --genexpr-weight)
GENEXPR_P = 0.03          # chance (at weight 1) that an expression is such a form
GENEXPR_STMT = 3          # weight (at weight 1) of such a statement form among statements
# module-level helpers of the generator expression forms (in a module only
# when genexpr_weight > 0): gx_args digests its arguments (`*gen` with
# keywords); gx_take takes up to n items of an iterator (one more when there
# are more: it stops at the item after); gx_make returns a generator
# expression reading a parameter it rebinds afterwards (late binding);
# gx_pass returns its argument or a generator expression over it; GxIter's
# __iter__ raises (bad=1) or returns a non-iterator (bad=2)
GENEXPR_HELPERS = [
    "def gx_args(*a, **k):\n"
    "    s = repr((a, sorted(k.items())))\n"
    "    return len(a) * 1009 + len(k) * 101 + sum((i + 1) * ord(c) for i, c in enumerate(s)) % 9973\n",
    "def gx_take(it, n: int):\n"
    "    out = []\n"
    "    for v in it:\n"
    "        if len(out) >= n:\n"
    "            break\n"
    "        out.append(v)\n"
    "    return out\n",
    "def gx_make(xs, k):\n"
    "    g = (x * k for x in xs)\n"
    "    k = k + 1\n"
    "    return g\n",
    "def gx_pass(g, n: int):\n"
    "    if n % 2:\n"
    "        return g\n"
    "    return (v + n % 3 for v in g if v == v)\n",
    "class GxIter:\n"
    "    def __init__(self, n, bad=0):\n"
    "        self.n = n\n"
    "        self.bad = bad\n"
    "\n"
    "    def __iter__(self):\n"
    "        if self.bad == 1:\n"
    "            raise ValueError('GxIter ' + str(self.n))\n"
    "        if self.bad == 2:\n"
    "            return self.n\n"
    "        return iter(range(self.n))\n",
]
LOCAL_IMPORT_WEIGHT = 1.0  # scales how often a function re-imports the module's modules (run --local-import-weight)
# A function's body may start by importing the modules the header imports
# (the same objects, now locals): kiln resolves `torch.relu(x)` through such
# a local as through the module-level name (resolve.c, static paths). The
# choice comes from a side generator, so the other draws (and a seed's
# programs otherwise) are those of before.
LOCAL_IMPORTS = ["import math", "import torch", "import torch.nn.functional as F",
                 "from torch.nn import functional as F", "from math import inf"]
LOCAL_IMPORT_P = 0.25     # of a function, at weight 1


def with_local_imports(src: str, side: random.Random, weight: float, imports: list = LOCAL_IMPORTS) -> str:
    if weight <= 0 or side.random() >= min(1.0, LOCAL_IMPORT_P * weight):
        return src
    head, _, body = src.partition("\n")
    picks = [imp for imp in imports if side.random() < 0.4] or [side.choice(imports)]
    return head + "\n" + "".join(f"    {imp}\n" for imp in picks) + body


MATCH_WEIGHT = 1.0        # scales how often match statements are made (run --match-weight)
MATCH_STMT = 3            # weight (at weight 1) of a match statement among statements
MATCH_NEST = 2            # match statements inside one another's case bodies, at most
# module-level helpers of the match statements (in a module only when match_weight > 0):
# m_fold digests any value by its repr (every helper class has a deterministic
# one) and is left as Python (*a); m_tick logs a subject's evaluation; MK holds
# constants for dotted value patterns (MK.ODD: an MOdd, whose __eq__ a typed
# subject's == reaches reflected; TypeError against a str); MPt/MPt3 (a subclass)/MD (a dataclass)/
# MNT (a namedtuple: a sequence too) have __match_args__, MBox none, MBad a list
# (TypeError with positional sub-patterns); MLog logs reads of v (ValueError
# when unset) and == (TypeError against a str) into a list T of the caller;
# MSeq is a Sequence logging __len__/__getitem__, MMap a dict logging get (what
# MATCH_KEYS calls)
MATCH_HELPERS = [
    "import collections\n"
    "import collections.abc\n"
    "from dataclasses import dataclass\n",
    "def m_fold(*a):\n"
    "    s = repr(a)\n"
    "    return len(s) * 1009 + sum((i + 1) * ord(c) for i, c in enumerate(s)) % 99991\n",
    "def m_tick(T, v):\n"
    "    T.append('s')\n"
    "    return v\n",
    "class MOdd:\n"
    "    def __eq__(self, other):\n"
    "        if isinstance(other, str):\n"
    "            raise TypeError('MOdd == ' + repr(other))\n"
    "        return isinstance(other, (int, float)) and other % 2 == 1\n"
    "\n"
    "    def __repr__(self):\n"
    "        return 'MOdd()'\n",
    "class MK:\n"
    "    ZERO = 0\n"
    "    ONE = 1\n"
    "    NEG = -1\n"
    "    BIG = 9223372036854775807\n"
    "    HUGE = 2 ** 64\n"
    "    HALF = 0.5\n"
    "    NAN = math.nan\n"
    "    T = True\n"
    "    NAME = 'ab'\n"
    "    EMPTY = ''\n"
    "    NONE = None\n"
    "    ODD = MOdd()\n",
    "class MPt:\n"
    "    __match_args__ = ('x', 'y')\n"
    "\n"
    "    def __init__(self, x, y):\n"
    "        self.x = x\n"
    "        self.y = y\n"
    "\n"
    "    def __repr__(self):\n"
    "        return f'MPt({self.x!r}, {self.y!r})'\n",
    "class MPt3(MPt):\n"
    "    __match_args__ = ('x', 'y', 'z')\n"
    "\n"
    "    def __init__(self, x, y, z):\n"
    "        MPt.__init__(self, x, y)\n"
    "        self.z = z\n"
    "\n"
    "    def __repr__(self):\n"
    "        return f'MPt3({self.x!r}, {self.y!r}, {self.z!r})'\n",
    "class MBox:\n"
    "    def __init__(self, v):\n"
    "        self.v = v\n"
    "\n"
    "    def __repr__(self):\n"
    "        return f'MBox({self.v!r})'\n",
    "@dataclass\n"
    "class MD:\n"
    "    p: int\n"
    "    q: float = 0.0\n",
    "MNT = collections.namedtuple('MNT', 'p q')\n",
    "class MLog:\n"
    "    __match_args__ = ('v', 'w')\n"
    "\n"
    "    def __init__(self, T, v, w=0):\n"
    "        self.T = T\n"
    "        self._v = v\n"
    "        self.w = w\n"
    "\n"
    "    @property\n"
    "    def v(self):\n"
    "        self.T.append('v')\n"
    "        if self._v is None:\n"
    "            raise ValueError('MLog.v is unset')\n"
    "        return self._v\n"
    "\n"
    "    def __eq__(self, other):\n"
    "        self.T.append(('eq', other))\n"
    "        if isinstance(other, str):\n"
    "            raise TypeError('MLog == ' + repr(other))\n"
    "        return self._v == other\n"
    "\n"
    "    def __repr__(self):\n"
    "        return f'MLog({self._v!r}, {self.w!r})'\n",
    "class MBad:\n"
    "    __match_args__ = ['v']\n"
    "\n"
    "    def __init__(self, v):\n"
    "        self.v = v\n"
    "\n"
    "    def __repr__(self):\n"
    "        return f'MBad({self.v!r})'\n",
    "class MSeq(collections.abc.Sequence):\n"
    "    def __init__(self, T, items):\n"
    "        self.T = T\n"
    "        self.items = list(items)\n"
    "\n"
    "    def __len__(self):\n"
    "        self.T.append('len')\n"
    "        return len(self.items)\n"
    "\n"
    "    def __getitem__(self, i):\n"
    "        self.T.append(i)\n"
    "        return self.items[i]\n"
    "\n"
    "    def __repr__(self):\n"
    "        return f'MSeq({self.items!r})'\n",
    "class MMap(dict):\n"
    "    def __init__(self, T, d):\n"
    "        dict.__init__(self, d)\n"
    "        self.T = T\n"
    "\n"
    "    def get(self, k, d=None):\n"
    "        self.T.append(('get', k))\n"
    "        return dict.get(self, k, d)\n",
]
# what a class pattern sees: the classes an instance of each class is an instance of
M_MRO = {"int": ("int",), "bool": ("bool", "int"), "float": ("float",), "str": ("str",),
         "NoneType": (), "tuple": ("tuple",), "list": ("list",), "range": ("range",),
         "dict": ("dict",), "MMap": ("MMap", "dict"), "MNT": ("MNT", "tuple"), "MSeq": ("MSeq",),
         "MPt": ("MPt",), "MPt3": ("MPt3", "MPt"), "MBox": ("MBox",), "MD": ("MD",),
         "MLog": ("MLog",), "MBad": ("MBad",)}
# __match_args__ of the classes of class patterns ("self": one positional
# sub-pattern matches the subject itself; "list": not a tuple, TypeError)
M_ARGS = {"int": "self", "bool": "self", "float": "self", "str": "self", "tuple": "self",
          "list": "self", "dict": "self", "object": (), "MPt": ("x", "y"), "MPt3": ("x", "y", "z"),
          "MBox": (), "MD": ("p", "q"), "MNT": ("p", "q"), "MLog": ("v", "w"), "MBad": "list",
          "MSeq": (), "MMap": (), "range": ()}
M_ATTR_POOL = ["x", "y", "z", "v", "w", "p", "q", "real", "imag", "items", "nope"]
M_INT_LITS = ["0", "1", "2", "3", "-1", "-2", "7", "10", "100", "0", "1", "2", "-1",
              "9223372036854775807", "-9223372036854775808", "9223372036854775808",
              "18446744073709551616", "0.0", "1.0", "-0.0", "2.0", "0j", "1 + 0j", "0x10", "0b11",
              "1_000"]
M_FLOAT_LITS = ["0.0", "-0.0", "1.0", "0.5", "-2.5", "1.5", "2.0", "-1.0", "0", "1", "-1", "1e16",
                "1e308", "5e-324", "0.1", "9007199254740993", "9007199254740992.0", "0.5", "1.0"]
M_STR_LITS = ["''", "'a'", "'ab'", "'1'", "'0'", "'-1'", "'xyz'", "'a' 'b'", "'10'", "'nan'"]
M_VALUES = {INT: ["MK.ZERO", "MK.ONE", "MK.NEG", "MK.BIG", "MK.HUGE", "MK.T", "MK.ODD"],
            FLOAT: ["MK.HALF", "MK.NAN", "math.pi", "math.inf", "MK.ZERO", "MK.ONE", "MK.ODD"],
            BOOL: ["MK.T", "MK.ZERO", "MK.ONE", "MK.ODD"],
            "str": ["MK.NAME", "MK.EMPTY", "MK.NAME", "MK.ODD"],
            "any": ["MK.NONE", "MK.NAME", "MK.ZERO", "MK.HALF", "MK.ODD"]}
M_KEYS = ["'k'", "'m'", "'z'", "'p'"]


@dataclass
class MShape:
    """What a match subject (or a part of it) is, for the patterns made
    against it: k "S" a scalar of type ty, "str", "none", "seq" (items: the
    item shapes, or None: up to n items of type ty), "map" (keys: key text ->
    shape, or None: up to n int keys, values of type ty), "obj" (an instance
    of cls with attrs; items too when it is a sequence), "alt" (one of items,
    decided at run time), "any" (unknown); vals: literals likely equal
    to it (a scalar or str)."""
    k: str
    ty: str | None = None
    items: list | None = None
    n: int = 0
    cls: str = ""
    keys: dict | None = None
    attrs: dict | None = None
    vals: list | None = None    # S, str: literal patterns it is likely equal to


class _MNames:
    """Where a pattern's captures get their names: fresh ones, or (an
    or-pattern's later alternatives) the names of its first one; binds:
    name -> (type or None, shape or None) of what it binds."""

    def __init__(self, gen, pool: list | None = None):
        self.gen = gen
        self.pool = pool
        self.binds: dict = {}

    def take(self) -> str | None:
        if self.pool is None:
            return self.gen.fresh("m")
        if not self.pool:
            return None
        return self.pool.pop(self.gen.r.randrange(len(self.pool)))

    def save(self):
        return (None if self.pool is None else list(self.pool)), dict(self.binds)

    def restore(self, saved) -> None:
        pool, binds = saved
        if pool is not None:
            self.pool[:] = pool
        self.binds = binds
# handlers (the text after `except`)
HANDLERS = ["ZeroDivisionError", "IndexError", "ArithmeticError", "(ValueError, TypeError)", "Exception",
            "ValueError", "ZeroDivisionError", "IndexError", "LookupError", "KeyError",
            "(ZeroDivisionError, IndexError)", "OverflowError", "TypeError",
            "(IndexError, ArithmeticError)", "RuntimeError", "(KeyError, ValueError, ZeroDivisionError)",
            "NameError"]
# handlers that catch an exception of each kind a try body raises
CATCHERS = {
    "ZeroDivisionError": ["ZeroDivisionError", "ArithmeticError", "(ZeroDivisionError, IndexError)",
                          "(KeyError, ValueError, ZeroDivisionError)", "(IndexError, ArithmeticError)",
                          "Exception"],
    "IndexError": ["IndexError", "LookupError", "(ZeroDivisionError, IndexError)",
                   "(IndexError, ArithmeticError)", "Exception"],
    "KeyError": ["KeyError", "LookupError", "(KeyError, ValueError, ZeroDivisionError)", "Exception"],
    "ValueError": ["ValueError", "(ValueError, TypeError)", "(KeyError, ValueError, ZeroDivisionError)",
                   "Exception"],
    "TypeError": ["TypeError", "(ValueError, TypeError)", "Exception"],
    "OverflowError": ["OverflowError", "ArithmeticError", "(IndexError, ArithmeticError)", "Exception"],
    "RuntimeError": ["RuntimeError", "Exception"],
    "ArithmeticError": ["ArithmeticError", "Exception"],
    "Exception": ["Exception"],
}


def catches_overflow(spec: str | None) -> bool:
    return spec is None or any(t in spec for t in ("OverflowError", "ArithmeticError", "Exception"))


RAISE_TYPES = ["ValueError"] * 6 + ["TypeError", "TypeError", "ZeroDivisionError", "IndexError",
                                    "KeyError", "ArithmeticError", "RuntimeError", "Exception"]


@dataclass
class FuncInfo:
    name: str
    params: list            # [(name, kind)]; kind: "int"|"float"|"bool"|("T", shape)
    ret: str                # "int"|"float"|"bool"|"tensor"
    cost: int = 1
    tensor: bool = False
    mm_chain: int = 0       # matmuls along the longest chain (tolerance scaling)
    depth_param: str | None = None
    size: int = 0           # a list-returning function: most items of its result
    fw: str = "torch"       # a tensor function's framework: "torch" or "tf"


@dataclass
class Module:
    source: str
    funcs: list = field(default_factory=list)   # [FuncInfo]


# --------------------------------------------------------------------------
# Scalar functions

class ScalarGen:
    def __init__(self, rng: random.Random, name: str, helpers: list[FuncInfo],
                 comp_weight: float = COMP_WEIGHT, try_weight: float = TRY_WEIGHT,
                 lambda_weight: float = LAMBDA_WEIGHT, unpack_weight: float = UNPACK_WEIGHT,
                 match_weight: float = MATCH_WEIGHT, genexpr_weight: float = GENEXPR_WEIGHT):
        self.r = rng
        self.gx_w = round(GENEXPR_STMT * genexpr_weight)
        self.gx_p = min(0.1, GENEXPR_P * genexpr_weight)
        self.gx = 0                           # generator expression forms being generated (nesting)
        self.match_w = round(MATCH_STMT * match_weight)
        self.matches = 0                      # match statements being generated (nesting)
        self.unp_w = round(UNPACK_STMT * unpack_weight)
        self.unp_p = min(0.1, UNPACK_P * unpack_weight)
        self.unp = 0                          # unpacking forms being generated (nesting)
        self.objs: set[str] = set()           # locals kiln keeps as objects (bound by target lists)
        self.powed: set[str] = set()          # locals `**=` was applied to
        self.lam_w = round(LAMBDA_STMT * lambda_weight)
        self.lam_p = min(0.1, LAMBDA_P * lambda_weight)
        self.lam = 0                          # lambda bodies being generated (nesting)
        self.try_w = round(TRY_STMT * try_weight)
        self.tries = 0                        # try statements being generated (nesting)
        self.part: str | None = None          # the part of the innermost one: body/handler/else/finally
        self.handlers: list = []              # (as-name or None, may catch OverflowError), innermost last
        self.raisable: list[set] = []         # per try body being made: what its statements raise
        self.try_maybe: set[str] = set()      # possibly unbound after a try statement
        self.enames: set[str] = set()         # as-names of handlers so far
        self.coll_p = min(0.6, COLL_P * comp_weight)
        self.coll_stmt = round(COLL_STMT * comp_weight)
        self.name = name
        self.helpers = [h for h in helpers if not h.tensor]
        self.lines: list[str] = []
        self.n = 0
        self.env: dict[str, str] = {}        # definitely assigned, visible
        self.maybe: dict[str, str] = {}      # possibly unbound
        self.protected: set[str] = set()     # while counters
        self.loop = 0
        self.mult = 1                         # iteration multiplier at this point
        self.cost = 1
        self.size: dict[str, int] = {}       # collection locals: most items they can hold
        self.focus: list[str] = []           # comprehension targets in scope (preferred leaves)
        self.nest = 0                         # comprehensions being generated (nesting)

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def emit(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    # ---- leaves -----------------------------------------------------------
    def var(self, ty: str) -> str | None:
        if self.focus and self.r.random() < 0.5:
            c = [v for v in self.focus if self.env.get(v) == ty]
            if c:
                return self.r.choice(c)
        if self.maybe and self.r.random() < 0.01:
            c = [v for v, t in self.maybe.items() if t == ty]
            if c:
                return self.r.choice(c)
        if self.try_maybe and self.r.random() < 0.015:   # unbound when the try's exception came first
            c = [v for v in sorted(self.try_maybe) if self.maybe.get(v) == ty and v not in self.env]
            if c:
                return self.r.choice(c)
        c = [v for v, t in self.env.items() if t == ty]
        return self.r.choice(c) if c else None

    def const(self, ty: str) -> str:
        r = self.r
        if ty == INT:
            v = r.choice(INT_CONSTS) if r.random() < 0.5 else r.randint(-9, 9)
            return f"({v})" if v < 0 else str(v)
        if ty == FLOAT:
            c = r.choice(FLOAT_CONSTS) if r.random() < 0.6 else repr(round(r.uniform(-10, 10), 2))
            return f"({c})" if c.startswith("-") else c
        return r.choice(["True", "False"])

    def leaf(self, ty: str) -> str:
        if self.r.random() < 0.7:
            v = self.var(ty)
            if v:
                return v
        return self.const(ty)

    # ---- expressions --------------------------------------------------------
    def expr(self, ty: str, d: int) -> str:
        if ty not in SCALARS:
            return self.coll_value(ty, d)[0]
        if d <= 0 or self.r.random() < 0.2:
            return self.leaf(ty)
        if d >= 2 and self.nest < 2 and self.r.random() < self.coll_p:
            return {INT: self.coll_int, FLOAT: self.coll_float, BOOL: self.coll_bool}[ty](d - 1)
        if self.lam_p and d >= 1 and self.lam < 2 and self.r.random() < self.lam_p:
            return self.lam_expr(ty, d - 1)
        if self.unp_p and d >= 1 and self.unp < 2 and self.r.random() < self.unp_p:
            self.unp += 1
            text = self.unp_expr(ty, d - 1)
            self.unp -= 1
            return text
        if self.gx_p and d >= 1 and self.gx < 2 and self.r.random() < self.gx_p:
            return self.gx_expr(ty, d - 1)
        return {INT: self.int_expr, FLOAT: self.float_expr, BOOL: self.bool_expr}[ty](d - 1)

    def num(self, d: int) -> str:
        return self.expr(self.r.choice(NUM), d)

    def call_helper(self, ty: str, d: int, cap: int | None = None):
        """A call of an earlier function returning ty; for a list type, the
        text and the most size of the list (at most cap)."""
        c = [h for h in self.helpers if h.ret == ty and h.cost * self.mult <= 3000
             and (cap is None or h.size <= cap)]
        if not c:
            return None
        h = self.r.choice(c)
        self.cost += h.cost * self.mult
        args = ", ".join(self.expr(k, d) for _, k in h.params)
        return f"{h.name}({args})" if cap is None else (f"{h.name}({args})", h.size)

    def int_expr(self, d: int) -> str:
        r = self.r
        e = self.expr
        k = r.randint(0, 15)
        if k <= 4:
            op = r.choice(["+", "-", "*", "+", "-", "*", "//", "%", "&", "|", "^"])
            a = e(INT, d) if r.random() < 0.93 else e(BOOL, d)
            return f"({a} {op} {e(INT, d)})"
        if k == 5:
            op = r.choice(["<<", ">>"])
            x = r.random()
            rhs = (f"({e(INT, d)} % {r.choice([8, 16, 32, 64, 65, 70])})" if x < 0.6 else
                   str(r.randint(0, 70)) if x < 0.9 else f"({e(INT, d)} % 70 - 3)")
            return f"({e(INT, d)} {op} {rhs})"
        if k == 6:
            x = r.random()
            rhs = str(r.randint(0, 5)) if x < 0.6 else f"({e(INT, d)} % {r.choice([3, 4, 5, 8])})"
            return f"({e(INT, d)} ** {rhs})"
        if k == 7:
            return f"({r.choice(['-', '~', '+', '-'])}{e(INT, d)})"
        if k == 8:
            f = r.choice(["abs", "min", "max", "min", "max"])
            if f == "abs":
                return f"abs({e(INT, d)})"
            n = r.choice([2, 2, 3])
            return f"{f}({', '.join(e(INT, d) for _ in range(n))})"
        if k == 9:
            f = r.choice(["int", "round", "math.floor", "math.ceil", "math.trunc"])
            return f"{f}({e(FLOAT, d)})"
        if k == 10:
            return f"({e(INT, d)} if {e(BOOL, d)} else {e(INT, d)})"
        if k == 11:
            return f"({e(INT, d)} {r.choice(['and', 'or'])} {e(INT, d)})"
        if k == 12:
            return f"({e(BOOL, d)} {r.choice(['+', '*', '-'])} {e(r.choice([BOOL, INT]), d)})"
        if k == 13:
            c = self.call_helper(INT, d)
            if c:
                return c
        if k == 14:
            return f"int({e(BOOL, d)})" if r.random() < 0.3 else f"({e(INT, d)} // {self.nonzero_int()})"
        return self.leaf(INT)

    def nonzero_int(self) -> str:
        v = self.r.choice([1, 2, 3, 7, 10, -1, -2, -3, -7, 1000])
        return f"({v})" if v < 0 else str(v)

    def float_expr(self, d: int) -> str:
        r = self.r
        e = self.expr
        k = r.randint(0, 14)
        if k <= 4:
            op = r.choice(["+", "-", "*", "/", "+", "-", "*", "/", "//", "%"])
            ta, tb = r.choice([(FLOAT, FLOAT), (FLOAT, FLOAT), (FLOAT, INT), (INT, FLOAT)] +
                              ([(INT, INT)] if op == "/" else []))
            return f"({e(ta, d)} {op} {e(tb, d)})"
        if k == 5:
            x = r.random()
            if x < 0.4:
                return f"(abs({e(FLOAT, d)}) ** {e(FLOAT, d)})"
            if x < 0.8:
                return f"({e(FLOAT, d)} ** {r.randint(-3, 4)})"
            return f"({e(INT, d)} ** (-{r.randint(1, 3)}))"
        if k == 6:
            return f"({r.choice(['-', '+', '-'])}{e(FLOAT, d)})"
        if k == 7:
            f = r.choice(["math.sqrt", "math.exp", "math.log", "math.sin", "math.cos", "math.tan",
                          "math.atan", "math.tanh", "math.fabs", "abs", "float", "math.log2",
                          "math.expm1", "math.log1p"])
            arg = e(INT if f == "float" else FLOAT, d)
            return f"{f}({arg})"
        if k == 8:
            f = r.choice(["math.copysign", "math.fmod", "math.hypot", "math.atan2", "math.pow",
                          "min", "max", "min", "max"])
            return f"{f}({e(FLOAT, d)}, {e(FLOAT, d)})"
        if k == 9:
            return f"({e(FLOAT, d)} if {e(BOOL, d)} else {e(FLOAT, d)})"
        if k == 10:
            return f"({e(FLOAT, d)} {r.choice(['and', 'or'])} {e(FLOAT, d)})"
        if k == 11:
            c = self.call_helper(FLOAT, d)
            if c:
                return c
        if k == 12:
            return f"float({e(INT, d)})"
        return self.leaf(FLOAT)

    def bool_expr(self, d: int) -> str:
        r = self.r
        e = self.expr
        k = r.randint(0, 11)
        if k <= 4:
            n = r.choice([1, 1, 1, 2, 3])
            parts = [e(r.choice([INT, INT, FLOAT]), d)]
            for _ in range(n):
                parts.append(r.choice(["<", "<=", ">", ">=", "==", "!="]))
                parts.append(e(r.choice([INT, INT, FLOAT]), d))
            return "(" + " ".join(parts) + ")"
        if k == 5:
            return f"(not {e(r.choice([BOOL, BOOL, INT, FLOAT]), d)})"
        if k == 6:
            return f"({e(BOOL, d)} {r.choice(['and', 'or'])} {e(BOOL, d)})"
        if k == 7:
            return f"{r.choice(['math.isnan', 'math.isinf', 'math.isfinite'])}({e(FLOAT, d)})"
        if k == 8:
            return f"bool({e(r.choice(NUM), d)})"
        if k == 9:
            c = self.call_helper(BOOL, d)
            if c:
                return c
        if k == 10:
            return f"({e(BOOL, d)} {r.choice(['&', '|', '^', '=='])} {e(BOOL, d)})"
        return self.leaf(BOOL)

    def cond(self, d: int = 2) -> str:
        if self.r.random() < 0.85:
            return self.expr(BOOL, d)
        return self.expr(self.r.choice(NUM), d)

    # ---- comprehensions and consumed generator expressions ---------------
    # A comprehension's clauses are bounded like loops (range() as in `for`
    # statements, lists of a known most size); the product of its clauses is
    # at most cap() items.  Its targets are fresh names, in `env` (and
    # `focus`) only while its own parts are generated.  Floats never go where
    # identity counts (`in`, sets, dict keys, ==): kiln re-boxes them, and a
    # NaN is only equal to itself as the same object (README, Limitations).

    def cap(self) -> int:
        return max(4, min(COMP_CAP, 2000 // self.mult))

    def range_text(self) -> tuple[str, int]:
        """A bounded range(...) of ints for a comprehension clause and its
        most items (like a `for` statement's, but a zero step is rare)."""
        r = self.r
        x = r.random()
        if x < 0.1:
            n = r.randint(0, 6)
            return f"range({n})", n
        if x < 0.18:   # at int64's ends: the C loop must stop without overflowing
            w = f"{self.expr(INT, 1)} % {r.randint(1, 9)}" if r.random() < 0.6 else str(r.randint(0, 8))
            st = r.choice([1, 2, 3, 4611686018427387904, 9223372036854775807])
            big = r.choice([4611686018427387904, 3074457345618258603, 9223372036854775807])
            hi, lo = "9223372036854775807", "(-9223372036854775807 - 1)"
            return r.choice([f"range({hi} - {w}, {hi}, {st})", f"range({hi}, {hi} - {w}, -{st})",
                             f"range({lo}, {lo} + {w}, {st})", f"range({lo} + {w}, {lo}, -{st})",
                             f"range({lo}, {hi}, {big})", f"range({hi}, {lo}, -{big})"]), 9
        if x < 0.45:
            k = r.randint(1, 12)
            return f"range({self.expr(INT, 1)} % {k})", k
        if x < 0.75:
            step = (str(r.choice([1, 1, 1, 2, 3, -1, -1, -2])) if r.random() < 0.85 else
                    r.choice(["0", f"({self.expr(INT, 1)} % 5 - 2)"]))
            return (f"range({self.expr(INT, 1)} % {r.randint(1, 9)} - {r.randint(0, 5)}, "
                    f"{self.expr(INT, 1)} % {r.randint(1, 9)} - {r.randint(0, 5)}, {step})"), 14
        w = r.randint(0, 8)
        base = self.expr(INT, 1)
        if r.random() < 0.5:
            return f"range({base}, {base} + {w}, {r.choice([1, 1, 2, 3])})", w
        return f"range({base}, {base} - {w}, {r.choice([-1, -1, -2])})", w

    def small_range(self, cap: int) -> tuple[str, int]:
        n = max(1, min(cap, self.r.randint(1, 6)))
        return f"range({self.expr(INT, 1)} % {n + 1})", n

    def display(self, elem: str, cap: int) -> tuple[str, int]:
        """A list or tuple display of elem (0 to 5 items)."""
        r = self.r
        n = min(cap, r.choice([0, 1, 2, 3, 3, 4, 5]))
        if elem == FLOAT and r.random() < 0.35:
            items = [r.choice(SUM_FLOATS) if r.random() < 0.7 else self.expr(FLOAT, 1)
                     for _ in range(n)]
        elif elem == INT and r.random() < 0.2:
            items = [r.choice(["9223372036854775807", "(-9223372036854775807)", "4611686018427387904",
                               "(-4611686018427387904)", "(-1)", "1", "0", "3037000499"])
                     for _ in range(n)]
        else:
            items = [self.expr(elem, r.choice([0, 1, 1, 2])) for _ in range(n)]
        if r.random() < 0.25:
            return "(" + ", ".join(items) + ("," if n == 1 else "") + ")", n
        return "[" + ", ".join(items) + "]", n

    def coll_vars(self, types, cap: int) -> list[str]:
        return [v for v, t in self.env.items() if t in types and self.size.get(v, 0) <= cap]

    def seq(self, elem: str, d: int, cap: int, as_list: bool = False) -> tuple[str, int]:
        """A list (or tuple, unless as_list) of elem: text and most size."""
        r = self.r
        for _ in range(4):
            x = r.random()
            if self.nest >= 2 or (self.nest and r.random() < 0.5):
                x *= 0.42           # no (or less) deeper nesting: a variable or a display
            if x < 0.22:
                c = self.coll_vars((LIST_OF[elem],), cap)
                if c:
                    v = r.choice(c)
                    return v, self.size[v]
            elif x < 0.42:
                if as_list:
                    t, n = self.display(elem, cap)
                    if t.startswith("["):
                        return t, n
                    continue
                return self.display(elem, cap)
            elif x < 0.72:
                body, n = self.comp_body(lambda dd: self.expr(elem, dd), d, cap)
                return f"[{body}]", n
            elif x < 0.86:
                body, n = self.comp_body(lambda dd: self.expr(elem, dd), d, cap)
                f = r.choice(["sorted", "list", "sorted"] + ([] if as_list else ["tuple"]))
                return f"{f}({body})", n
            elif x < 0.93 and elem in NUM:
                c = self.call_helper(LIST_OF[elem], max(0, d - 1), cap)
                if c:
                    return c
            else:
                c = self.coll_vars((LIST_OF[elem],), cap)
                if c:
                    v = r.choice(c)
                    return f"sorted({v})", self.size[v]
        return self.display(elem, cap) if not as_list else ("[]", 0)

    def int_coll(self, d: int, cap: int) -> str:
        """A collection of ints (for `in`)."""
        r = self.r
        x = r.random()
        if x < 0.5:
            return self.seq(INT, d, cap)[0]
        if x < 0.7:
            return self.coll_value(SI, d, cap)[0]
        if x < 0.85:
            return self.coll_value(r.choice([DII, DIF]), d, cap)[0]
        body, _ = self.comp_body(lambda dd: self.expr(INT, dd), d, cap)
        return f"{r.choice(['set', 'tuple', 'list'])}({body})"

    def target(self, prefix: str, avoid: str = "") -> str:
        """A fresh name, or (sometimes) a scalar local of any type that the
        comprehension's own scope shadows."""
        if self.r.random() < 0.1:
            c = [v for v, t in self.env.items() if t in SCALARS and v not in self.protected
                 and v != avoid]
            if c:
                return self.r.choice(c)
        return self.fresh(prefix)

    def clause(self, d: int, cap: int) -> tuple[str, list, int]:
        """One `for` clause: text 'for T in IT', its [(target, type)], its most items."""
        r = self.r
        x = r.random()
        elem = r.choice([INT, INT, INT, FLOAT, FLOAT, BOOL])
        if self.nest >= 2:
            x = min(x, 0.64)
        if r.random() < 0.06:     # items of mixed types (the target is an object)
            it, n = self.mixed_display(cap)
            t = self.target("x")
            return f"for {t} in {it}", [(t, "obj")], n
        if x < 0.35 or cap < 3:
            it, n = self.range_text() if cap >= 14 else self.small_range(cap)
            t = self.target("x")
            return f"for {t} in {it}", [(t, INT)], n
        if x < 0.65:
            it, n = self.seq(elem, d, cap)
            t = self.target("x")
            return f"for {t} in {it}", [(t, elem)], n
        if x < 0.77:
            it, n = self.seq(elem, d, cap)
            j = self.target("j")
            t = self.target("x", j)
            tgt = f"{j}, {t}" if r.random() < 0.7 else f"({j}, {t})"
            start = "" if r.random() < 0.7 else f", {r.choice(['1', '-1', '9223372036854775806'])}"
            return f"for {tgt} in enumerate({it}{start})", [(j, INT), (t, elem)], n
        if x < 0.89:
            e2 = r.choice([INT, FLOAT, BOOL, elem])
            a, n1 = self.seq(elem, d, cap)
            b, n2 = self.seq(e2, d, cap)
            t1 = self.target("x")
            t2 = self.target("y", t1)
            return f"for {t1}, {t2} in zip({a}, {b})", [(t1, elem), (t2, e2)], min(n1, n2)
        if x < 0.95:
            c = self.coll_vars((SI, DII, DIF), cap)
            if c:
                v = r.choice(c)
                ty = self.env[v]
                if ty.startswith("D:") and r.random() < 0.6:
                    k = self.target("k")
                    t = self.target("x", k)
                    return f"for {k}, {t} in {v}.items()", [(k, INT), (t, ty.split(':')[2])], self.size[v]
                t = self.target("x")
                return f"for {t} in {v}", [(t, INT)], self.size[v]
        # a nested comprehension as the iterable
        inner, n = self.comp_body(lambda dd: self.expr(elem, dd), max(1, d - 1), cap)
        t = self.target("x")
        return f"for {t} in [{inner}]", [(t, elem)], n

    def comp_body(self, elt, d: int, cap: int | None = None) -> tuple[str, int]:
        """'ELT for ... [if ...] [for ...]': elt(depth) makes ELT once the
        targets are bound.  Returns the text and its most items."""
        r = self.r
        cap = self.cap() if cap is None else max(1, min(cap, self.cap()))
        saved_env, saved_focus = dict(self.env), list(self.focus)
        parts, bound, entered = [], 1, []
        self.nest += 1
        nclauses = 1 if r.random() < 0.75 else (2 if r.random() < 0.9 else 3)
        for k in range(nclauses):
            if k and bound * 2 > cap:
                break
            text, targets, n = self.clause(max(1, d - 1), max(1, cap // bound))
            n = max(1, n)
            parts.append(text)
            for t, ty in targets:
                self.env[t] = ty
                self.focus.append(t)
            self.enter_loop(n)
            entered.append(n)
            bound *= n
            while r.random() < 0.25:
                parts.append(f"if {self.cond(max(1, d - 1))}")
        body = elt(max(0, d - 1) if r.random() < 0.8 else d)
        for n in reversed(entered):
            self.leave_loop(n)
        self.nest -= 1
        self.env, self.focus = saved_env, saved_focus
        self.cost += max(1, bound * self.mult // 4)
        return f"{body} {' '.join(parts)}", bound

    def coll_value(self, ty: str, d: int, cap: int | None = None) -> tuple[str, int]:
        """A value of collection type ty: text and most size."""
        r = self.r
        cap = self.cap() if cap is None else cap
        if ty in (LI, LF, LB):
            return self.seq(ty[2:], d, cap, as_list=True)
        if ty == SI:
            c = self.coll_vars((SI,), cap)
            if c and r.random() < 0.3:
                v = r.choice(c)
                return v, self.size[v]
            if r.random() < 0.2:
                t, n = self.display(INT, cap)
                return (f"set({t})" if n == 0 else "{" + t[1:-1].rstrip(",") + "}"), n
            body, n = self.comp_body(lambda dd: self.expr(INT, dd), d, cap)
            return ("{" + body + "}" if r.random() < 0.75 else f"set({body})"), n
        # dicts int -> int / float
        vt = ty.split(":")[2]
        c = self.coll_vars((ty,), cap)
        if c and r.random() < 0.3:
            v = r.choice(c)
            return v, self.size[v]
        body, n = self.comp_body(lambda dd: f"{self.expr(INT, dd)}: {self.expr(vt, dd)}", d, cap)
        return "{" + body + "}", n

    def any_coll(self, d: int) -> str:
        r = self.r
        x = r.random()
        if x < 0.45:
            return self.seq(r.choice([INT, FLOAT, BOOL]), d, self.cap())[0]
        if x < 0.6:
            return self.coll_value(SI, d)[0]
        if x < 0.75:
            return self.coll_value(r.choice([DII, DIF]), d)[0]
        if x < 0.85:
            body, _ = self.comp_body(lambda dd: self.expr(r.choice([INT, BOOL]), dd), d)
            return f"set({body})"
        return self.join_text(d)

    def join_text(self, d: int) -> str:
        ty = self.r.choice([INT, FLOAT, BOOL])
        body, _ = self.comp_body(lambda dd: f"str({self.expr(ty, dd)})", d)
        return f"{self.r.choice(['', ',', ', ', '-'])!r}.join({body})"

    def gen_call(self, f: str, body: str, extra: list[str]) -> str:
        return f"{f}({body})" if not extra else f"{f}(({body}), {', '.join(extra)})"

    def minmax(self, ty: str, d: int, elem: str | None = None) -> str:
        """min/max of a generator of ty: ValueError when empty without default."""
        r = self.r
        elem = elem or ty
        body, _ = self.comp_body(lambda dd: self.expr(elem, dd), d)
        extra = []
        if ty != BOOL and r.random() < 0.35:
            extra.append("key=abs")
        if r.random() < 0.6:
            extra.append(f"default={self.expr(ty, 1)}")
        r.shuffle(extra)
        return self.gen_call(r.choice(["min", "max"]), body, extra)

    def sum_start(self, ty: str) -> str:
        r = self.r
        if r.random() < 0.6:
            return r.choice(INT_STARTS if ty == INT else FLOAT_STARTS)
        return self.expr(ty, 1)

    def index(self, ty: str, d: int) -> str:
        """An item of a list/tuple of ty: IndexError (or ZeroDivisionError
        from `% len`) when it is empty, unless guarded by its truth."""
        r = self.r
        s, n = self.seq(ty, d, self.cap())
        if s.isidentifier():
            x = r.random()
            if x < 0.5:
                return f"({s}[{self.expr(INT, 1)} % len({s})] if {s} else {self.expr(ty, 1)})"
            if x < 0.65:
                return f"{s}[{self.expr(INT, 1)} % len({s})]"
        idx = r.choice(["0", "-1", "0", "-1", "1", self.expr(INT, 1)])
        if r.random() < 0.6:
            alt = ", ".join(self.expr(ty, 1) for _ in range(r.randint(1, 3)))
            return f"({s} or [{alt}])[{idx}]"
        return f"{s}[{idx}]"

    def coll_int(self, d: int) -> str:
        r = self.r
        x = r.random()
        if x < 0.25:
            return f"len({self.any_coll(d)})"
        if x < 0.55:
            elem = r.choice([INT, INT, INT, BOOL])
            body, _ = self.comp_body(lambda dd: self.expr(elem, dd), d)
            y = r.random()
            if y < 0.3:
                return f"sum({body})"
            start = self.sum_start(INT)
            if start in ("True", "False"):   # an empty sum is the start: keep it an int
                start = "0" if start == "False" else "1"
            return self.gen_call("sum", body, [start if y < 0.7 else f"start={start}"])
        if x < 0.8:
            return self.minmax(INT, d)
        if x < 0.95:
            return self.index(INT, d)
        c = self.coll_vars((DII,), self.cap())
        if c:
            return f"{r.choice(c)}.get({self.expr(INT, 1)}, {self.expr(INT, 1)})"
        return f"len({self.join_text(d)})"

    def coll_float(self, d: int) -> str:
        r = self.r
        x = r.random()
        if x < 0.45:
            elem = r.choice([FLOAT, FLOAT, FLOAT, INT, BOOL])
            body, _ = self.comp_body(lambda dd: self.expr(elem, dd), d)
            start = self.sum_start(FLOAT)
            return self.gen_call("sum", body, [start if r.random() < 0.6 else f"start={start}"])
        if x < 0.52:
            body, _ = self.comp_body(lambda dd: self.expr(FLOAT, dd), d)
            return f"float(sum({body}))"   # an empty sum is the int 0
        if x < 0.62:
            # items of mixed types: int, float and bool in one sum/min/max, where
            # CPython's sum goes from its int to its float path (or to objects)
            body, _ = self.comp_body(self.mixed, d)
            y = r.random()
            if y < 0.4:
                start = self.sum_start(FLOAT)
                return self.gen_call("sum", body, [start if r.random() < 0.6 else f"start={start}"])
            if y < 0.7:
                extra = [] if r.random() < 0.4 else [self.sum_start(INT)]
                return f"float({self.gen_call('sum', body, extra)})"
            extra = ["key=abs"] if r.random() < 0.4 else []
            if r.random() < 0.6:
                extra.append(f"default={self.expr(r.choice(NUM), 1)}")
            return f"float({self.gen_call(r.choice(['min', 'max']), body, extra)})"
        if x < 0.8:
            return self.minmax(FLOAT, d)
        if x < 0.95:
            return self.index(FLOAT, d)
        c = self.coll_vars((DIF,), self.cap())
        if c:
            return f"{r.choice(c)}.get({self.expr(INT, 1)}, {self.expr(FLOAT, 1)})"
        return self.minmax(FLOAT, d)

    def mixed(self, d: int) -> str:
        """An item whose type depends on the item: an int or a float (or bool)."""
        r = self.r
        c = [v for v in self.focus if v in self.env]
        if c and r.random() < 0.3:
            return r.choice(c)
        a, b = r.sample([INT, FLOAT, FLOAT, BOOL], 2)
        if a == b:
            b = INT
        return f"({self.expr(a, d)} if {self.cond(1)} else {self.expr(b, d)})"

    def mixed_display(self, cap: int) -> tuple[str, int]:
        r = self.r
        n = min(cap, r.randint(1, 5))
        items = [r.choice(SUM_FLOATS + ["9223372036854775807", "(-9223372036854775807)", "1", "0",
                                       "True", "False", "9007199254740993", "(-1)"])
                 if r.random() < 0.6 else self.expr(r.choice(SCALARS), 1) for _ in range(n)]
        return "[" + ", ".join(items) + "]", n

    def coll_bool(self, d: int) -> str:
        r = self.r
        x = r.random()
        if x < 0.4:
            body, _ = self.comp_body(lambda dd: self.expr(BOOL, dd), d)
            return f"{r.choice(['any', 'all'])}({body})"
        if x < 0.75:
            return f"({self.expr(INT, 1)} {r.choice(['in', 'not in'])} {self.int_coll(d, self.cap())})"
        if x < 0.82:
            return self.minmax(BOOL, d)
        if x < 0.9:
            a = self.seq(INT, d, self.cap(), as_list=True)[0]
            b = self.seq(INT, d, self.cap(), as_list=True)[0]
            return f"({a} {r.choice(['==', '!=', '<', '>='])} {b})"
        f = r.choice(['bool', 'not '])     # `(not (...))`: `a == not (...)` is no expression
        return f"bool({self.any_coll(d)})" if f == "bool" else f"(not ({self.any_coll(d)}))"

    # ---- lambdas ------------------------------------------------------------
    # Lambdas are always called and their results folded in (function objects
    # are not comparable).  A lambda's body runs as CPython's bytecode; the
    # locals it reads live in cells for the whole call (kiln makes them
    # objects).  A lambda made inside a comprehension gets the comprehension's
    # targets as defaults (`lambda q=x: ...`); reading one in the body (a cell
    # of the comprehension; KILN010 before cb4764a) happens only rarely here
    # (the genexpr_weight forms do it often).

    def lam_body(self, ty: str, d: int, params: list, want: str | None = None,
                 want_ty: str | None = None) -> str:
        """The body (type ty) of a lambda with params [(name, type)]; want:
        a local it should read (of type want_ty when only the body sees it)."""
        r = self.r
        saved_env, saved_focus = dict(self.env), list(self.focus)
        if want_ty:
            self.env[want] = want_ty
        if self.focus and r.random() < 0.97:
            for v in self.focus:
                self.env.pop(v, None)
            self.focus = []
        for p, t in params:
            self.env[p] = t
        self.focus = self.focus + [p for p, _ in params] + ([want] if want else [])
        self.lam += 1
        body = self.expr(ty, max(0, d))
        self.lam -= 1
        if want and want not in body.replace("(", " ").replace(")", " ").split():
            body = f"({body} if {want} else {body})" if r.random() < 0.5 else \
                f"({want} if {self.expr(BOOL, 0)} else {body})" if self.env.get(want) == ty else \
                f"({body} if {want} else {body})"
        self.env, self.focus = saved_env, saved_focus
        return body

    def lam_default(self, ty: str) -> str:
        """A default: in a comprehension mostly one of its targets."""
        c = [v for v in self.focus if self.env.get(v) == ty]
        if c and self.r.random() < 0.7:
            return self.r.choice(c)
        return self.expr(ty, self.r.choice([0, 1, 1, 2]))

    def lam_sig(self, ty: str, d: int, want: str | None = None, nmax: int = 3,
                star: bool = True, want_ty: str | None = None) -> tuple[str, str]:
        """A lambda (text, without parentheses) and the arguments of a call of it."""
        r = self.r
        n = r.randint(0, nmax)
        ndef = r.randint(0, n)
        pos, sig, args, params = [], [], [], []
        for k in range(n):
            p, t = self.fresh("p"), r.choice([INT, INT, FLOAT, BOOL])
            params.append((p, t))
            if k >= n - ndef:
                sig.append(f"{p}={self.lam_default(t)}")
                if r.random() < 0.4 and len(args) == k:
                    args.append(self.expr(t, 1))
            else:
                sig.append(p)
                args.append(self.expr(t, 1))
        extra, kwargs = "", []
        if star and r.random() < 0.15:
            sig.append("*args")
            if len(args) == n:
                args += [self.expr(INT, 1) for _ in range(r.randint(0, 2))]
            extra = {INT: " + sum(args)", FLOAT: " + len(args)", BOOL: " or bool(args)"}[ty]
        elif r.random() < 0.25:
            sig.append("*")
        if sig and sig[-1] in ("*", "*args") or (r.random() < 0.2 and "*args" not in sig):
            if not sig or sig[-1] != "*args":
                if "*" not in sig:
                    sig.append("*")
            for _ in range(r.randint(1, 2)):
                p, t = self.fresh("k"), r.choice([INT, FLOAT, BOOL])
                params.append((p, t))
                if r.random() < 0.7:
                    sig.append(f"{p}={self.lam_default(t)}")
                    if r.random() < 0.4:
                        kwargs.append(f"{p}={self.expr(t, 1)}")
                else:
                    sig.append(p)
                    kwargs.append(f"{p}={self.expr(t, 1)}")
        if star and r.random() < 0.1:
            sig.append("**kw")
            if r.random() < 0.6:
                kwargs.append(f"z={self.expr(INT, 1)}")
            extra += {INT: " + len(kw) + kw.get('z', 0)", FLOAT: " + len(kw)",
                      BOOL: " or 'z' in kw"}[ty]
        if sig and sig[-1] == "*":
            sig.pop()
        r.shuffle(kwargs)
        body = self.lam_body(ty, d, params, want, want_ty)
        head = f"lambda {', '.join(sig)}: " if sig else "lambda: "
        return head + (f"({body}{extra})" if extra else body), ", ".join(args + kwargs)

    def lam_called(self, ty: str, d: int, want: str | None = None) -> str:
        text, args = self.lam_sig(ty, d, want)
        return f"({text})({args})"

    def lam_expr(self, ty: str, d: int) -> str:
        """An expression of type ty made with lambdas (all of them called)."""
        r = self.r
        x = r.random()
        if x < 0.4:
            return self.lam_called(ty, d)
        if x < 0.5:      # nested: the inner lambda reads the outer one's parameter
            p, t = self.fresh("p"), r.choice([INT, FLOAT])
            saved = dict(self.env)
            self.env[p] = t
            self.focus.append(p)
            inner = self.lam_called(ty, d)
            self.focus.remove(p)
            self.env = saved
            if r.random() < 0.5:
                return f"(lambda {p}: {inner})({self.expr(t, 1)})"
            q, tq = self.fresh("p"), r.choice([INT, FLOAT])
            body = self.lam_body(ty, d, [(p, t), (q, tq)])
            return f"(lambda {p}: lambda {q}: {body})({self.expr(t, 1)})({self.expr(tq, 1)})"
        if x < 0.6:      # several lambdas on one line, in a conditional expression
            return f"({self.lam_called(ty, d)} if {self.cond(1)} else {self.lam_called(ty, d)})"
        if x < 0.66:     # a lambda as a lambda's default
            text, args = self.lam_sig(ty, d, star=False)
            return f"(lambda h=({text}): h({args}))()"
        if x < 0.76:     # lambdas in a comprehension's first iterable and body
            elem = r.choice([INT, FLOAT])
            seq, _ = self.seq(elem, max(0, d - 1), min(40, self.cap()))
            t = self.fresh("t")
            src = f"map(lambda {t}: {self.lam_body(elem, 1, [(t, elem)])}, {seq})"
            xv = self.fresh("x")
            saved_env, saved_focus = dict(self.env), list(self.focus)
            self.env[xv] = elem
            self.focus.append(xv)
            self.enter_loop(40)
            if r.random() < 0.05:          # reads the comprehension's variable (a cell)
                q = xv
                elt = f"(lambda: {self.lam_body(ty, 0, [], want=xv)})()"
            else:
                q = self.fresh("q")
                elt = f"(lambda {q}={xv}: {self.lam_body(ty, max(0, d - 1), [(q, elem)])})()"
            self.leave_loop(40)
            self.env, self.focus = saved_env, saved_focus
            gen = f"{elt} for {xv} in {src}"
            if ty == BOOL:
                return f"{r.choice(['any', 'all'])}({gen})"
            if ty == FLOAT:
                return f"sum(({gen}), 0.0)"
            return f"len([{gen}])" if r.random() < 0.3 else f"sum([{gen}])"
        return self.lam_hof(ty, d)

    def lam_hof(self, ty: str, d: int) -> str:
        """sorted/min/max with key=, map and filter consumed."""
        r = self.r
        cap = min(40, self.cap())
        q = self.fresh("q")
        if ty == BOOL:
            elem = r.choice([INT, FLOAT, BOOL])
            seq, _ = self.seq(elem, max(0, d - 1), cap)
            body = self.lam_body(BOOL, d, [(q, elem)])
            if r.random() < 0.6:
                return f"{r.choice(['any', 'all'])}(map(lambda {q}: {body}, {seq}))"
            return f"bool(list(filter(lambda {q}: {body}, {seq})))"
        x = r.random()
        if x < 0.3:
            elem = r.choice([INT, FLOAT, BOOL])
            seq, _ = self.seq(elem, max(0, d - 1), cap)
            body = self.lam_body(ty, d, [(q, elem)])
            return (f"sum(map(lambda {q}: {body}, {seq}), 0.0)" if ty == FLOAT else
                    f"sum(map(lambda {q}: {body}, {seq}))")
        if x < 0.45 and ty == INT:
            elem = r.choice([INT, FLOAT, BOOL])
            seq, _ = self.seq(elem, max(0, d - 1), cap)
            body = self.lam_body(BOOL, d, [(q, elem)])
            return f"len(list(filter(lambda {q}: {body}, {seq})))"
        seq, _ = self.seq(ty, max(0, d - 1), cap)
        key = self.lam_body(r.choice([INT, FLOAT, BOOL]), d, [(q, ty)])
        if x < 0.75:
            return (f"{r.choice(['min', 'max'])}({seq}, key=lambda {q}: {key}, "
                    f"default={self.expr(ty, 1)})")
        rev = r.choice(["", "", ", reverse=True", ", reverse=False"])
        return (f"(sorted({seq}, key=lambda {q}: {key}{rev}) or [{self.expr(ty, 1)}])"
                f"[{r.choice(['0', '-1', '0'])}]")

    def lam_wrap_text(self, ind: int, text: str) -> str:
        """text (reading a handler's as-name) through a lambda made and
        called in the handler."""
        r = self.r
        if r.random() < 0.5:
            return f"(lambda: {text})()"
        g = self.fresh("g")
        self.emit(ind, f"{g} = lambda {self.fresh('p')}=0: {text}")
        return f"{g}()"

    def lam_acc(self, ind: int, types=(INT, FLOAT)) -> str:
        """An int/float local to fold results into (made here if none)."""
        cand = [v for v in self.assignable() if self.env[v] in types]
        if cand:
            return self.r.choice(cand)
        v = self.fresh("v")
        self.emit(ind, f"{v} = 0")
        self.env[v] = INT
        return v

    def lam_fold(self, ind: int, acc: str, text: str, ty: str) -> None:
        if self.env[acc] == INT and ty == FLOAT:
            text = f"len(str({text}))"
        self.emit(ind, f"{acc} {self.r.choice(['+=', '-='])} {text}")

    def lam_stmt(self, ind: int, depth: int) -> None:
        r = self.r
        x = r.random()
        ty = r.choice([INT, INT, FLOAT, BOOL])
        if x < 0.2:          # late binding: called before and after a captured local changes
            cand = [v for v in self.assignable()]
            if not cand:
                return self.lam_stmt(ind, depth) if r.random() < 0.5 else None
            v = r.choice(cand)
            g = self.fresh("g")
            text, args = self.lam_sig(ty, 2, want=v)
            self.emit(ind, f"{g} = {text}")
            if r.random() < 0.6:
                a = self.fresh("v")
                self.emit(ind, f"{a} = {g}({args})")
                self.env[a] = ty
            vt = self.env[v]
            if r.random() < 0.5 or vt == BOOL:
                self.emit(ind, f"{v} = {self.expr(vt, 2)}")
            else:
                self.emit(ind, f"{v} {r.choice(['+=', '-=', '*='])} {self.expr(vt, 1)}")
            b = self.fresh("v")
            self.emit(ind, f"{b} = {g}({args})")
            self.env[b] = ty
        elif x < 0.38:       # lambdas made in a loop, called after it
            lst, i = self.fresh("F"), self.fresh("i")
            n = r.randint(1, 6)
            self.emit(ind, f"{lst} = []")
            self.emit(ind, f"for {i} in range({self.expr(INT, 1)} % {n + 1}):")
            self.enter_loop(n)
            saved = dict(self.env)
            self.env[i] = INT
            if r.random() < 0.3:
                self.stmt(ind + 1, 0)
            if r.random() < 0.4:      # the loop variable as a default: its value now
                q = self.fresh("q")
                body = self.lam_body(ty, 2, [(q, INT)])
                self.emit(ind + 1, f"{lst}.append(lambda {q}={i}: {body})")
            else:                     # late binding: every one sees the last value
                text, _ = self.lam_sig(ty, 2, want=i, nmax=0, star=False)
                self.emit(ind + 1, f"{lst}.append({text})")
            for v2, t2 in self.env.items():
                if v2 not in saved:
                    self.maybe[v2] = t2
            self.env = saved
            self.leave_loop(n)
            h = self.fresh("h")
            if r.random() < 0.5:
                out = self.fresh("v")
                self.emit(ind, (f"{out} = sum(({h}() for {h} in {lst}), 0.0)" if ty == FLOAT else
                                f"{out} = sum({h}() for {h} in {lst})"))
                self.env[out] = FLOAT if ty == FLOAT else INT
            else:
                acc = self.lam_acc(ind)
                self.emit(ind, f"for {h} in {lst}:")
                self.lam_fold(ind + 1, acc, f"{h}()", ty)
        elif x < 0.52:       # in a handler, capturing the as-name; called after it too
            acc = self.lam_acc(ind)
            e, g, e2 = self.fresh("e"), self.fresh("g"), self.fresh("e")
            self.emit(ind, "try:")
            if r.random() < 0.5:
                self.emit(ind + 1, f"{self.fresh('v')} = {self.expr(INT, 1)} // {self.zden()}")
                spec = r.choice(["ZeroDivisionError", "ArithmeticError", "Exception"])
            else:
                self.emit(ind + 1, f"{self.fresh('v')} = int(str({self.expr(INT, 1)}) + "
                                   f"{r.choice(['0', 'x', '.5', ' '])!r})")
                spec = r.choice(["ValueError", "(ValueError, TypeError)"])
            self.emit(ind, f"except {spec} as {e}:")
            ety, etext = self.fold(e, catches_overflow(spec))
            body = self.lam_body(INT, 1, [])
            self.emit(ind + 1, f"{g} = lambda {self.fresh('p')}={self.expr(INT, 1)}: "
                               f"{etext} + {body}" if ety == INT else
                      f"{g} = lambda: ({etext}, {body})[{r.randint(0, 1)}]")
            self.lam_fold(ind + 1, acc, f"{g}()", INT)
            if r.random() < 0.5:
                self.emit(ind, "try:")
                self.lam_fold(ind + 1, acc, f"{g}()", INT)
                self.emit(ind, f"except NameError as {e2}:")
                self.emit(ind + 1, f"{acc} -= len(str({e2}))")
        elif x < 0.64:       # one name, a lambda from either branch
            g = self.fresh("g")
            req = [(self.fresh("p"), r.choice([INT, FLOAT])) for _ in range(r.randint(0, 2))]
            kname, kt = self.fresh("k"), r.choice([INT, FLOAT])
            self.emit(ind, f"if {self.cond()}:")
            for k in range(2):
                if k:
                    self.emit(ind, "else:")
                sig = [p for p, _ in req] + ([f"{kname}={self.lam_default(kt)}"] if r.random() < 0.7 else [])
                body = self.lam_body(ty, 2, req + ([(kname, kt)] if len(sig) > len(req) else []))
                self.emit(ind + 1, f"{g} = lambda {', '.join(sig)}: {body}" if sig else f"{g} = lambda: {body}")
            out = self.fresh("v")
            self.emit(ind, f"{out} = {g}({', '.join(self.expr(t, 1) for _, t in req)})")
            self.env[out] = ty
        elif x < 0.78:       # a captured local deleted, or never bound, before the call
            acc = self.lam_acc(ind)
            v, g, e2 = self.fresh("v"), self.fresh("g"), self.fresh("e")
            vt = r.choice([INT, FLOAT, BOOL])
            never = r.random() < 0.35
            if not never:
                self.emit(ind, f"{v} = {self.expr(vt, 2)}")
            text, args = self.lam_sig(ty, 1, want=v, want_ty=vt)   # the call's arguments never read v
            self.emit(ind, f"{g} = {text}")
            self.emit(ind, f"if {self.cond()}:")
            self.emit(ind + 1, f"{v} = {self.expr(vt, 1)}" if never else f"del {v}")
            self.emit(ind, "try:")
            self.lam_fold(ind + 1, acc, f"{g}({args})", ty)
            self.emit(ind, f"except NameError as {e2}:")
            self.emit(ind + 1, f"{acc} -= len(str({e2}))")
        elif x < 0.86:       # an object local (int or float) captured and rebound
            o, g = self.fresh("o"), self.fresh("g")
            self.emit(ind, f"{o} = ({self.expr(INT, 1)} if {self.cond(1)} else {self.expr(FLOAT, 1)})")
            q = self.fresh("q")
            self.emit(ind, f"{g} = lambda {q}={self.expr(FLOAT, 1)}: "
                           + r.choice([f"{o} * 2 + {q}", f"{o} - {q}", f"float({o} > {q})",
                                       f"abs({o}) + {self.lam_body(FLOAT, 1, [(q, FLOAT)])}"]))
            a = self.fresh("v")
            self.emit(ind, f"{a} = float({g}())")
            self.emit(ind, f"{o} = {o} + {r.choice(['1', '0.5', 'True'])}")
            b = self.fresh("v")
            self.emit(ind, f"{b} = float({g}({self.expr(FLOAT, 1)})) + {a}")
            self.env[a] = FLOAT
            self.env[b] = FLOAT
        elif x < 0.93:       # a lambda making lambdas
            mk, p, q = self.fresh("g"), self.fresh("p"), self.fresh("q")
            pt, qt = r.choice([INT, FLOAT]), r.choice([INT, FLOAT])
            body = self.lam_body(ty, 2, [(p, pt), (q, qt)])
            self.emit(ind, f"{mk} = lambda {p}: lambda {q}: {body}")
            out = self.fresh("v")
            if r.random() < 0.5:
                self.emit(ind, f"{out} = {mk}({self.expr(pt, 1)})({self.expr(qt, 1)})")
                self.env[out] = ty
            else:
                f = self.fresh("f")
                fs = ", ".join(f"{mk}({self.expr(pt, 1)})" for _ in range(r.randint(1, 3)))
                arg = self.expr(qt, 1)
                self.emit(ind, (f"{out} = sum(({f}({arg}) for {f} in [{fs}]), 0.0)" if ty == FLOAT
                                else f"{out} = sum({f}({arg}) for {f} in [{fs}])"))
                self.env[out] = FLOAT if ty == FLOAT else INT
        else:                # two lambdas bound on one line, called later
            g, h = self.fresh("g"), self.fresh("h")
            t1, a1 = self.lam_sig(ty, 1)
            t2, a2 = self.lam_sig(ty, 1)
            self.emit(ind, f"{g}, {h} = ({t1}), ({t2})")
            out = self.fresh("v")
            op = {INT: "+", FLOAT: "-", BOOL: "and"}[ty]
            self.emit(ind, f"{out} = {g}({a1}) {op} {h}({a2})")
            self.env[out] = ty


    # ---- generator expressions no consumer takes ------------------------------
    # (genexpr_weight) A generator expression that is not the one argument of
    # a consumer kiln runs itself (any/all/sum/min/max/sorted/list/tuple/set/
    # join) is CPython's own generator: kiln evaluates its first iterable, calls
    # iter() on it and calls the code CPython compiled for it; what its body
    # reads lives in cells (late binding).  Made here: next() (with a default,
    # or StopIteration caught), dict/zip/enumerate/map/filter/`in`/`*` in a
    # call over them, the module's gx_* helpers (partial consumption, returned
    # and passed on), nested ones, kept in a local and consumed later (partly,
    # after rebinding, deleting or mutating what they read, made in loops,
    # close/send/throw), bad first iterables (TypeError at creation, iter()
    # of GxIter failing) and bodies raising later; and lambdas and lazy
    # generator expressions reading a comprehension's variable (a new cell
    # each time the comprehension starts), called or consumed in it or after.
    # Everything is folded into ints/floats/bools (never a generator's repr).

    def gx_names(self, text: str) -> set:
        return set(re.findall(r"[A-Za-z_]\w*", text))

    def gx_mix(self, t: str, elem: str, want: str) -> str:
        """t (of type elem) made to read the local want."""
        r = self.r
        wt = self.env.get(want)
        x = r.random()
        if wt is None or x < 0.35:
            return f"({t} if {want} else {self.expr(elem, 0)})"
        if elem == INT and wt in (INT, BOOL):
            return f"({t} {r.choice(['+', '-', '^', '+'])} {want})"
        if elem == FLOAT:
            return f"({t} {r.choice(['+', '-', '*'])} {want})"
        if elem == BOOL:
            return f"({t} != {want})" if wt == BOOL else f"({t} and {want} > {self.const(wt)})"
        return f"({t} if {want} else {self.expr(elem, 0)})"

    def gx_gen(self, elem: str, d: int, cap: int | None = None, want: str | None = None,
               want_ty: str | None = None) -> tuple[str, int]:
        """A generator expression of elem items, in parentheses, reading want
        (a local; of type want_ty when only the body sees it); its most items."""
        saved = None
        if want_ty:
            saved = self.env.get(want)
            self.env[want] = want_ty

        def elt(dd):
            t = self.expr(elem, dd)
            if want and want not in self.gx_names(t):
                t = self.gx_mix(t, elem, want)
            return t
        self.gx += 1
        body, n = self.comp_body(elt, d, min(40, self.cap()) if cap is None else cap)
        self.gx -= 1
        if want_ty:
            if saved is None:
                self.env.pop(want, None)
            else:
                self.env[want] = saved
        return f"({body})", n

    def gx_over(self, it: str, targets: list, ty: str, d: int, how: str = "fold") -> str:
        """`ELT for TARGETS in it [if C]` (a generator over it, targets
        [(name, type)]) folded to type ty: consumed (sum/any/all/len of a
        list) or (how "next") the first item, a default when none."""
        r = self.r
        saved_env, saved_focus = dict(self.env), list(self.focus)
        for t, tt in targets:
            self.env[t] = tt
            self.focus.append(t)
        self.enter_loop(40)
        elem = ty if how == "next" or ty != INT else r.choice([INT, INT, BOOL])
        elt = self.expr(elem, d)
        cond = f" if {self.cond(1)}" if r.random() < 0.35 else ""
        self.leave_loop(40)
        self.env, self.focus = saved_env, saved_focus
        tg = ", ".join(t for t, _ in targets)
        gen = f"{elt} for {tg} in {it}{cond}"
        if how == "next":
            return f"next(({gen}), {self.expr(ty, 1)})"
        if ty == BOOL:
            return f"{r.choice(['any', 'all'])}({gen})"
        if ty == FLOAT:
            return f"sum(({gen}), {r.choice(['0.0', '-0.0', self.expr(FLOAT, 1)])})"
        return f"sum({gen})" if r.random() < 0.7 else f"len([{gen}])"

    def gx_conv(self, text: str, t0: str, ty: str) -> str:
        """text (of type t0) as a value of type ty."""
        if t0 == ty:
            return text
        if ty == BOOL:
            return f"({text} > {self.const(t0) if t0 != BOOL else 'False'})"
        if ty == FLOAT:
            return f"float({text})"
        return f"int({text})" if t0 == BOOL else f"len(str({text}))"

    def gx_expr(self, ty: str, d: int) -> str:
        """An expression of type ty made with generator expressions no
        consumer takes (or closures over a comprehension's variable)."""
        self.gx += 1
        text, t0 = self.gx_expr1(ty, max(0, d))
        self.gx -= 1
        return self.gx_conv(text, t0, ty)

    def gx_expr1(self, ty: str, d: int) -> tuple[str, str]:
        r = self.r
        cap = min(30, self.cap())
        x = r.random()
        num = ty if ty in NUM else r.choice(NUM)
        if x < 0.2:          # next with a default
            gen, _ = self.gx_gen(ty, d, cap)
            return f"next({gen}, {self.expr(ty, 1)})", ty
        if x < 0.3:          # nested: a generator expression over one
            e1 = r.choice([INT, INT, FLOAT, BOOL])
            inner, _ = self.gx_gen(e1, max(0, d - 1), cap)
            y = self.fresh("y")
            return self.gx_over(inner, [(y, e1)], ty, d, r.choice(["next", "fold", "fold"])), ty
        if x < 0.38:         # dict over one
            vt = r.choice([INT, FLOAT, BOOL])
            k, v = self.fresh("k"), self.fresh("x")
            saved_env, saved_focus = dict(self.env), list(self.focus)
            it, _ = self.seq(INT, max(0, d - 1), cap) if r.random() < 0.6 else self.small_range(cap)
            self.env[k] = INT
            self.focus.append(k)
            kt, vt_ = self.expr(INT, max(0, d - 1)), self.expr(vt, max(0, d - 1))
            self.env, self.focus = saved_env, saved_focus
            gen = f"dict(({kt}, {vt_}) for {k} in {it})"
            y = r.random()
            if y < 0.3:
                return f"len({gen})", INT
            if y < 0.6:
                return (f"sum({gen}.values(), 0.0)" if vt == FLOAT else f"sum({gen}.values())",
                        FLOAT if vt == FLOAT else INT)
            if y < 0.8:
                return f"sum({gen})", INT
            return f"{gen}.get({self.expr(INT, 1)}, {self.expr(vt, 1)})", vt
        if x < 0.48:         # zip of two (or one and a list)
            e1, e2 = r.choice([INT, FLOAT, BOOL]), r.choice([INT, FLOAT, BOOL])
            g1, _ = self.gx_gen(e1, max(0, d - 1), cap)
            g2, _ = self.gx_gen(e2, max(0, d - 1), cap) if r.random() < 0.8 else \
                self.seq(e2, max(0, d - 1), cap)
            strict = ", strict=True" if r.random() < 0.15 else ""
            a, b = self.fresh("y"), self.fresh("y")
            if r.random() < 0.25:
                return f"len(list(zip({g1}, {g2}{strict})))", INT
            return self.gx_over(f"zip({g1}, {g2}{strict})", [(a, e1), (b, e2)], ty, d,
                                r.choice(["fold", "fold", "next"])), ty
        if x < 0.55:         # enumerate over one
            e1 = r.choice([INT, FLOAT, BOOL])
            g1, _ = self.gx_gen(e1, max(0, d - 1), cap)
            start = r.choice(["", "", ", 1", ", -3", f", {self.expr(INT, 1)}"])
            i, v = self.fresh("j"), self.fresh("y")
            if r.random() < 0.2:
                return f"len(dict(enumerate({g1}{start})))", INT
            return self.gx_over(f"enumerate({g1}{start})", [(i, INT), (v, e1)], ty, d,
                                r.choice(["fold", "fold", "next"])), ty
        if x < 0.64:         # map / filter over one
            g1, _ = self.gx_gen(num, max(0, d - 1), cap)
            y = r.random()
            if y < 0.25:
                return (f"sum(map(abs, {g1}), 0.0)" if num == FLOAT else f"sum(map(abs, {g1}))"), num
            if y < 0.45:
                q = self.fresh("q")
                body = self.lam_body(num, 1, [(q, num)])
                return (f"sum(map(lambda {q}: {body}, {g1}), 0.0)" if num == FLOAT else
                        f"sum(map(lambda {q}: {body}, {g1}))"), num
            if y < 0.65:
                q = self.fresh("q")
                body = self.lam_body(BOOL, 1, [(q, num)])
                return f"len(list(filter(lambda {q}: {body}, {g1})))", INT
            if y < 0.8:
                return f"len(list(filter(None, {g1})))", INT
            return f"{r.choice(['max', 'min'])}(map(abs, {g1}), default={self.expr(num, 1)})", num
        if x < 0.7:          # unpacked into a call with keywords
            e1 = r.choice([INT, FLOAT, BOOL])
            g1, _ = self.gx_gen(e1, max(0, d - 1), cap)
            kws = [f"{k}={self.expr(r.choice(SCALARS), 1)}" for k in r.sample(KW_NAMES, r.randint(0, 2))]
            pre = [self.expr(r.choice(SCALARS), 1) for _ in range(r.randint(0, 1))]
            y = r.random()
            if y < 0.7:
                args = ", ".join(pre + [f"*{g1}"] + kws)
                return f"gx_args({args})", INT
            if y < 0.85:
                return (f"max(*{g1}, {self.expr(num, 1)}{', key=abs' if r.random() < 0.4 else ''})",
                        num) if e1 == num else (f"len([*{g1}, *{g1}])", INT)
            return f"len((*{g1}, {self.expr(e1, 1)}))", INT
        if x < 0.76:         # `in` (ints only: floats never go where identity counts)
            g1, _ = self.gx_gen(INT, max(0, d - 1), cap)
            return f"({self.expr(INT, 1)} {r.choice(['in', 'not in'])} {g1})", BOOL
        if x < 0.84:         # the gx_* helpers: passed on, partly consumed, returned
            e1 = r.choice([INT, FLOAT]) if r.random() < 0.8 else BOOL
            y = r.random()
            if y < 0.4:
                g1, _ = self.gx_gen(e1, max(0, d - 1), cap)
                n = r.choice(["0", "1", "2", "3", f"{self.expr(INT, 1)} % 4"])
                return (f"sum(gx_take({g1}, {n}), 0.0)" if e1 == FLOAT else
                        f"sum(gx_take({g1}, {n}))"), FLOAT if e1 == FLOAT else INT
            if y < 0.7:
                seq, _ = self.seq(num, max(0, d - 1), cap) if r.random() < 0.9 else (self.expr(INT, 1), 0)
                k = self.expr(num, 1)
                return (f"sum(gx_make({seq}, {k}), 0.0)" if num == FLOAT else
                        f"sum(gx_make({seq}, {k}))"), num
            g1, _ = self.gx_gen(num, max(0, d - 1), cap)
            return (f"sum(gx_pass({g1}, {self.expr(INT, 1)}), 0.0)" if num == FLOAT else
                    f"sum(gx_pass({g1}, {self.expr(INT, 1)}))"), num
        if x < 0.9:          # in a comprehension: next over its variable, per item
            e1 = r.choice([INT, INT, FLOAT])
            t = self.fresh("t")
            seq, _ = self.seq(e1, max(0, d - 1), cap)
            saved_env, saved_focus = dict(self.env), list(self.focus)
            self.env[t] = e1
            self.focus.append(t)
            self.nest += 1
            self.enter_loop(cap)
            inner, _ = self.gx_gen(ty, max(0, d - 1), min(8, cap), want=t)
            dflt = self.expr(ty, 0)
            self.leave_loop(cap)
            self.nest -= 1
            self.env, self.focus = saved_env, saved_focus
            elt = f"next({inner}, {dflt})"
            if ty == BOOL:
                return f"{r.choice(['any', 'all'])}({elt} for {t} in {seq})", BOOL
            if ty == FLOAT:
                return f"sum(({elt} for {t} in {seq}), 0.0)", FLOAT
            return (f"sum([{elt} for {t} in {seq}])" if r.random() < 0.5 else
                    f"len([{elt} for {t} in {seq}])"), INT
        # closures over a comprehension's variable escaping it, called after
        e1 = r.choice([INT, INT, FLOAT, BOOL])
        xv, f = self.fresh("x"), self.fresh("f")
        seq, _ = self.seq(e1, max(0, d - 1), cap)
        saved_env, saved_focus = dict(self.env), list(self.focus)
        self.env[xv] = e1
        self.nest += 1
        if r.random() < 0.6:
            body = self.lam_body(ty, 1, [], want=xv, want_ty=e1)
            made = f"lambda: {body}"
            call = f"{f}()"
        else:
            g1, _ = self.gx_gen(ty, 0, 6, want=xv)
            made = g1
            call = (f"sum({f}, 0.0)" if ty == FLOAT else f"any({f})" if ty == BOOL else f"sum({f})")
        self.nest -= 1
        self.env, self.focus = saved_env, saved_focus
        lst = f"[{made} for {xv} in {seq}]"
        if ty == BOOL:
            return f"{r.choice(['any', 'all'])}({call} for {f} in {lst})", BOOL
        if ty == FLOAT:
            return f"sum(({call} for {f} in {lst}), 0.0)", FLOAT
        return f"sum({call} for {f} in {lst})", INT

    # -- statements
    def gx_acc_fold(self, ind: int, text: str, ty: str) -> None:
        """text (of type ty) into a new local or an accumulator."""
        if self.r.random() < 0.4:
            v = self.fresh("v")
            self.emit(ind, f"{v} = {text}")
            self.env[v] = ty
        else:
            self.lam_fold(ind, self.lam_acc(ind), text, ty)

    def gx_consume(self, g: str, elem: str) -> tuple[str, str]:
        """An expression consuming (some of) the generator in local g: (text, type)."""
        r = self.r
        x = r.random()
        num = elem if elem in NUM else INT
        if x < 0.2:
            return (f"sum({g}, 0.0)" if elem == FLOAT else f"sum({g})"), (FLOAT if elem == FLOAT else INT)
        if x < 0.32:
            return f"next({g}, {self.expr(elem, 1)})", elem
        if x < 0.4:
            return f"len({r.choice(['list', 'tuple', 'sorted'])}({g}))", INT
        if x < 0.48 and elem in NUM:
            return (f"{r.choice(['min', 'max'])}({g}{', key=abs' if r.random() < 0.3 else ''}, "
                    f"default={self.expr(elem, 1)})"), elem
        if x < 0.56:
            return f"{r.choice(['any', 'all'])}({g})", BOOL
        if x < 0.64:
            n = r.choice(["0", "1", "2", f"{self.expr(INT, 1)} % 3"])
            return (f"sum(gx_take({g}, {n}), 0.0)" if elem == FLOAT else f"len(gx_take({g}, {n}))"), \
                (FLOAT if elem == FLOAT else INT)
        if x < 0.7 and elem != FLOAT:
            return f"({self.expr(INT, 1)} in {g})", BOOL
        if x < 0.76:
            a, b = self.fresh("y"), self.fresh("y")
            if elem == BOOL:
                return f"sum({a} != {b} for {a}, {b} in zip({g}, {g}))", INT
            return (f"sum(({a} - {b} for {a}, {b} in zip({g}, {g})), 0.0)" if elem == FLOAT else
                    f"sum({a} * 2 - {b} for {a}, {b} in zip({g}, {g}))"), num
        if x < 0.82:
            kws = ", ".join(f"{k}={self.expr(INT, 1)}" for k in r.sample(KW_NAMES, r.randint(1, 2)))
            return f"gx_args(*{g}, {kws})", INT
        if x < 0.88:
            return f"len(dict(enumerate({g}, {r.choice(['0', '1', '-1'])})))", INT
        if x < 0.94:
            return (f"sum(map(abs, {g}), 0.0)" if elem == FLOAT else f"sum(map(abs, {g}))"), num
        return f"len(list(filter(None, {g})))", INT

    def gx_consume_stmts(self, ind: int, g: str, elem: str, most: int = 3) -> None:
        """One to `most` consumptions of g (the later ones get what is left)."""
        r = self.r
        for _ in range(r.randint(1, most)):
            if r.random() < 0.2 and self.mult <= 200:       # a for statement over it, maybe left early
                h = self.fresh("h")
                acc = self.lam_acc(ind)
                self.emit(ind, f"for {h} in {g}:")
                self.lam_fold(ind + 1, acc, h if elem != BOOL else f"int({h})",
                              elem if elem != BOOL else INT)
                if r.random() < 0.5:
                    self.emit(ind + 1, f"if {self.cond(1)}:")
                    self.emit(ind + 2, "break")
                continue
            text, ty = self.gx_consume(g, elem)
            self.gx_acc_fold(ind, text, ty)

    def gx_stmt(self, ind: int, depth: int) -> None:
        r = self.r
        x = r.random()
        self.gx += 1
        try:
            if x < 0.17:
                return self.gx_late(ind)
            if x < 0.27:
                return self.gx_partial(ind)
            if x < 0.35:
                return self.gx_next_stop(ind)
            if x < 0.4:
                return self.gx_mutated(ind)
            if x < 0.43:
                return self.gx_dict_mutated(ind)
            if x < 0.5 and self.mult <= 100:
                return self.gx_in_loop(ind)
            if x < 0.6:
                return self.gx_raising(ind)
            if x < 0.66:
                return self.gx_unbound(ind)
            if x < 0.72:
                return self.gx_methods(ind)
            if x < 0.92:
                return self.gx_comp_closures(ind)
            ty = r.choice([INT, INT, FLOAT, BOOL])
            self.gx_acc_fold(ind, self.gx_expr(ty, 2), ty)
        finally:
            self.gx -= 1

    def gx_late(self, ind: int) -> None:
        """Made, a local it reads rebound (or the list it iterates), consumed."""
        r = self.r
        cand = self.assignable()
        if not cand:
            return self.gx_partial(ind)
        v = r.choice(cand)
        vt = self.env[v]
        elem = r.choice([INT, INT, FLOAT, BOOL])
        g = self.fresh("g")
        gen, _ = self.gx_gen(elem, 2, want=v)
        self.emit(ind, f"{g} = {gen}")
        self.objs.add(v)
        if r.random() < 0.4:
            text, ty = self.gx_consume(g, elem)
            self.gx_acc_fold(ind, text, ty)
        if r.random() < 0.6 or vt == BOOL:
            self.emit(ind, f"{v} = {self.expr(vt, 2)}")
        else:
            self.emit(ind, f"{v} {r.choice(['+=', '-=', '*='])} {self.expr(vt, 1)}")
        self.gx_consume_stmts(ind, g, elem)

    def gx_partial(self, ind: int) -> None:
        elem = self.r.choice([INT, INT, FLOAT, BOOL])
        g = self.fresh("g")
        gen, _ = self.gx_gen(elem, 2)
        self.emit(ind, f"{g} = {gen}")
        self.gx_consume_stmts(ind, g, elem, 4)

    def gx_next_stop(self, ind: int) -> None:
        """next() without a default: StopIteration caught."""
        r = self.r
        elem = r.choice([INT, INT, FLOAT, BOOL])
        g = self.fresh("g")
        gen, n = self.gx_gen(elem, 2, r.choice([1, 2, 3, 8]))
        acc = self.lam_acc(ind)
        e = self.fresh("e")
        inline = r.random() < 0.3
        if not inline:
            self.emit(ind, f"{g} = {gen}")
        self.emit(ind, "try:")
        for k in range(r.randint(1, 3)):
            self.lam_fold(ind + 1, acc, f"next({gen if inline else g})", elem)
        self.emit(ind, f"except StopIteration as {e}:")
        self.emit(ind + 1, f"{acc} -= {r.choice(['len(str(' + e + '))', 'len(' + e + '.args)', '(' + e + '.value is None)', 'len(type(' + e + ').__name__)'])} + 1")
        if not inline and r.random() < 0.5:
            self.lam_fold(ind, acc, f"next({g}, {self.expr(elem, 1)})", elem)

    def gx_mutated(self, ind: int) -> None:
        """Over a list local changed (or rebound) before it is consumed; the
        body may read the list too (a cell: the new one after a rebinding)."""
        r = self.r
        elem = r.choice([INT, INT, FLOAT])
        lt = LIST_OF[elem]
        c = [v for v, t in self.env.items() if t == lt and self.size.get(v, 0) <= 30]
        if c and r.random() < 0.5:
            L = r.choice(c)
        else:
            L = self.fresh("L")
            text, n = self.display(elem, 5)
            if not text.startswith("["):
                text = "[" + text[1:-1].rstrip(",") + "]"
            self.emit(ind, f"{L} = {text}")
            self.env[L] = lt
            self.size[L] = n
        xv, g = self.fresh("x"), self.fresh("g")
        saved_env, saved_focus = dict(self.env), list(self.focus)
        self.env[xv] = elem
        self.focus.append(xv)
        self.enter_loop(40)
        elt = self.expr(elem, 1)
        if r.random() < 0.4:
            elt = f"({elt} + len({L}))" if elem != BOOL else elt
        cond = f" if {self.cond(1)}" if r.random() < 0.3 else ""
        self.leave_loop(40)
        self.env, self.focus = saved_env, saved_focus
        self.emit(ind, f"{g} = ({elt} for {xv} in {L}{cond})")
        self.objs.add(L)
        y = r.random()
        if y < 0.35:
            self.emit(ind, f"{L}.append({self.expr(elem, 1)})")
            self.size[L] = self.size.get(L, 0) + self.mult
        elif y < 0.5:
            items = ", ".join(self.expr(elem, 1) for _ in range(r.randint(0, 3)))
            self.emit(ind, f"{L}.extend([{items}])")
            self.size[L] = self.size.get(L, 0) + 3 * self.mult
        elif y < 0.62:
            self.emit(ind, f"if {L}:")
            self.emit(ind + 1, f"{L}.{r.choice(['pop()', 'pop(0)', 'clear()', 'reverse()'])}")
        elif y < 0.72:
            self.emit(ind, f"if {L}:")
            self.emit(ind + 1, f"{L}[{r.choice(['0', '-1'])}] = {self.expr(elem, 1)}")
        else:
            text, n = self.display(elem, 5)
            self.emit(ind, f"{L} = [{text[1:-1].rstrip(',')}]")
            self.size[L] = max(self.size.get(L, 0), n)
        self.gx_consume_stmts(ind, g, elem)

    def gx_dict_mutated(self, ind: int) -> None:
        """Over a dict or set local changed before it is consumed
        (RuntimeError when its size, or a dict's keys, changed)."""
        r = self.r
        ty = r.choice([DII, DIF, SI])
        c = [v for v, t in self.env.items() if t == ty and self.size.get(v, 0) <= 30]
        if c and r.random() < 0.5:
            D = r.choice(c)
        else:
            D = self.fresh("D" if ty != SI else "S")
            n = r.randint(0, 3)
            vt = ty.split(":")[2] if ty != SI else None
            items = [f"{self.expr(INT, 1)}: {self.expr(vt, 1)}" if vt else self.expr(INT, 1)
                     for _ in range(n)]
            self.emit(ind, f"{D} = {{{', '.join(items)}}}" if items or vt else f"{D} = set()")
            self.env[D] = ty
            self.size[D] = n
        g, k, v = self.fresh("g"), self.fresh("k"), self.fresh("x")
        if ty == SI:
            self.emit(ind, f"{g} = ({k} * 2 for {k} in {D})")
            elem = INT
            mut = r.choice([f"{D}.add({self.expr(INT, 1)})", f"{D}.discard({self.expr(INT, 1)})",
                            f"{D}.clear()", f"{D} = {{1}}"])
        else:
            elem = ty.split(":")[2]
            y = r.random()
            if y < 0.4:
                self.emit(ind, f"{g} = ({k} + {v} for {k}, {v} in {D}.items())")
            elif y < 0.7:
                self.emit(ind, f"{g} = ({v} for {v} in {D}.values())")
            else:
                self.emit(ind, f"{g} = ({k} for {k} in {D})")
                elem = INT
            vt = ty.split(":")[2]
            mut = r.choice([f"{D}[{self.expr(INT, 1)}] = {self.expr(vt, 1)}",
                            f"{D}.pop({self.expr(INT, 1)}, None)", f"{D}.clear()",
                            f"{D}.update({{{self.expr(INT, 1)}: {self.expr(vt, 1)}}})",
                            f"{D}[{self.expr(INT, 1)}] = {D}.pop({self.expr(INT, 1)}, {self.expr(vt, 1)})"])
        self.size[D] = self.size.get(D, 0) + self.mult
        self.emit(ind, mut)
        acc = self.lam_acc(ind)
        e = self.fresh("e")
        self.emit(ind, "try:")
        text, t2 = self.gx_consume(g, elem)
        self.lam_fold(ind + 1, acc, text, t2)
        self.emit(ind, f"except RuntimeError as {e}:")
        self.emit(ind + 1, f"{acc} -= len(str({e}))")
        if r.random() < 0.5:
            self.lam_fold(ind, acc, f"next({g}, {self.expr(elem, 1)})", elem)

    def gx_in_loop(self, ind: int) -> None:
        """Made in a loop (reading the loop variable late, or in the first
        iterable at once), consumed after it."""
        r = self.r
        G, i = self.fresh("G"), self.fresh("i")
        n = r.randint(1, 5)
        elem = r.choice([INT, INT, FLOAT])
        self.emit(ind, f"{G} = []")
        self.emit(ind, f"for {i} in range({self.expr(INT, 1)} % {n + 1}):")
        self.enter_loop(n)
        saved = dict(self.env)
        self.env[i] = INT
        xv = self.fresh("x")
        first = r.choice([f"range({i})", f"range({i}, {i} + 3)", f"[{i}, {i} * 2]"]) \
            if r.random() < 0.6 else self.seq(INT, 1, 6)[0]
        self.env[xv] = INT
        self.focus.append(xv)
        self.enter_loop(8)
        elt = self.expr(elem, 1)
        self.leave_loop(8)
        self.focus.remove(xv)
        if i not in self.gx_names(elt) and r.random() < 0.7:
            elt = f"({elt} + {i})"
        self.emit(ind + 1, f"{G}.append(({elt} for {xv} in {first}))")
        if r.random() < 0.3:
            self.emit(ind + 1, f"if {self.cond(1)}:")
            self.emit(ind + 2, "break")
        self.env = saved
        self.leave_loop(n)
        h = self.fresh("h")
        x = r.random()
        if x < 0.5:
            self.gx_acc_fold(ind, (f"sum((sum({h}, 0.0) for {h} in {G}), 0.0)" if elem == FLOAT else
                                   f"sum(sum({h}) for {h} in {G})"), FLOAT if elem == FLOAT else INT)
        elif x < 0.75:
            self.gx_acc_fold(ind, f"sum(len(list({h})) for {h} in reversed({G}))", INT)
        else:
            self.gx_acc_fold(ind, f"len(list(zip(*{G})))", INT)

    def gx_raising(self, ind: int) -> None:
        """A bad first iterable (TypeError at creation, GxIter's iter()
        failing), or a body raising later (the generator is finished then)."""
        r = self.r
        acc = self.lam_acc(ind)
        e, g, xv = self.fresh("e"), self.fresh("g"), self.fresh("x")
        x = r.random()
        self.emit(ind, "try:")
        if x < 0.35:
            bad = r.choice([self.expr(r.choice(SCALARS), 1), "None",
                            f"GxIter({self.expr(INT, 1)} % 4, {r.choice([1, 2])})",
                            f"[{self.expr(INT, 1)} // {self.zden()}]",
                            f"GxIter({self.expr(INT, 1)} % 4)"])
            y = self.fresh("y")
            if r.random() < 0.7:
                gen = f"({xv} for {xv} in {bad})"
            else:   # a later clause: raises only when consumed (and the first has items)
                seq, _ = self.seq(INT, 1, 4)
                gen = f"({y} for {xv} in {seq} for {y} in {bad})"
            self.emit(ind + 1, f"{g} = {gen}")
            self.lam_fold(ind + 1, acc, f"sum({g})" if r.random() < 0.6 else f"next({g}, 7)", INT)
            spec = r.choice(["TypeError", "(TypeError, ValueError, ZeroDivisionError)", "Exception"])
        else:
            seq, _ = self.seq(INT, 1, 8)
            body = r.choice([f"{self.expr(INT, 1)} // {xv}", f"math.log({xv})",
                             f"[1, 2, 3][{xv}]", f"next(iter(range({xv})))",
                             f"int({xv} / {self.fden()})", f"{{0: 1, 1: 2}}[{xv}]"])
            self.emit(ind + 1, f"{g} = ({body} for {xv} in {seq})")
            h = self.fresh("h")
            self.emit(ind + 1, f"for {h} in {g}:")
            self.lam_fold(ind + 2, acc, f"{h}", INT)
            spec = r.choice(["(ZeroDivisionError, ValueError, IndexError, RuntimeError, KeyError, "
                             "OverflowError)", "Exception", "ArithmeticError"])
        self.emit(ind, f"except {spec} as {e}:")
        # kiln's int64 OverflowError (acc += ...) says `integer overflow (FILE:LINE)`
        msg = f"(str({e}) if not isinstance({e}, OverflowError) else 'ovf')" \
            if catches_overflow(spec) else f"str({e})"
        self.emit(ind + 1, f"{acc} -= len({msg}) + 3 * len(type({e}).__name__)"
                           f" + len(type({e}.__cause__).__name__)")
        if r.random() < 0.5:      # a generator that raised is finished (g may be unbound)
            self.emit(ind + 1, "try:")
            self.lam_fold(ind + 2, acc, f"sum({g})" if r.random() < 0.5 else f"next({g}, -5)", INT)
            self.emit(ind + 1, "except NameError:")
            self.emit(ind + 2, f"{acc} += 2")
        kept = None
        if r.random() < 0.3:      # a generator reading the as-name, consumed after the handler
            kept = self.fresh("g")
            self.emit(ind + 1, f"{kept} = (len({msg}) + {xv} for {xv} in range(2))")
        if r.random() < 0.3:
            self.emit(ind, "else:")
            self.emit(ind + 1, f"{acc} += 1")
        if kept:                  # NameError: the handler deleted the name (or it never ran)
            e2 = self.fresh("e")
            self.emit(ind, "try:")
            self.lam_fold(ind + 1, acc, f"sum({kept})", INT)
            self.emit(ind, f"except NameError as {e2}:")
            self.emit(ind + 1, f"{acc} -= len(str({e2}))")

    def gx_unbound(self, ind: int) -> None:
        """Reading a local deleted (or never bound) before it is consumed."""
        r = self.r
        acc = self.lam_acc(ind)
        v, g, e = self.fresh("v"), self.fresh("g"), self.fresh("e")
        vt = r.choice([INT, FLOAT, BOOL])
        elem = r.choice([INT, FLOAT])
        never = r.random() < 0.35
        if not never:
            self.emit(ind, f"{v} = {self.expr(vt, 2)}")
        gen, _ = self.gx_gen(elem, 1, 8, want=v, want_ty=vt)
        self.emit(ind, f"{g} = {gen}")
        self.emit(ind, f"if {self.cond()}:")
        self.emit(ind + 1, f"{v} = {self.expr(vt, 1)}" if never else f"del {v}")
        self.emit(ind, "try:")
        text, ty = self.gx_consume(g, elem)
        self.lam_fold(ind + 1, acc, text, ty)
        self.emit(ind, f"except NameError as {e}:")
        self.emit(ind + 1, f"{acc} -= len(str({e}))")

    def gx_methods(self, ind: int) -> None:
        """close/send/throw, an exhausted one consumed again, its name."""
        r = self.r
        elem = r.choice([INT, FLOAT])
        g = self.fresh("g")
        gen, _ = self.gx_gen(elem, 2)
        self.emit(ind, f"{g} = {gen}")
        acc = self.lam_acc(ind)
        x = r.random()
        if x < 0.25:
            self.lam_fold(ind, acc, f"next({g}, {self.expr(elem, 1)})", elem)
            self.emit(ind, f"{g}.close()")
            self.lam_fold(ind, acc, f"next({g}, {self.expr(elem, 1)})", elem)
        elif x < 0.5:
            e = self.fresh("e")
            self.emit(ind, "try:")
            self.lam_fold(ind + 1, acc, f"{g}.send(None)", elem)
            if r.random() < 0.5:
                self.lam_fold(ind + 1, acc, f"{g}.send({r.choice(['None', '1'])})", elem)
            self.emit(ind + 1, f"{g}.throw(ValueError({self.message()}))")
            self.emit(ind, f"except (StopIteration, ValueError, TypeError) as {e}:")
            self.emit(ind + 1, f"{acc} += len(str({e})) + len(type({e}).__name__)")
            self.lam_fold(ind, acc, f"next({g}, {self.expr(elem, 1)})", elem)
        elif x < 0.75:
            for _ in range(2):
                self.lam_fold(ind, acc, f"sum({g}, 0.0)" if elem == FLOAT else f"sum({g})", elem)
        else:
            self.lam_fold(ind, acc, r.choice([f"len({g}.__name__)", f"len({g}.__qualname__)",
                                              f"int({g}.gi_running)", f"len({g}.gi_code.co_name)",
                                              f"int({g}.gi_frame is None)"]), INT)
            self.gx_consume_stmts(ind, g, elem, 2)
            self.lam_fold(ind, acc, f"int({g}.gi_frame is None)", INT)

    def gx_comp_closures(self, ind: int) -> None:
        """Lambdas and lazy generator expressions reading a comprehension's
        variable: called in it, or escaping it and called after (they see the
        variable's last value; a new cell each time the comprehension runs)."""
        r = self.r
        x = r.random()
        ty = r.choice([INT, INT, FLOAT, BOOL])
        e1 = r.choice([INT, INT, FLOAT, BOOL])
        xv, F, f = self.fresh("x"), self.fresh("F"), self.fresh("f")
        seq, _ = self.seq(e1, 1, 8)
        shadow = None
        if r.random() < 0.25:  # the variable shadows a local (maybe a cell itself): left as it was
            c = [v for v in self.assignable() if self.env[v] == e1 and v not in self.focus]
            if c:
                shadow = xv = r.choice(c)
                if r.random() < 0.5:
                    h = self.fresh("h")
                    self.emit(ind, f"{h} = lambda: {xv}")
                    shadow = f"{h}()"
        saved_env, saved_focus = dict(self.env), list(self.focus)
        self.nest += 1
        self.env[xv] = e1      # lam_body reads it (want), gx_gen mixes it in
        self.enter_loop(8)
        if x < 0.3:            # [lambda: ...x... for x in seq], called after
            if r.random() < 0.3:
                q = self.fresh("q")
                body = self.lam_body(ty, 1, [(q, e1)], want=xv, want_ty=e1)
                made, call = f"lambda {q}={xv}: {body}", f"{f}()"
            else:
                made, call = f"lambda: {self.lam_body(ty, 1, [], want=xv, want_ty=e1)}", f"{f}()"
            tail = ""
        elif x < 0.5:          # lazy generators over their own items, consumed after
            g1, _ = self.gx_gen(ty, 0, 6, want=xv)
            made = g1
            call = f"sum({f}, 0.0)" if ty == FLOAT else f"any({f})" if ty == BOOL else f"sum({f})"
            tail = ""
        elif x < 0.65:         # nested: the inner comprehension runs anew for each outer item
            yv = self.fresh("y")
            seq2, _ = self.seq(r.choice([INT, FLOAT]), 0, 4)
            body = self.lam_body(ty, 1, [], want=xv, want_ty=e1)
            if r.random() < 0.7:
                body = f"({body} if {yv} else {self.lam_body(ty, 0, [], want=xv, want_ty=e1)})"
            made, call = f"[lambda: {body} for {yv} in {seq2}]", None
            tail = ""
        elif x < 0.8:          # sorted with a key reading it, per item
            m = self.fresh("q")
            src, _ = self.seq(INT, 0, 6)
            key = r.choice([f"abs({m} - {xv})", f"({m} * {xv}) % 7" if e1 != FLOAT else f"{m} * {xv}",
                            f"({m} > {xv})", f"-{m} if {xv} else {m}"])
            made = f"sorted({src}, key=lambda {m}: {key})"
            call = "sum" if ty == INT else None
            tail = ""
        else:                  # in a dict comprehension, called through its values
            made = f"(lambda: {self.lam_body(ty, 1, [], want=xv, want_ty=e1)})"
            call = f"{f}()"
            tail = "dict"
        self.leave_loop(8)
        self.env, self.focus = saved_env, saved_focus
        self.nest -= 1
        if tail == "dict":
            k = self.fresh("k")
            self.emit(ind, f"{F} = {{{k}: {made} for {k}, {xv} in enumerate({seq})}}")
            src = f"{F}.values()"
        elif call is None and made.startswith("["):      # nested lists of lambdas
            self.emit(ind, f"{F} = [{made} for {xv} in {seq}]")
            row = self.fresh("w")
            fold = {INT: f"sum({f}() for {row} in {F} for {f} in {row})",
                    FLOAT: f"sum(({f}() for {row} in {F} for {f} in {row}), 0.0)",
                    BOOL: f"any({f}() for {row} in {F} for {f} in {row})"}[ty]
            self.gx_acc_fold(ind, fold, ty)
            if shadow:
                self.lam_fold(ind, self.lam_acc(ind), shadow, e1)
            return
        elif made.startswith("sorted"):
            self.emit(ind, f"{F} = [{made} for {xv} in {seq}]")
            row = self.fresh("w")
            self.gx_acc_fold(ind, f"sum({row}[0] * 3 + {row}[-1] for {row} in {F} if {row})", INT)
            if shadow:
                self.lam_fold(ind, self.lam_acc(ind), shadow, e1)
            return
        else:
            if r.random() < 0.3 and self.mult <= 100:        # made by a comprehension in a loop
                i = self.fresh("i")
                self.emit(ind, f"{F} = []")
                self.emit(ind, f"for {i} in range({r.randint(1, 3)}):")
                self.emit(ind + 1, f"{F} += [{made} for {xv} in {seq}]")
            else:
                self.emit(ind, f"{F} = [{made} for {xv} in {seq}]")
            src = F
        fold = {INT: f"sum({call} for {f} in {src})",
                FLOAT: f"sum(({call} for {f} in {src}), 0.0)",
                BOOL: f"{r.choice(['any', 'all'])}({call} for {f} in {src})"}[ty]
        self.gx_acc_fold(ind, fold, ty)
        if shadow:
            self.lam_fold(ind, self.lam_acc(ind), shadow, e1)

    # ---- unpacking ----------------------------------------------------------
    # `*`/`**` in calls (builtins, the module's u_* helpers, earlier typed
    # functions, methods), in displays, and starred (and nested) targets of
    # assignments and for statements.  What is unpacked: displays, list/set/
    # dict locals, ranges, strings, dicts (their keys), map/filter/reversed/
    # zip/enumerate iterators and u_gen's generators (bare generator
    # expressions: the genexpr_weight forms).  Everything is folded
    # into ints/floats/bools (u_args digests its arguments' repr); floats are
    # never compared by identity (sets, `in`, ==).  Bad operands (not
    # iterable, not a mapping, keys that are not strings, repeated keywords,
    # too few or too many items for the targets, an iterator raising inside)
    # come with small chances, so their errors are compared too (type,
    # message, chain).  kiln keeps every name a target list binds as a Python
    # object, as the typer does (the twin leaves their arithmetic unchecked);
    # `**=` is never applied to one, nor are locals `**=` was applied to bound
    # by a target list (an object int grows as Python's does, past the
    # oracle's time limit, and the native call has none).

    def atom(self, text: str) -> str:
        """text as the operand of `*`/`**` (parenthesised unless a primary)."""
        if text.isidentifier():
            return text
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return f"({text})"
        prim = (ast.Name, ast.Call, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp,
                ast.DictComp, ast.Subscript, ast.Attribute)
        if isinstance(node, prim) or (isinstance(node, ast.Tuple) and text.startswith("(")) \
                or (isinstance(node, ast.Constant) and not text.startswith("-")):
            return text
        return f"({text})"

    def unp_item(self, elem: str, d: int) -> str:
        """One item of type elem ("str": a string)."""
        if elem == "str":
            if self.r.random() < 0.5:
                return repr(self.r.choice(["", "a", "bc", "-1"]))
            return f"str({self.expr(self.r.choice(SCALARS), min(d, 1))})"
        return self.expr(elem, d)

    def unp_bad(self) -> str:
        """An operand of `*` that is not iterable, or whose iteration raises."""
        r = self.r
        x = r.random()
        if x < 0.5:
            self.may_raise("TypeError")
            return self.atom(r.choice([self.expr(r.choice([INT, INT, FLOAT, BOOL]), 1), "None"]))
        s, _ = self.unp_seq(INT, 1, 4)
        if x < 0.75:     # iteration raises TypeError inside (CPython keeps that error)
            self.may_raise("TypeError")
            return f"map(len, {s})"
        self.may_raise("ValueError")
        return f"u_gen(*{self.atom(s)}, fail={self.expr(INT, 0)})"

    def unp_seq(self, elem: str, d: int, cap: int, depth: int = 0) -> tuple[str, int]:
        """An iterable of elem items ("str": one-character strings) to unpack:
        text and most items."""
        r = self.r
        cap = max(1, cap)
        if elem == "str":
            x = r.random()
            if x < 0.4:
                return f"str({self.expr(r.choice([INT, FLOAT, BOOL]), 1)})", 24
            if x < 0.7:
                s = r.choice(["", "a", "ab", "xyz", "1-2", "-0"])
                return repr(s), len(s)
            if x < 0.85:
                return f"(str({self.expr(INT, 1)}) + ':' + str({self.expr(BOOL, 0)}))", 26
            return f"repr({self.expr(FLOAT, 1)})", 24
        for _ in range(4):
            x = r.random()
            if x < 0.3:
                return self.display(elem, min(cap, 5))
            if x < 0.42:
                c = self.coll_vars((LIST_OF[elem],), cap)
                if c:
                    v = r.choice(c)
                    return v, self.size[v]
            elif x < 0.54:
                if elem == INT:
                    if r.random() < 0.6:
                        n = r.randint(1, min(cap, 6))
                        return f"range({self.expr(INT, 1)} % {n + 1})", n
                    w = r.randint(0, min(cap, 5))
                    base = self.expr(INT, 1)
                    return f"range({base}, {base} + {w})", w
            elif x < 0.64:      # a generator (u_gen), an iterator
                if depth < 1:
                    s, n = self.unp_seq(elem, d, cap, depth + 1)
                    y = r.random()
                    if y < 0.5:
                        return f"u_gen(*{self.atom(s)})", n
                    if y < 0.7:
                        return f"iter({s})", n
                    if y < 0.85:
                        return f"filter(None, {s})", n
                    return f"reversed([*{self.atom(s)}])", n
            elif x < 0.7:
                if self.nest < 2 and self.mult <= 200:
                    body, n = self.comp_body(lambda dd: self.expr(elem, dd), max(1, d), min(cap, 12))
                    return f"[{body}]", n
            elif x < 0.78:
                if elem == INT:
                    c = self.coll_vars((DII, DIF, SI), cap)
                    if c and r.random() < 0.5:
                        v = r.choice(c)
                        return v, self.size[v]
                    n = r.randint(0, min(cap, 3))
                    if r.random() < 0.5:
                        return "{" + ", ".join(f"{self.expr(INT, 1)}: {self.expr(r.choice(SCALARS), 0)}"
                                               for _ in range(n)) + "}", n
                    if n:
                        return "{" + ", ".join(self.expr(INT, 1) for _ in range(n)) + "}", n
            elif x < 0.88:
                if depth < 1:
                    s1, n1 = self.unp_seq(elem, d, cap // 2, depth + 1)
                    k = r.randint(0, 2)
                    items = [self.expr(elem, 1) for _ in range(k)]
                    items.insert(r.randint(0, k), "*" + self.atom(s1))
                    if r.random() < 0.3:
                        s2, n2 = self.unp_seq(elem, d, cap // 2, depth + 1)
                        items.append("*" + self.atom(s2))
                        n1 += n2
                    if r.random() < 0.7:
                        return "[" + ", ".join(items) + "]", n1 + k
                    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")", n1 + k
            elif depth < 1:
                src = INT if elem != FLOAT else r.choice([INT, FLOAT])
                s, n = self.unp_seq(src, d, cap, depth + 1)
                f = {INT: "abs", FLOAT: "float" if src == INT else r.choice(["float", "abs"]),
                     BOOL: "bool"}[elem]
                return f"map({f}, {s})", n
        return self.display(elem, min(cap, 5))

    def unp_any_seq(self, d: int, cap: int) -> tuple[str, int]:
        """An iterable of any items (strings too) to unpack, sometimes a bad one."""
        r = self.r
        if r.random() < 0.06:
            return self.unp_bad(), 0
        return self.unp_seq(r.choice([INT, INT, FLOAT, BOOL, "str"]), d, cap)

    def unp_map(self, d: int, used: set, bad: float = 0.05) -> str:
        """A mapping with str keys for `**` (keys not in used, mostly; the keys
        it has are added to used); sometimes a bad one."""
        r = self.r
        if r.random() < bad:
            self.may_raise("TypeError")
            x = r.random()
            if x < 0.3:
                return self.atom(self.expr(r.choice([INT, FLOAT, BOOL]), 1))
            if x < 0.5:
                return f"[({r.choice(KW_NAMES)!r}, {self.expr(INT, 0)})]"
            if x < 0.7:
                return repr(r.choice(["k", "km", ""]))
            return "{" + f"{self.expr(INT, 0)}: {self.expr(INT, 0)}" + "}"   # keywords must be strings
        free = [k for k in KW_NAMES if k not in used]
        pool = free if free and r.random() < 0.9 else KW_NAMES
        if any(k in used for k in pool):
            self.may_raise("TypeError")
        keys = r.sample(pool, min(len(pool), r.randint(0, 3)))
        used.update(keys)
        vals = [self.expr(r.choice(SCALARS), max(0, min(d, 1))) for _ in keys]
        x = r.random()
        if x < 0.5 or not keys:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(keys, vals)) + "}"
        if x < 0.7:
            return "dict(" + ", ".join(f"{k}={v}" for k, v in zip(keys, vals)) + ")"
        if x < 0.8:
            inner = "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(keys[1:], vals[1:])) + "}"
            return "{" + f"**{inner}, {keys[0]!r}: {vals[0]}" + "}"
        if x < 0.9:
            s, _ = self.unp_seq(r.choice(SCALARS), 1, 4)
            return f"dict(zip({keys!r}, {s}))"
        t = self.fresh("x")
        return "{" + f"{keys[0]!r} + str({t}): {t} for {t} in range({r.randint(0, 3)})" + "}"

    def unp_args(self, d: int, npos: tuple = (0, 4), kw: bool = True, used: set | None = None,
                 need: str = "*", plain: set | None = None) -> str:
        """Arguments of a call with unpacking: positional ones and `*`s, then
        keywords and `**`s (sometimes a `*` after a keyword, as CPython
        allows).  need: what to add when nothing is unpacked ("*" or "**");
        used: keywords given so far, plain: those given as NAME=."""
        r = self.r
        used = set() if used is None else used
        plain = set() if plain is None else plain
        dd = max(0, d - 1)
        pos = []
        for _ in range(r.randint(*npos)):
            if r.random() < 0.45:
                s, _ = self.unp_any_seq(dd, 6)
                pos.append("*" + self.atom(s))
            else:
                pos.append(self.expr(r.choice(SCALARS), dd))
        kws = []
        if kw:
            for _ in range(r.choice([0, 0, 1, 1, 2, 3])):
                if r.random() < 0.5:
                    kws.append("**" + self.atom(self.unp_map(dd, used)))
                else:       # a name twice is a SyntaxError; one a ** gave too, a TypeError
                    free = [k for k in KW_NAMES if k not in used]
                    again = [k for k in KW_NAMES if k in used and k not in plain]
                    k = r.choice(free) if free and (r.random() < 0.93 or not again) else \
                        r.choice(again) if again else None
                    if k is None:
                        continue
                    if k in used:
                        self.may_raise("TypeError")
                    used.add(k)
                    plain.add(k)
                    kws.append(f"{k}={self.expr(r.choice(SCALARS), dd)}")
        if not any(a.startswith("*") for a in pos + kws) or (kws and r.random() < 0.1):
            if need == "**":
                kws.append("**" + self.atom(self.unp_map(dd, used)))
            else:
                s, _ = self.unp_any_seq(dd, 6)
                at = next((i for i, a in enumerate(kws) if a.startswith("**")), len(kws))
                kws.insert(r.randint(0, at), "*" + self.atom(s))   # f(k=1, *a): before any **
        return ", ".join(pos + kws)

    def unp_u_call(self, d: int) -> str:
        """A call of u_args/u_pos/u_kw (helpers with *args/**kwargs, left as
        Python) with unpacked arguments: an int."""
        r = self.r
        f = r.choice(["u_args", "u_args", "u_pos", "u_kw"])
        if f != "u_kw":
            return f"{f}({self.unp_args(d, (1, 4) if f == 'u_pos' else (0, 4))})"
        used: set = set()
        head = []
        if r.random() < 0.9:
            used.add("k")
            head.append(f"k={self.expr(r.choice(SCALARS), max(0, d - 1))}")
        else:
            self.may_raise("TypeError")                    # missing keyword-only k
        if r.random() < 0.1:
            self.may_raise("TypeError")                    # takes 0 positional arguments
            head.insert(0, self.expr(r.choice(SCALARS), max(0, d - 1)))
        rest = self.unp_args(d, (0, 0), used=used, need="**", plain=set(used))
        return f"u_kw({', '.join(head + [rest] if rest else head)})"

    def unp_helper_call(self, ty: str, d: int) -> str | None:
        """An earlier typed function of the module called with its arguments
        unpacked (sometimes one too many or missing, a repeated or unknown
        keyword)."""
        r = self.r
        c = [h for h in self.helpers if h.ret == ty and h.cost * self.mult <= 3000]
        if not c:
            return None
        h = r.choice(c)
        self.cost += h.cost * self.mult
        vals = [(n, self.expr(k, max(0, d - 1))) for n, k in h.params]
        split = r.randint(0, len(vals))
        pos, named = vals[:split], vals[split:]
        x = r.random()
        if x < 0.05:
            pos = pos + [("", self.expr(INT, 0))]          # one too many
            self.may_raise("TypeError")
        elif x < 0.1 and pos:
            named = named + [pos[0]]                        # got multiple values
            self.may_raise("TypeError")
        elif x < 0.13:
            named = named + [("zz", self.expr(INT, 0))]     # unexpected keyword
            self.may_raise("TypeError")
        elif x < 0.16:
            if named:
                named = named[:-1]                          # missing
            else:
                pos = pos[:-1]
            self.may_raise("TypeError")
        args = []
        i = 0
        while i < len(pos):
            k = r.randint(1, len(pos) - i)
            chunk = [v for _, v in pos[i:i + k]]
            y = r.random()
            if y < 0.3 and k == 1:
                args.append(chunk[0])
            elif y < 0.6:
                args.append("*[" + ", ".join(chunk) + "]")
            elif y < 0.85:
                args.append("*(" + ", ".join(chunk) + ("," if k == 1 else "") + ")")
            else:
                args.append("*[" + ", ".join(chunk) + "][:]")
            i += k
        kws = []
        i = 0
        while i < len(named):
            k = r.randint(1, len(named) - i)
            chunk = named[i:i + k]
            y = r.random()
            if y < 0.3 and k == 1:
                kws.append(f"{chunk[0][0]}={chunk[0][1]}")
            elif y < 0.75:
                kws.append("**{" + ", ".join(f"{n!r}: {v}" for n, v in chunk) + "}")
            else:
                kws.append("**dict(" + ", ".join(f"{n}={v}" for n, v in chunk) + ")")
            i += k
        if not any(a.startswith("*") for a in args + kws):
            args.append(r.choice(["*()", "*[]"]) if r.random() < 0.7 else "**{}")
            if args[-1] == "**{}":
                kws.append(args.pop())
        return f"{h.name}({', '.join(args + kws)})"

    def unp_display(self, elem: str, d: int, kind: str) -> tuple[str, int]:
        """A list/tuple/set display (kind "L"/"T"/"S") that unpacks: text, most items."""
        r = self.r
        items, n = [], 0
        for _ in range(r.randint(1, 4)):
            if r.random() < 0.55:
                if r.random() < 0.96:
                    s, k = self.unp_seq(elem, max(0, d - 1), 8)
                else:
                    s, k = self.unp_bad(), 0
                items.append("*" + self.atom(s))
                n += k
            else:
                items.append(self.unp_item(elem, max(0, d - 1)))
                n += 1
        if not any(a.startswith("*") for a in items):
            s, k = self.unp_seq(elem, max(0, d - 1), 8)
            items.insert(r.randint(0, len(items)), "*" + self.atom(s))
            n += k
        if kind == "S" and r.random() < 0.06:
            # an unhashable item (TypeError), maybe followed by one that raises:
            # CPython evaluates the items before the first * before it builds the set
            self.may_raise("TypeError")
            first = next(i for i, a in enumerate(items) if a.startswith("*"))
            at = r.randint(0, first) if r.random() < 0.7 else r.randint(0, len(items))
            if r.random() < 0.6:
                self.may_raise("ZeroDivisionError")
                items.insert(at, f"({self.expr(INT, 1)} // {self.zden()})")
            items.insert(at, f"[{self.expr(elem, 0)}]")
        if kind == "L":
            return "[" + ", ".join(items) + "]", n
        if kind == "S":
            return "{" + ", ".join(items) + "}", n
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")", n

    def unp_dict(self, vt: str, d: int) -> tuple[str, int]:
        """A dict display with int keys that unpacks dicts (`**`): text, most items."""
        r = self.r
        items, n = [], 0
        for _ in range(r.randint(1, 4)):
            x = r.random()
            if x < 0.5:
                c = self.coll_vars(("D:int:" + vt,), 40)
                if c and r.random() < 0.5:
                    v = r.choice(c)
                    items.append(f"**{v}")
                    n += self.size[v]
                elif r.random() < 0.5:
                    k = r.randint(0, 3)
                    items.append("**{" + ", ".join(f"{self.expr(INT, 1)}: {self.expr(vt, 1)}"
                                                   for _ in range(k)) + "}")
                    n += k
                else:
                    s, k = self.unp_seq(vt, 1, 5)
                    items.append(f"**dict(enumerate({s}))")
                    n += k
            elif x < 0.53:
                self.may_raise("TypeError")
                items.append("**" + self.atom(r.choice([self.expr(INT, 1), f"[{self.expr(vt, 0)}]"])))
            else:
                items.append(f"{self.expr(INT, max(0, d - 1))}: {self.expr(vt, max(0, d - 1))}")
                n += 1
        if not any(a.startswith("**") for a in items):
            items.insert(0, "**{" + f"{self.expr(INT, 1)}: {self.expr(vt, 1)}" + "}")
            n += 1
        if r.random() < 0.06:
            # an unhashable key (TypeError), maybe followed by a pair that raises:
            # CPython evaluates a run of pairs before it builds them into a dict
            self.may_raise("TypeError")
            at = r.randint(0, len(items))
            if r.random() < 0.6:
                self.may_raise("ZeroDivisionError")
                items.insert(at, f"({self.expr(INT, 1)} // {self.zden()}): {self.expr(vt, 0)}")
            items.insert(at, f"[{self.expr(INT, 0)}]: {self.expr(vt, 0)}")
        return "{" + ", ".join(items) + "}", n

    def unp_int(self, d: int) -> str:
        r = self.r
        k = r.randint(0, 12)
        if k <= 2:
            return self.unp_u_call(d)
        if k == 3:      # max/min over unpacked ints
            f = r.choice(["max", "min"])
            s, n = self.unp_seq(INT, d - 1, 8)
            x = r.random()
            if x < 0.4:
                return f"{f}({self.expr(INT, d - 1)}, *{self.atom(s)})"
            if x < 0.6:
                return f"{f}(*{self.atom(s)}, {self.expr(INT, d - 1)}, key=abs)"
            if x < 0.75:
                return f"{f}(*[{s}], default={self.expr(INT, d - 1)})"
            self.may_raise("TypeError")
            if x < 0.82:      # a default with several positionals
                return f"{f}(*{self.atom(s)}, {self.expr(INT, 0)}, default={self.expr(INT, 0)})"
            return f"{f}(*{self.atom(s)})"          # none or one item (not iterable)
        if k == 4:
            kind = r.choice(["L", "T", "S", "D"])
            if kind == "D":
                return f"len({self.unp_dict(r.choice([INT, FLOAT]), d)[0]})"
            elem = INT if kind == "S" else r.choice([INT, FLOAT, BOOL, "str"])
            return f"len({self.unp_display(elem, d, kind)[0]})"
        if k == 5:
            elem = r.choice([INT, INT, BOOL])
            text, _ = self.unp_display(elem, d, r.choice(["L", "T"]))
            if r.random() < 0.7:
                return f"sum({text})"
            start = r.choice([s for s in INT_STARTS if s not in ("True", "False")])
            return f"sum(*[{text}], {start})"
        if k == 6:
            c = self.unp_helper_call(INT, d)
            if c:
                return c
        if k == 7:
            text, n = self.unp_display(INT, d, r.choice(["L", "T"]))
            if r.random() < 0.5:
                return f"({text} or [{self.expr(INT, 0)}])[{r.choice(['0', '-1'])}]"
            self.may_raise("IndexError")
            return f"{text}[{self.index_text()}]"
        if k == 8:      # methods called with unpacked arguments
            x = r.random()
            if x < 0.3:
                return f"{self.unp_display(INT, d, 'L')[0]}.count(*[{self.expr(INT, 1)}])"
            if x < 0.45:
                self.may_raise("ValueError")
                return f"{self.unp_display(INT, d, 'L')[0]}.index(*({self.expr(INT, 1)},))"
            if x < 0.65:
                self.may_raise("IndexError", "KeyError")
                fmt = r.choice(["'{}|{}'", "'{0}{1}{0}'", "'{}'", "'{k}{}'", "'{:>4}'"])
                return f"len({fmt}.format({self.unp_args(d, (0, 3))}))"
            if x < 0.85:
                c = self.coll_vars((DII,), 40)
                dd = r.choice(c) if c else f"({self.unp_dict(INT, d)[0]})"   # no `{` first: f-strings
                return f"{dd}.get(*[{self.expr(INT, 1)}, {self.expr(INT, 1)}])"
            return f"str({self.expr(INT, 1)}).count(*[{r.choice(['1', '-', '0', ''])!r}])"
        if k == 9:      # builtins with unpacked arguments
            x = r.random()
            if x < 0.3:
                self.may_raise("ZeroDivisionError")
                return f"divmod(*[{self.expr(INT, d - 1)}, {self.zden()}])[{r.randint(0, 1)}]"
            if x < 0.5:
                return f"pow(*({self.expr(INT, d - 1)}, {self.expr(INT, 0)} % 5))"
            if x < 0.7:
                self.may_raise("ValueError")
                tail = r.choice(["", "", " + '0'", " + 'x'"])
                return f"int(*[str({self.expr(INT, d - 1)}){tail}])"
            if x < 0.85:
                return f"abs(*[{self.expr(INT, d - 1)}])"
            rev = self.expr(BOOL, 0)
            return f"len(sorted(*[{self.unp_display(INT, d, 'L')[0]}], **{{'reverse': {rev}}}))"
        if k == 10:     # a string, a dict, a generator unpacked
            x = r.random()
            if x < 0.35:
                s = self.atom(self.unp_seq("str", d, 20)[0])
                t = self.atom(self.unp_seq("str", d, 20)[0])
                c = r.choice(["1", "-", "a"])
                return r.choice([f"len([*{s}, *{t}])", f"[*{s}].count({c!r})", f"len({{*{s}}})",
                                 f"len((*{s}, *{t}))"])
            if x < 0.7:
                c = self.coll_vars((DII, DIF), 40)
                dd = r.choice(c) if c else self.unp_dict(INT, d)[0]
                return r.choice([f"len([*{dd}])", f"sum([*{dd}])", f"len({{**{dd}, **{dd}}})"])
            s, _ = self.unp_seq(INT, d - 1, 8)
            return r.choice([f"len([*u_gen(*{self.atom(s)})])",
                             f"sum((*u_gen(*{self.atom(s)}), {self.expr(INT, 0)}))"])
        c = self.unp_helper_call(INT, d) if k == 11 else None
        if c:
            return c
        return f"u_args({self.unp_args(d)})"

    def unp_float(self, d: int) -> str:
        r = self.r
        k = r.randint(0, 8)
        if k <= 1:
            f = r.choice(["max", "min"])
            s, _ = self.unp_seq(FLOAT, d - 1, 8)
            if r.random() < 0.6:
                return f"{f}({self.expr(FLOAT, d - 1)}, *{self.atom(s)})"
            return f"{f}(*{self.atom(s)}, {self.expr(FLOAT, d - 1)}, key=abs)"
        if k == 2:
            s = self.atom(self.unp_seq(r.choice([FLOAT, INT]), d - 1, 8)[0])
            return r.choice([f"math.hypot(*{s})", f"math.fsum([*{s}])",
                             f"sum((*{s}, {self.expr(FLOAT, 0)}), 0.0)"])
        if k == 3:      # a native function with defaults and keyword-only parameters
            args = [self.expr(INT, d - 1)]
            if r.random() < 0.5:
                args.append(self.expr(INT, d - 1))
            pos = f"*[{', '.join(args)}]" if r.random() < 0.7 else f"*({args[0]},)"
            kw = {}
            if r.random() < 0.6:
                kw["k"] = self.expr(FLOAT, d - 1)
            if r.random() < 0.4:
                kw["m"] = self.expr(BOOL, d - 1)
            if r.random() < 0.08:
                kw[r.choice(["p", "z"])] = self.expr(INT, 0)         # repeated / unexpected
                self.may_raise("TypeError")
            kws = "**{" + ", ".join(f"{n!r}: {v}" for n, v in kw.items()) + "}"
            return f"u_typed({pos}, {kws})"
        if k == 4:
            c = self.unp_helper_call(FLOAT, d)
            if c:
                return c
        if k == 5:
            text, _ = self.unp_display(FLOAT, d, r.choice(["L", "T"]))
            return f"({text} or [{self.expr(FLOAT, 0)}])[{r.choice(['0', '-1'])}]"
        if k == 6:
            f = r.choice(["math.copysign", "math.atan2", "math.fmod", "math.hypot"])
            if f == "math.fmod":
                self.may_raise("ValueError")
            return f"{f}(*[{self.expr(FLOAT, d - 1)}, {self.expr(FLOAT, d - 1)}])"
        if k == 7:
            return f"float(*[{self.expr(r.choice([INT, FLOAT]), d - 1)}])"
        return f"(float(u_args({self.unp_args(d)}) % 1000) / 7)"

    def unp_bool(self, d: int) -> str:
        r = self.r
        k = r.randint(0, 6)
        if k <= 1:
            text, _ = self.unp_display(BOOL, d, r.choice(["L", "T"]))
            return f"{r.choice(['any', 'all', 'bool'])}({text})"
        if k == 2:
            kind = r.choice(["L", "T", "S"])
            x, op = self.expr(INT, d - 1), r.choice(['in', 'not in'])
            return f"({x} {op} {self.unp_display(INT, d, kind)[0]})"
        if k == 3:
            a = self.unp_display(INT, d, "L")[0]
            b = self.unp_display(INT, d, "L")[0] if r.random() < 0.7 else f"[{self.expr(INT, 0)}]"
            return f"({a} {r.choice(['==', '!=', '<', '>='])} {b})"
        if k == 4:
            c = self.unp_helper_call(BOOL, d)
            if c:
                return c
        if k == 5:
            return f"(u_args({self.unp_args(d)}) % {r.choice([2, 3, 7])} == 0)"
        return f"({self.expr(INT, d - 1)} in {self.unp_dict(r.choice([INT, FLOAT]), d)[0]})"

    def unp_expr(self, ty: str, d: int) -> str:
        """An expression of type ty made with unpacking."""
        d = max(1, d)
        return {INT: self.unp_int, FLOAT: self.unp_float, BOOL: self.unp_bool}[ty](d)

    # statements with unpacking

    def unp_fold(self, names: list) -> str:
        """An int expression reading the (name, type) pairs a target list bound."""
        parts = []
        for n, t in names:
            if t == "sub":
                continue
            if t == INT:
                parts.append(n)
            elif t == BOOL:
                parts.append(f"int({n})")
            elif t == FLOAT:
                parts.append(f"len(str({n}))")
            elif t == "str":
                parts.append(f"len({n})")
            else:        # a list
                parts.append(f"len({n})")
        return " + ".join(parts) if parts else "0"

    def unp_target_name(self, ty: str, fresh: bool = False) -> str:
        """A fresh name, or (sometimes) a scalar local of type ty rebound, or
        an item of a list (IndexError when out of range) or dict local."""
        r = self.r
        if not fresh and ty in SCALARS and r.random() < 0.15:
            c = [v for v in self.assignable() if self.env[v] == ty and v not in self.focus
                 and v not in self.powed]
            if c:
                return r.choice(c)
        if not fresh and ty in SCALARS and self.mult <= 20 and r.random() < 0.1:
            c = [v for v, t in self.env.items() if t in (LIST_OF[ty], "D:int:" + ty)]
            if c:
                v = r.choice(c)
                if self.env[v].startswith("L"):
                    self.may_raise("IndexError")
                    return f"{v}[{self.index_text()}]"
                self.size[v] += self.mult
                return f"{v}[{self.expr(INT, 1)}]"
        return self.fresh("n")

    def unp_pattern(self, types: list, min_len: int, fresh: bool = False):
        """A target list for rows whose items have types (one type per
        position; a shorter list: the last one repeats); mostly one that
        needs at most min_len items.  Returns (text, [(name, type)]) where a
        starred name's type is its list type (or "list")."""
        r = self.r

        def ty_at(i):
            return types[min(i, len(types) - 1)]
        star = r.random() < 0.85
        most = min_len if r.random() < 0.85 else min_len + r.randint(1, 2)
        nb = r.randint(0, max(0, min(3, most)))
        na = r.randint(0, max(0, min(2, most - nb))) if star else 0
        if not star and nb == 0:
            nb = 1
        names, parts = [], []
        for i in range(nb):
            n = self.unp_target_name(ty_at(i), fresh)
            parts.append(n)
            names.append((n, "sub" if "[" in n else ty_at(i)))
        if star:
            rest = self.fresh("r")
            mid = types[nb:len(types) - na] if len(types) > nb + na else [ty_at(nb)] if len(types) < 2 else []
            lt = LIST_OF.get(mid[0]) if mid and all(t == mid[0] for t in mid) else None
            c = [v for v, t in self.env.items() if t == lt] if lt and not fresh and self.mult <= 20 else []
            if c and r.random() < 0.1:      # a slice of a list local takes the rest
                v = r.choice(c)
                self.size[v] += 16 * self.mult
                parts.append(f"*{v}[{self.index_text()}:{self.index_text()}]")
                names.append((parts[-1][1:], "sub"))
            else:
                parts.append("*" + rest)
                names.append((rest, lt or "list"))
        for i in range(na):
            t = ty_at(len(types) - na + i) if len(types) > 1 else ty_at(0)
            n = self.unp_target_name(t, fresh)
            parts.append(n)
            names.append((n, "sub" if "[" in n else t))
        if len({n for n, _ in names}) < len(names):      # a name twice: the last store wins
            return self.unp_pattern(types, min_len, True)
        x = r.random()
        if len(parts) == 1:
            text = parts[0] + ","
            if x < 0.3:
                text = f"[{parts[0]}]"
        elif x < 0.7:
            text = ", ".join(parts)
        elif x < 0.85:
            text = "[" + ", ".join(parts) + "]"
        else:
            text = "(" + ", ".join(parts) + ")"
        return text, names

    def unp_bind(self, names: list, n: int, definite: bool) -> None:
        """Registers what a target list bound (n: most items of a starred list)."""
        for name, t in names:
            if t == "sub":
                continue
            if t in SCALARS or t in (LI, LF, LB):
                if definite:
                    self.env[name] = t
                    self.maybe.pop(name, None)
                elif name not in self.env:
                    self.maybe[name] = t
                if t in (LI, LF, LB):
                    self.size[name] = max(1, n)
            self.objs.add(name)

    def unp_rows(self, cap: int) -> tuple[str, int, list, int]:
        """Rows for a for statement with a target list: text, most rows, the
        types of their items by position (the last repeats), least length."""
        r = self.r
        x = r.random()
        if x < 0.2:
            m = r.randint(1, 3)
            types = [r.choice([INT, INT, FLOAT, BOOL]) for _ in range(m)]
            seqs = [self.unp_seq(t, 1, cap) for t in types]
            return f"zip({', '.join(s for s, _ in seqs)})", min(n for _, n in seqs), types, m
        if x < 0.32:
            t = r.choice([INT, FLOAT, BOOL])
            s, n = self.unp_seq(t, 1, cap)
            start = "" if r.random() < 0.7 else f", {r.choice(['1', '-1', '9223372036854775806'])}"
            return f"enumerate({s}{start})", n, [INT, t], 2
        if x < 0.42:
            vt = r.choice([INT, FLOAT])
            c = self.coll_vars(("D:int:" + vt,), cap)
            text, n = (r.choice(c), 0) if c and r.random() < 0.6 else self.unp_dict(vt, 1)
            if text in self.size:
                n = self.size[text]
            return f"{text}.items()", n, [INT, vt], 2
        if x < 0.5:
            rows = [self.unp_seq("str", 0, 6)[0] for _ in range(r.randint(1, 3))]
            return "[" + ", ".join(rows) + "]", len(rows), ["str"], 0
        if x < 0.53:        # ints (a native range, a list): TypeError unless empty
            self.may_raise("TypeError")
            if r.random() < 0.6:
                return f"range({self.expr(INT, 1)} % 3)", 2, ["introw"], 0
            return self.display(INT, 2) + (["introw"], 0)
        t = r.choice([INT, INT, FLOAT, BOOL])
        rows, least = [], 99
        for _ in range(r.randint(1, 4)):
            if r.random() < 0.7:
                s, k = self.display(t, 4)
                least = min(least, k)
            else:
                s, k = self.unp_display(t, 0, r.choice(["L", "T"]))
                least = 0
            rows.append(s)
        if r.random() < 0.2:
            return f"({', '.join(rows)}{',' if len(rows) == 1 else ''})", len(rows), [t], least
        return "[" + ", ".join(rows) + "]", len(rows), [t], least

    def unp_stmt(self, ind: int, depth: int) -> None:
        r = self.r
        x = r.random()
        if x < 0.3:
            return self.unp_assign(ind)
        if x < 0.5 and depth > 0 and self.mult <= 200:
            return self.unp_for(ind, depth)
        if x < 0.65:
            return self.unp_coll(ind)
        if x < 0.75:
            return self.unp_logged(ind)
        if x < 0.87:
            return self.unp_print(ind)
        acc = self.lam_acc(ind)
        ty = r.choice([INT, INT, FLOAT, BOOL])
        self.lam_fold(ind, acc, self.unp_expr(ty, 2), ty if ty != BOOL else INT)

    def unp_handler(self) -> str:
        return self.r.choice(["ValueError", "TypeError", "(ValueError, TypeError)",
                              "(TypeError, ValueError, IndexError)", "LookupError"])

    def unp_assign(self, ind: int) -> None:
        """Target lists with a star (or nested ones) bound from an iterable;
        in a try that catches the ValueError/TypeError of a bad one."""
        r = self.r
        elem = r.choice([INT, INT, FLOAT, BOOL, "str"])
        x = r.random()
        guarded = r.random() < 0.4
        if x < 0.6:
            y = r.random()
            if y < 0.55:
                src, n = self.unp_seq(elem, 2, 8)
                least = n if src.startswith("[") and "*" not in src and " for " not in src else 0
            elif y < 0.8:
                src, n = self.unp_display(elem, 2, r.choice(["L", "T"]))
                least = 0
            else:       # a bare tuple display
                src, n = self.unp_display(elem, 2, "T")
                src = src[1:-1].rstrip(",") + ("," if src.endswith(",)") else "")
                least = 0
            if guarded and r.random() < 0.25:
                self.may_raise("TypeError")
                src = f"({src}) if {self.cond(1)} else {self.expr(r.choice(SCALARS), 1)}"
            text, names = self.unp_pattern([elem], least)
            if r.random() < 0.15 and src.startswith("[") and "for" not in src and elem in LIST_OF:
                lv = self.fresh("L")           # and the list itself, to a second target
                text = f"{text} = {lv}"
                names.append((lv, LIST_OF[elem]))
            line = f"{text} = {src}"
        elif x < 0.8:   # nested: a, (b, *c) = x, ROW / [(a, *b), c] = [ROW, x]
            row, n = self.unp_seq(elem, 1, 6) if r.random() < 0.6 else self.unp_display(elem, 1, "L")
            if guarded and r.random() < 0.3:       # not iterable
                self.may_raise("TypeError")
                row = self.expr(r.choice(SCALARS), 1)
            inner, inames = self.unp_pattern([elem], 0, True)
            inner = self.unp_nested(inner)
            o = self.fresh("n")
            names = [(o, elem)] + inames
            if r.random() < 0.5:
                line = f"{o}, {inner} = {self.unp_item(elem, 1)}, {row}"
            else:
                line = f"[{inner}, {o}] = [{row}, {self.unp_item(elem, 1)}]"
        else:           # rows: a, *b = zip(...)/enumerate(...) and the rows' items
            rows, n, types, least = self.unp_rows(6)
            text, names = self.unp_pattern(["row"], 0, True)
            line = f"{text} = {rows}"
            # rows (tuples, lists, strs; ints from "introw" ones) and a list
            names = [(nm, INT if t == "row" and types == ["introw"] else "list") for nm, t in names]
        self.may_raise("ValueError")
        if not guarded:
            self.emit(ind, line)
            self.unp_bind(names, n, True)
            if r.random() < 0.5:
                acc = self.lam_acc(ind)
                self.lam_fold(ind, acc, self.unp_fold(names), INT)
            return
        acc = self.lam_acc(ind)
        e = self.fresh("e")
        self.emit(ind, "try:")
        self.emit(ind + 1, line)
        self.emit(ind, f"except {self.unp_handler()} as {e}:")
        self.emit(ind + 1, f"{acc} -= len(str({e}))")
        if r.random() < 0.7:
            self.emit(ind, "else:")
            self.lam_fold(ind + 1, acc, self.unp_fold(names), INT)
        self.unp_bind(names, n, False)

    def unp_nested(self, text: str) -> str:
        """A target list (unp_pattern's text) as a nested one."""
        if text.startswith(("[", "(")):
            return text
        if text.endswith(","):
            return f"({text})"
        return f"({text})" if self.r.random() < 0.6 else f"[{text}]"

    def unp_for(self, ind: int, depth: int) -> None:
        """for with a target list that has a star (or is nested)."""
        r = self.r
        rows, n, types, least = self.unp_rows(8)
        n = max(1, n)
        if r.random() < 0.15:        # nested: for i, (a, *r) in enumerate(rows)
            inner, names = self.unp_pattern(types, least, True)
            inner = self.unp_nested(inner)
            i = self.fresh("n")
            tgt = f"{i}, {inner}" if r.random() < 0.7 else f"[{i}, {inner}]"
            names = [(i, INT)] + names
            rows = f"enumerate({rows})"
        else:
            tgt, names = self.unp_pattern(types, least, True)
        if least < 2:
            self.may_raise("ValueError")
        self.emit(ind, f"for {tgt} in {rows}:")
        self.enter_loop(n)
        saved = dict(self.env)
        self.unp_bind(names, 8, True)
        if r.random() < 0.7:
            acc = [v for v in self.assignable() if self.env[v] in (INT, FLOAT) and v in saved
                   and v not in {nm for nm, _ in names}]
            if acc:
                self.lam_fold(ind + 1, r.choice(acc), self.unp_fold(names), INT)
        self.block(ind + 1, r.randint(1, 2), depth - 1)
        for v, t in self.env.items():
            if v not in saved:
                self.maybe[v] = t
        self.env = saved
        self.leave_loop(n)
        if r.random() < 0.1:
            self.emit(ind, "else:")
            self.scoped_block(ind + 1, 1, depth - 1)

    def unp_coll(self, ind: int) -> None:
        """A list/set/dict local made by a display that unpacks, or a method
        of one called with unpacked arguments."""
        r = self.r
        x = r.random()
        mine = [v for v, t in self.env.items() if t in (LI, LF, LB, SI, DII, DIF)]
        if x < 0.25 and mine and self.mult <= 20:
            v = r.choice(mine)
            t = self.env[v]
            if t in (LI, LF, LB):
                elem = t[2:]
                y = r.random()
                if y < 0.4:
                    s, k = self.unp_seq(elem, 1, 6)
                    self.emit(ind, f"{v}.extend([*{self.atom(s)}])")
                elif y < 0.7:
                    k = 1
                    self.emit(ind, f"{v}.append(*[{self.expr(elem, 1)}])")
                else:
                    k = 1
                    self.emit(ind, f"{v}.insert(*({self.expr(INT, 1)}, {self.expr(elem, 1)}))")
            elif t == SI:
                s, k = self.unp_seq(INT, 1, 6)
                self.emit(ind, f"{v}.update(*[{s}], {{*{self.atom(self.unp_seq(INT, 1, 3)[0])}}})")
                k += 3
            else:
                k = r.randint(0, 2)
                d = "{" + ", ".join(f"{self.expr(INT, 1)}: {self.expr(t.split(':')[2], 1)}"
                                    for _ in range(k)) + "}"
                self.emit(ind, f"{v}.update(*[{d}])" if r.random() < 0.5 else f"{v}.update({{**{d}}})")
            self.size[v] += k * self.mult
            return
        if x < 0.6:
            elem = r.choice([INT, INT, FLOAT, FLOAT, BOOL])
            text, n = self.unp_display(elem, 2, "L")
            v = self.fresh("L")
            self.emit(ind, f"{v} = {text}")
            self.env[v] = LIST_OF[elem]
        elif x < 0.75:
            text, n = self.unp_display(INT, 2, "S")
            v = self.fresh("S")
            self.emit(ind, f"{v} = {text}")
            self.env[v] = SI
        elif x < 0.9:
            vt = r.choice([INT, FLOAT])
            text, n = self.unp_dict(vt, 2)
            v = self.fresh("D")
            self.emit(ind, f"{v} = {text}")
            self.env[v] = "D:int:" + vt
        else:           # a tuple bound without parentheses, folded
            elem = r.choice([INT, BOOL])
            text, n = self.unp_display(elem, 2, "T")
            v = self.fresh("t")
            self.emit(ind, f"{v} = {text[1:-1]}")
            acc = self.lam_acc(ind)
            self.lam_fold(ind, acc, f"sum({v}) + len({v})", INT)
            return
        self.size[v] = max(1, n)
        self.objs.add(v)

    def unp_logged(self, ind: int) -> None:
        """The order CPython evaluates a call's parts in (callee, positionals
        and `*`s, keywords and `**`s): u_log records tags as they come."""
        r = self.r
        t = self.fresh("T")
        tag = iter(range(1, 100))
        parts = []
        for _ in range(r.randint(1, 3)):
            y = r.random()
            if y < 0.4:
                s, _ = self.unp_seq(r.choice([INT, BOOL]), 0, 4)
                parts.append(f"*u_log({t}, {next(tag)}, {s})")
            elif y < 0.6:   # logged when iterated: a lone * only after the keywords
                tags = [str(100 + next(tag)) for _ in range(r.randint(1, 2))]
                parts.append(f"*map({t}.append, [{', '.join(tags)}])")
            else:
                parts.append(f"u_log({t}, {next(tag)}, {self.expr(INT, 0)})")
        used: set = set()
        for _ in range(r.randint(0, 2)):
            if r.random() < 0.5:
                parts.append(f"**u_log({t}, {next(tag)}, {self.unp_map(0, used, 0.1)})")
            else:
                k = r.choice([k for k in KW_NAMES if k not in used])
                used.add(k)
                parts.append(f"{k}=u_log({t}, {next(tag)}, {self.expr(INT, 0)})")
        if r.random() < 0.3:      # a * after a keyword: still evaluated before it
            at = next((i for i, a in enumerate(parts) if a.startswith("**")), len(parts))
            s, _ = self.unp_seq(INT, 0, 3)
            parts.insert(at, f"*u_log({t}, {next(tag)}, {s})")
        if r.random() < 0.1:      # not iterable: TypeError after what came before
            at = next((i for i, a in enumerate(parts) if "=" in a.split("(")[0] or a.startswith("**")),
                      len(parts))
            parts.insert(at, f"*u_log({t}, {next(tag)}, {self.expr(INT, 0)})")
        if not any(a.startswith("*") for a in parts):
            parts.insert(0, f"*u_log({t}, {next(tag)}, ())")
        f = r.choice(["u_args", "u_args", "u_pos"]) if not parts[0].startswith("*") else "u_args"
        acc = self.lam_acc(ind)
        e = self.fresh("e")
        self.emit(ind, f"{t} = []")
        self.emit(ind, "try:")
        self.emit(ind + 1, f"{acc} += u_log({t}, 0, {f})({', '.join(parts)}) % 1000")
        self.emit(ind, f"except {self.unp_handler()} as {e}:")
        self.emit(ind + 1, f"{acc} -= len(str({e}))")
        self.lam_fold(ind, acc, f"u_args(*{t})", INT)

    def unp_print(self, ind: int) -> None:
        """print() with unpacked arguments into a StringIO (u_buf), folded."""
        r = self.r
        b = self.fresh("B")
        self.emit(ind, f"{b} = u_buf()")
        for _ in range(r.randint(1, 3)):
            items = []
            for _ in range(r.randint(1, 3)):
                if r.random() < 0.6:
                    s, _ = self.unp_any_seq(1, 5)
                    items.append("*" + self.atom(s))
                else:
                    items.append(self.expr(r.choice(SCALARS), 1))
            kw = {"file": b}
            if r.random() < 0.5:
                kw["sep"] = r.choice(["''", "'-'", "', '", "None"])
            if r.random() < 0.4:
                kw["end"] = r.choice(["''", "'|'", "None"])
            bad = r.random() < 0.05
            if bad:
                kw[r.choice(["sep", "sepx"])] = self.expr(INT, 0)
            named = [f"{k}={v}" for k, v in kw.items()]
            if r.random() < 0.4:
                k = r.choice(list(kw))
                named.remove(f"{k}={kw[k]}")
                named.append(f"**{{{k!r}: {kw[k]}}}")
            line = f"print({', '.join(items + named)})"
            if r.random() < 0.2:
                line = f"{b}.write(*[{r.choice(['str', 'repr'])}({self.expr(r.choice(SCALARS), 1)})])"
            if bad:
                acc = self.lam_acc(ind)
                e = self.fresh("e")
                self.emit(ind, "try:")
                self.emit(ind + 1, line)
                self.emit(ind, f"except TypeError as {e}:")
                self.emit(ind + 1, f"{acc} -= len(str({e}))")
            else:
                self.may_raise("TypeError", "ValueError")
                self.emit(ind, line)
        acc = self.lam_acc(ind)
        fold = r.choice([f"len({b}.getvalue())", f"u_args({b}.getvalue())",
                         f"{b}.getvalue().count({r.choice(['-', '1', ' ', 'e'])!r})"])
        self.lam_fold(ind, acc, fold, INT)

    # ---- match statements -----------------------------------------------------
    # A match statement over a subject of a known shape (MShape): a typed
    # scalar (`a % 4`, a float, a bool, sometimes through m_tick, which logs
    # its evaluation), a str, a tuple of locals (`match a, b:`), a list or
    # tuple display, list local, comprehension or range, a dict display or
    # local, an instance of the M* helper classes, or one of two shapes
    # decided at run time (`x if c else y`, None).  One to four cases whose
    # patterns mostly fit the shape (so that some match) and sometimes do not
    # (a str or a dict against a sequence pattern, an int against a class
    # pattern, a length off by one, a missing key or attribute), with guards
    # reading the captures (sometimes raising), bodies folding the captures
    # into an accumulator, assigting a typed local declared before the match,
    # running other statements (break/continue in loops, return, nested
    # matches, some on a capture), and a capture read after the match
    # (UnboundLocalError when no case bound it).  Captures of a typed value
    # go into env with its type (kiln keeps every capture but one of the
    # subject itself as an object, as the checked twin does:
    # typer.Typer.bind_pattern); the others are folded by m_fold.
    # Case-level irrefutable patterns come only last or with a guard, and
    # every or-pattern's alternatives are refutable and bind the same names,
    # so every statement compiles on CPython 3.10-3.13.

    def m_scalar(self, ty: str) -> tuple[str, MShape]:
        """A scalar of type ty, often one of a few values (patterns hit it):
        text and shape (with the literals it is likely equal to)."""
        r = self.r
        x = r.random()
        if ty == INT:
            if x < 0.35:
                k = r.randint(2, 5)
                return f"{self.leaf(INT)} % {k}", MShape("S", INT, vals=[str(i) for i in range(k)])
            if x < 0.5:
                k, j = r.randint(2, 6), r.randint(0, 2)
                return (f"({self.expr(INT, 1)}) % {k} - {j}",
                        MShape("S", INT, vals=[str(i - j) for i in range(k)]))
            if x < 0.8:
                t = self.leaf(INT)
                lit = t.strip("()")
                return t, MShape("S", INT, vals=[lit] if re.fullmatch(r"-?\d+", lit) else
                                 ["0", "1", "-1", "2", "3"])
            return self.expr(INT, 2), MShape("S", INT, vals=["0", "1", "-1"])
        if ty == FLOAT:
            if x < 0.25:
                k = r.randint(2, 4)
                return (f"{self.leaf(INT)} % {k} * 0.5",
                        MShape("S", FLOAT, vals=[repr(i * 0.5) for i in range(k)] + ["0", "1", "-0.0"]))
            if x < 0.4:
                k = r.randint(2, 4)
                return (f"float({self.leaf(INT)} % {k})",
                        MShape("S", FLOAT, vals=[repr(float(i)) for i in range(k)] + ["0", "1", "2"]))
            if x < 0.8:
                t = self.leaf(FLOAT)
                lit = t.strip("()")
                return t, MShape("S", FLOAT, vals=[lit] if re.fullmatch(r"-?[\d.e+-]+", lit) else
                                 ["0.0", "-0.0", "0.5", "1.0", "0"])
            return self.expr(FLOAT, 2), MShape("S", FLOAT, vals=["0.0", "1.0", "math.inf", "0"])
        t = self.leaf(BOOL) if x < 0.6 else self.expr(BOOL, 2)
        return t, MShape("S", BOOL, vals=["True", "False", "0", "1", "1.0"])

    def m_str(self) -> tuple[str, MShape]:
        r = self.r
        x = r.random()
        if x < 0.35:
            k = r.randint(2, 12)
            return f"str({self.leaf(INT)} % {k})", MShape("str", vals=[repr(str(i)) for i in range(k)])
        if x < 0.65:
            k = r.randint(2, 5)
            opts = r.sample(["''", "'a'", "'ab'", "'xyz'", "'1'", "'10'"], k)
            return f"({', '.join(opts)})[{self.leaf(INT)} % {k}]", MShape("str", vals=opts)
        if x < 0.8:
            return f"str({self.expr(r.choice(SCALARS), 1)})", MShape("str", vals=["'0'", "'1'", "'True'"])
        s = repr(r.choice(["", "a", "ab", "0", "nan"]))
        return s, MShape("str", vals=[s])

    def m_item(self, d: int, T: str) -> tuple[str, MShape]:
        """A display item or an attribute of an object: text and shape."""
        r = self.r
        x = r.random()
        if x < 0.72 or d <= 0:
            ty = r.choice([INT, INT, FLOAT, BOOL])
            return self.m_scalar(ty) if r.random() < 0.7 else (self.expr(ty, 1), MShape("S", ty))
        if x < 0.82:
            return self.m_object(d - 1, T)
        if x < 0.9:
            parts = [self.m_scalar(INT) for _ in range(r.randint(0, 3))]
            return "[" + ", ".join(t for t, _ in parts) + "]", MShape("seq", cls="list", items=[s for _, s in parts])
        if x < 0.95:
            return "None", MShape("none")
        return self.m_str()

    def m_object(self, d: int, T: str) -> tuple[str, MShape]:
        """An instance of one of the M* helper classes: text and shape."""
        r = self.r
        c = r.choice(["MPt", "MPt", "MPt3", "MBox", "MD", "MNT", "MLog", "MLog", "MSeq", "MMap", "MBad"])
        if c in ("MPt", "MPt3", "MNT"):
            names = {"MPt": "xy", "MPt3": "xyz", "MNT": "pq"}[c]
            parts = [self.m_item(d, T) for _ in names]
            attrs = {a: s for a, (_, s) in zip(names, parts)}
            return (f"{c}({', '.join(t for t, _ in parts)})",
                    MShape("obj", cls=c, attrs=attrs, items=[s for _, s in parts] if c == "MNT" else None))
        if c in ("MBox", "MBad"):
            t, s = self.m_item(d, T)
            return f"{c}({t})", MShape("obj", cls=c, attrs={"v": s})
        if c == "MD":
            (p, sp), (q, sq) = self.m_scalar(INT), self.m_scalar(FLOAT)
            x = r.random()
            if x < 0.2:
                return f"MD({p})", MShape("obj", cls="MD", attrs={"p": sp, "q": MShape("S", FLOAT, vals=["0.0"])})
            text = f"MD({p}, {q})" if x < 0.7 else f"MD(q={q}, p={p})"
            return text, MShape("obj", cls="MD", attrs={"p": sp, "q": sq})
        if c == "MLog":
            if r.random() < 0.2:
                v, sv = "None", MShape("none")       # reading v raises ValueError
                self.may_raise("ValueError")
            else:
                v, sv = self.m_item(d, T)
            w, sw = self.m_item(d, T)
            return f"MLog({T}, {v}, {w})", MShape("obj", cls="MLog", attrs={"v": sv, "w": sw})
        if c == "MSeq":
            ty = r.choice([INT, INT, FLOAT])
            n = r.randint(0, 4)
            parts = [self.m_scalar(ty) for _ in range(n)]
            items, its = [t for t, _ in parts], [s for _, s in parts]
            return (f"MSeq({T}, [{', '.join(items)}])",
                    MShape("obj", cls="MSeq", items=its, attrs={"items": MShape("seq", cls="list", items=its)}))
        keys = r.sample(M_KEYS, r.randint(0, 3))
        vals = [self.m_item(d, T) for _ in keys]
        return (f"MMap({T}, {{{', '.join(f'{k}: {t}' for k, (t, _) in zip(keys, vals))}}})",
                MShape("map", cls="MMap", keys={k: s for k, (_, s) in zip(keys, vals)}))

    def m_subject(self, T: str) -> tuple[str, MShape]:
        r = self.r
        x = r.random()
        if x < 0.28:
            text, sh = self.m_scalar(r.choice([INT, INT, INT, FLOAT, BOOL]))
            if r.random() < 0.1:
                text = f"m_tick({T}, {text})"
            return text, sh
        if x < 0.4:       # match a, b:
            n = r.choice([2, 2, 3])
            parts = [self.m_scalar(r.choice([INT, INT, FLOAT, BOOL])) for _ in range(n)]
            text = ", ".join(t for t, _ in parts)
            if r.random() < 0.3:
                text = f"({text})"
            return text, MShape("seq", cls="tuple", items=[s for _, s in parts])
        if x < 0.54:
            return self.m_seq_subject(T)
        if x < 0.61:
            return self.m_str()
        if x < 0.75:
            return self.m_map_subject(T)
        if x < 0.92:
            return self.m_object(r.choice([0, 1, 1, 2]), T)
        # one of two shapes, decided at run time
        ta, sa = self.m_subject(T) if r.random() < 0.8 else ("None", MShape("none"))
        tb, sb = self.m_subject(T) if r.random() < 0.8 else ("None", MShape("none"))
        return f"({ta}) if {self.cond(1)} else ({tb})", MShape("alt", items=[sa, sb])

    def m_seq_subject(self, T: str) -> tuple[str, MShape]:
        r = self.r
        x = r.random()
        if x < 0.3:
            n = r.choice([0, 1, 2, 2, 3, 3, 4])
            parts = [self.m_item(1, T) for _ in range(n)]
            shapes = [s for _, s in parts]
            if r.random() < 0.3:
                return ("(" + ", ".join(t for t, _ in parts) + ("," if n == 1 else "") + ")",
                        MShape("seq", cls="tuple", items=shapes))
            return "[" + ", ".join(t for t, _ in parts) + "]", MShape("seq", cls="list", items=shapes)
        if x < 0.45:
            c = [v for v, t in self.env.items() if t in (LI, LF, LB) and self.size.get(v, 0) <= 200]
            if c:
                v = r.choice(c)
                return v, MShape("seq", cls="list", ty=self.env[v][2:], n=self.size[v])
        if x < 0.58 and self.nest < 2:
            ty = r.choice([INT, INT, FLOAT, BOOL])
            body, n = self.comp_body(lambda dd: self.expr(ty, dd), 1, 6)
            return f"[{body}]", MShape("seq", cls="list", ty=ty, n=n)
        if x < 0.7:
            k = r.randint(1, 6)
            return f"range({self.leaf(INT)} % {k})", MShape("seq", cls="range", ty=INT, n=k - 1)
        if x < 0.9:          # a Sequence that logs __len__ and __getitem__
            ty = r.choice([INT, INT, FLOAT])
            parts = [self.m_scalar(ty) for _ in range(r.randint(0, 4))]
            its = [s for _, s in parts]
            return (f"MSeq({T}, [{', '.join(t for t, _ in parts)}])",
                    MShape("obj", cls="MSeq", items=its, attrs={"items": MShape("seq", cls="list", items=its)}))
        return self.m_object(1, T)

    def m_map_subject(self, T: str) -> tuple[str, MShape]:
        r = self.r
        x = r.random()
        if x < 0.6:
            keys = r.sample(M_KEYS, r.choice([0, 1, 2, 2, 3, 3]))
            vals = [self.m_item(1, T) for _ in keys]
            sh = MShape("map", cls="dict", keys={k: s for k, (_, s) in zip(keys, vals)})
            if x < 0.5 or not keys:
                return "{" + ", ".join(f"{k}: {t}" for k, (t, _) in zip(keys, vals)) + "}", sh
            return "dict(" + ", ".join(f"{k[1:-1]}={t}" for k, (t, _) in zip(keys, vals)) + ")", sh
        if x < 0.75:
            keys = r.sample(["0", "1", "2", "-1"], r.randint(1, 3))
            vals = [self.m_item(1, T) for _ in keys]
            return ("{" + ", ".join(f"{k}: {t}" for k, (t, _) in zip(keys, vals)) + "}",
                    MShape("map", cls="dict", keys={k: s for k, (_, s) in zip(keys, vals)}))
        if x < 0.92:
            ty = r.choice([DII, DIF])
            text, n = self.coll_value(ty, 1, 6)
            return text, MShape("map", cls="dict", ty=ty.split(":")[2], n=n)
        return self.m_object(1, T)

    # patterns

    @staticmethod
    def m_class_of(sh: MShape) -> str | None:
        if sh.k == "S":
            return {INT: "int", FLOAT: "float", BOOL: "bool"}[sh.ty]
        if sh.k == "str":
            return "str"
        if sh.k == "none":
            return "NoneType"
        if sh.k in ("seq", "map", "obj"):
            return sh.cls
        return None

    def m_exact(self, sh: MShape, typed: bool) -> str | None:
        return sh.ty if typed and sh.k == "S" else None

    def m_pat(self, sh: MShape, d: int, ns: _MNames, typed: bool, top: bool = False,
              refutable: bool = False, whole: bool = False) -> tuple[str, bool, str]:
        """A pattern against a value of shape sh (its captures' types are
        the values' when typed): (text, irrefutable, form) with form
        "closed", "or", "as" or "open" (a case's `a, b`).  top: a case's
        pattern; whole: one for the subject itself (an alternative of an
        or-pattern at the top, ...), else a sub-pattern."""
        for _ in range(4):
            saved = ns.save()
            res = self.m_pat1(sh, d, ns, typed, top, whole or top)
            if not (refutable and res[1]):
                return res
            ns.restore(saved)
        return self.m_literal(sh), False, "closed"

    def m_pat1(self, sh: MShape, d: int, ns: _MNames, typed: bool, top: bool,
               whole: bool) -> tuple[str, bool, str]:
        r = self.r
        if sh.k == "alt":
            if r.random() < 0.8:
                return self.m_pat1(r.choice(sh.items), d, ns, False, top, whole)
            sh, typed = MShape("any"), False
        k = sh.k
        seqish = k == "seq" or (k == "obj" and sh.items is not None)
        w = {"cap": 5, "wild": 3, "lit": 8, "single": 3, "value": 4, "or": 8, "as": 5, "cls": 10,
             "seq": 4, "map": 3, "group": 1}
        if k == "S":
            w.update(lit=30, value=8, cls=12)
        elif k == "str":
            w.update(lit=25, value=5, cls=8, seq=6)
        elif seqish:
            w.update(seq=35, lit=3, cls=10 if k == "obj" else 8)
        elif k == "map":
            w.update(map=50, lit=3, seq=5)
        elif k == "obj":
            w.update(cls=40, lit=4, value=4)
        elif k == "none":
            w.update(single=12, lit=4)
        if not whole:     # a sub-pattern: mostly one that lets the whole match
            w.update(cap=w["cap"] + 20, wild=w["wild"] + 10, lit=min(w["lit"], 10),
                     value=min(w["value"], 3), single=min(w["single"], 2))
            w["or"] = min(w["or"], 5)
            if k != "obj":
                w["cls"] = min(w["cls"], 8)
        if d <= 0:
            w.update({kk: 0 for kk in ("or", "as", "seq", "map", "group")}, cls=2)
        kinds = list(w)
        kind = r.choices(kinds, [w[kk] for kk in kinds])[0]
        if kind == "cap":
            name = ns.take()
            if name is None:
                return "_", True, "closed"
            ns.binds[name] = (self.m_exact(sh, typed), sh if typed else None)
            return name, True, "closed"
        if kind == "wild":
            return "_", True, "closed"
        if kind == "lit":
            return self.m_literal(sh), False, "closed"
        if kind == "single":
            return r.choice(["None", "True", "False"]), False, "closed"
        if kind == "value":
            key = sh.ty if k == "S" else "str" if k == "str" else "any"
            val = r.choice(M_VALUES[key])
            if val == "MK.ODD" and k != "S":
                self.may_raise("TypeError")
            return val, False, "closed"
        if kind == "or":
            return self.m_or(sh, d, ns, typed, whole)
        if kind == "as":
            t, irr, f = self.m_pat(sh, d - 1, ns, typed, whole=whole)
            name = ns.take()
            if name is None:
                return (t if f == "closed" else f"({t})"), irr, "closed"
            ns.binds[name] = (self.m_exact(sh, typed), sh if typed else None)
            return f"{t if f in ('closed', 'or') else f'({t})'} as {name}", irr, "as"
        if kind == "group":
            t, irr, f = self.m_pat(sh, d - 1, ns, typed, whole=whole)
            return f"({t})", irr, "closed"
        if kind == "seq":
            return self.m_seq_pat(sh, d, ns, typed, top)
        if kind == "map":
            return self.m_map_pat(sh, d, ns, typed)
        return self.m_cls_pat(sh, d, ns, typed)

    def m_literal(self, sh: MShape) -> str:
        r = self.r
        if sh.vals and r.random() < 0.7:
            return r.choice(sh.vals)
        if r.random() < 0.08:
            return r.choice(M_STR_LITS + M_INT_LITS + M_FLOAT_LITS + ["b'ab'", "b''"])
        if sh.k == "S":
            return r.choice({INT: M_INT_LITS, FLOAT: M_FLOAT_LITS,
                             BOOL: ["0", "1", "1.0", "0.0", "2", "-1"]}[sh.ty])
        if sh.k == "str" or r.random() < 0.4:
            return r.choice(M_STR_LITS)
        return r.choice(M_INT_LITS)

    def m_or(self, sh: MShape, d: int, ns: _MNames, typed: bool, whole: bool) -> tuple[str, bool, str]:
        """Two or three refutable alternatives binding the same names (the
        first one's; a later one binds those it lacks with `as` around it)."""
        r = self.r

        def paren(t, f):
            return t if f == "closed" else f"({t})"
        first = _MNames(self, [] if ns.pool is None and r.random() < 0.4 else ns.pool)
        t, _, f = self.m_pat(sh, d - 1, first, typed, refutable=True, whole=whole)
        alts = [paren(t, f)]
        names = list(first.binds)
        got = {n: [v] for n, v in first.binds.items()}
        for _ in range(r.choice([1, 1, 1, 2])):
            nx = _MNames(self, list(names))
            t2, _, f2 = self.m_pat(sh, d - 1, nx, typed, refutable=True, whole=whole)
            for n in list(nx.pool):
                t2, f2 = f"{t2 if f2 in ('closed', 'or') else f'({t2})'} as {n}", "as"
                nx.binds[n] = (self.m_exact(sh, typed), sh if typed else None)
            for n, v in nx.binds.items():
                got[n].append(v)
            alts.append(paren(t2, f2))
        for n, vs in got.items():
            tys = {v[0] for v in vs}
            shape = vs[0][1] if all(v[1] == vs[0][1] for v in vs) else None
            ns.binds[n] = (tys.pop() if len(tys) == 1 else None, shape)
        return " | ".join(alts), False, "or"

    def m_seq_pat(self, sh: MShape, d: int, ns: _MNames, typed: bool, top: bool) -> tuple[str, bool, str]:
        r = self.r
        fits = sh.k == "seq" or (sh.k == "obj" and sh.items is not None)
        if fits and sh.items is not None:
            L = len(sh.items)
        elif fits:
            L = r.randint(0, min(sh.n, 4))
        else:
            L = r.randint(0, 3)
        if r.random() < 0.12:
            L = max(0, L + r.choice([-1, 1]))
        L = min(L, 5)
        mseq = sh.k == "obj" and sh.cls == "MSeq"   # logs: `*_` indexes, anything else iterates
        star = r.random() < (0.7 if mseq else 0.4)
        s = r.randint(0, L) if star else L          # items before the star
        t = L - s                                   # items after it
        n = len(sh.items) if fits and sh.items is not None else None
        can = fits and typed and (n is None or (n >= L if star else n == L))

        def shape_at(i, from_end):
            if not can:
                return MShape("any")
            if n is None:
                return MShape("S", sh.ty) if sh.ty else MShape("any")
            return sh.items[n - t + i] if from_end else sh.items[i]
        parts = []
        for i in range(s):
            p, _, _ = self.m_pat(shape_at(i, False), d - 1, ns, can)
            parts.append(p)
        if star:
            name = ns.take() if r.random() < (0.3 if mseq else 0.55) else None
            if name:
                rest = (MShape("seq", cls="list", items=sh.items[s:n - t]) if can and n is not None else
                        MShape("seq", cls="list", ty=sh.ty, n=sh.n) if can and sh.ty else None)
                ns.binds[name] = (None, rest)
            parts.append(f"*{name or '_'}")
        for i in range(t):
            p, _, _ = self.m_pat(shape_at(i, True), d - 1, ns, can)
            parts.append(p)
        x = r.random()
        if top and parts and x < 0.3:
            return ", ".join(parts) + ("," if len(parts) == 1 else ""), False, "open"
        if x < 0.6:
            return "[" + ", ".join(parts) + "]", False, "closed"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")", False, "closed"

    def m_map_pat(self, sh: MShape, d: int, ns: _MNames, typed: bool) -> tuple[str, bool, str]:
        r = self.r
        fits = sh.k == "map"
        entries = []
        if fits and sh.keys is not None:
            have = list(sh.keys)
            for key in r.sample(have, min(len(have), r.choice([0, 1, 1, 1, 2, 2, 3]))):
                entries.append((key, sh.keys[key], typed))
            if r.random() < 0.12 or not have:
                other = [key for key in M_KEYS + ["0", "1"] if key not in have]
                entries.insert(r.randint(0, len(entries)), (r.choice(other), MShape("any"), False))
        elif fits:
            for key in r.sample(["0", "1", "2", "-1", "3"], r.randint(0, 2)):
                entries.append((key, MShape("S", sh.ty), typed))
        else:
            for key in r.sample(M_KEYS, r.randint(0, 2)):
                entries.append((key, MShape("any"), False))
        if r.random() < 0.1:
            # a dotted key; one equal to a literal key raises ValueError (mapping
            # pattern checks duplicate key) once the subject is a mapping long enough
            dotted = {"MK.ZERO": "0", "MK.ONE": "1", "MK.NAME": "'ab'"}
            present = [k2 for k2, _, _ in entries]
            lit = [k2 for k2 in present if k2 in ("0", "1")]
            key = ({"0": "MK.ZERO", "1": "MK.ONE"}[r.choice(lit)] if lit and r.random() < 0.5 else
                   r.choice(list(dotted)))
            if dotted[key] in present:
                self.may_raise("ValueError")
            if key not in present:
                entries.insert(r.randint(0, len(entries)), (key, MShape("any"), False))
        parts = []
        for key, s, ty_ok in entries:
            p, _, _ = self.m_pat(s, d - 1, ns, ty_ok)
            parts.append(f"{key}: {p}")
        if r.random() < 0.4:
            name = ns.take()
            if name:
                ns.binds[name] = (None, None)
                parts.append(f"**{name}")
        return "{" + ", ".join(parts) + "}", False, "closed"

    def m_cls_pat(self, sh: MShape, d: int, ns: _MNames, typed: bool) -> tuple[str, bool, str]:
        r = self.r
        actual = self.m_class_of(sh)
        mro = M_MRO.get(actual, ()) if actual else ()
        x = r.random()
        if x < 0.03:      # not a class: TypeError (called match pattern must be a class)
            self.may_raise("TypeError")
            return f"{r.choice(['MK.ZERO', 'm_fold', 'MK.NAME'])}()", False, "closed"
        if mro and x < 0.85:
            cls = mro[0] if r.random() < 0.7 else r.choice(mro)
        elif x < 0.9:
            cls = "object"
        else:
            cls = r.choice(list(M_ARGS))
        known = actual is not None
        matches = known and (cls == "object" or cls in mro)
        margs = M_ARGS[cls]
        maxpos = 1 if margs in ("self", "list") else len(margs)
        npos = r.randint(0, maxpos) if d > 0 else 0
        if d > 0 and r.random() < 0.06:
            npos = maxpos + 1                # TypeError: accepts N positional sub-patterns
        if npos > maxpos or (margs == "list" and npos):
            if matches or not known:
                self.may_raise("TypeError")
        if margs == "self":
            pos = ["<self>"] + ["<extra>"] * (npos - 1) if npos else []
        elif margs == "list":
            pos = ["v"] * min(npos, 1) + ["<extra>"] * (npos - 1)
        else:
            pos = list(margs[:npos]) + ["<extra>"] * (npos - maxpos)
        if sh.k == "obj" and sh.attrs:
            avail = list(sh.attrs)
        elif sh.k == "S":
            avail = ["real", "imag"] + (["numerator", "denominator"] if sh.ty != FLOAT else [])
        else:
            avail = []
        kws = []
        for _ in range(r.choice([0, 0, 1, 1, 2]) if d > 0 and (avail or r.random() < 0.25) else 0):
            name = r.choice(avail) if avail and r.random() < 0.9 else r.choice(M_ATTR_POOL)
            if name in kws:
                continue
            if name in pos:                  # TypeError: got multiple sub-patterns for attribute
                if r.random() < 0.85:
                    continue
                if matches or not known:
                    self.may_raise("TypeError")
            kws.append(name)

        def attr_shape(a):
            if not matches or a == "<extra>":
                return MShape("any"), False
            if a == "<self>":
                return sh, typed
            if sh.k == "obj" and sh.attrs and a in sh.attrs:
                return sh.attrs[a], typed
            if sh.k == "S" and a in avail:
                return MShape("S", FLOAT if sh.ty == FLOAT else INT), typed
            return MShape("any"), False
        parts = []
        for a in pos:
            s, ok = attr_shape(a)
            parts.append(self.m_pat(s, d - 1, ns, ok)[0])
        for a in kws:
            s, ok = attr_shape(a)
            parts.append(f"{a}={self.m_pat(s, d - 1, ns, ok)[0]}")
        return f"{cls}({', '.join(parts)})", False, "closed"

    # the statement

    def m_guard(self, binds: dict) -> str:
        r = self.r
        saved_env, saved_focus = dict(self.env), list(self.focus)
        typed = [(n, t) for n, (t, _) in binds.items() if t in SCALARS]
        for n, t in typed:
            self.env[n] = t
            self.focus.append(n)
        untyped = [n for n, (t, _) in binds.items() if t not in SCALARS]
        ints = [n for n, t in typed if t == INT]
        x = r.random()
        if x < 0.2 and untyped:
            g = f"m_fold({r.choice(untyped)}) % {r.randint(2, 4)} {r.choice(['==', '!='])} 0"
        elif x < 0.32 and ints:
            self.may_raise("ZeroDivisionError")
            g = f"{self.expr(INT, 1)} // {r.choice(ints)} > {self.expr(INT, 0)}"
        elif x < 0.38 and ints:
            self.may_raise("IndexError")
            g = f"[{self.expr(BOOL, 0)}, {self.expr(BOOL, 0)}][{r.choice(ints)}]"
        elif x < 0.41:
            self.may_raise("ZeroDivisionError")
            g = f"{self.expr(INT, 1)} % {self.zden()} == 0"
        else:
            g = self.cond(1)
        self.env, self.focus = saved_env, saved_focus
        return g

    def m_body(self, ind: int, depth: int, binds: dict, acc: str, res: str | None) -> None:
        r = self.r
        saved_env, saved_focus = dict(self.env), list(self.focus)
        start = len(self.lines)
        for n, (t, _) in binds.items():
            self.objs.add(n)
            if t in SCALARS:
                self.env[n] = t
                self.focus.append(n)
        for n, (t, _) in binds.items():
            if r.random() < 0.75:
                if t in (INT, FLOAT):
                    self.lam_fold(ind, acc, n, t)
                elif t == BOOL:
                    self.lam_fold(ind, acc, f"int({n})", INT)
                else:
                    self.lam_fold(ind, acc, f"m_fold({n})", INT)
        if res and res in self.env and r.random() < 0.7:
            self.emit(ind, f"{res} = {self.expr(self.env[res], 2)}")
        if depth > 0 and self.matches < MATCH_NEST and r.random() < 0.15:
            shaped = [(n, s) for n, (_, s) in binds.items() if s is not None]
            if shaped and r.random() < 0.7:
                n, s = r.choice(shaped)
                self.matches += 1
                self.m_match(ind, depth - 1, n, s, acc, None)
                self.matches -= 1
            else:
                self.match_stmt(ind, depth - 1)
        if r.random() < 0.6:
            self.block(ind, r.randint(1, 2), max(0, depth - 1))
        if self.loop and r.random() < 0.15:
            if r.random() < 0.5:
                self.emit(ind, f"if {self.cond(1)}:")
                self.emit(ind + 1, r.choice(["break", "continue"]))
            else:
                self.emit(ind, r.choice(["break", "continue"]))
        if len(self.lines) == start:
            self.emit(ind, "pass")
        for v, t in self.env.items():
            if v not in saved_env:
                self.maybe[v] = t
        self.env, self.focus = saved_env, saved_focus

    def m_match(self, ind: int, depth: int, subject: str, sh: MShape, acc: str, res: str | None) -> None:
        r = self.r
        self.emit(ind, f"match {subject}:")
        ncases = r.choice([1, 2, 2, 3, 3, 4])
        bound: dict = {}
        for ci in range(ncases):
            last = ci == ncases - 1
            guarded = r.random() < 0.3
            ns = _MNames(self)
            rebind = [v for v in self.assignable() if sh.k == "S" and self.env[v] == sh.ty
                      and v not in self.focus and v not in self.powed]
            if last and not guarded and r.random() < 0.3:      # a default case
                if r.random() < 0.5:
                    pat, irr = "_", True
                else:                                           # the subject captured
                    pat, irr = ns.take(), True
                    ns.binds[pat] = (self.m_exact(sh, True), sh)
            elif rebind and r.random() < 0.06:
                # a typed local of the subject's type rebound by a capture of the subject
                v = r.choice(rebind)
                self.objs.add(v)
                if (last or guarded) and r.random() < 0.5:
                    pat, irr = v, True
                else:
                    t, _, f = self.m_pat(sh, 1, _MNames(self, []), True, refutable=True, whole=True)
                    pat, irr = f"{t if f in ('closed', 'or') else f'({t})'} as {v}", False
            else:
                pat, irr, _ = self.m_pat(sh, r.choice([1, 2, 2, 3]), ns, True, top=True,
                                         refutable=not (last or guarded))
            guard = self.m_guard(ns.binds) if guarded else None
            self.emit(ind + 1, f"case {pat}" + (f" if {guard}" if guard else "") + ":")
            self.m_body(ind + 2, depth, ns.binds, acc, res)
            bound.update(ns.binds)
            if irr and not guard:
                break
        for n, (t, _) in bound.items():
            if t in SCALARS and n not in self.env:
                self.maybe[n] = t
        if bound and r.random() < 0.08:     # a capture read after the match: unbound if no case bound it
            n = r.choice(list(bound))
            t = bound[n][0]
            text, ty = ((n, t) if t in (INT, FLOAT) else (f"int({n})", INT) if t == BOOL else
                        (f"m_fold({n})", INT))
            if r.random() < 0.7:
                e = self.fresh("e")
                self.emit(ind, "try:")
                self.lam_fold(ind + 1, acc, text, ty)
                self.emit(ind, f"except NameError as {e}:")
                self.emit(ind + 1, f"{acc} -= len(str({e}))")
            else:
                self.lam_fold(ind, acc, text, ty)

    def match_stmt(self, ind: int, depth: int) -> None:
        r = self.r
        self.matches += 1
        acc = self.lam_acc(ind)
        T = self.fresh("T")
        text, sh = self.m_subject(T)
        res = None
        if r.random() < 0.35:     # a typed local the cases assign, used after the match
            ty = r.choice([INT, INT, FLOAT, BOOL])
            res = self.fresh("v")
            self.emit(ind, f"{res} = {self.const(ty)}")
            self.env[res] = ty
        logged = re.search(rf"\b{T}\b", text) is not None
        if logged:
            self.emit(ind, f"{T} = []")
        wrap = r.random() < 0.2
        if wrap:
            self.emit(ind, "try:")
        self.m_match(ind + (1 if wrap else 0), depth, text, sh, acc, res)
        if wrap:
            e = self.fresh("e")
            self.emit(ind, f"except (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError, "
                           f"NameError) as {e}:")
            self.emit(ind + 1, f"{acc} -= len(str({e}))")
        if logged:
            self.lam_fold(ind, acc, f"m_fold({T})", INT)
        if r.random() < 0.25:   # the accumulator returned (what follows may raise and hide it)
            self.emit(ind, f"if {self.cond(1)}:")
            self.emit(ind + 1, f"return {self.m_ret_text(acc)}")
        self.matches -= 1

    def m_ret_text(self, acc: str) -> str:
        """acc (an int or float local) as the function's result."""
        ty = self.env.get(acc, INT)
        num = acc if ty == INT else f"len(str({acc}))"
        if self.ret == INT:
            return num
        if self.ret == FLOAT:
            return acc if ty == FLOAT else f"float({acc})"
        if self.ret == BOOL:
            return f"({num} % 2 == 0)"
        if self.ret == LI:
            return f"[{num}, {len(self.lines)}]"
        return f"[{acc if ty == FLOAT else f'float({acc})'}]"

    # ---- statements -------------------------------------------------------
    def assignable(self) -> list[str]:
        return [v for v, t in self.env.items() if v not in self.protected and t in SCALARS]

    def block(self, ind: int, n: int, depth: int) -> None:
        start = len(self.lines)
        for _ in range(n):
            self.stmt(ind, depth)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def scoped_block(self, ind: int, n: int, depth: int) -> None:
        saved = dict(self.env)
        self.block(ind, n, depth)
        for v, t in self.env.items():
            if v not in saved:
                self.maybe[v] = t
        self.env = saved

    def stmt(self, ind: int, depth: int) -> None:
        r = self.r
        choices = ["new"] * 25 + ["re"] * 10 + ["aug"] * 12 + ["swap"] * 3 + ["coll"] * self.coll_stmt
        if self.mult <= 20 and any(t in (LI, LF, LB) for t in self.env.values()):
            choices += ["append"]
        if depth > 0:
            choices += ["if"] * 12 + ["while"] * 5 + ["for"] * 8
        if self.loop:
            choices += ["brk"] * 5
        choices += ["ret"] * 2 + ["call"]
        if self.lam_w:
            choices += ["lam"] * self.lam_w
        if self.unp_w:
            choices += ["unp"] * self.unp_w
        if self.try_w:
            if depth > 0 and self.tries < TRY_NEST:
                choices += ["try"] * self.try_w
            if self.tries:
                choices += ["risky"] * (40 if self.part == "body" else 6) + ["raise"] * 3 + ["exit"] * 4
            if self.handlers:
                choices += ["use_e"] * 12 + ["reraise"] * 4
            if self.part == "finally":
                choices += ["acc"] * 8 + ["reraise"]
        if self.match_w and depth > 0 and self.matches < MATCH_NEST:
            choices += ["match"] * self.match_w
        if self.gx_w and self.gx < 2:
            choices += ["gx"] * self.gx_w
        kind = r.choice(choices)
        if kind == "gx":
            return self.gx_stmt(ind, depth)
        if kind == "match":
            return self.match_stmt(ind, depth)
        if kind in ("try", "risky", "raise", "exit", "use_e", "reraise", "acc"):
            return self.try_stmt(kind, ind, depth)
        if kind == "lam":
            return self.lam_stmt(ind, depth)
        if kind == "unp":
            return self.unp_stmt(ind, depth)
        ed = r.choice([1, 2, 2, 3])
        if kind == "new":
            ty = r.choice([INT, INT, FLOAT, FLOAT, BOOL])
            v = self.fresh("v")
            self.emit(ind, f"{v} = {self.expr(ty, ed)}")
            self.env[v] = ty
        elif kind == "coll":
            ty = r.choice([LI, LI, LF, LF, LB, SI, DII, DIF])
            v = self.fresh({"L": "L", "S": "S", "D": "D"}[ty[0]])
            text, n = self.coll_value(ty, r.choice([2, 2, 3]))
            self.emit(ind, f"{v} = {text}")
            self.env[v] = ty
            self.size[v] = n
        elif kind == "append":
            v = r.choice([v for v, t in self.env.items() if t in (LI, LF, LB)])
            self.emit(ind, f"{v}.append({self.expr(self.env[v][2:], ed)})")
            self.size[v] += self.mult
        elif kind in ("re", "aug"):
            cand = self.assignable()
            if not cand:
                return self.stmt(ind, depth)
            v = r.choice(cand)
            ty = self.env[v]
            if kind == "re":
                self.emit(ind, f"{v} = {self.expr(ty, ed)}")
            elif ty == INT:
                op = r.choice(["+=", "-=", "*=", "+=", "-=", "//=", "%=", "&=", "|=", "^=",
                               "<<=", ">>=", "**="])
                if op == "**=" and v in self.objs:     # an object int would grow unbounded
                    op = "*="
                if op == "**=":
                    self.powed.add(v)
                if op in ("<<=", ">>="):
                    rhs = f"({self.expr(INT, ed)} % {r.choice([8, 32, 64, 66])})"
                elif op == "**=":
                    rhs = str(r.randint(0, 3))
                else:
                    rhs = self.expr(INT, ed)
                self.emit(ind, f"{v} {op} {rhs}")
            elif ty == FLOAT:
                op = r.choice(["+=", "-=", "*=", "/=", "+=", "-=", "*=", "//=", "%=", "**="])
                rhs = str(r.randint(-2, 3)) if op == "**=" else self.expr(r.choice(NUM), ed)
                self.emit(ind, f"{v} {op} {rhs}")
            else:
                self.emit(ind, f"{v} {r.choice(['&=', '|=', '^='])} {self.expr(BOOL, ed)}")
        elif kind == "swap":
            cand = self.assignable()
            if len(cand) < 2:
                return
            a, b = r.sample(cand, 2)
            if self.env[a] == self.env[b] and r.random() < 0.6:
                self.emit(ind, f"{a}, {b} = {b}, {a}")
            else:
                self.emit(ind, f"{a}, {b} = {self.expr(self.env[a], ed)}, {self.expr(self.env[b], ed)}")
        elif kind == "if":
            self.emit(ind, f"if {self.cond()}:")
            self.scoped_block(ind + 1, r.randint(1, 3), depth - 1)
            while r.random() < 0.3:
                self.emit(ind, f"elif {self.cond()}:")
                self.scoped_block(ind + 1, r.randint(1, 2), depth - 1)
            if r.random() < 0.5:
                self.emit(ind, "else:")
                self.scoped_block(ind + 1, r.randint(1, 2), depth - 1)
        elif kind == "for":
            i = self.fresh("i")
            x = r.random()
            if x < 0.25:
                rng = f"range({self.expr(INT, 1)} % {r.randint(1, 12)})"
                iters = 12
            elif x < 0.7:
                step = (str(r.choice([1, 1, 2, 3, -1, -1, -2, -3, 0] if r.random() < 0.9 else [0]))
                        if r.random() < 0.8 else f"({self.expr(INT, 1)} % 5 - 2)")
                rng = (f"range({self.expr(INT, 1)} % {r.randint(1, 9)} - {r.randint(0, 5)}, "
                       f"{self.expr(INT, 1)} % {r.randint(1, 9)} - {r.randint(0, 5)}, {step})")
                iters = 14
            else:
                w = r.randint(0, 8)
                base = self.expr(INT, 1)
                if r.random() < 0.5:
                    rng = f"range({base}, {base} + {w}, {r.choice([1, 1, 2, 3])})"
                else:
                    rng = f"range({base}, {base} - {w}, {r.choice([-1, -1, -2])})"
                iters = 9
            self.emit(ind, f"for {i} in {rng}:")
            self.enter_loop(iters)
            saved = dict(self.env)
            self.env[i] = INT
            self.block(ind + 1, r.randint(1, 3), depth - 1)
            for v, t in self.env.items():
                if v not in saved:
                    self.maybe[v] = t
            self.env = saved
            self.leave_loop(iters)
            if r.random() < 0.1:
                self.emit(ind, "else:")
                self.scoped_block(ind + 1, 1, depth - 1)
        elif kind == "while":
            w = self.fresh("w")
            k = r.randint(0, 6)
            self.emit(ind, f"{w} = {k}")
            self.env[w] = INT
            self.protected.add(w)
            if r.random() < 0.5:
                self.emit(ind, f"while {w} > 0:")
                self.emit(ind + 1, f"{w} -= 1")
            else:
                self.emit(ind, f"while {self.cond()}:")
                self.emit(ind + 1, f"{w} -= 1")
                self.emit(ind + 1, f"if {w} < 0:")
                self.emit(ind + 2, "break")
            self.enter_loop(k + 1)
            self.scoped_block(ind + 1, r.randint(1, 3), depth - 1)
            self.leave_loop(k + 1)
        elif kind == "brk":
            self.emit(ind, f"if {self.cond()}:")
            self.emit(ind + 1, r.choice(["break", "continue"]))
        elif kind == "ret":
            if ind == 1:
                return
            self.emit(ind, f"return {self.ret_expr(2)}")
        else:
            c = self.call_helper(r.choice([INT, FLOAT, BOOL]), 1)
            if c:
                self.emit(ind, c)

    # ---- try statements --------------------------------------------------
    def try_stmt(self, kind: str, ind: int, depth: int) -> None:
        {"try": self.gen_try, "risky": self.risky, "raise": self.gen_raise, "exit": self.gen_exit,
         "use_e": self.use_e, "reraise": self.reraise, "acc": self.acc}[kind](ind, depth)

    def part_block(self, part: str, ind: int, n: int, depth: int) -> None:
        saved = self.part
        self.part = part
        self.block(ind, n, depth)
        self.part = saved

    def gen_try(self, ind: int, depth: int, n_body: int | None = None,
                body_depth: int | None = None) -> None:
        r = self.r
        d = depth - 1
        self.tries += 1
        saved = dict(self.env)
        self.emit(ind, "try:")
        self.raisable.append(set())
        self.part_block("body", ind + 1, n_body or r.randint(1, 4),
                        d if body_depth is None else body_depth)
        kinds = sorted(self.raisable.pop())
        after_body = dict(self.env)
        nh = r.choice([0, 1, 1, 1, 2, 2, 3])
        specs = []
        for _ in range(nh):
            if kinds and r.random() < 0.7:      # one that catches what the body raises
                specs.append(r.choice(CATCHERS[r.choice(kinds)]))
            else:
                specs.append(r.choice(HANDLERS))
        if nh and r.random() < 0.15:
            specs[-1] = None                    # a bare except (last)
        names = []
        for spec in specs:
            name = self.handler_name() if spec and r.random() < 0.65 else None
            self.emit(ind, "except:" if spec is None else
                      f"except {spec}:" if name is None else f"except {spec} as {name}:")
            if name in saved:       # a local the handler rebinds, and deletes at its end
                del saved[name]
                self.maybe.pop(name, None)
            if name:
                names.append(name)
            self.env = dict(saved)
            self.handlers.append((name, catches_overflow(spec)))
            if name and r.random() < 0.6:
                self.use_e(ind + 1, d)
            self.part_block("handler", ind + 1, r.randint(1, 3), d)
            self.handlers.pop()
        if nh and r.random() < 0.35:
            self.emit(ind, "else:")
            self.env = dict(after_body)
            self.part_block("else", ind + 1, r.randint(1, 2), d)
        if not nh or r.random() < 0.45:
            self.emit(ind, "finally:")
            self.env = dict(saved)
            if r.random() < 0.7:
                self.acc(ind + 1, d)
            self.part_block("finally", ind + 1, r.randint(1, 2), d)
        for v, t in list(after_body.items()) + list(self.env.items()):
            if v not in saved:
                self.maybe[v] = t
                self.try_maybe.add(v)
        self.env = saved
        self.tries -= 1
        self.enames.update(names)
        if names and r.random() < 0.1:
            # an as-name read after its handler: deleted (or never bound)
            cand = [v for v in self.assignable() if self.env[v] in (INT, FLOAT)]
            if cand:
                v, e2 = r.choice(cand), self.fresh("e")
                self.emit(ind, "try:")
                self.emit(ind + 1, f"{v} += len(str({r.choice(names)}))")
                self.emit(ind, f"except NameError as {e2}:")
                self.emit(ind + 1, f"{v} -= len(str({e2}))")

    def handler_name(self) -> str:
        """Mostly a fresh name; sometimes one an earlier handler used, or a
        scalar local (the handler rebinds it to the exception and deletes
        it)."""
        r = self.r
        x = r.random()
        busy = {n for n, _ in self.handlers}
        if x < 0.2:
            c = sorted(n for n in self.enames if n not in busy)
            if c:
                return r.choice(c)
        if x > 0.96:
            c = [v for v in self.assignable() if v not in busy and v not in self.focus]
            if c:
                return r.choice(c)
        return self.fresh("e")

    def may_raise(self, *kinds: str) -> None:
        if self.raisable:
            self.raisable[-1].update(kinds)

    def zden(self) -> str:
        """An int that is often zero."""
        r = self.r
        v = self.var(INT) or "a"
        x = r.random()
        if x < 0.3 and v in self.env:
            return v
        if x < 0.6:
            return f"({self.leaf(INT)} % {r.randint(2, 4)})"
        if x < 0.8:
            return f"({self.leaf(INT)} - {self.leaf(INT)})"
        return r.choice(["0", f"({self.expr(INT, 1)} % 3 - 1)", f"int({self.leaf(BOOL)})"])

    def fden(self) -> str:
        """A float that is often zero."""
        r = self.r
        x = r.random()
        if x < 0.4:
            return self.zden()
        if x < 0.6:
            return f"({self.leaf(FLOAT)} - {self.leaf(FLOAT)})"
        if x < 0.75:
            return r.choice(["0.0", "(-0.0)"])
        return self.leaf(FLOAT)

    def index_text(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.4:
            return f"({self.leaf(INT)} % {r.randint(2, 7)} - {r.randint(0, 3)})"
        if x < 0.7:
            return self.leaf(INT)
        return str(r.randint(-4, 4))

    def risky_value(self, ty: str) -> str | None:
        """An expression of type ty that raises for some inputs."""
        r = self.r
        e = self.expr
        k = r.randint(0, 9)
        if ty == INT:
            if k <= 2:
                self.may_raise("ZeroDivisionError")
                return f"({e(INT, 1)} {r.choice(['//', '%', '//'])} {self.zden()})"
            if k <= 5:
                self.may_raise("IndexError")
                seqs = [v for v, t in self.env.items() if t == LI]
                if seqs and r.random() < 0.6:
                    v = r.choice(seqs)
                    if r.random() < 0.15:
                        return f"{v}.pop({self.index_text()})" if r.random() < 0.7 else f"{v}.pop()"
                    return f"{v}[{self.index_text()}]"
                items = [e(INT, 1) for _ in range(r.randint(0, 3))]
                text = ", ".join(items)
                disp = (f"[{text}]" if r.random() < 0.7 else
                        f"({text}{',' if len(items) == 1 else ''})")
                return f"{disp}[{self.index_text()}]"
            if k == 6:
                ds = [v for v, t in self.env.items() if t == DII]
                if ds:
                    self.may_raise("KeyError")
                    return f"{r.choice(ds)}[{self.index_text()}]"
                self.may_raise("ValueError", "OverflowError")
                return f"int({e(FLOAT, 1)})"
            if k == 7:
                self.may_raise("ValueError", "OverflowError")
                return f"int({e(FLOAT, 1)})"
            if k == 8:
                self.may_raise("ValueError", "ZeroDivisionError")
                return r.choice([f"int(str({e(FLOAT, 1)}))",
                                 f"int(str({e(INT, 1)}) + {r.choice(['0', 'x', '.5', ' '])!r})",
                                 f"len(str({e(INT, 1)})) // {self.zden()}"])
            c = self.call_helper(INT, 1)
            self.may_raise("ZeroDivisionError")
            return c or f"({e(INT, 1)} % {self.zden()})"
        if ty == FLOAT:
            if k <= 3:
                self.may_raise("ZeroDivisionError")
                return f"({e(r.choice(NUM), 1)} {r.choice(['/', '/', '%', '//'])} {self.fden()})"
            if k <= 6:
                self.may_raise("ValueError", "OverflowError")
                f = r.choice(["math.sqrt", "math.log", "math.acos", "math.asin", "math.log10",
                              "math.exp", "math.fmod", "math.atanh"])
                if f == "math.fmod":
                    return f"math.fmod({e(FLOAT, 1)}, {self.fden()})"
                return f"{f}({e(FLOAT, 1)})"
            if k == 7:
                self.may_raise("IndexError")
                seqs = [v for v, t in self.env.items() if t == LF]
                if seqs:
                    return f"{r.choice(seqs)}[{self.index_text()}]"
                ds = [v for v, t in self.env.items() if t == DIF]
                if ds:
                    self.may_raise("KeyError")
                    return f"{r.choice(ds)}[{self.index_text()}]"
                return f"[{e(FLOAT, 1)}, {e(FLOAT, 1)}][{self.index_text()}]"
            self.may_raise("ZeroDivisionError")
            if k == 8:
                return f"float({e(INT, 1)} // {self.zden()})"
            c = self.call_helper(FLOAT, 1)
            return c or f"({e(FLOAT, 1)} / {self.fden()})"
        self.may_raise("ZeroDivisionError")
        if k <= 4:
            return f"({e(INT, 1)} // {self.zden()} > {e(INT, 1)})"
        if k <= 7:
            c = self.call_helper(BOOL, 1)
            if c:
                return c
        return f"bool({e(FLOAT, 1)} % {self.fden()})"

    def risky(self, ind: int, depth: int) -> None:
        r = self.r
        x = r.random()
        if x < 0.15:
            return self.gen_raise(ind, depth)
        ty = r.choice([INT, INT, INT, FLOAT, FLOAT, BOOL])
        val = self.risky_value(ty)
        cand = [v for v in self.assignable() if self.env[v] == ty]
        if cand and r.random() < 0.5:
            v = r.choice(cand)
            if ty == BOOL:
                self.emit(ind, f"{v} = {val}")
            else:
                self.emit(ind, f"{v} {r.choice(['+=', '-=', '='])} {val}")
            return
        v = self.fresh("v")
        self.emit(ind, f"{v} = {val}")
        self.env[v] = ty

    def message(self) -> str:
        r = self.r
        x = r.random()
        ty = r.choice(SCALARS)
        if x < 0.35:
            return f"{r.choice(['bad ', 'm', 'x=', ''])!r} + str({self.expr(ty, 1)})"
        if x < 0.7:
            pre = r.choice(['v', 'got ', 'e', ''])
            mid = self.expr(ty, 1)
            return f"f\"{pre}{{{mid}}}{r.choice(['', '!', ' and more'])}\""
        if x < 0.85:
            return f"str({self.expr(ty, 1)})"
        return repr(r.choice(["", "boom", "a b", "x" * 3]))

    def raise_text(self) -> str:
        r = self.r
        t = r.choice(RAISE_TYPES)
        self.may_raise(t)
        x = r.random()
        if x < 0.08:
            exc = t                                  # a class: CPython calls it
        elif x < 0.15:
            exc = f"{t}({self.message()}, {self.expr(INT, 1)})"
        else:
            exc = f"{t}({self.message()})"
        y = r.random()
        names = [n for n, _ in self.handlers if n]
        if y < 0.15:
            return f"raise {exc} from None"
        if y < 0.3 and names:
            return f"raise {exc} from {r.choice(names)}"
        if y < 0.33:
            return f"raise {exc} from {r.choice(RAISE_TYPES)}({self.message()})"
        return f"raise {exc}"

    def gen_raise(self, ind: int, depth: int) -> None:
        if self.r.random() < 0.75:
            self.emit(ind, f"if {self.cond()}:")
            ind += 1
        self.emit(ind, self.raise_text())

    def gen_exit(self, ind: int, depth: int) -> None:
        r = self.r
        opts = ["return"] * 2 + (["break", "continue"] if self.loop else [])
        what = r.choice(opts)
        if self.part == "finally" and r.random() < 0.5:
            what = "return" if not self.loop else r.choice(["return", "break", "continue"])
        if r.random() < 0.7:
            self.emit(ind, f"if {self.cond()}:")
            ind += 1
        self.emit(ind, f"return {self.ret_expr(2)}" if what == "return" else what)

    def fold(self, name: str, ovf: bool) -> tuple[str, str]:
        """An expression reading the caught exception `name`: (type, text)."""
        r = self.r
        msg = (f"str({name})" if not ovf else
               f"(str({name}) if not isinstance({name}, OverflowError) else 'ovf')")
        k = r.randint(0, 11)
        if k <= 2:
            return INT, f"len({msg})"
        if k == 3:
            return INT, f"len(type({name}).__name__)"
        if k == 4:
            t = r.choice(['ZeroDivisionError', 'IndexError', 'ValueError', 'KeyError', 'OverflowError',
                          'TypeError'])
            return BOOL, f"(type({name}).__name__ == {t!r})"
        if k == 5:
            t = r.choice(['ArithmeticError', 'LookupError', 'ValueError', 'ZeroDivisionError',
                          '(IndexError, KeyError)'])
            return BOOL, f"isinstance({name}, {t})"
        if k == 6:
            return INT, f"len({name}.args)"
        if k == 7:
            return INT, f"len(type({name}.__context__).__name__)"
        if k == 8:
            return BOOL, f"({name}.__cause__ is None)"
        if k == 9:
            return BOOL, f"{name}.__suppress_context__"
        if k == 10:
            return INT, f"{msg}.count({r.choice(['o', 'e', ' ', '1', '0'])!r})"
        return BOOL, f"({r.choice(['zero', 'range', 'domain', '1', 'modulo', 'bad'])!r} in {msg})"

    def use_e(self, ind: int, depth: int) -> None:
        r = self.r
        named = [(n, o) for n, o in self.handlers if n]
        if not named:
            return self.acc(ind, depth)
        name, ovf = named[-1] if r.random() < 0.8 else r.choice(named)
        ty, text = self.fold(name, ovf)
        if self.lam_w and r.random() < 0.3:      # a lambda capturing the as-name, called here
            text = self.lam_wrap_text(ind, text)
        cand = [v for v in self.assignable() if self.env[v] in (INT, FLOAT)]
        if ty == BOOL:
            if r.random() < 0.5:
                self.emit(ind, f"if {text}:")
                self.scoped_block(ind + 1, 1, 0)
                return
            text = f"int({text})"
        if cand and r.random() < 0.75:
            v = r.choice(cand)
            self.emit(ind, f"{v} {r.choice(['+=', '-=', '+='])} {text}")
        else:
            v = self.fresh("v")
            self.emit(ind, f"{v} = {text}")
            self.env[v] = INT

    def reraise(self, ind: int, depth: int) -> None:
        r = self.r
        named = [n for n, _ in self.handlers if n]
        x = r.random()
        if r.random() < 0.6:
            self.emit(ind, f"if {self.cond()}:")
            ind += 1
        if x < 0.5 or not self.handlers:
            self.emit(ind, "raise")
        elif x < 0.65 and named:
            self.emit(ind, f"raise {r.choice(named)}")
        else:
            self.emit(ind, self.raise_text())

    def acc(self, ind: int, depth: int) -> None:
        r = self.r
        cand = [v for v in self.assignable() if self.env[v] in (INT, FLOAT)]
        if not cand:
            return
        v = r.choice(cand)
        x = r.random()
        if x < 0.5:
            self.emit(ind, f"{v} {r.choice(['+=', '-='])} {r.randint(1, 9)}")
        elif x < 0.8:
            self.emit(ind, f"{v} = {v} * {r.choice([2, 3, -1])} + {self.leaf(self.env[v])}")
        else:
            self.emit(ind, f"{v} += {self.expr(self.env[v], 1)}")

    def enter_loop(self, iters: int) -> None:
        self.loop += 1
        self.mult *= iters

    def leave_loop(self, iters: int) -> None:
        self.loop -= 1
        self.mult //= iters

    def ret_expr(self, d: int) -> str:
        if self.ret in SCALARS:
            return self.expr(self.ret, d)
        text, n = self.coll_value(self.ret, d, 40)
        self.ret_size = max(self.ret_size, n)
        return text

    def generate(self) -> tuple[str, FuncInfo]:
        r = self.r
        params = []
        for k in range(r.randint(1, 4)):
            ty = r.choice([INT, INT, INT, FLOAT, FLOAT, BOOL])
            params.append((f"{'abcd'[k]}", ty))
            self.env[params[-1][0]] = ty
        self.ret = r.choice([INT, INT, FLOAT, FLOAT, BOOL] * 8 + ([LI, LF] if self.coll_p else []))
        self.ret_size = 0
        if self.match_w and r.random() < min(0.5, 0.1 * self.match_w / MATCH_STMT):
            self.match_stmt(1, 2)       # first, before anything that may raise
        if self.try_w and r.random() < min(0.5, 0.1 * self.try_w / TRY_STMT * 1.5):
            self.gen_try(1, 2, r.randint(2, 6), 2)     # most of the function in one try
            self.block(1, r.randint(0, 2), 2)
        else:
            self.block(1, r.randint(2, 7), 2)
        self.emit(1, f"return {self.ret_expr(3)}")
        sig = ", ".join(f"{n}: {t}" for n, t in params)
        src = (f"def {self.name}({sig}) -> {RET_ANN.get(self.ret, self.ret)}:\n" + "\n".join(self.lines)
               + "\n")
        return src, FuncInfo(self.name, params, self.ret, cost=max(1, self.cost), size=self.ret_size)


# --------------------------------------------------------------------------
# Tensor functions

class TensorGen:
    def __init__(self, rng: random.Random, name: str):
        self.r = rng
        # picks among equivalent spellings of a drawn op; draws nothing from rng
        self.spell = random.Random(repr(rng.getstate()[1][:8]) + name)
        self.name = name
        self.params: list = []          # (name, kind)
        self.vars: dict[str, tuple] = {}
        self.lines: list[str] = []
        self.n = 0
        self.ndim = 0
        self.mm = 0

    def dim(self) -> str:
        if self.ndim and self.r.random() < 0.35:
            return f"D{self.r.randrange(self.ndim)}"
        self.ndim += 1
        return f"D{self.ndim - 1}"

    def param(self, prefix: str, shape: tuple) -> str:
        self.n += 1
        name = f"{prefix}{self.n}"
        self.params.append((name, ("T", shape)))
        return name

    def scalar_param(self, name: str, kind: str) -> str:
        if not any(p == name for p, _ in self.params):
            self.params.append((name, kind))
        return name

    def fresh(self) -> str:
        self.n += 1
        return f"t{self.n}"

    def pick(self, rank: int | None = None, last: str | None = None) -> str | None:
        c = [v for v, s in self.vars.items() if (rank is None or len(s) == rank)
             and (last is None or s[-1] == last)]
        return self.r.choice(c) if c else None

    def op(self, v: str) -> tuple[str, tuple]:
        """One operation applied to expression text v of shape self.cur."""
        r = self.r
        s = self.cur
        k = r.randint(0, 20)
        if len(s) == 2 and k <= 3:
            dout = self.dim()
            w = self.param("w", (dout, s[1]))
            b = self.param("b", (dout,))
            f = r.choice(["F.linear", "F.linear", "torch.nn.functional.linear"])
            self.mm += 1
            spell = self.spell.random()
            if spell < 0.25:  # the bias added to a linear without one
                return f"({f}({v}, {w}) + {b})", (s[0], dout)
            if spell < 0.45:  # the weight transposed by hand
                t = ".T" if spell < 0.35 else ".t()"
                return f"({self.paren(v)} @ {w}{t} + {b})", (s[0], dout)
            return f"{f}({v}, {w}, {b})", (s[0], dout)
        if len(s) == 1 and k <= 3 and self.spell.random() < 0.5:  # one sample: rank-1 linear / matmul (2026-12-04)
            dout = self.dim()
            self.mm += 1
            if self.spell.random() < 0.5:
                w, b = self.param("w", (dout, s[0])), self.param("b", (dout,))
                return f"F.linear({v}, {w}, {b})", (dout,)
            w = self.param("w", (s[0], dout))
            return f"{self.paren(v)} @ {w}", (dout,)
        if len(s) == 2 and k <= 6:
            other = self.pick(2) if r.random() < 0.2 else None
            if other and self.vars[other][0] == s[1]:
                w, dout = other, self.vars[other][1]
            else:
                dout = self.dim()
                w = self.param("w", (s[1], dout))
            self.mm += 1
            form = r.choice(["{a} @ {b}", "torch.matmul({a}, {b})", "{a}.matmul({b})"])
            if self.spell.random() < 0.2:
                form = self.spell.choice(["torch.mm({a}, {b})", "{a}.mm({b})"])
            return form.format(a=self.paren(v), b=w), (s[0], dout)
        if k <= 9:
            act = r.choice(['relu', 'sigmoid', 'tanh'])
            # the elementwise functions kiln claims since 2026-12-04; layer_norm's rows sum to ~0, so
            # `+ x` keeps a later division by that sum from turning rounding into NaN against 1
            if self.spell.random() < 0.3:
                form = self.spell.choice(["{x}.abs()", "torch.abs({v})", "{x}.square()", "{x} ** 2",
                                          "torch.sqrt({x}.abs())", "{x}.abs().sqrt()", "torch.exp({x}.tanh())",
                                          "F.silu({v})", "torch.nn.functional.silu({v})", "torch.log({x}.abs() + 1.0)",
                                          "{x}.sigmoid().log()", "F.relu6({v})", "F.hardtanh({v})", "{x}.rsqrt()",
                                          "{x}.clamp(-1.0, 1.0)", "torch.clamp({v}, min=0.0)", "{x}.clamp_max(0.5)",
                                          "torch.clip({v}, -2, 2)", "{x}.clamp(min={s}, max=2.0)",
                                          "({x} * 0.5).clamp(None, {s}) + 1.0", "F.hardtanh({v}, -2.0, 2.0)",
                                          "F.hardtanh({x} * 3.0, min_val=-1, max_val={s})", "F.leaky_relu({v})",
                                          "F.leaky_relu({x} - 0.5, 0.2)", "F.leaky_relu({v}, negative_slope={s})",
                                          "F.leaky_relu({v}, -1, False) * 2.0", "F.layer_norm({v}, {x}.shape[-1:]) + {x}",
                                          "F.normalize({v}, dim=-1)", "F.gelu({v})",
                                          "F.gelu({x} * 2.0, approximate='tanh') - 1.0"])
                if "{s}" in form:
                    form = form.replace("{s}", self.scalar_param("s", FLOAT))
                return form.format(x=self.paren(v), v=v), s
            return f"{self.paren(v)}.{act}()", s
        if k <= 12:
            x = r.random()
            if len(s) == 2 and x < 0.4:
                b = self.param("b", (s[1],))
                return (f"{self.paren(v)} + {b}" if r.random() < 0.7 else f"{b} + {self.paren(v)}"), s
            other = self.pick(len(s)) if r.random() < 0.5 else None
            if other and self.vars[other] == s:
                return f"{self.paren(v)} + {self.tree_operand(other) if self.spell.random() < 0.4 else other}", s
            if len(s) == 1 and r.random() < 0.3:
                m = self.param("m", (self.dim(), s[0]))
                return f"{self.paren(v)} + {m}", (self.params[-1][1][1][0], s[0])
            p = self.param("y", s)
            return f"{self.paren(v)} + {p}", s
        if len(s) == 2 and k <= 15:
            red = r.choice(["mean", "sum"])
            dim = r.choice(["1", "1", "-1"])
            kw = (f"dim={dim}, keepdim=False" if r.random() < 0.7 else f"keepdim=False, dim={dim}")
            if self.spell.random() < 0.15:  # a join reduced along itself (torch.cat native since 2026-12-05)
                form = self.spell.choice(["torch.cat([{v}, {x} * 0.5], 1).{red}(dim=1)",
                                          "torch.cat(({x}.relu(), {v}), dim=-1).{red}(-1)",
                                          "torch.concat([{v}, -{x}, {v}], -1).{red}(dim={dim})"])
                return form.format(x=self.paren(v), v=v, red=red, dim=dim), (s[0],)
            if self.spell.random() < 0.12:  # a column picked or sliced (indexing native since 2026-12-05)
                form = self.spell.choice(["{x}[:, 0]", "{x}[:, -1] * 2.0", "{x}[:, :1].{red}(dim=1)",
                                          "{x}[:, 1:].{red}(-1)", "{x}[0:, ::2].{red}(1)"])
                return form.format(x=self.paren(v), v=v, red=red), (s[0],)
            if self.spell.random() < 0.15:  # kept dim, then taken away (shape ops native since 2026-12-05)
                form = self.spell.choice(["{x}.{red}(dim=1, keepdim=True).squeeze(1)",
                                          "{x}.{red}(-1, keepdim=True).view(-1)",
                                          "torch.squeeze({x}.{red}(1, keepdim=True), -1)",
                                          "{x}.{red}(1, keepdim=True).flatten()",
                                          "torch.reshape({x}.{red}(dim=1, keepdim=True), (-1,))"])
                return form.format(x=self.paren(v), v=v, red=red), (s[0],)
            if self.spell.random() < 0.5:  # the other spellings kiln claims since 2026-12-03
                form = self.spell.choice(["{x}.{red}(dim={dim})", "{x}.{red}({dim})", "{x}.{red}({dim}, False)",
                                          "torch.{red}({v}, dim={dim})", "torch.{red}({v}, {dim})",
                                          "torch.{red}({v}, {dim}, keepdim=False)"])
                return form.format(x=self.paren(v), v=v, red=red, dim=dim), (s[0],)
            return f"{self.paren(v)}.{red}({kw})", (s[0],)
        # forms that run on the Python fallback (1, 4), the sums down columns
        # (0, claimed since 2026-12-04), and softmax (2) and tensor arithmetic
        # with another tensor or a scalar (3, 5, 6), which kiln claims since
        # 2026-12-02 (arithmetic chains run as one pass)
        x = r.randint(0, 7)
        if x == 0 and len(s) == 2:
            red = r.choice(['mean', 'sum'])
            if self.spell.random() < 0.2:  # rows joined, then reduced down the columns
                return f"torch.cat([{v}, {self.paren(v)} * 2.0], 0).{red}(dim=0)", (s[1],)
            if self.spell.random() < 0.2:  # a row picked or sliced (indexing native since 2026-12-05)
                return self.spell.choice([f"{self.paren(v)}[0]", f"{self.paren(v)}[-1] + 1.0",
                                          f"{self.paren(v)}[1:].{red}(dim=0)", f"{self.paren(v)}[:2, :].{red}(0)"]), (s[1],)
            return f"{self.paren(v)}.{red}(dim=0)", (s[1],)
        if x == 1 and len(s) == 2:
            return f"{self.paren(v)}.{r.choice(['mean', 'sum'])}(dim=1, keepdim=True)", (s[0], "1")
        if x == 1 and self.spell.random() < 0.2:  # a vector made a matrix and back (shape ops native since 2026-12-05)
            form = self.spell.choice(["{x}.unsqueeze(0).squeeze(0)", "{x}.unsqueeze(1).view(-1)",
                                      "torch.unsqueeze({v}, -1).reshape(-1) * 2.0", "{x}.view(1, -1).sum(0)",
                                      "{x}.reshape(-1, 1).relu().flatten()"])
            return form.format(x=self.paren(v), v=v), s
        if x == 1 and self.spell.random() < 0.5:  # vectors stacked, then reduced (torch.stack native since 2026-12-05)
            form = self.spell.choice(["torch.stack([{v}, {x}.relu()], 1).mean(dim=1)",
                                      "torch.stack(({x} * 2.0, {v}, -{x})).sum(0)"])
            return form.format(x=self.paren(v), v=v), s
        if x == 2:
            if self.spell.random() < 0.4:
                form = self.spell.choice(["F.log_softmax({v}, dim=-1)", "{x}.log_softmax(-1)", "torch.log_softmax({v}, 1)"])
                if len(s) == 1:
                    form = form.replace("dim=-1", "dim=0").replace("(-1)", "(0)").replace(", 1)", ", -1)")
                return form.format(x=self.paren(v), v=v), s
            return f"torch.softmax({v}, dim=-1)", s
        if x == 3:
            other = self.pick(len(s))
            o = other if other and self.vars[other] == s else self.param("y", s)
            if self.spell.random() < 0.6:  # a tree: the other operand a chain of its own (one pass since 2026-12-04)
                o = self.tree_operand(o)
            if self.spell.random() < 0.25:  # torch.maximum / minimum of two tensors (claimed since 2026-12-05)
                form = self.spell.choice(["torch.maximum({v}, {o})", "torch.minimum({o}, {v})", "{x}.maximum({o})",
                                          "{x}.min({o})", "torch.max({v}, {o}) * 2.0", "torch.min({v}, {o}).relu()"])
                return form.format(x=self.paren(v), v=v, o=o), s
            return f"{self.paren(v)} {r.choice(['*', '-', '/'])} {o}", s
        if x == 4 and len(s) == 2:
            return f"{self.paren(v)}.transpose(0, 1)", (s[1], s[0])
        if x == 5:
            sp = self.scalar_param("s", FLOAT)
            o = r.choice(['+', '+', '-', '*', '/'])
            return (f"{self.paren(v)} {o} {sp}" if r.random() < 0.6 else f"{sp} {o} {self.paren(v)}"), s
        if x == 6:
            lit = r.choice(['0.5', '2.0', '-1.0', '3'])
            if self.spell.random() < 0.25:  # an int read from the tensor x (native since 2026-12-04)
                lit = self.spell.choice(["x.size(-1)", "x.size(0)", "x.size(dim=0)", "x.numel()", "x.dim()"])
            o = r.choice(['+', '*', '-', '/'])
            return (f"{self.paren(v)} {o} {lit}" if r.random() < 0.6 else f"{lit} {o} {self.paren(v)}"), s
        return f"{self.paren(v)}.relu()", s

    def tree_operand(self, o: str) -> str:
        """A chain of its own on o, as the second operand of + - * / (a tree:
        pushed where its ops are cheap, since 2026-12-04)."""
        return self.spell.choice([
            "({o} * 0.5 - 1.0)", "(2.0 - {o}.relu())", "torch.abs({o} + 1.0)", "({o} - 1.0).abs() * 2.0",
            "F.leaky_relu({o} * 3.0, 0.1)", "({o}.clamp(-1.0, 1.0) + 0.5)", "(-{o} * {o} + 3)", "F.relu6({o} / 2)",
            "(x.size(-1) * {o}.relu() + {o})", "torch.tanh({o})", "{o}.sigmoid()"]).format(o=o)

    @staticmethod
    def paren(v: str) -> str:
        return v if v.isidentifier() or v.endswith(")") and v.count("(") == 1 else f"({v})"

    def chain(self, src: str) -> str:
        self.cur = self.vars[src]
        text = src
        for _ in range(self.r.choice([1, 1, 2, 2, 3])):
            text, self.cur = self.op(text)
        return text

    def generate(self) -> tuple[str, FuncInfo]:
        r = self.r
        rank = 2 if r.random() < 0.85 else 1
        x = "x"
        shape = ("B", self.dim()) if rank == 2 else (self.dim(),)
        self.params.append((x, ("T", shape)))
        self.vars[x] = shape
        depth_param = None
        last = x
        for _ in range(r.randint(1, 4)):
            k = r.random()
            src = last if r.random() < 0.75 else r.choice(list(self.vars))
            if k < 0.15 and len(self.vars[src]) == 2:
                s = self.vars[src]
                w = self.param("wl", (s[1], s[1]))
                b = self.param("bl", (s[1],))
                depth_param = self.scalar_param("depth", INT)
                h = self.fresh()
                self.lines.append(f"    {h} = {src}")
                body = r.choice(self.layer_forms(h, w, b))
                self.lines.append(f"    for _ in range(depth):")
                self.lines.append(f"        {h} = {body}")
                self.vars[h] = s
                self.mm += 4
                last = h
            elif k < 0.25:
                flag = self.scalar_param("flag", BOOL)
                t = self.fresh()
                self.cur = self.vars[src]
                a, b_ = self.branch_forms(src)
                self.lines.append(f"    if {flag}:")
                self.lines.append(f"        {t} = {a}")
                self.lines.append(f"    else:")
                self.lines.append(f"        {t} = {b_}")
                self.vars[t] = self.vars[src]
                last = t
            else:
                t = self.fresh()
                text = self.chain(src)
                self.lines.append(f"    {t} = {text}")
                self.vars[t] = self.cur
                last = t
        res = last
        rank = len(self.vars[res])
        ann = {1: " -> TensorF32Cpu1D", 2: " -> TensorF32Cpu2D"}[rank] if r.random() < 0.8 else ""
        self.lines.append(f"    return {res}")

        def annot(kind):
            if isinstance(kind, tuple):
                return "TensorF32Cpu2D" if len(kind[1]) == 2 else "TensorF32Cpu1D"
            return kind
        sig = ", ".join(f"{n}: {annot(k)}" for n, k in self.params)
        src = f"def {self.name}({sig}){ann}:\n" + "\n".join(self.lines) + "\n"
        return src, FuncInfo(self.name, list(self.params), "tensor", tensor=True,
                             mm_chain=self.mm, depth_param=depth_param, fw=self.FW)

    FW = "torch"

    @staticmethod
    def layer_forms(h: str, w: str, b: str) -> list[str]:
        """The layer a loop applies to h (w square, b its bias)."""
        return [f"F.linear({h}, {w}, {b}).relu()", f"({h} @ {w} + {b}).tanh()", f"torch.matmul({h}, {w}).sigmoid()"]

    def branch_forms(self, src: str) -> tuple[str, str]:
        """The two arms of an if on a bool parameter, each a function of src."""
        r = self.r
        return (f"{self.paren(src)}.{r.choice(['relu', 'sigmoid', 'tanh'])}()",
                f"{self.paren(src)}.{r.choice(['relu', 'sigmoid', 'tanh'])}()")


def gen_module(rng: random.Random, n_funcs: int = 50, tensor_frac: float = 0.3,
               prefix: str = "f", comp_weight: float = COMP_WEIGHT,
               try_weight: float = TRY_WEIGHT, lambda_weight: float = LAMBDA_WEIGHT,
               unpack_weight: float = UNPACK_WEIGHT, match_weight: float = MATCH_WEIGHT,
               genexpr_weight: float = GENEXPR_WEIGHT,
               local_import_weight: float = LOCAL_IMPORT_WEIGHT, tf_frac: float = 0.0) -> Module:
    """A module of n_funcs functions, tensor_frac of them tensor functions: of
    TensorFlow in a share tf_frac of the modules (drawn aside: with tf_frac 0 a
    seed's modules are those of before), else of torch."""
    from tests.difftest.gen_tf import TF_HEADER, TF_LOCAL_IMPORTS, TFTensorGen
    side = random.Random(repr(rng.getstate()[1][:8]))  # draws nothing from rng
    header_rng = random.Random(repr(rng.getstate()[1][:8]) + "header")  # nor from side
    draw = header_rng.random()
    header = GUARDED_HEADER if draw < GUARDED_HEADER_P else \
        ALIAS_HEADER if draw < GUARDED_HEADER_P + ALIAS_HEADER_P else HEADER
    use_tf = tf_frac > 0 and random.Random(repr(rng.getstate()[1][:8]) + "tf").random() < tf_frac
    if use_tf:
        header = TF_HEADER
    parts = [header] + (UNPACK_HELPERS if unpack_weight > 0 else []) + \
        (MATCH_HELPERS if match_weight > 0 else []) + (GENEXPR_HELPERS if genexpr_weight > 0 else [])
    infos: list[FuncInfo] = []
    for k in range(n_funcs):
        name = f"{prefix}{k}"
        if rng.random() < tensor_frac:
            src, info = (TFTensorGen if use_tf else TensorGen)(rng, name).generate()
        else:
            src, info = ScalarGen(rng, name, infos, comp_weight, try_weight,
                                  lambda_weight, unpack_weight, match_weight,
                                  genexpr_weight).generate()
        parts.append(with_local_imports(src, side, local_import_weight,
                                        TF_LOCAL_IMPORTS if use_tf else LOCAL_IMPORTS))
        infos.append(info)
    return Module("\n\n".join(parts), infos)
