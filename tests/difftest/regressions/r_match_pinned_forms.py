"""difftest regression r_match_pinned_forms (hand-written, not a found bug).

Match statement forms whose errors and order the generator reaches only by
chance, pinned (kiln compiles them natively since 2ad8545): a logging
Sequence matched by unpacking (`[x, y, *r]`: iterated) and by indexing
(`[x, *_, y]`: len again for each item after the star), a dict subclass's
logged `get` (what a mapping pattern calls) and its `**rest`, an attribute
read and `__eq__` that log and raise, the TypeErrors of class patterns
(`__match_args__` a list, too many positional sub-patterns, a keyword
repeating a positional one, a non-class) and the ValueError of a duplicate
mapping key, captures bound before a guard that raises or fails (and
UnboundLocalError when no case bound them), int/float equality at the edges
of int64 and 2**53 on typed subjects, `True`/`False` as identity tests,
`MK.ODD`'s `__eq__` reached reflected from a typed subject, what is not a
sequence (str, bytes, bytearray, dict, set), star subjects, trailing commas,
`match`/`case`/`_` as ordinary names, break/continue in cases.
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


import collections
import collections.abc
from dataclasses import dataclass


def m_fold(*a):
    s = repr(a)
    return len(s) * 1009 + sum((i + 1) * ord(c) for i, c in enumerate(s)) % 99991


def m_tick(T, v):
    T.append('s')
    return v


class MOdd:
    def __eq__(self, other):
        if isinstance(other, str):
            raise TypeError('MOdd == ' + repr(other))
        return isinstance(other, (int, float)) and other % 2 == 1

    def __repr__(self):
        return 'MOdd()'


class MK:
    ZERO = 0
    ONE = 1
    NEG = -1
    BIG = 9223372036854775807
    HUGE = 2 ** 64
    HALF = 0.5
    NAN = math.nan
    T = True
    NAME = 'ab'
    EMPTY = ''
    NONE = None
    ODD = MOdd()


class MPt:
    __match_args__ = ('x', 'y')

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __repr__(self):
        return f'MPt({self.x!r}, {self.y!r})'


class MPt3(MPt):
    __match_args__ = ('x', 'y', 'z')

    def __init__(self, x, y, z):
        MPt.__init__(self, x, y)
        self.z = z

    def __repr__(self):
        return f'MPt3({self.x!r}, {self.y!r}, {self.z!r})'


class MBox:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return f'MBox({self.v!r})'


@dataclass
class MD:
    p: int
    q: float = 0.0


MNT = collections.namedtuple('MNT', 'p q')


class MLog:
    __match_args__ = ('v', 'w')

    def __init__(self, T, v, w=0):
        self.T = T
        self._v = v
        self.w = w

    @property
    def v(self):
        self.T.append('v')
        if self._v is None:
            raise ValueError('MLog.v is unset')
        return self._v

    def __eq__(self, other):
        self.T.append(('eq', other))
        if isinstance(other, str):
            raise TypeError('MLog == ' + repr(other))
        return self._v == other

    def __repr__(self):
        return f'MLog({self._v!r}, {self.w!r})'


class MBad:
    __match_args__ = ['v']

    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return f'MBad({self.v!r})'


class MSeq(collections.abc.Sequence):
    def __init__(self, T, items):
        self.T = T
        self.items = list(items)

    def __len__(self):
        self.T.append('len')
        return len(self.items)

    def __getitem__(self, i):
        self.T.append(i)
        return self.items[i]

    def __repr__(self):
        return f'MSeq({self.items!r})'


class MMap(dict):
    def __init__(self, T, d):
        dict.__init__(self, d)
        self.T = T

    def get(self, k, d=None):
        self.T.append(('get', k))
        return dict.get(self, k, d)


def seq_paths(a: int, k: int) -> int:
    T = []
    v = 0
    match MSeq(T, list(range(a % 5))):
        case [x, *_, y] if k == 0:
            v += x + y
        case [x, y, *r] if k == 1:
            v += x * 10 + y + len(r)
        case [*_, z]:
            v += z
        case (p, q):
            v += p - q
    return v + m_fold(T)


def map_get(a: int) -> int:
    T = []
    v = 0
    match MMap(T, {'k': a, 'm': a + 1, 'z': a % 3}):
        case {'z': 0, 'q': x}:
            v += x
        case {'k': x, 'z': 1, **rest}:
            v += x + m_fold(rest)
        case {'m': m, 'k': k}:
            v += m - k
    return v + m_fold(T)


def logged_attrs(a: int, b: int) -> int:
    T = []
    v = 0
    o = MLog(T, a if b else None, b)
    try:
        match o:
            case 0 | 1:
                v += 1
            case MLog(w=2, v=x):
                v += x
            case MLog(x, y) if x > 0:
                v += x + y
            case 'ab':
                v += 7
    except (ValueError, TypeError) as e:
        v -= len(str(e))
    return v + m_fold(T)


def class_errors(a: int) -> int:
    v = 0
    for i in range(6):
        try:
            if i == 0:
                match MBad(a):
                    case MBad(x):
                        v += x
            elif i == 1:
                match MPt(a, a):
                    case MPt(x, y, z):
                        v += 1
            elif i == 2:
                match MPt(a, a):
                    case MPt(1, x=2):
                        v += 1
            elif i == 3:
                match a:
                    case MK.ZERO():
                        v += 1
            elif i == 4:
                match a:
                    case int(x, y):
                        v += 1
            else:
                match MPt3(a, a, a):
                    case MPt(p, q):
                        v += p + q
        except TypeError as e:
            v += m_fold(str(e))
    return v


def dup_key(a: int) -> int:
    v = 0
    try:
        match {0: a, 1: a, 'ab': a} if a % 2 else {MK.ZERO: a}:
            case {0: x, MK.ZERO: y}:
                v += x
            case {MK.NAME: q, 'ab': r}:
                v += q
    except ValueError as e:
        v -= m_fold(str(e))
    return v


def guard_binds(a: int) -> int:
    try:
        match a:
            case n if 10 // (a % 3):
                return n
    except ZeroDivisionError:
        pass
    return n + 1000


def unbound_after(a: int) -> int:
    v = 0
    match a % 3:
        case 0:
            q = 5
        case 1 as q if a > 3:
            v += 1
    return v + q


def edges(n: int, x: float) -> int:
    v = 0
    match n:
        case 9007199254740992.0:
            v += 1
        case 9.223372036854776e18:
            v += 2
        case -9.223372036854776e18:
            v += 3
        case True:
            v += 4
    match x:
        case 9007199254740993:
            v += 10
        case 9223372036854775807:
            v += 20
        case 9223372036854775808:
            v += 30
        case -0.0:
            v += 40
        case 1 + 0j:
            v += 50
    match n, x:
        case (p, q) if p == q:
            v += 100
    return v


def flags(b: bool, n: int) -> int:
    v = 0
    match b:
        case 1:
            v += 1
        case 0.0:
            v += 2
    match n % 3 == 0:
        case True:
            v += 10
        case False:
            v += 20
    match n:
        case int(k) if k > 5:
            v += k
        case MK.ODD:
            v += 1000
    return v


def odd(x: float) -> int:
    match x:
        case MK.ODD:
            return 1
        case 2 | 4.0:
            return 2
    try:
        match str(x):
            case MK.ODD:
                return 3
    except TypeError as e:
        return m_fold(str(e))
    return 0


def not_sequences(a: int) -> int:
    v = 0
    for x in ['ab', b'ab', bytearray(b'ab'), {'a': 1}, range(2), (1, 2), [1, 2], MNT(1, 2), {1, 2}, 'a']:
        match x:
            case [p, q]:
                v = v * 3 + 1
            case {'a': _}:
                v = v * 3 + 2
            case _:
                v = v * 3
    return v + a


def syntax_forms(a: int, b: int) -> int:
    L = [a, b]
    r = 0
    match *L, a:
        case [x, y, z,]:
            r += x + y + z
    match str(a % 3):
        case "0" "":
            r += 1
        case ("1"):
            r += 2
        case (((w))):
            r += len(w)
    match {'k': a}:
        case {'k': v,}:
            r += v
    match MPt(a, b,):
        case MPt(x, y,):
            r += x * y
    match = [a, 1]
    case = match[0]
    match[0] = case + 1
    _ = match
    match match:
        case [case, _]:
            r += case + _[1]
    return r


def loop_exits(a: int) -> int:
    v = 0
    for i in range(a % 6):
        match i % 3, a:
            case (0, x):
                continue
            case (1, _):
                v += 1
                break
            case (q, r) if q > r:
                v += 100
    return v


def nested(a: int) -> int:
    match MPt(a, MPt(a + 1, [a, a + 2])):
        case MPt(x, MPt(y, [_, *_, w])) if w > x:
            return x + y + w
        case MPt(x=x, y=MPt(x=y)):
            return y


CASES = {
    'seq_paths': [(a, k) for a in range(6) for k in range(3)],
    'map_get': [(-2,), (0,), (1,), (2,), (4,)],
    'logged_attrs': [(a, b) for a in (-1, 0, 1, 2, 5) for b in (0, 1, 2)],
    'class_errors': [(0,), (1,)],
    'dup_key': [(1,), (2,)],
    'guard_binds': [(-3,), (0,), (1,), (2,)],
    'unbound_after': [(0,), (1,), (2,), (4,)],
    'edges': [(9007199254740993, 9007199254740992.0), (9007199254740992, 9.223372036854776e18),
              (9223372036854775807, -0.0), (-9223372036854775808, 1.0), (1, 0.0)],
    'flags': [(True, 6), (False, 3), (True, 7), (False, -9223372036854775807)],
    'odd': [(1.0,), (3.0,), (2.0,), (0.5,), (math.nan,), (math.inf,), (-1.0,)],
    'not_sequences': [(0,)],
    'syntax_forms': [(1, 2), (-4, 9223372036854775807)],
    'loop_exits': [(a,) for a in (-3, 0, 1, 2, 5, 7)],
    'nested': [(-3,), (0,), (2,)],
}
