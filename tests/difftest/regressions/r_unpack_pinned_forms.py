"""difftest regression r_unpack_pinned_forms (hand-written, not a found bug).

Unpacking forms whose errors and order the generator reaches only by
chance, pinned (kiln compiles them natively since 4a6b995): each bad operand
of `*`/`**` in a call and in a display with CPython's message (not iterable,
not a mapping, a repeated keyword, keys that are not strings, an iterator
raising inside, which keeps its own error), the order a call's parts are
evaluated in (a `*` after a keyword comes before it), starred targets with
too few items, a nested target failing after the names before it were
stored, for targets with a star and a nested one, a native function called
with unpacked arguments (too many, repeated, unknown, missing), and print()
with unpacked arguments into a StringIO.
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def u_args(*a, **k):
    s = repr((a, sorted(k.items())))
    return len(a) * 100003 + len(k) * 1009 + sum((i + 1) * ord(c) for i, c in enumerate(s)) % 99991


def u_log(T, n, v):
    T.append(n)
    return v


def u_gen(*a, fail=None):
    for x in a:
        if fail is not None and x == fail:
            raise ValueError('u_gen got ' + repr(x))
        yield x


def u_buf():
    import io
    return io.StringIO()


def u_typed(p: int, q: int = 3, *, k: float = 0.5, m: bool = False) -> float:
    return p * 0.5 + q + k + (1.0 if m else -1.0)


def call_errors(a: int) -> int:
    out = 0
    for i in range(9):
        try:
            if i == 0:
                out += u_args(*a)
            elif i == 1:
                out += u_args(**a)
            elif i == 2:
                out += u_args(k=a, **{'k': 1})
            elif i == 3:
                out += u_args(**{'m': 1}, **dict(m=a))
            elif i == 4:
                out += u_args(**{a: 1})
            elif i == 5:
                out += max(*[a])
            elif i == 6:
                out += u_args(*map(len, [a]))
            elif i == 7:
                out += u_args(1, *u_gen(a, a + 1, fail=a + 1))
            else:
                out += len('{}{}'.format(*[a]))
        except (TypeError, ValueError, IndexError) as e:
            out = out * 7 + u_args(type(e).__name__, str(e))
    return out


def display_errors(a: int) -> int:
    out = 0
    for i in range(7):
        try:
            if i == 0:
                out += len([*a])
            elif i == 1:
                out += len((a, *a))
            elif i == 2:
                out += len({*a})
            elif i == 3:
                out += len({**a})
            elif i == 4:
                out += len({1: a, **[(1, 2)]})
            elif i == 5:
                out += len([*map(len, [a])])
            else:
                out += len({*u_gen(a, fail=a)})
        except (TypeError, ValueError) as e:
            out = out * 7 + u_args(type(e).__name__, str(e))
    return out


def order(a: int) -> int:
    T = []
    r = u_log(T, 0, u_args)(u_log(T, 1, a), *u_log(T, 2, [a]), k=u_log(T, 3, a),
                            *u_log(T, 4, (a, a)), **u_log(T, 5, {'m': a}), z=u_log(T, 6, a))
    return r * 1000 + u_args(*T)


def order_error(a: int) -> int:
    T = []
    try:
        u_log(T, 0, u_args)(u_log(T, 1, a), k=u_log(T, 2, a), *u_log(T, 3, a), **u_log(T, 4, {}))
    except TypeError as e:
        return u_args(*T, str(e))
    return -1


def targets(a: int) -> int:
    out = 0
    for n in range(4):
        try:
            x, *r, y = range(a % 3 + n - 1)
            out += x * 10 + len(r) + y
            *s, = str(a)
            [p, *q] = s
            out += len(q) + len(p)
            (b, c), *d = [(a, n), *r]
            out += b + c + len(d)
        except (ValueError, TypeError) as e:
            out = out * 3 + u_args(str(e))
    return out


def partial_store(a: int) -> int:
    p, q, r = 1, 2, [3]
    try:
        p, (q, *r) = a + 10, a
    except TypeError as e:
        return p * 1000 + q * 100 + len(r) + len(str(e))
    return -1


def for_rows(a: int) -> int:
    out = 0
    for x, *r in [(a, 1, 2), [a], str(a), range(a % 4)]:
        out = out * 3 + len(r) + len(str(x))
    for i, (x, *r, y) in enumerate(zip([a, a + 1], [1, 2], 'ab')):
        out += i + x + len(r) + len(y)
    for k, *v in {a: 1, a + 1: 2}.items():
        out += k * len(v)
    return out


def native_callee(a: int) -> float:
    out = u_typed(*[a]) + u_typed(*(a, 2), **{'k': 1.5}) + u_typed(a, **dict(m=True))
    for i in range(5):
        try:
            if i == 0:
                out += u_typed(*[a, a, a])
            elif i == 1:
                out += u_typed(a, **{'p': a})
            elif i == 2:
                out += u_typed(*[a], **{'z': 1.0})
            elif i == 3:
                out += u_typed(**{'q': a})
            else:
                out += u_typed(*[], q=a)
        except TypeError as e:
            out = out * 2 + len(str(e))
    return out


def printed(a: int, b: float) -> int:
    buf = u_buf()
    print(*[a, 'x'], *'yz', b, sep='-', end='|', file=buf)
    print(*(), **{'sep': ','}, file=buf)
    print(*{a: 1, -a: 2}, *range(a % 3), **{'end': '', 'file': buf})
    buf.write(*[repr(b)])
    try:
        print(*[a], sepx=1, file=buf)
    except TypeError as e:
        buf.write(str(e))
    return u_args(buf.getvalue())


CASES = {
    'call_errors': [(0,), (-3,), (7,)],
    'display_errors': [(0,), (5,)],
    'order': [(1,), (-9223372036854775808,)],
    'order_error': [(2,)],
    'targets': [(0,), (1,), (2,), (-17,), (123456,)],
    'partial_store': [(0,), (5,)],
    'for_rows': [(0,), (1,), (-2,)],
    'native_callee': [(0,), (3,), (-9223372036854775807,)],
    'printed': [(0, 0.0), (-3, float('nan')), (12, -0.0)],
}
