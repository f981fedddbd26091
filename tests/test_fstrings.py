"""f-strings compiled natively: every form of PEP 498 (prefixes, quotes,
implicit concatenation, conversions, format specs with nested fields, the
debug form `{expr=}`, escapes) is compared with the original Python function
(`module.__kiln_python__[name]`, the oracle): same string, or same exception
type and message, and the same side effects (evaluation order is recorded in a
module-level list).

Each group of functions is one source (the *_SRC strings below), built once
per module with `kiln.build`. Every function of a group is expected to be
reported "native" except those named in the group's `python` set (forms the
compiler leaves as Python, KILN010: `:=` in a lambda, in a generator expression
or in a field) and the group whose status is not checked (EXTRAS: rarer spellings,
compared for results only). CRLF_SRC is written with CRLF line ends. Results
are compared by type too: a lone field whose format() gives a str subclass
returns that object in CPython.

Native int/float/bool parameters are passed values of exactly their type
(kiln converts a bool passed for `int` and an int passed for `float` on entry,
as str() shows already; that is not an f-string matter).

The sources are valid on CPython 3.10 to 3.13 (no PEP 701 syntax: no
backslash, comment or same-quote string inside a replacement field), but
PEP701_SRC at the end: kilnc lexes it on any Python, and it is built and
compared only on 3.12 and later.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import os
import pathlib
import random
import re
import struct
import subprocess
import sys

import pytest

try:
    import kiln._compiler  # noqa: F401  (the C compiler extension)
except ImportError as exc:  # the compiler has not landed in this checkout yet
    pytest.skip(
        f"kiln._compiler cannot be imported ({exc}); the f-string tests need the compiler",
        allow_module_level=True,
    )

import kiln
from oracle import build_cache, check_report_status, same_value

ROOT = pathlib.Path(__file__).resolve().parent.parent
# First on a subprocess's PYTHONPATH: it imports this checkout's kiln, not an installed one.
ROOT_PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
INF = float("inf")
NAN = float("nan")


# --------------------------------------------------------------------------
# Sources (one module each)
# --------------------------------------------------------------------------

# Prefixes, quotes, implicit concatenation, escapes, raw f-strings, braces.
LITERALS_SRC = r'''
def pre_f(x: int) -> str:
    return f"x={x}"


def pre_F(x: int) -> str:
    return F"x={x}!"


def pre_rf(x: int) -> str:
    return rf"\n{x}\t\\{x}"


def pre_fr(x: int) -> str:
    return fr"\d+{x}\w"


def pre_Rf(x: int) -> str:
    return Rf"\t{x}\x41"


def pre_fR(x: int) -> str:
    return fR"\u00e9{x}"


def pre_RF(x: int) -> str:
    return RF"\\{x}"


def pre_FR(x: int) -> str:
    return FR"{x}\0"


def pre_rF(x: int) -> str:
    return rF"a\{x}b"


def q_single(x: int) -> str:
    return f'{x}' + f'"{x}"'


def q_mixed(x: int) -> str:
    return f'say "{x}"' + f"it's {x}"


def q_triple_double(x: int) -> str:
    return f"""a "quoted" {x}
line2 'q' {x + 1}
"""


def concat_mix(x: int, y) -> str:
    return "a" f"{x}" 'b' f'{y!r}'


def concat_plain_braces(x: int) -> str:
    return "{x}" f"{x}" "}{" '{{'


def concat_raw(x: int) -> str:
    return r"\n" f"{x}" "\n" rf"\t{x}" R'\q'


def concat_lines(x: int, y) -> str:
    return ("head "
            f"{x} "
            'mid '
            f'{y!r} '
            F"{x + 1}")


def concat_continuation(x: int) -> str:
    return f"{x}" \
        f"-{x}"


def concat_many(x: int, y) -> str:
    return f"{x}" f"{y}" f"{x!r}" "" f"" f"{y!s:>3}"


def esc_braces(x: int) -> str:
    return f"{{{x}}} {{x}} }}{{ {{}}"


def esc_seq(x: int) -> str:
    return f"\n\t{x}\x41\u00e9\\\U0001F600\101\r\"\'\a\b\f\v"


def esc_nul(x: int) -> str:
    return f"\0{x}\x00"


def octal_escapes(x: int) -> str:
    return f"\1\12\123\1234{x}\0"


def esc_brace_hex(x: int) -> str:
    return f"\x7b{x}\x7d\u007b\173"


def esc_backslashes(x: int) -> str:
    return f"\\{x}\\\\{x}\\"


def esc_raw_keep(x: int) -> str:
    return rf"\n{x}\x41\u00e9\\"


def esc_named(x: int) -> str:
    return f"\N{BULLET} {x}"


def esc_named_concat(x: int) -> str:
    return "x" f"\N{BULLET}{x:>3}"


def esc_named_triple(x: int) -> str:
    return f"""\N{EM DASH}{x}\N{LATIN SMALL LETTER E WITH ACUTE}"""


def empty_fstring() -> str:
    return f""


def no_fields() -> str:
    return f"plain text"


def only_field(s) -> str:
    return f"{s}"


def adjacent_fields(x: int, s) -> str:
    return f"{x}{s}{x}{s}"


def nonascii(s, x: int) -> str:
    return f"é{s}ü 日本 😀 {x}"


def nonascii_fill(x: int) -> str:
    return f"{x:é^9}|{x:😀<5}|{x:日>4}"


def names_like_prefixes(f: int, rf: int, fr) -> str:
    F = f + rf
    return f"{f}{rf}{fr}{F}" + str(f + rf) + fr


def tight(x: int) -> str:
    return f"{x}"if x else""


def hashes(x: int) -> str:
    return f"#{x}#" + f'# {x!r} #'


def comments_between(x: int, y) -> str:
    return (f"{x}"  # a comment {x} "quote
            f"{y}"  # another
            )


def eq_signs(x: int) -> str:
    return f"{x >= 1=}|{x <= 1=}|{x == 1=}|{dict(a=x)=}|{'a=b'=}|{x >= 1}{x == 1}{'a=b'}"


def empties() -> str:
    return f"" f"" "" f''
''' + r"""

def q_triple_single(x: int) -> str:
    return f'''it's "{x}"
second {x!r}'''


def raw_triple(x: int) -> str:
    return rf'''\n{x}
\t'''


def triple_quotes_in_field(d) -> str:
    return f'''{d["k"]} {d['k']}'''
"""

# Conversions, format specs (fixed, nested, dynamic) and the debug form.
FIELDS_SRC = r'''
class Fmt:
    def __format__(self, spec):
        return "<" + spec + ">"

    def __repr__(self):
        return "Fmt()"

    def __str__(self):
        return "fmt-str"


class Both:
    def __repr__(self):
        return "Both(é)"

    def __str__(self):
        return "both-é"


class StrSub(str):
    def __format__(self, spec):
        return "S[" + spec + "]"

    def __str__(self):
        return "strsub"

    def __repr__(self):
        return "StrSub!"


class IntSub(int):
    def __format__(self, spec):
        return "I[" + spec + "]"

    def __repr__(self):
        return "IntSub!"


class PlainSub(str):
    def __str__(self):
        return "plain-str"


class RetSub:
    def __format__(self, spec):
        return StrSub("r" + spec)

    def __repr__(self):
        return "RetSub()"


class StrRetSub:
    def __str__(self):
        return StrSub("q")

    def __repr__(self):
        return StrSub("rep")


def conv_plain(o) -> str:
    return f"{o}"


def conv_r(o) -> str:
    return f"{o!r}"


def conv_s(o) -> str:
    return f"{o!s}"


def conv_a(o) -> str:
    return f"{o!a}"


def conv_r_spec(o) -> str:
    return f"{o!r:>20}"


def conv_s_spec(o) -> str:
    return f"{o!s:*^15}"


def conv_a_spec(o) -> str:
    return f"{o!a:<12}|"


def spec_fixed(o) -> str:
    return f"{o:>12}"


def spec_colon(o) -> str:
    return f"{o:a:b}"


def spec_bang(o) -> str:
    return f"{o:!r}"


def spec_empty(o) -> str:
    return f"{o:}"


def spec_literal_nested(o, w: int) -> str:
    return f"{o:x{w}y}"


def spec_dynamic(o, spec) -> str:
    return f"{o:{spec}}"


def spec_nested_float(x: float, width: int, prec: int) -> str:
    return f"{x:{width}.{prec}f}"


def spec_nested_align(s, w: int) -> str:
    return f"{s:>{w}}"


def spec_nested_many(n: int, fill, align, w: int) -> str:
    return f"[{n:{fill}{align}{w}}]"


def spec_nested_int(n: int, w: int, base) -> str:
    return f"{n:#0{w}{base}}"


def spec_nested_conv(o, w) -> str:
    return f"{o!r:>{w}}|{o!s:{w}}"


def debug_plain(x: int) -> str:
    return f"{x=}"


def debug_ws(x: int) -> str:
    return f"{x = }"


def debug_ws_variants(x: int) -> str:
    return f"{ x = }|{x =}|{x= }|{x  =  }"


def debug_s(o) -> str:
    return f"{o=!s}"


def debug_r(o) -> str:
    return f"{o=!r}"


def debug_a(o) -> str:
    return f"{o=!a}"


def debug_spec(o) -> str:
    return f"{o=:>10}"


def debug_conv_spec(o) -> str:
    return f"{o=!r:^20}"


def debug_obj(o) -> str:
    return f"{o=}"


def debug_expr(x: int, s) -> str:
    return f"{x + 1=} {s.upper()=} {x * 2 = }"


def debug_subscript(d) -> str:
    return f"{d['k']=}"


def debug_float(x: float) -> str:
    return f"{x=}|{x=:.2f}|{x=!s}|{x = !r}"


def debug_bool(b: bool) -> str:
    return f"{b=}|{b = :>6}|{b=!s}"


def debug_nested_spec(x: float, w: int) -> str:
    return f"{x=:>{w}.2f}"


def debug_in_text(x: int, s) -> str:
    return f"a {x=} b {s=} c"


def debug_multiline(x: int) -> str:
    return f"""{
x
=}|{ x
 = !r:>3}"""


def spec_escapes(x: int) -> str:
    return f"{x:\x41>5}|{x:\n>3}|{x:\u00e9^5}"


def spec_then_brace(x: float, n: int) -> str:
    return f"{{{x:.2f}}}|{x:>{n}}}}|{x!r:}}}|{{{n=:>3}}}"


def spec_quote_fill(x: int) -> str:
    return f"{x:'>5}" + f'{x:">5}'


def debug_quotes(s) -> str:
    return f'{"a" + s=}|{(len(s) + 1) * 2 = }|{ {"k": s}["k"]= }'
'''


# a tab inside a debug field's text (kept verbatim), outside the raw literal
FIELDS_SRC += ('\n\ndef debug_tab(x: int) -> str:\n'
               '    return f"{x\t=}|{x =\t}|{\tx\t=\t!s}"\n')

# The same f-strings in a file with CRLF line ends: Python reads "\r\n" as
# "\n" everywhere, in literal parts and in the text of a debug field alike.
CRLF_SRC = (r'''
def crlf_triple(x: int) -> str:
    return f"""a
{x}
b""" + """c
d"""


def crlf_debug(x: int) -> str:
    return f"""{
x
=}"""


def crlf_debug_spec(x: int) -> str:
    return f"""{x
=:>{
4}}|{x
!r}"""


def crlf_raw(x: int) -> str:
    return rf"""\n{x}
\t"""
''').replace("\n", "\r\n")


# Native int/float/bool values: generated, one function per spec.
INT_SPECS = ["", "d", "n", "b", "08b", "o", "x", "X", "#x", "#X", "#o", "#b", ",", "_",
             "_x", "_b", ",d", "+d", " d", "-d", ">8", "<8", "^8", "*^9", "=8", "08",
             "+08", "#010x", "0=+10", "020_d", "020,", "012_x", ">300", "F", "E", "#.0e",
             "e", ".2f", ".3e", "%", ".1%", "g", "G",
             ">+12,", "c", "x<5", "-^+7"]
FLOAT_SPECS = ["", "f", ".3f", ".0f", "F", ".2F", "e", "E", ".2e", ".0e", "g", "G",
               ".10g", ".17g", ".3", ".1", "%", ".1%", ",", "_", ",.2f", "_.3f", "+.1f",
               " .1f", "-.1f", ">10.2f", "<10", "^12", "*^12.1f", "010.3f", "=+12.3f",
               "#.0f", "#g", "#.3", ".20f", ".30e", "n", "z.1f", "+z.0f", "020,.2f", ".100f",
               ".60e", ".50g", "#.0e", "08.3%", ">300.2e"]
BOOL_SPECS = ["", "d", "n", "x", "#b", ">6", "<6", "^7", "*>7", "+d", "08", ".1f", "e",
              "%", "c", "s"]
CONVERSIONS = ["!r", "!s", "!a", "!r:>12", "!s:*<8", "!a:^10", "=", " = ", "=:>12",
               "=!s", "=!r:<14"]

INT_VALUES = [0, 1, -1, 7, -42, 65, 255, 10**6, -10**6, 2**31, 2**53 + 1, 2**62, -2**62,
              2**63 - 1, -2**63]
FLOAT_VALUES = [0.0, -0.0, 0.1, 1.5, -2.5, 2.5, 0.125, 1 / 3, 1e16, 1e-7, 123456789.123,
                2.0**53, 1e22, 1e300, -1e300, 5e-324, 1.7976931348623157e308, INF, -INF,
                NAN]
BOOL_VALUES = [True, False]
DYN_SPECS = ["", ">10", "<4", "^9", "*^9", "x", "d", ".2f", ".3", "s", "+", ",", "#x",
             "q", "=10", "09", "e", "%", "c", " ", "-5", "é>6", "#c", ",c", ".0", "+.3",
             "#", "0", "00", "+#x", "#_b", ",_", "z", "z.2f", "{^9", "}>4", "\x00>5", "<>",
             ".1000f", ".2147483648f", "-", " =12", "é", "s>5", ".1000", "=^", "x^-3", "\ud800>5",
             "\U0001F600^7"]

SCALAR_KINDS = {
    "int": ("n", INT_SPECS, INT_VALUES),
    "float": ("x", FLOAT_SPECS, FLOAT_VALUES),
    "bool": ("b", BOOL_SPECS, BOOL_VALUES),
}


def _scalars_src() -> str:
    out = []
    for kind, (p, specs, _) in SCALAR_KINDS.items():
        for i, spec in enumerate(specs):
            out.append(f"def {kind}_spec_{i}({p}: {kind}) -> str:\n"
                       f"    return f\"{{{p}:{spec}}}\"\n")
        for i, conv in enumerate(CONVERSIONS):
            out.append(f"def {kind}_conv_{i}({p}: {kind}) -> str:\n"
                       f"    return f\"{{{p}{conv}}}\"\n")
        out.append(f"def {kind}_bare({p}: {kind}) -> str:\n"
                   f"    return f\"{{{p}}}\"\n")
        out.append(f"def {kind}_text({p}: {kind}) -> str:\n"
                   f"    return f\"v=[{{{p}}}] r=[{{{p}!r}}] w=[{{{p}:>{{7}}}}] e=[{{{p}=}}]\"\n")
        out.append(f"def {kind}_dyn({p}: {kind}, spec) -> str:\n"
                   f"    return f\"{{{p}:{{spec}}}}\"\n")
        out.append(f"def {kind}_local({p}: {kind}) -> str:\n"
                   f"    v = {p}\n"
                   f"    s = f\"{{v}}|{{v!r}}\"\n"
                   f"    return s + f\"{{v:^11}}\"\n")
    out.append("def int_arith(n: int, m: int) -> str:\n"
               "    return f\"{n + m} {n - m} {n * m} {n // m} {n % m} {n / m} {-n} {~n} "
               "{n << 2} {n >> 1} {n & m} {n | m} {n ^ m} {n ** 2} {abs(n)}\"\n")
    out.append("def float_arith(x: float, y: float) -> str:\n"
               "    return f\"{x + y} {x - y} {x * y} {x / y} {-x} {x ** 2} {x // y} {x % y}"
               " {x * 2:.3f} {x + y:e}\"\n")
    out.append("def mixed_arith(n: int, x: float) -> str:\n"
               "    return f\"{n * x} {n + x:.2f} {n / 4} {n > x} {x == n}\"\n")
    out.append("def float_accum(n: int) -> str:\n"
               "    x = 0.0\n"
               "    for i in range(n):\n"
               "        x += 0.1\n"
               "    return f\"{x} {x:.2f} {x!r} {x:g}\"\n")
    out.append("def bool_expr(n: int) -> str:\n"
               "    return f\"{n > 0} {n == 0:>6} {not n!r} {n != 0 and n < 10}\"\n")
    return "\n\n".join(out)


SCALARS_SRC = _scalars_src()

# Expressions inside fields.
EXPRS_SRC = r'''
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm1(self):
        return abs(self.x) + abs(self.y)


class Fmt:
    def __format__(self, spec):
        return "<" + spec + ">"

    def __repr__(self):
        return "Fmt()"

    def __str__(self):
        return "fmt-str"


GREETING = "héllo"
P0 = Point(3, -4)


def helper(n: int) -> int:
    return n * 3


def attr(p) -> str:
    return f"{p.x},{p.y} {p.norm1()} {P0.x:>3}"


def globals_in_field(n: int) -> str:
    return f"{GREETING} {GREETING!r} {GREETING:*^9} {n}"


def call_builtin(s, n: int) -> str:
    return f"{len(s)} {abs(n)} {max(n, 3)} {s.upper()} {str(n)} {repr(s)} {type(s).__name__}"


def call_module(n: int) -> str:
    return f"{helper(n)} {helper(n) + 1:>5} {helper(helper(n))!r}"


def call_method_args(s, sep) -> str:
    return f"{sep.join(s.split())} {s.replace('a', 'b')} {s.count('a')}"


def subscript_dict(d) -> str:
    return f"{d['k']} {d['k']!r} {d['k']:>4}"


def subscript_dq(d) -> str:
    return f'{d["k"]} {d["k"]!r}'


def subscript_list(xs, i: int) -> str:
    return f"{xs[i]} {xs[0]} {xs[-1]} {xs[1:3]} {xs[::2]} {xs[i:]!r}"


def slice_str(s) -> str:
    return f"{s[1:3]} {s[:2]:>4} {s[::-1]}"


def cond_paren(n: int) -> str:
    return f"{(n if n > 0 else -n)} {('pos' if n > 0 else 'nonpos')} {(n if n else 'zero')!r}"


def cond_paren_spec(x: float) -> str:
    return f"{(x if x > 0 else 0.0):.2f}"


def nested_f(x: int) -> str:
    return f"{f'{x}'}"


def nested_f_spec(x: int, w: int) -> str:
    return f"<{f'{x:>{w}}'}>"


def nested_f_conv(x: int) -> str:
    return f'{f"[{x}]"!r}'


def nested_f_triple(x: int, s) -> str:
    return f"""{f'{x}' + f"{s}"}"""


def nested_f_in_spec(x: float, p: int) -> str:
    return f"{x:{f'.{p}f'}}"


def compare_ops(n: int, m: int) -> str:
    return f"{n != m} {n == m} {n >= m} {n <= m} {n < m} {n!=m}"


def bool_ops(n: int, s) -> str:
    return f"{n and s} {n or s} {not n} {s in 'abc'}"


def str_values(s) -> str:
    return f"[{s}] [{s!r}] [{s:>8}] [{s:.2}] [{s:^7}] [{s!a}] [{s + s}] [{s * 2}]"


def str_typed(s: str) -> str:
    return f"[{s}] [{s!r}] [{s:<6}|]"


def list_values(xs) -> str:
    return f"{xs} {xs!r} {len(xs)} {xs!a}"


def none_value(v) -> str:
    return f"{v} {v!r} {None} {None!r} {v is None}"


def literals_in_field() -> str:
    return f"{1} {2.5} {'s'} {True} {None} {(1, 2)} {[1, 2]} {-3:+d} {1e300} {0.1 + 0.2}"


def dict_display(n: int) -> str:
    return f"{ {'a': n}['a'] } { {'a': n} }"


def custom_format(o) -> str:
    return f"{o} {o:spec} {o!s} {o!r} {o:>{3}}"


def whitespace_field(n: int) -> str:
    return f"{ n } {n :>4} { n + 1 :x}"


def walrus_like_spec(n: int) -> str:
    return f"{n:=^10}|{n:=10}"


def unicode_names(é: int) -> str:
    return f"{é} {é=}"


def number_literals() -> str:
    return f"{1_000} {0x1F} {1e3} {.5} {5.} {0o17:b} {0b101} {10 ** 3} {1_0.5_0}"


def debug_braces(x: int) -> str:
    return f"{'}'=}|{'{'=}|{f'{x:>3}'=}|{ {'k': x}['k'] = }"


def literal_calls() -> str:
    return f"{'abc'.upper()} {int('ff', base=16)} {dict(a=1)} {b'x'} {'a' 'b'!r}"


def kw_in_field(n: int) -> str:
    return f"{str(n).rjust(5, '*')} {round(n / 3, ndigits=2)}"


def recurse(n: int) -> str:
    if n <= 0:
        return f"[{n}]"
    return f"({n}:{recurse(n - 1)})"


def strings_in_field(d) -> str:
    return f"{d['a:b']} {'}'} {'{'} {':'}{'!r'} {'a' '{x}'} {'{{'}"


def debug_nested(x: int) -> str:
    return f"{f'{x}'=}"


def many_fields(x: int) -> str:
    return f"MANY_FIELDS"
'''.replace("MANY_FIELDS", " ".join("{x + %d}" % i for i in range(300)) + " {x!r:>{x % 7}}") + (
    # both triple-quote kinds: outside the raw literal above
    '\n\ndef deep_nest(x: int) -> str:\n'
    '    return f"""{f\'\'\'{f"{x}"}\'\'\'}"""\n'
    '\n\ndef triple_in_triple(x: int) -> str:\n'
    '    return f"""{\'\'\'x\'\'\'} {x} {\'\'\'"y"\'\'\'!r}"""\n')

# Evaluation order: each field evaluated, then formatted, left to right.
ORDER_SRC = r'''
LOG = []


class Rec:
    def __init__(self, tag):
        self.tag = tag

    def __format__(self, spec):
        LOG.append(("fmt", self.tag, spec))
        return self.tag + "|" + spec

    def __repr__(self):
        LOG.append(("repr", self.tag))
        return "Rec(" + self.tag + ")"

    def __str__(self):
        LOG.append(("str", self.tag))
        return "s" + self.tag


class Boom:
    def __format__(self, spec):
        LOG.append(("boom", spec))
        raise RuntimeError("boom " + spec)


def t(tag, v):
    LOG.append(("eval", tag))
    return v


def order_basic() -> str:
    return f"{t('a', Rec('A'))}-{t('b', Rec('B')):x}-{t('c', Rec('C'))!r}-{t('d', Rec('D'))!s:>4}"


def order_nested_spec() -> str:
    return f"{t('v', Rec('V')):{t('w', Rec('W'))}>{t('n', 3)}}"


def order_two_nested() -> str:
    return f"{t('a', Rec('A')):{t('wa', 1)}}{t('b', Rec('B')):{t('wb', 2)}}"


def order_concat() -> str:
    return f"{t('a', Rec('A'))}" "mid" f"{t('b', Rec('B'))}" + f"{t('c', Rec('C'))}"


def order_int_error(n: int, z: int) -> str:
    return f"{t('a', Rec('A'))}{n // z}{t('c', Rec('C'))}"


def order_format_raises() -> str:
    return f"{t('a', Rec('A'))}{t('b', Boom()):q}{t('c', Rec('C'))}"


def order_spec_raises(z: int) -> str:
    return f"{t('a', Rec('A'))}{t('b', Rec('B')):{10 // z}}{t('c', Rec('C'))}"


def order_loop(n: int) -> str:
    out = ""
    for i in range(n):
        out += f"{t(i, Rec(str(i)))}:{t(-i, i)};"
    return out


def order_debug() -> str:
    return f"{t('a', Rec('A'))=}|{t('b', Rec('B'))=:>3}|{t('c', Rec('C'))=!s}"


def order_args(n: int) -> str:
    return t('outer', f"{t('x', n)}{t('y', Rec('Y'))}") + f"{t('z', n + 1)}"


def order_mutation(xs) -> str:
    return f"{len(xs)}|{xs.append(len(xs))}|{len(xs)}|{xs!r}|{xs.pop():>{len(xs)}}|{xs}"


def order_conv_spec() -> str:
    return f"{t('v', Rec('V'))!r:{t('w', 12)}}|{t('u', Rec('U'))!s:{t('x', Rec('X'))}}"


def order_short_circuit(s) -> str:
    return s or f"{t('a', Rec('A'))}"


def order_conditional(c: bool) -> str:
    return f"{t('a', Rec('A'))}" if c else f"{t('b', Rec('B')):z}"


def order_statement(n: int) -> int:
    f"{t('s', Rec('S'))}{n:>{t('w', 2)}}"
    return len(LOG)


def order_native_values(n: int, x: float) -> str:
    return f"{t('n', n) + 1}{n:>{t('w', 4)}}{x:.{t('p', 2)}f}{t('r', Rec('R'))}"
'''

# Errors: bad specs, __format__/__str__/__repr__ raising, fields raising.
ERRORS_SRC = r'''
class Bad:
    def __format__(self, spec):
        raise RuntimeError("format failed: " + spec)

    def __repr__(self):
        return "Bad()"


class BadType:
    def __format__(self, spec):
        return 42

    def __repr__(self):
        return "BadType()"


class BadStr:
    def __str__(self):
        raise KeyError("str failed")

    def __repr__(self):
        raise LookupError("repr failed")


class NonStrStr:
    def __str__(self):
        return 5

    def __repr__(self):
        return 6


def bad_spec_int(n: int) -> str:
    return f"{n:q}"


def bad_spec_float(x: float) -> str:
    return f"{x:q}"


def bad_spec_bool(b: bool) -> str:
    return f"{b:q}"


def bad_spec_obj(o) -> str:
    return f"{o:q}"


def bad_spec_str(s) -> str:
    return f"{s:d}"


def int_precision(n: int) -> str:
    return f"{n:.3}"


def int_comma_b(n: int) -> str:
    return f"{n:,b}"


def int_char(n: int) -> str:
    return f"{n:c}"


def int_sign_c(n: int) -> str:
    return f"{n:+c}"


def float_d(x: float) -> str:
    return f"{x:d}"


def float_alt_comma(x: float) -> str:
    return f"{x:,_}"


def none_spec(v) -> str:
    return f"{v:>5}"


def list_spec(xs) -> str:
    return f"{xs:>5}"


def format_raises(o) -> str:
    return f"a{o}b"


def format_raises_spec(o) -> str:
    return f"a{o:zz}b"


def format_not_str(o) -> str:
    return f"{o}"


def str_raises(o) -> str:
    return f"{o!s}"


def repr_raises(o) -> str:
    return f"{o!r}"


def ascii_raises(o) -> str:
    return f"{o!a}"


def debug_repr_raises(o) -> str:
    return f"{o=}"


def field_zerodiv(n: int, m: int) -> str:
    return f"{n} / {m} = {n // m}"


def field_zeromod(n: int, m: int) -> str:
    return f"{n % m}"


def field_float_zerodiv(x: float, y: float) -> str:
    return f"{x / y}"


def field_int_truediv(n: int, m: int) -> str:
    return f"{n / m:.3f}"


def field_keyerror(d) -> str:
    return f"{d['missing']}"


def field_index(xs) -> str:
    return f"{xs[10]}"


def field_attr(o) -> str:
    return f"{o.nope}"


def field_name_error() -> str:
    return f"{undefined_name_xyz}"


def unbound_local(n: int) -> str:
    if n > 0:
        s = "set"
    return f"<{s}>"


def nested_spec_raises(n: int, w: int) -> str:
    return f"{n:{10 // w}}"


def dynamic_spec(n: int, spec) -> str:
    return f"{n:{spec}}"


def dynamic_spec_float(x: float, spec) -> str:
    return f"{x:{spec}}"


def big_width(n: int) -> str:
    return f"{n:99999999999999999999}"


def raise_value_error(n: int) -> str:
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n!r} ({n:+d})")
    return f"ok {n}"


def raise_type_error(o):
    raise TypeError(f"bad {o!r:>10} {type(o).__name__}")


def raise_in_loop(xs) -> int:
    total = 0
    for i in range(len(xs)):
        if xs[i] < 0:
            raise ValueError(f"item {i}: {xs[i]} < 0 (total {total:,})")
        total += xs[i]
    return total
'''

# int64 overflow in a field (kiln's native int): OverflowError naming the
# field's own line, also inside a multi-line f-string or a nested spec.
OVERFLOW_SRC = r'''
def ovf_plain(n: int) -> str:
    return f"a{n * n}b"


def ovf_triple(n: int) -> str:
    return f"""a
b {n + 1}
{n * n * 2}"""


def ovf_spec(n: int, w: int) -> str:
    return f"""{n:>{
w * w * 3}}"""


def ovf_nested(n: int) -> str:
    return f"{f'{n * n * 4}'}"
'''
OVERFLOW_CASES = [("ovf_plain", (2**62,), "n * n}"), ("ovf_triple", (2**62,), "n * n * 2"),
                  ("ovf_spec", (1, 2**62), "w * w * 3"), ("ovf_nested", (2**62,), "n * n * 4")]


# f-strings in ordinary positions: assignments, arguments, loops, conditions.
USAGE_SRC = r'''
PREFIX = f"{1 + 1}-{'é'!r}-{2.5:.3f}"


def use_prefix(n: int) -> str:
    return f"{PREFIX}{n}" + PREFIX


def with_default(n: int, s=f"{1 + 1:>3}"):
    return f"{n}{s}"


def assert_message(n: int) -> int:
    assert n > 0, f"bad {n!r:>4}"
    return n


def webs(n: int) -> str:
    x = n
    s = f"{x:>4}"
    x = "str"
    s = s + f"{x!r}"
    x = n * 0.5
    return s + f"{x:.2f}{x}"


def assign(n: int) -> str:
    s = f"{n}"
    s = f"<{s}>"
    u = s + f"{n:x}"
    return u


def as_arg(n: int, xs) -> int:
    xs.append(f"{n:03d}")
    return len(f"{n:>10}")


def as_kwarg(n: int) -> str:
    return "-".join([f"{n}", f"{n + 1}"]) + str(f"{n}").center(9, "*")


def sep_kwarg(n: int) -> str:
    return f"{n}".rjust(6, "0") + "".join(sorted([f"{n:b}", f"{n:o}"], key=len))


def in_for(n: int) -> str:
    out = ""
    for i in range(n):
        out += f"{i:02d},"
    return out


def in_while(n: int):
    res = []
    i = 0
    while i < n:
        res.append(f"{i}:{i * i}")
        i += 1
    return res


def while_condition(n: int) -> int:
    i = 0
    while f"{i}" != f"{n}":
        i += 1
    return i


def in_condition(s) -> int:
    if f"{s}":
        return 1
    return 0


def compare_result(n: int) -> bool:
    return f"{n}" == str(n)


def method_on(n: int) -> str:
    return f"{n:x}".upper() + f"{n}"[::-1]


def nested_loops(n: int) -> str:
    out = ""
    for i in range(n):
        for j in range(i):
            out += f"({i},{j})"
        out += f"|{i}\n"
    return out


def table(rows) -> str:
    out = ""
    for row in rows:
        out += f"{row[0]:<6}|{row[1]:>8.2f}|{row[2]!r}\n"
    return out


def fstring_dict(n: int):
    return {f"k{n}": f"v{n:+d}", f"{n}": n}


def returns_tuple(x: float):
    return f"{x}", f"{x:.1f}", len(f"{x!r}")


def augmented(n: int) -> str:
    s = ""
    s += f"{n}"
    s *= 2
    s += f"{s!r}"
    return s


def many_fields(a: int, b: float, c: bool, d, e) -> str:
    return (f"{a} {b} {c} {d} {e} {a:x} {b:.1e} {c:d} {d!r} {e!a} "
            f"{a}{b}{c}{d}{e}")
''' + (
    # the file ends right after the f-string: no newline
    '\n\ndef at_eof(x: int) -> str:\n    return f"{x}"')

# Forms left as Python (KILN010); the function must still work.
FALLBACK_SRC = r'''
def fb_lambda(n: int) -> str:
    return f"{(lambda: (i := 1))()} {n}"


def fb_listcomp(n: int) -> str:
    return f"{[i * i for i in range(n)]}"


def fb_genexpr(n: int) -> str:
    return f"{dict((i, (k := -i)) for i in range(n))}"  # := in a generator expression


def fb_dictcomp(n: int) -> str:
    return f"{ {i: i for i in range(n)} }"


def fb_walrus(n: int) -> str:  # compiled since := is (2026-12-02)
    return f"{(m := n + 1)}|{m}"


def native_neighbour(n: int) -> str:
    return f"{n}"
'''

# Rarer but valid spellings: compared for results only (status not asserted).
EXTRAS_SRC = r'''
BULLET = "•"


def cond_bare(n: int) -> str:
    return f"{'pos' if n > 0 else 'nonpos'}"


def tuple_field(n: int, m: int) -> str:
    return f"{n, m}"


def complex_field() -> str:
    return f"{1 + 2j} {complex(1, -2):>12}"


def multiline_field(n: int) -> str:
    return f"""{
n
+
1
}"""


def literal_continuation(n: int) -> str:
    return f"a\
b{n}"


def ws_before_conv(n: int) -> str:
    return f"{n !r}|{n !s:>4}"


def raw_named(n: int) -> str:
    return rf"\N{BULLET}{n}"


def nested_field_spec(n: int, w: int) -> str:
    return f"{n:{w:d}}"


def nested_field_conv(n: int, w) -> str:
    return f"{n:{w!s}}"


def string_in_spec(n: int) -> str:
    return f"{n:{'>'}{10}}"


def eq_eq_debug(n: int) -> str:
    return f"{n==5=}"


def bytes_field(b) -> str:
    return f"{b} {b!r}"


def debug_newline_after_eq(n: int) -> str:
    return f"""{n =
}|{n =
!r:>3}"""


def very_long(n: int) -> str:
    return f"{n:>300}" + f"{'ab' * 200}"
'''

def _random_fstrings(seed=7, count=300) -> str:
    """count functions, each returning one f-string drawn at random (fixed
    seed) from prefixes, quotes, literal pieces (escapes, braces, non-ASCII)
    and fields (expressions, debug `=`, conversions, specs with nested
    fields). Every draw is valid on 3.10-3.13 and means the same on each."""
    rng = random.Random(seed)
    prefixes = ["f", "F", "rf", "fr", "Rf", "fR", "RF", "rF"]
    simple = ["n", "x", "b", "s", "xs", "n + 1", "x * 2", "s.upper()", "len(s)", "-x", "n // 3",
              "n % 5", "not b", "xs[0]", "xs[0:2]", "(n if b else -n)", "abs(n)", "w"]
    extra = ["n == 1", "n != 2", "x >= 0.5", "n < w", "b and s", "n or s"]
    specs_any = ["", ">8", "<5", "^7", "*^9", "{w}", ">{w}", "{fill}^{w}", "é<4", ""]
    specs_num = ["d", "x", "08b", ",", "+", ".2f", "e", "%", ".3", "_", "#o", "=+9", "g", "c"]
    funcs = []
    for i in range(count):
        q = rng.choice(['"', "'", '"""', "\'\'\'"])
        other = "'" if q[0] == '"' else '"'
        prefix = rng.choice(prefixes)
        lits = ["abc", " ", "é", "{{", "}}", "日本", "#", "!", ":", "=", other, "😀", "x=", "\\\\",
                "\\n", "\\t", "\\x41", "\\u00e9", "0"]
        if len(q) == 3:
            lits.append("\n")
        parts = []
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.4:
                parts.append(rng.choice(lits))
                continue
            debug = ""
            if rng.random() < 0.25:
                expr = rng.choice(simple + [f"d[{other}k{other}]", f"f{other}{{n}}{other}"])
                debug = rng.choice(["=", " = ", "= ", " ="])
            else:
                expr = rng.choice(simple + extra + [f"d[{other}k{other}]", f"f{other}{{n:>3}}{other}",
                                                    f"{other}a:b{other}"])
            conv = rng.choice(["", "", "!r", "!s", "!a"])
            r = rng.random()
            spec = ":" + rng.choice(specs_any) if r < 0.3 else ":" + rng.choice(specs_num) if r < 0.5 else ""
            parts.append("{" + expr + debug + conv + spec + "}")
        funcs.append(f"def g{i}(n: int, x: float, b: bool, s, xs, d, w: int, fill) -> str:\n"
                     f"    return {prefix}{q}{''.join(parts)}{q}\n")
    return "\n\n".join(funcs)


RANDOM_SRC = _random_fstrings()
RANDOM_ARGS = [(5, 0.1, True, "é", ["a", 2], {"k": 1}, 4, "*"),
               (-2**62, -0.0, False, "", [None, 1.5, 3], {"k": "v"}, 0, "0"),
               (65, 1e300, True, "abc", [7, 8], {"k": None}, 12, "é"),
               (0, NAN, False, "日本", ["x"], {"k": [1]}, 1, " ")]


GROUPS = {
    "fs_literals": (LITERALS_SRC, set()),
    "fs_fields": (FIELDS_SRC, set()),
    "fs_scalars": (SCALARS_SRC, set()),
    "fs_exprs": (EXPRS_SRC, set()),
    "fs_order": (ORDER_SRC, set()),
    "fs_errors": (ERRORS_SRC, set()),
    "fs_usage": (USAGE_SRC, set()),
    "fs_crlf": (CRLF_SRC, set()),
    "fs_overflow": (OVERFLOW_SRC, set()),
    "fs_fallback": (FALLBACK_SRC, {"fb_lambda", "fb_genexpr"}),
}
UNCHECKED_STATUS = {"fs_extras": EXTRAS_SRC, "fs_random": RANDOM_SRC}
ALL_SOURCES = {**{k: v[0] for k, v in GROUPS.items()}, **UNCHECKED_STATUS}


def _functions(source: str) -> list[str]:
    return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]


# --------------------------------------------------------------------------
# Building (once per group)
# --------------------------------------------------------------------------

def _write_source(stem: str, out):
    path = out / f"{stem}.py"
    path.write_text(ALL_SOURCES[stem], encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_cache(tmp_path_factory, _write_source)


# --------------------------------------------------------------------------
# Comparison helpers
# --------------------------------------------------------------------------

_same = same_value


def _run(fn, args, log):
    args = copy.deepcopy(args)
    if log is not None:
        log.clear()
    try:
        value = fn(*args)
    except Exception as exc:  # compared by the caller
        outcome = ("raise", exc)
    else:
        outcome = ("return", value)
    return outcome, args, (list(log) if log is not None else None)


def _safe_repr(value) -> str:
    try:
        return repr(value)
    except Exception as exc:  # the sources' classes whose __repr__ fails on purpose
        return f"<{type(value).__name__}: repr raised {type(exc).__name__}>"


def _describe(outcome) -> str:
    kind, value = outcome
    if kind == "raise":
        return f"raised {type(value).__name__}: {value}"
    return f"returned {type(value).__name__} {_safe_repr(value)}"


def check(b: Built, name: str, *args):
    """Calls the native function and the Python original on copies of args;
    asserts the same result (or exception type and message), the same
    arguments afterwards and, when the module has LOG, the same LOG."""
    mod = b.module
    native = getattr(mod, name)
    oracle = mod.__kiln_python__[name]
    log = getattr(mod, "LOG", None)
    want, want_args, want_log = _run(oracle, args, log)
    got, got_args, got_log = _run(native, args, log)
    where = f"{name}(*{_safe_repr(args)})"
    assert got[0] == want[0], f"{where}: python {_describe(want)}, kiln {_describe(got)}"
    if want[0] == "raise":
        assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1]), \
            f"{where}: python {_describe(want)}, kiln {_describe(got)}"
    else:
        assert _same(got[1], want[1]), f"{where}: python {_describe(want)}, kiln {_describe(got)}"
    assert _same(got_args, want_args), \
        f"{where}: arguments after the call differ: python {_safe_repr(want_args)}, " \
        f"kiln {_safe_repr(got_args)}"
    assert got_log == want_log, f"{where}: LOG differs: python {want_log!r}, kiln {got_log!r}"
    return got


def _ids(values):
    return [f"{type(v).__name__}:{v!r}" for v in values]


def _pv(values):
    """values as pytest params, each with an id naming its type."""
    return [pytest.param(v, id=i) for v, i in zip(values, _ids(values))]


# --------------------------------------------------------------------------
# Report: every function native, except the forms left as Python
# --------------------------------------------------------------------------

STATUS_PARAMS = [pytest.param(stem, name, id=f"{stem}:{name}")
                 for stem, (src, _) in GROUPS.items() for name in _functions(src)]


@pytest.mark.parametrize("stem,name", STATUS_PARAMS)
def test_report_status(built, stem, name):
    check_report_status(built(stem), stem, name, GROUPS[stem][1])


@pytest.mark.parametrize("stem", list(ALL_SOURCES))
def test_report_shape(built, stem):
    b = built(stem)
    names = set(_functions(ALL_SOURCES[stem]))
    assert names <= set(b.by_name), f"{stem}: report lacks {sorted(names - set(b.by_name))}"
    assert names <= set(b.module.__kiln_python__)
    for f in b.report["functions"]:
        assert f.get("status") in ("native", "python"), f
        if f.get("status") == "python":
            assert f.get("code"), f


# --------------------------------------------------------------------------
# Literals, prefixes, quotes, concatenation, escapes
# --------------------------------------------------------------------------

X_VALUES = [0, -7, 42, 2**62, -2**63]
X_ONLY = ["pre_f", "pre_F", "pre_rf", "pre_fr", "pre_Rf", "pre_fR", "pre_RF", "pre_FR",
          "pre_rF", "q_single", "q_mixed", "q_triple_double", "q_triple_single", "raw_triple",
          "concat_plain_braces", "concat_raw", "concat_continuation", "esc_braces", "esc_seq",
          "esc_nul", "octal_escapes", "esc_brace_hex", "esc_backslashes", "esc_raw_keep",
          "esc_named", "esc_named_concat", "esc_named_triple", "nonascii_fill"]
Y_VALUES = ["é", "a'b\"c", "", None, [1, "x"], 2.5, 10**30]


@pytest.mark.parametrize("x", X_VALUES)
@pytest.mark.parametrize("name", X_ONLY)
def test_literal_forms(built, name, x):
    check(built("fs_literals"), name, x)


@pytest.mark.parametrize("y", Y_VALUES, ids=_ids(Y_VALUES))
@pytest.mark.parametrize("x", [0, -1, 2**62])
@pytest.mark.parametrize("name", ["concat_mix", "concat_lines", "concat_many", "adjacent_fields"])
def test_concatenation(built, name, x, y):
    check(built("fs_literals"), name, x, y)


def test_literal_exact_values(built):
    """A few results spelled out, so a wrong oracle cannot hide a wrong test."""
    m = built("fs_literals").module
    assert m.pre_rf(5) == "\\n5\\t\\\\5"
    assert m.pre_rF(5) == "a\\5b"
    assert m.concat_mix(1, "é") == "a1b'é'"
    assert m.concat_plain_braces(3) == "{x}3}{{{"
    assert m.esc_braces(7) == "{7} {x} }{ {}"
    assert m.esc_seq(1) == "\n\t1A\u00e9\\\U0001F600A\r\"'\a\b\f\v"
    assert m.esc_nul(2) == "\x002\x00"
    assert m.esc_brace_hex(5) == "{5}{{"
    assert m.esc_backslashes(5) == "\\5\\\\5\\"
    assert m.esc_raw_keep(0) == "\\n0\\x41\\u00e9\\\\"
    assert m.esc_named(2) == "\u2022 2"
    assert m.esc_named_concat(2) == "x\u2022  2"
    assert m.esc_named_triple(1) == "\u20141\u00e9"
    assert m.q_triple_double(1) == "a \"quoted\" 1\nline2 'q' 2\n"
    assert m.raw_triple(4) == "\\n4\n\\t"
    assert m.empty_fstring() == "" and type(m.empty_fstring()) is str
    assert m.no_fields() == "plain text"
    assert m.nonascii_fill(5) == "éééé5éééé|5😀😀😀😀|日日日5"


@pytest.mark.parametrize("s", _pv(["é", "", "x" * 100, "日本", "😀", None, 0, [], "{}", "\x00"]))
def test_literal_object_fields(built, s):
    b = built("fs_literals")
    check(b, "only_field", s)
    check(b, "nonascii", s, 3)
    check(b, "adjacent_fields", -5, s)


def test_literal_no_args(built):
    b = built("fs_literals")
    check(b, "empty_fstring")
    check(b, "no_fields")
    check(b, "empties")


@pytest.mark.parametrize("x", [0, 1, -3, 2**62])
def test_lexing(built, x):
    b = built("fs_literals")
    check(b, "names_like_prefixes", x, 2, "z")
    check(b, "tight", x)
    check(b, "hashes", x)
    check(b, "comments_between", x, "é")
    check(b, "eq_signs", x)


@pytest.mark.parametrize("d", _pv([{"k": 1}, {"k": "é"}, {"k": None}, {}]))
def test_triple_quotes_in_field(built, d):
    check(built("fs_literals"), "triple_quotes_in_field", d)


# --------------------------------------------------------------------------
# Conversions, specs, debug form (objects through untyped parameters)
# --------------------------------------------------------------------------

OBJECTS = {
    "int5": lambda m: 5,
    "int_neg": lambda m: -3,
    "bigint": lambda m: 2**100,
    "float": lambda m: 1.5,
    "float_neg0": lambda m: -0.0,
    "float_nan": lambda m: NAN,
    "float_inf": lambda m: -INF,
    "true": lambda m: True,
    "str_e": lambda m: "é",
    "str_quotes": lambda m: "it's \"q\"",
    "str_empty": lambda m: "",
    "str_emoji": lambda m: "😀\n",
    "str_surrogate": lambda m: "a\udc80b",
    "none": lambda m: None,
    "list": lambda m: [1, "é", None],
    "tuple": lambda m: (1,),
    "dict": lambda m: {"k": 1},
    "complex": lambda m: complex(1, -2),
    "bytes": lambda m: b"by",
    "Fmt": lambda m: m.Fmt(),
    "Both": lambda m: m.Both(),
    "StrSub": lambda m: m.StrSub("ab"),
    "IntSub": lambda m: m.IntSub(7),
}
# A field whose format() result is a str subclass: CPython returns that very
# object when the f-string is the lone field (f"{o}"), an exact str otherwise.
SUBCLASS_RESULTS = {
    "PlainSub": lambda m: m.PlainSub("p"),
    "RetSub": lambda m: m.RetSub(),
    "StrRetSub": lambda m: m.StrRetSub(),
}
OBJ_FUNCS = ["conv_plain", "conv_r", "conv_s", "conv_a", "conv_r_spec", "conv_s_spec",
             "conv_a_spec", "spec_fixed", "spec_colon", "spec_bang", "spec_empty", "debug_s",
             "debug_r", "debug_a", "debug_spec", "debug_conv_spec", "debug_obj"]


@pytest.mark.parametrize("obj", list(OBJECTS))
@pytest.mark.parametrize("name", OBJ_FUNCS)
def test_object_fields(built, name, obj):
    b = built("fs_fields")
    check(b, name, OBJECTS[obj](b.module))


@pytest.mark.parametrize("spec", DYN_SPECS)
@pytest.mark.parametrize("obj", list(OBJECTS))
def test_dynamic_spec_objects(built, obj, spec):
    b = built("fs_fields")
    check(b, "spec_dynamic", OBJECTS[obj](b.module), spec)


@pytest.mark.parametrize("obj", list(SUBCLASS_RESULTS))
@pytest.mark.parametrize("name", OBJ_FUNCS)
def test_str_subclass_results(built, name, obj):
    b = built("fs_fields")
    check(b, name, SUBCLASS_RESULTS[obj](b.module))


@pytest.mark.parametrize("spec", ["", "s", ">4", "x"])
@pytest.mark.parametrize("obj", list(SUBCLASS_RESULTS))
def test_str_subclass_results_dynamic(built, obj, spec):
    b = built("fs_fields")
    check(b, "spec_dynamic", SUBCLASS_RESULTS[obj](b.module), spec)


@pytest.mark.parametrize("obj", ["int5", "float", "str_e", "Fmt", "StrSub", "none", "true"])
@pytest.mark.parametrize("w", [0, 3, 12, -4])
def test_spec_literal_nested(built, obj, w):
    b = built("fs_fields")
    check(b, "spec_literal_nested", OBJECTS[obj](b.module), w)


@pytest.mark.parametrize("x", _pv([3.14159, -0.0, 0.1, 1e300, INF, NAN, 2.5, -1234.5678]))
@pytest.mark.parametrize("width,prec", [(0, 0), (10, 3), (1, 12), (25, 1), (8, 2)])
def test_spec_nested_float(built, x, width, prec):
    check(built("fs_fields"), "spec_nested_float", x, width, prec)


@pytest.mark.parametrize("s", _pv(["é", "abc", "", 5, 1.5, None, "日本語"]))
@pytest.mark.parametrize("w", [0, 1, 5, 20])
def test_spec_nested_align(built, s, w):
    check(built("fs_fields"), "spec_nested_align", s, w)


@pytest.mark.parametrize("n", [0, -5, 255, 2**62, -2**63])
@pytest.mark.parametrize("fill,align,w", [("*", "^", 9), ("é", "<", 6), ("0", "=", 12),
                                          (" ", ">", 3), ("", "", 4), ("x", "^", 0)])
def test_spec_nested_many(built, n, fill, align, w):
    check(built("fs_fields"), "spec_nested_many", n, fill, align, w)


@pytest.mark.parametrize("n", [0, 10, -255, 2**62])
@pytest.mark.parametrize("w,base", [(10, "x"), (12, "b"), (6, "o"), (8, "X"), (5, "d"), (3, "q")])
def test_spec_nested_int(built, n, w, base):
    check(built("fs_fields"), "spec_nested_int", n, w, base)


@pytest.mark.parametrize("obj", ["int5", "str_e", "Fmt", "Both", "none", "list"])
@pytest.mark.parametrize("w", [">10", "8", "", "<3"])
def test_spec_nested_conv(built, obj, w):
    b = built("fs_fields")
    check(b, "spec_nested_conv", OBJECTS[obj](b.module), w)


@pytest.mark.parametrize("x", [0, -1, 7, 2**62, -2**63])
@pytest.mark.parametrize("name", ["debug_plain", "debug_ws", "debug_ws_variants"])
def test_debug_int(built, name, x):
    check(built("fs_fields"), name, x)


@pytest.mark.parametrize("x", [0, -1, 2**62])
@pytest.mark.parametrize("name", ["debug_multiline", "debug_tab", "spec_escapes",
                                  "spec_quote_fill"])
def test_debug_text_and_spec_escapes(built, name, x):
    check(built("fs_fields"), name, x)


@pytest.mark.parametrize("x", _pv([3.14159, -0.0, NAN, 1e300]))
@pytest.mark.parametrize("n", [0, 5, 12])
def test_spec_then_escaped_brace(built, x, n):
    """A spec ends at its field's `}`; a `}}` right after it is an escape."""
    check(built("fs_fields"), "spec_then_brace", x, n)


@pytest.mark.parametrize("x", [0, -5, 2**62])
@pytest.mark.parametrize("name", _functions(CRLF_SRC))
def test_crlf_source(built, name, x):
    check(built("fs_crlf"), name, x)


def test_crlf_exact(built):
    m = built("fs_crlf").module
    assert m.crlf_triple(5) == "a\n5\nbc\nd"
    assert m.crlf_debug(5) == "\nx\n=5"
    assert m.crlf_raw(5) == "\\n5\n\\t"


@pytest.mark.parametrize("x", FLOAT_VALUES, ids=_ids(FLOAT_VALUES))
def test_debug_float(built, x):
    check(built("fs_fields"), "debug_float", x)


@pytest.mark.parametrize("b_", [True, False])
def test_debug_bool(built, b_):
    check(built("fs_fields"), "debug_bool", b_)


@pytest.mark.parametrize("x,s", [(0, "é"), (-3, "abc"), (2**61, "")])
def test_debug_expr(built, x, s):
    check(built("fs_fields"), "debug_expr", x, s)
    check(built("fs_fields"), "debug_in_text", x, s)
    check(built("fs_fields"), "debug_quotes", s)


@pytest.mark.parametrize("d", _pv([{"k": 1}, {"k": "é"}, {"k": [None]}, {}]))
def test_debug_subscript(built, d):
    check(built("fs_fields"), "debug_subscript", d)


@pytest.mark.parametrize("x", _pv([1.23456, -0.0, NAN, INF]))
@pytest.mark.parametrize("w", [0, 5, 12])
def test_debug_nested_spec(built, x, w):
    check(built("fs_fields"), "debug_nested_spec", x, w)


def test_fields_exact_values(built):
    m = built("fs_fields").module
    assert m.debug_plain(5) == "x=5"
    assert m.debug_ws(5) == "x = 5"
    assert m.debug_ws_variants(5) == " x = 5|x =5|x= 5|x  =  5"
    assert m.debug_s("é") == "o=é" and m.debug_r("é") == "o='é'"
    assert m.debug_obj("é") == "o='é'"
    assert m.debug_a("é") == "o='\\xe9'"
    assert m.debug_spec("ab") == "o=        ab"
    assert m.debug_float(0.1) == "x=0.1|x=0.10|x=0.1|x = 0.1"
    assert m.debug_multiline(5) == "\nx\n=5| x\n =   5"
    assert m.debug_tab(5) == "x\t=5|x =\t5|\tx\t=\t5"
    assert m.spec_escapes(5) == "AAAA5|\n\n5|éé5éé"
    assert m.spec_then_brace(3.14159, 5) == "{3.14}|3.14159}|3.14159}|{n=  5}"
    assert m.debug_bool(True) == "b=True|b =      1|b=True"
    assert m.spec_colon(m.Fmt()) == "<a:b>" and m.spec_bang(m.Fmt()) == "<!r>"
    assert m.spec_empty(m.Fmt()) == "<>"
    assert m.spec_literal_nested(m.Fmt(), 12) == "<x12y>"
    assert m.spec_nested_float(3.14159, 8, 2) == "    3.14"
    assert m.conv_a("é") == "'\\xe9'"
    assert m.conv_plain(m.StrSub("q")) == "S[]" and m.conv_s(m.StrSub("q")) == "strsub"


# --------------------------------------------------------------------------
# Native int / float / bool values
# --------------------------------------------------------------------------

def _scalar_params():
    params = []
    for kind, (_, specs, values) in SCALAR_KINDS.items():
        for i, spec in enumerate(specs):
            for v in values:
                params.append(pytest.param(f"{kind}_spec_{i}", v, id=f"{kind}:{spec!r}:{v!r}"))
        for i, conv in enumerate(CONVERSIONS):
            for v in values:
                params.append(pytest.param(f"{kind}_conv_{i}", v, id=f"{kind}:{conv!r}:{v!r}"))
        for fn in ("bare", "text", "local"):
            for v in values:
                params.append(pytest.param(f"{kind}_{fn}", v, id=f"{kind}:{fn}:{v!r}"))
    return params


@pytest.mark.parametrize("name,value", _scalar_params())
def test_scalar_format(built, name, value):
    check(built("fs_scalars"), name, value)


def _dyn_params():
    params = []
    for kind, (_, _, values) in SCALAR_KINDS.items():
        for v in values:
            for spec in DYN_SPECS:
                params.append(pytest.param(f"{kind}_dyn", v, spec, id=f"{kind}:{v!r}:{spec!r}"))
    return params


@pytest.mark.parametrize("name,value,spec", _dyn_params())
def test_scalar_dynamic_spec(built, name, value, spec):
    check(built("fs_scalars"), name, value, spec)


def test_scalar_exact_values(built):
    m = built("fs_scalars").module
    i = INT_SPECS.index
    f = FLOAT_SPECS.index
    assert getattr(m, f"int_spec_{i('08b')}")(5) == "00000101"
    assert getattr(m, f"int_spec_{i(',')}")(2**62) == "4,611,686,018,427,387,904"
    assert getattr(m, f"int_spec_{i('')}")(-2**63) == "-9223372036854775808"
    assert getattr(m, f"int_spec_{i('.2f')}")(2**63 - 1) == "9223372036854775808.00"
    assert getattr(m, f"float_spec_{f('.3f')}")(2.0005) == format(2.0005, ".3f")
    assert getattr(m, f"float_spec_{f('')}")(0.1) == "0.1"
    assert getattr(m, f"float_spec_{f('')}")(-0.0) == "-0.0"
    assert getattr(m, f"float_spec_{f('')}")(1e300) == "1e+300"
    assert getattr(m, f"float_spec_{f('')}")(NAN) == "nan"
    assert getattr(m, f"float_spec_{f('F')}")(INF) == "INF"
    assert getattr(m, f"float_spec_{f('.0f')}")(2.5) == "2"
    assert m.bool_bare(True) == "True" and m.bool_bare(False) == "False"
    assert getattr(m, f"bool_spec_{BOOL_SPECS.index('>6')}")(True) == "     1"
    assert getattr(m, f"bool_spec_{BOOL_SPECS.index('d')}")(False) == "0"
    assert m.float_text(0.1) == "v=[0.1] r=[0.1] w=[    0.1] e=[x=0.1]"
    assert m.int_text(-3) == "v=[-3] r=[-3] w=[     -3] e=[n=-3]"


def _random_floats():
    rng = random.Random(20240611)
    out = []
    for _ in range(300):
        out.append(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
        out.append(rng.uniform(-1e6, 1e6))
        out.append(round(rng.uniform(-100, 100), rng.randint(0, 6)))
        out.append(rng.randint(-10**6, 10**6) / 8)
    return out


def _random_ints():
    rng = random.Random(1106)
    out = []
    for _ in range(300):
        out.append(rng.randint(-2**63, 2**63 - 1))
        out.append(rng.randint(-2**20, 2**20))
        out.append(rng.choice([-1, 1]) * (2 ** rng.randint(0, 62) + rng.randint(-2, 2)))
    return out


RANDOM_FLOATS = _random_floats()
RANDOM_INTS = _random_ints()
SWEEP_FLOAT_SPECS = ["", ".3f", ".17g", "e", ".0f", ",.2f", "%", ">20.4g", "+.10e", "#.1g", "_.1f"]
SWEEP_INT_SPECS = ["", ",", "x", "#b", "o", "_x", "+d", ">25", ".3e", "%", "020,", "c"]


def _sweep(b, name, values, *extra):
    """Compares name(v, *extra) for every v; fails listing the first mismatches."""
    mod = b.module
    native, oracle = getattr(mod, name), mod.__kiln_python__[name]
    bad = []
    for v in values:
        want, _, _ = _run(oracle, (v, *extra), None)
        got, _, _ = _run(native, (v, *extra), None)
        if want[0] != got[0] or type(want[1]) is not type(got[1]) or str(want[1]) != str(got[1]):
            bad.append(f"{name}({v!r}, *{extra!r}): python {_describe(want)}, "
                       f"kiln {_describe(got)}")
    assert not bad, f"{len(bad)} of {len(values)} differ, e.g.:\n" + "\n".join(bad[:8])


@pytest.mark.parametrize("spec", SWEEP_FLOAT_SPECS)
def test_sweep_float_specs(built, spec):
    b = built("fs_scalars")
    _sweep(b, "float_dyn", RANDOM_FLOATS, spec)
    if spec in FLOAT_SPECS:
        _sweep(b, f"float_spec_{FLOAT_SPECS.index(spec)}", RANDOM_FLOATS)


@pytest.mark.parametrize("spec", SWEEP_INT_SPECS)
def test_sweep_int_specs(built, spec):
    b = built("fs_scalars")
    _sweep(b, "int_dyn", RANDOM_INTS, spec)
    if spec in INT_SPECS:
        _sweep(b, f"int_spec_{INT_SPECS.index(spec)}", RANDOM_INTS)


def test_sweep_conversions(built):
    b = built("fs_scalars")
    for i in range(len(CONVERSIONS)):
        _sweep(b, f"float_conv_{i}", RANDOM_FLOATS)
        _sweep(b, f"int_conv_{i}", RANDOM_INTS)
    _sweep(b, "float_text", RANDOM_FLOATS)
    _sweep(b, "int_text", RANDOM_INTS)


@pytest.mark.parametrize("n,m_", [(7, 3), (-7, 3), (7, -3), (0, 5), (2**20, 7), (5, 0), (-9, 0)])
def test_int_arith_fields(built, n, m_):
    check(built("fs_scalars"), "int_arith", n, m_)


@pytest.mark.parametrize("x,y", [(1.5, 0.5), (-2.0, 3.0), (0.1, 0.2), (1e300, 1e-300), (INF, 2.0),
                                 (NAN, 1.0), (-0.0, 1.0), (1.0, 0.0), (5.0, -0.0)])
def test_float_arith_fields(built, x, y):
    check(built("fs_scalars"), "float_arith", x, y)


@pytest.mark.parametrize("n,x", [(3, 0.1), (-2, 2.5), (0, -0.0), (2**53 + 1, 1.0), (7, NAN)])
def test_mixed_arith_fields(built, n, x):
    check(built("fs_scalars"), "mixed_arith", n, x)


@pytest.mark.parametrize("n", [0, 1, 3, 10, 17])
def test_float_accum(built, n):
    check(built("fs_scalars"), "float_accum", n)


@pytest.mark.parametrize("n", [0, 1, -1, 5, 10, 2**62])
def test_bool_expr(built, n):
    check(built("fs_scalars"), "bool_expr", n)


# --------------------------------------------------------------------------
# Expressions inside fields
# --------------------------------------------------------------------------

def test_attributes(built):
    b = built("fs_exprs")
    check(b, "attr", b.module.Point(1, 2))
    check(b, "attr", b.module.Point("é", -0.0))
    check(b, "attr", b.module.Point(None, 2**70))
    check(b, "attr", object())


@pytest.mark.parametrize("n", [0, -1, 2**40, -2**62])
def test_globals_and_calls(built, n):
    b = built("fs_exprs")
    check(b, "globals_in_field", n)
    check(b, "call_module", n)
    check(b, "call_builtin", "héllo", n)
    check(b, "call_builtin", "", n)
    check(b, "unicode_names", n)
    check(b, "whitespace_field", n)
    check(b, "walrus_like_spec", n)
    check(b, "dict_display", n)
    check(b, "cond_paren", n)
    check(b, "nested_f", n)
    check(b, "nested_f_conv", n)


@pytest.mark.parametrize("s,sep", [("a b  c", "-"), ("", ","), ("ééa a", "→"), ("x", "")])
def test_call_method_args(built, s, sep):
    check(built("fs_exprs"), "call_method_args", s, sep)


@pytest.mark.parametrize("d", _pv([{"k": 1}, {"k": "é"}, {"k": None}, {"k": 2.5}, {}]))
def test_subscripts(built, d):
    b = built("fs_exprs")
    check(b, "subscript_dict", d)
    check(b, "subscript_dq", d)


@pytest.mark.parametrize("xs,i", [([1, 2, 3, 4], 0), (["é", None, 2.5], 2), ("abcdef", 3),
                                  ((1,), 0), ([1, 2], 5), ([0, 1, 2], -1)])
def test_subscript_list(built, xs, i):
    check(built("fs_exprs"), "subscript_list", xs, i)


@pytest.mark.parametrize("s", ["abcdef", "é", "", "日本語テキスト"])
def test_slices_and_strings(built, s):
    b = built("fs_exprs")
    check(b, "slice_str", s)
    check(b, "str_values", s)
    check(b, "str_typed", s)
    check(b, "bool_ops", 0, s)
    check(b, "bool_ops", 3, s)


@pytest.mark.parametrize("x", _pv([1.5, -0.0, -2.25, NAN, INF]))
def test_cond_paren_spec(built, x):
    check(built("fs_exprs"), "cond_paren_spec", x)


@pytest.mark.parametrize("x,w", [(5, 4), (-1, 0), (2**62, 25), (0, 1)])
def test_nested_fstrings(built, x, w):
    b = built("fs_exprs")
    check(b, "nested_f_spec", x, w)
    check(b, "nested_f_triple", x, "é")
    check(b, "nested_f_in_spec", x * 0.5, abs(w) % 8)


@pytest.mark.parametrize("n,m_", [(1, 1), (1, 2), (-5, 3), (2**62, 2**62)])
def test_compare_ops(built, n, m_):
    check(built("fs_exprs"), "compare_ops", n, m_)


@pytest.mark.parametrize("v", _pv([[1, "é"], [], [None, [2.5]], ("a",), "é"]))
def test_list_values(built, v):
    check(built("fs_exprs"), "list_values", v)


@pytest.mark.parametrize("v", _pv([None, 0, "", []]))
def test_none_values(built, v):
    check(built("fs_exprs"), "none_value", v)


def test_literals_in_fields(built):
    check(built("fs_exprs"), "literals_in_field")


@pytest.mark.parametrize("x", [0, -1, 2**61])
def test_nesting_and_many_fields(built, x):
    b = built("fs_exprs")
    check(b, "deep_nest", x)
    check(b, "debug_nested", x)
    check(b, "many_fields", x)
    check(b, "triple_in_triple", x)
    check(b, "debug_braces", x)
    check(b, "kw_in_field", x)


def test_literals_and_recursion(built):
    b = built("fs_exprs")
    check(b, "number_literals")
    check(b, "literal_calls")
    for n in (0, 1, 5, 30):
        check(b, "recurse", n)


@pytest.mark.parametrize("d", _pv([{"a:b": 1}, {"a:b": "é"}, {}]))
def test_strings_in_field(built, d):
    check(built("fs_exprs"), "strings_in_field", d)


@pytest.mark.parametrize("obj", ["Fmt", "int", "str", "none"])
def test_custom_format(built, obj):
    b = built("fs_exprs")
    value = {"Fmt": b.module.Fmt(), "int": 5, "str": "é", "none": None}[obj]
    check(b, "custom_format", value)


def test_exprs_exact_values(built):
    m = built("fs_exprs").module
    assert m.nested_f(5) == "5"
    assert m.nested_f_spec(5, 3) == "<  5>"
    assert m.nested_f_conv(5) == "'[5]'"
    assert m.compare_ops(1, 2) == "True False False True True True"
    assert m.subscript_dict({"k": "é"}) == "é 'é'    é"
    assert m.walrus_like_spec(5) == "====5=====|         5"
    assert m.custom_format(m.Fmt()) == "<> <spec> fmt-str Fmt() <>3>"
    assert m.dict_display(4) == "4 {'a': 4}"
    assert m.strings_in_field({"a:b": 1}) == "1 } { :!r a{x} {{"
    assert m.debug_nested(3) == "f'{x}'='3'"
    assert m.deep_nest(3) == "3"


# --------------------------------------------------------------------------
# Evaluation order
# --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["order_basic", "order_nested_spec", "order_two_nested",
                                  "order_concat", "order_format_raises", "order_debug"])
def test_order(built, name):
    check(built("fs_order"), name)


def test_order_exact(built):
    m = built("fs_order").module
    m.LOG.clear()
    assert m.order_basic() == "A|-B|x-Rec(C)-  sD"
    assert m.LOG == [("eval", "a"), ("fmt", "A", ""), ("eval", "b"), ("fmt", "B", "x"),
                     ("eval", "c"), ("repr", "C"), ("eval", "d"), ("str", "D")]
    m.LOG.clear()
    assert m.order_nested_spec() == "V|W|>3"
    assert m.LOG == [("eval", "v"), ("eval", "w"), ("fmt", "W", ""), ("eval", "n"),
                     ("fmt", "V", "W|>3")]
    m.LOG.clear()
    with pytest.raises(RuntimeError, match="boom q"):
        m.order_format_raises()
    assert m.LOG == [("eval", "a"), ("fmt", "A", ""), ("eval", "b"), ("boom", "q")]


@pytest.mark.parametrize("n,z", [(7, 2), (7, 0), (-2**62, -1), (0, 0)])
def test_order_int_error(built, n, z):
    check(built("fs_order"), "order_int_error", n, z)


@pytest.mark.parametrize("z", [1, 2, 0, -3])
def test_order_spec_raises(built, z):
    check(built("fs_order"), "order_spec_raises", z)


@pytest.mark.parametrize("xs", _pv([[], [1], ["é", None, 3]]))
def test_order_mutation(built, xs):
    check(built("fs_order"), "order_mutation", xs)


def test_order_conversion_and_spec(built):
    """The conversion (!r, !s) runs after the spec's fields on 3.10-3.12 and
    before them from 3.13: whichever the running interpreter does."""
    check(built("fs_order"), "order_conv_spec")


@pytest.mark.parametrize("s", _pv(["", "x", None, 0]))
def test_order_short_circuit(built, s):
    check(built("fs_order"), "order_short_circuit", s)


@pytest.mark.parametrize("c", [True, False])
def test_order_conditional(built, c):
    check(built("fs_order"), "order_conditional", c)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_order_loop(built, n):
    check(built("fs_order"), "order_loop", n)


@pytest.mark.parametrize("n", [0, -3, 2**62])
def test_order_args(built, n):
    check(built("fs_order"), "order_args", n)
    check(built("fs_order"), "order_native_values", n, 2.345)
    check(built("fs_order"), "order_statement", n)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

ERROR_CASES = [
    ("bad_spec_int", (5,)), ("bad_spec_int", (-2**63,)),
    ("bad_spec_float", (1.5,)), ("bad_spec_float", (NAN,)),
    ("bad_spec_bool", (True,)),
    ("bad_spec_obj", (5,)), ("bad_spec_obj", ("s",)), ("bad_spec_obj", (None,)),
    ("bad_spec_str", ("abc",)),
    ("int_precision", (5,)), ("int_comma_b", (5,)),
    ("int_char", (65,)), ("int_char", (0x10FFFF,)), ("int_char", (0x110000,)), ("int_char", (-1,)),
    ("int_char", (0xD800,)), ("int_char", (0xDFFF,)), ("int_char", (0x1F600,)),
    ("int_char", (2**62,)), ("int_char", (-2**63,)), ("int_sign_c", (65,)),
    ("float_d", (1.0,)), ("float_alt_comma", (1.0,)),
    ("none_spec", (None,)), ("list_spec", ([1],)),
    ("field_zerodiv", (7, 0)), ("field_zerodiv", (-2**63, 0)), ("field_zerodiv", (7, 2)),
    ("field_zeromod", (7, 0)), ("field_zeromod", (-7, 2)),
    ("field_float_zerodiv", (1.0, 0.0)), ("field_float_zerodiv", (0.0, -0.0)),
    ("field_float_zerodiv", (1.0, 3.0)),
    ("field_int_truediv", (1, 0)), ("field_int_truediv", (1, 3)),
    ("field_keyerror", ({},)), ("field_keyerror", ({"missing": "é"},)),
    ("field_index", ([1, 2],)), ("field_index", ("abcdefghijkl",)),
    ("field_attr", (5,)), ("field_attr", (None,)),
    ("field_name_error", ()), ("unbound_local", (1,)), ("unbound_local", (0,)),
    ("nested_spec_raises", (5, 0)), ("nested_spec_raises", (5, 2)), ("nested_spec_raises", (5, -3)),
    ("dynamic_spec", (5, "q")), ("dynamic_spec", (5, ".3")), ("dynamic_spec", (5, ",b")),
    ("dynamic_spec", (5, "99999999999999999999")), ("dynamic_spec", (5, "10.2.3")),
    ("dynamic_spec", (5, "<<<")), ("dynamic_spec", (5, 5)), ("dynamic_spec", (5, None)),
    ("dynamic_spec_float", (1.5, "q")), ("dynamic_spec_float", (1.5, "#,x")),
    ("dynamic_spec_float", (1.5, ".")), ("dynamic_spec_float", (1.5, "c")),
    ("big_width", (5,)),
    ("raise_value_error", (3,)), ("raise_value_error", (-3,)), ("raise_value_error", (-2**63,)),
    ("raise_type_error", ("é",)), ("raise_type_error", (None,)), ("raise_type_error", ([1, 2],)),
    ("raise_in_loop", ([1, 2, 3],)), ("raise_in_loop", ([1000, 2000, -1],)),
    ("raise_in_loop", ([-5],)),
]


@pytest.mark.parametrize("name,args", [pytest.param(n, a, id=f"{n}{a!r}") for n, a in ERROR_CASES])
def test_errors(built, name, args):
    check(built("fs_errors"), name, *args)


OBJ_ERROR_FUNCS = ["format_raises", "format_raises_spec", "format_not_str", "str_raises",
                   "repr_raises", "ascii_raises", "debug_repr_raises"]


@pytest.mark.parametrize("obj", ["Bad", "BadType", "BadStr", "NonStrStr"])
@pytest.mark.parametrize("name", OBJ_ERROR_FUNCS)
def test_object_errors(built, name, obj):
    b = built("fs_errors")
    check(b, name, getattr(b.module, obj)())


def test_errors_exact(built):
    m = built("fs_errors").module
    with pytest.raises(ValueError, match="Unknown format code 'q' for object of type 'int'"):
        m.bad_spec_int(5)
    with pytest.raises(ValueError, match="Unknown format code 'q' for object of type 'float'"):
        m.bad_spec_float(5.0)
    with pytest.raises(ZeroDivisionError):
        m.field_zerodiv(1, 0)
    with pytest.raises(RuntimeError, match="format failed: zz"):
        m.format_raises_spec(m.Bad())
    with pytest.raises(ValueError, match=r"^n must be >= 0, got -3 \(-3\)$"):
        m.raise_value_error(-3)


@pytest.mark.parametrize("name,args,marker", [pytest.param(*c, id=c[0]) for c in OVERFLOW_CASES])
def test_int64_overflow_line(built, name, args, marker):
    if os.environ.get("KILN_MODE", "auto") == "python":
        pytest.skip("KILN_MODE=python runs the Python original")
    b = built("fs_overflow")
    assert OVERFLOW_SRC.count(marker) == 1
    line = OVERFLOW_SRC[:OVERFLOW_SRC.index(marker)].count("\n") + 1
    with pytest.raises(OverflowError) as info:
        getattr(b.module, name)(*args)
    assert re.search(rf"fs_overflow\.py:{line}(?!\d)", str(info.value)), \
        f"{name}: message {str(info.value)!r} does not name fs_overflow.py:{line}"


# --------------------------------------------------------------------------
# f-strings in assignments, arguments, loops, conditions
# --------------------------------------------------------------------------

USAGE_CASES = [
    ("assign", (0,)), ("assign", (-255,)), ("assign", (2**62,)),
    ("webs", (3,)), ("webs", (-2**62,)), ("use_prefix", (3,)),
    ("with_default", (3,)), ("with_default", (-3, "é")),
    ("assert_message", (1,)), ("assert_message", (-1,)),
    ("as_arg", (5, [])), ("as_arg", (-7, ["x"])), ("as_arg", (2**62, [1])),
    ("as_kwarg", (0,)), ("as_kwarg", (-3,)),
    ("sep_kwarg", (9,)), ("sep_kwarg", (-9,)), ("sep_kwarg", (0,)),
    ("in_for", (0,)), ("in_for", (1,)), ("in_for", (12,)), ("in_for", (120,)),
    ("in_while", (0,)), ("in_while", (5,)), ("while_condition", (0,)), ("while_condition", (17,)),
    ("in_condition", ("",)), ("in_condition", ("x",)), ("in_condition", (None,)),
    ("in_condition", ([],)),
    ("compare_result", (0,)), ("compare_result", (-2**63,)),
    ("method_on", (255,)), ("method_on", (-10,)),
    ("nested_loops", (0,)), ("nested_loops", (4,)),
    ("table", ([("a", 1.0, None), ("éé", -2.555, "x"), ("long name", 1e9, [1])],)),
    ("table", ([],)), ("table", ([("a", "b", 1)],)),
    ("fstring_dict", (3,)), ("fstring_dict", (-1,)),
    ("returns_tuple", (0.1,)), ("returns_tuple", (-0.0,)), ("returns_tuple", (NAN,)),
    ("at_eof", (7,)), ("augmented", (7,)), ("augmented", (-2**63,)),
    ("many_fields", (1, 2.5, True, "é", "ü")), ("many_fields", (-2**63, -0.0, False, None, [1])),
]


@pytest.mark.parametrize("name,args", [pytest.param(n, a, id=f"{n}{a!r}") for n, a in USAGE_CASES])
def test_usage(built, name, args):
    check(built("fs_usage"), name, *args)


def test_usage_exact(built):
    m = built("fs_usage").module
    xs = []
    assert m.as_arg(5, xs) == 10 and xs == ["005"]
    assert m.in_for(3) == "00,01,02,"
    assert m.in_while(3) == ["0:0", "1:1", "2:4"]
    assert m.assign(255) == "<255>ff"


# --------------------------------------------------------------------------
# Forms left as Python (status "python", KILN010) still work
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("name", _functions(FALLBACK_SRC))
def test_fallback_forms_work(built, name, n):
    check(built("fs_fallback"), name, n)


def test_fallback_exact(built):
    m = built("fs_fallback").module
    assert m.fb_lambda(3) == "1 3"
    assert m.fb_listcomp(3) == "[0, 1, 4]"


def test_fallback_cli_warnings(tmp_path):
    """`kiln check` names each function left as Python with KILN010 and the
    construct; the functions that compile get no warning."""
    src = tmp_path / "fs_fallback.py"
    src.write_text(FALLBACK_SRC, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "kiln", "check", str(src)], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    for name in GROUPS["fs_fallback"][1]:
        assert f"warning[KILN010]: function {name} is left as Python" in r.stderr, r.stderr
    assert "function fb_lambda is left as Python: assignment expression (:=) in a lambda" in r.stderr, r.stderr
    assert "function fb_genexpr is left as Python: assignment expression (:=) in a generator expression" \
        in r.stderr, r.stderr
    assert "fb_listcomp" not in r.stderr and "fb_dictcomp" not in r.stderr, r.stderr  # compiled
    assert "native_neighbour" not in r.stderr, r.stderr


KILN_COMPILE_SRC = """\
import kiln

WIDTH = 6


@kiln.compile
def label(n: int, x: float, s) -> str:
    return f"[{n:>{WIDTH}}|{x:.3f}|{s!r}|{n=}|{x!r}]"


@kiln.compile
def lam(n: int) -> str:
    return f"{(lambda: (i := n))()}"


print(type(label).__name__, label(42, 0.1, "é"), type(lam).__name__, lam(3))
WIDTH = 3
print(label(-1, -0.0, None))
"""


def test_kiln_compile_decorator(tmp_path):
    """@kiln.compile over f-string functions: native, globals read live; a
    field the compiler leaves as Python keeps the function Python (KILN_MODE
    auto) or raises naming the construct (KILN_MODE=native)."""
    src = tmp_path / "fs_usecomp.py"
    src.write_text(KILN_COMPILE_SRC, encoding="utf-8")
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT_PYTHONPATH)
    env.pop("KILN_MODE", None)
    for _ in range(2):  # the second run loads from the cache
        r = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, cwd=ROOT,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        first, second = r.stdout.strip().split("\n")
        assert first == "builtin_function_or_method [    42|0.100|'é'|n=42|0.1] function 3"
        assert second == "[ -1|-0.000|None|n=-1|-0.0]"
    r = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, cwd=ROOT,
                       env=dict(env, KILN_MODE="native"), timeout=300)
    assert r.returncode != 0 and "lambda" in r.stderr, (r.stdout, r.stderr)


TORCH_SRC = r'''
from kiln.torch import TensorF32Cpu2D


def describe(x: TensorF32Cpu2D) -> str:
    y = x.relu()
    return f"{tuple(y.shape)} {y.dtype} {float(y.sum()):.3f} {y.shape[0]:>4}"


def as_text(x: TensorF32Cpu2D) -> str:
    return f"{x.relu()}|{x!r}|{x.relu()=}"
'''


def test_tensor_fields(tmp_path):
    """A native tensor value in a field is formatted as eager's tensor."""
    torch = pytest.importorskip("torch")
    (tmp_path / "fs_torch.py").write_text(TORCH_SRC, encoding="utf-8")
    mod = kiln.build(str(tmp_path / "fs_torch.py"), out_dir=str(tmp_path))
    report = json.loads((tmp_path / "fs_torch.kiln.json").read_text(encoding="utf-8"))
    assert {f["name"]: f["status"] for f in report["functions"]} == \
        {"describe": "native", "as_text": "native"}
    g = torch.Generator().manual_seed(0)
    for shape in ((3, 4), (0, 2), (1, 1)):
        x = torch.randn(*shape, generator=g)
        for name in ("describe", "as_text"):
            assert getattr(mod, name)(x) == mod.__kiln_python__[name](x), (name, shape)


# --------------------------------------------------------------------------
# Rarer spellings (results only)
# --------------------------------------------------------------------------

EXTRA_CASES = [
    ("cond_bare", (1,)), ("cond_bare", (-1,)),
    ("tuple_field", (1, -2)),
    ("complex_field", ()),
    ("multiline_field", (4,)), ("multiline_field", (-2**62,)),
    ("literal_continuation", (3,)),
    ("ws_before_conv", (7,)),
    ("raw_named", (1,)),
    ("nested_field_spec", (5, 4)), ("nested_field_spec", (5, 0)),
    ("nested_field_conv", (5, ">6")), ("nested_field_conv", (5, 3)),
    ("string_in_spec", (42,)),
    ("eq_eq_debug", (5,)), ("eq_eq_debug", (4,)),
    ("bytes_field", (b"x\x00",)), ("bytes_field", (bytearray(b"ab"),)),
    ("very_long", (1,)), ("debug_newline_after_eq", (5,)),
]


@pytest.mark.parametrize("name,args", [pytest.param(n, a, id=f"{n}{a!r}") for n, a in EXTRA_CASES])
def test_extras(built, name, args):
    check(built("fs_extras"), name, *args)


@pytest.mark.parametrize("name", _functions(RANDOM_SRC))
def test_random_fstrings(built, name):
    b = built("fs_random")
    for args in RANDOM_ARGS:
        check(b, name, *args)


def test_random_all_native(built):
    """Every drawn form is one kiln compiles (some put a `}}` right after a
    spec, as spec_then_brace above)."""
    b = built("fs_random")
    python = [(f["name"], f["reason"]) for f in b.report["functions"] if f["status"] != "native"]
    assert not python, python


def test_extras_exact(built):
    m = built("fs_extras").module
    assert m.raw_named(1) == "\\N\u20221"
    assert m.literal_continuation(3) == "ab3"
    assert m.multiline_field(4) == "5"
    assert m.eq_eq_debug(5) == "n==5=True"


# --------------------------------------------------------------------------
# Python 3.12 (PEP 701): any expression in a field
# --------------------------------------------------------------------------

PEP701_SRC = '''\
def same_quotes(xs: list) -> str:
    return f"{"-".join(xs)}"


def backslash_in_string(xs: list) -> str:
    return f"{"\\n".join(xs)}|{'x'}"


def spec_with_same_quotes(d: dict) -> str:
    return f"{d["k"]:>{d["w"]}}"


def nested_same_quotes(n: int) -> str:
    return f"{f"{f"{n}"}"}"


def comment_in_field(n: int) -> str:
    return f"""{
        n  # a comment, then the rest of the expression
        + 1
    }"""


def conversion_and_quoted_spec(n: int) -> str:
    return f"{n!r:{"^"}{10}}"
'''
PEP701_CASES = [("same_quotes", (["x", "y"],)), ("backslash_in_string", (["x", "y"],)),
                ("spec_with_same_quotes", ({"k": "v", "w": 5},)), ("nested_same_quotes", (7,)),
                ("comment_in_field", (3,)), ("conversion_and_quoted_spec", (4,))]


def test_pep701_fields_are_lexed(tmp_path):
    """kiln's lexer finds where a 3.12 f-string ends by scanning its fields
    (same-quote strings, nested f-strings, comments), on any Python: every
    function is compiled, none is a KILN001 error."""
    kilnc = ROOT / "kilnc"
    if not kilnc.exists():
        pytest.skip("kilnc is not built (make build)")
    src = tmp_path / "pep701.py"
    src.write_text(PEP701_SRC, encoding="utf-8")
    r = subprocess.run([str(kilnc), "check", str(src)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    status = {f["name"]: f["status"] for f in json.loads(r.stdout)["functions"]}
    assert status == {name: "native" for name, _ in PEP701_CASES}, (status, r.stderr)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 f-strings are Python 3.12 syntax")
def test_pep701_fields_match_python(tmp_path):
    src = tmp_path / "pep701.py"
    src.write_text(PEP701_SRC, encoding="utf-8")
    mod = kiln.build(str(src), out_dir=str(tmp_path))
    for name, args in PEP701_CASES:
        assert getattr(mod, name)(*args) == mod.__kiln_python__[name](*args), name
