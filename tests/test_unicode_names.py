"""`\\N{NAME}` escapes in str literals and f-strings.

kiln embeds no Unicode name database: kiln._compiler resolves each name by
asking the running Python, with the rule of its own parser (the text
`\\N{NAME}` through the unicode-escape codec, exactly one code point). So a
module built on 3.10 knows 3.10's names and one built on 3.13 knows 3.13's,
and every result here is compared with the Python original on the running
version (`module.__kiln_python__[name]`). Each function must also be reported
"native" (the escape no longer leaves anything as Python).

Bad escapes fail the build with KILN001 at the escape (unknown name, no `{`,
no `}` before the string's end, an empty name), whether kiln.build's syntax
check or the C compiler itself (kiln._compiler.compile) sees them first; the
standalone kilnc has no hook and refuses every `\\N{...}` (goldens:
tests/golden/lex/err_N_escape*.py).

Only kiln and the standard library are imported: this file runs on every
supported Python.
"""

from __future__ import annotations

import ast
import concurrent.futures
import pathlib
import re
import subprocess
import sys
import unicodedata
import warnings

import pytest

try:
    import kiln._compiler as _compiler
except ImportError as exc:  # the compiler has not landed in this checkout yet
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

import kiln
from oracle import build_cache, check_report_status, same_value

ROOT = pathlib.Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------

# Plain str literals: names of every kind, mixed with other escapes.
LITERALS_SRC = r'''
BULLET = "<the global BULLET>"


def common() -> str:
    return "\N{BULLET} \N{GREEK SMALL LETTER ALPHA}\N{EM DASH}\N{DEGREE SIGN}"


def lowercase() -> str:
    return "\N{bullet}|\N{greek small letter beta}|\N{Latin Small Letter E With Acute}"


def aliases() -> str:
    # NameAliases.txt: a correction (GHA), an alternate name, abbreviations, a control
    return "\N{LATIN CAPITAL LETTER GHA}\N{BYTE ORDER MARK}\N{NBSP}\N{ZWJ}\N{VS16}\N{LINE FEED}"


def algorithmic() -> str:
    return ("\N{CJK UNIFIED IDEOGRAPH-4E00}\N{CJK UNIFIED IDEOGRAPH-2A700}"
            "\N{HANGUL SYLLABLE GA}\N{HANGUL SYLLABLE HIH}"
            "\N{CJK COMPATIBILITY IDEOGRAPH-F900}")


def emoji() -> str:
    return "\N{GRINNING FACE}\N{SNAKE}\N{PILE OF POO}\N{REGIONAL INDICATOR SYMBOL LETTER F}"


def ascii_and_astral() -> str:
    return "\N{LATIN SMALL LETTER A}\N{DIGIT ZERO}\N{SPACE}\N{MATHEMATICAL BOLD CAPITAL A}"


def controls() -> str:
    return "a\N{NULL}b\N{NUL}c\N{ESCAPE}\N{DELETE}\N{CHARACTER TABULATION}"


def mixed_escapes() -> str:
    return "é\N{BULLET}\x41\u00e9\N{SNAKE}\U0001F600\t\101\\N{BULLET}日本\N{OHM SIGN}"


def only_escape() -> str:
    return "\N{BULLET}"


def continuation() -> str:
    return "a\N{BULLET}\
b\N{BULLET}"


def triple() -> str:
    return """first \N{BULLET}
second \N{EM DASH} "quoted" \N{SNAKE}
"""


def triple_single() -> str:
    return '\N{MIDDLE DOT}' + """\N{BULLET}"""


def concat() -> str:
    return "\N{BULLET}" '\N{EM DASH}' r"\N{BULLET}" "x" "\N{bullet}"


def concat_lines() -> str:
    return ("\N{BULLET} "
            "\N{SNAKE} "
            r"\N{SNAKE}")


def raw_str() -> str:
    return r"\N{BULLET}" + R"\N{}" + r"\N"


def raw_bytes() -> bytes:
    return rb"\N{BULLET}" + Rb"\N{x}"


def length() -> int:
    return len("\N{BULLET}\N{SNAKE}\N{CJK UNIFIED IDEOGRAPH-4E00}a")
'''

# f-strings: literal text around fields, specs, conversions, debug fields.
FSTRINGS_SRC = r'''
BULLET = "<the global BULLET>"


def around_fields(x: int, s) -> str:
    return f"\N{BULLET}{x}\N{EM DASH}{s}\N{SNAKE}"


def spec(x: int, w: int) -> str:
    return f"{x:\N{BULLET}>8}|{x:\N{MIDDLE DOT}^{w}}|{x:\N{DIGIT ZERO}=+8}"


def conversions(s) -> str:
    return (f"\N{LEFT-POINTING DOUBLE ANGLE QUOTATION MARK}{s!r}"
            f"\N{RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK} {s!s:\N{BULLET}<6}{s!a}")


def debug(x: int) -> str:
    return f"\N{BULLET}{x=}\N{BULLET}{x = :>4}"


def triple(x: int) -> str:
    return f"""\N{BULLET} {x}
\N{EM DASH} {x + 1} "\N{SNAKE}"
"""


def concat(x: int) -> str:
    return "\N{BULLET}" f"{x}\N{SNAKE}" F'\N{greek small letter beta}{x}' "\N{EM DASH}"


def braces(x: int) -> str:
    return f"{{\N{BULLET}}}{x}{{}}\N{BULLET}{{"


def raw_fields(x: int) -> str:
    # raw: \N is text and {x} a replacement field
    return rf"\N{x}" + fr"\N{x}\N" + Rf"\N{x:>4}" + rf"\N{{x}}"


def raw_global() -> str:
    return rf"\N{BULLET}"


def no_fields() -> str:
    return f"\N{BULLET}\N{SNAKE}"
'''

# Strings made of \N escapes used as values.
USES_SRC = r'''
def dict_keys(x: int) -> dict:
    return {"\N{BULLET}": x, "\N{bullet}x": x + 1, f"\N{SNAKE}{x}": x + 2}


def lookup(d: dict) -> int:
    return d["\N{SNAKE}"]


def compare(s) -> bool:
    return s == "\N{BULLET}" or s == "\N{GREEK SMALL LETTER ALPHA}\N{GREEK SMALL LETTER BETA}"


def not_equal(s) -> bool:
    return s != "\N{LATIN SMALL LETTER A}"


def join_items(xs: list) -> str:
    return "\N{BULLET} ".join(xs)


def join_generator(xs: list) -> str:
    return "\N{MIDDLE DOT}".join(str(x) for x in xs)


def contains(s) -> bool:
    return "\N{SNAKE}" in s


def loop_concat(n: int) -> str:
    out = ""
    for i in range(n):
        out = out + "\N{BULLET}"
    return out


def default_arg(s="\N{BULLET}") -> str:
    return s + "\N{EM DASH}"


def conditional(b: bool) -> str:
    return "\N{CHECK MARK}" if b else "\N{BALLOT X}"


def in_list(i: int) -> str:
    xs = ["\N{DIGIT ZERO}", "\N{DIGIT ONE}", "\N{SNAKE}"]
    return xs[i]


def raise_message(n: int) -> int:
    if n < 0:
        raise ValueError(f"\N{BULLET} n must be >= 0, got {n}")
    return n
'''

# Bytes keep \N verbatim (an invalid escape: a warning on the way).
BYTES_SRC = r'''
def bytes_lit() -> bytes:
    return b"\N{x}" + b"\N{BULLET}" + b"\N"
'''

GROUPS = {"un_literals": LITERALS_SRC, "un_fstrings": FSTRINGS_SRC, "un_uses": USES_SRC,
          "un_bytes": BYTES_SRC}


def _functions(source: str) -> list[str]:
    with warnings.catch_warnings():  # BYTES_SRC's invalid escape
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", SyntaxWarning)
        return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]


def _write_source(stem: str, out):
    path = out / f"{stem}.py"
    path.write_text(GROUPS[stem], encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    get = build_cache(tmp_path_factory, _write_source)

    def quiet(stem: str):
        if stem != "un_bytes":
            return get(stem)
        # b"\N" is an invalid escape: DeprecationWarning (3.10, 3.11) or
        # SyntaxWarning (3.12+) when Python compiles the source.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", SyntaxWarning)
            return get(stem)

    return quiet


def check(stem_built, name: str, *args):
    """The native function and the Python original return the same value
    (same type), or raise the same exception type and message."""
    mod = stem_built.module
    native, oracle = getattr(mod, name), mod.__kiln_python__[name]

    def run(fn):
        try:
            return "return", fn(*args)
        except Exception as exc:  # compared below
            return "raise", exc

    got, want = run(native), run(oracle)
    assert got[0] == want[0], f"{name}{args!r}: python {want!r}, kiln {got!r}"
    if want[0] == "raise":
        assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1]), (got, want)
    else:
        assert same_value(got[1], want[1]), f"{name}{args!r}: python {want[1]!r}, kiln {got[1]!r}"
    return got[1]


# --------------------------------------------------------------------------
# Every function native, every result the original's
# --------------------------------------------------------------------------

STATUS_PARAMS = [pytest.param(stem, name, id=f"{stem}:{name}")
                 for stem, src in GROUPS.items() for name in _functions(src)]


@pytest.mark.parametrize("stem,name", STATUS_PARAMS)
def test_native(built, stem, name):
    check_report_status(built(stem), stem, name, set())


NO_ARGS = ["common", "lowercase", "aliases", "algorithmic", "emoji", "ascii_and_astral", "controls",
           "mixed_escapes", "only_escape", "continuation", "triple", "triple_single", "concat",
           "concat_lines", "raw_str", "raw_bytes", "length"]


@pytest.mark.parametrize("name", NO_ARGS)
def test_literals(built, name):
    check(built("un_literals"), name)


def test_literal_values(built):
    """Spelled out, so a wrong oracle cannot hide a wrong result."""
    m = built("un_literals").module
    assert m.common() == "\u2022 \u03b1\u2014\u00b0"
    assert m.lowercase() == "\u2022|\u03b2|\u00e9"
    assert m.aliases() == "\u01a2\ufeff\u00a0\u200d\ufe0f\n"
    assert m.algorithmic() == "\u4e00\U0002a700\uac00\ud7a3\uf900"
    assert m.emoji() == "\U0001f600\U0001f40d\U0001f4a9\U0001f1eb"
    assert m.controls() == "a\x00b\x00c\x1b\x7f\t"
    assert m.mixed_escapes() == "é\u2022Aé\U0001f40d\U0001f600\tA\\N{BULLET}日本\u2126"
    assert m.continuation() == "a\u2022b\u2022"
    assert m.raw_str() == "\\N{BULLET}\\N{}\\N"
    assert m.raw_bytes() == b"\\N{BULLET}\\N{x}"
    assert m.length() == 4


@pytest.mark.parametrize("x", [0, -7, 42, 2**62])
@pytest.mark.parametrize("name", ["around_fields", "spec", "debug", "triple", "concat", "braces",
                                  "raw_fields"])
def test_fstrings(built, name, x):
    b = built("un_fstrings")
    if name == "around_fields":
        check(b, name, x, "é\N{SNAKE}")
        check(b, name, x, None)
    elif name == "spec":
        for w in (0, 1, 12):
            check(b, name, x, w)
    else:
        check(b, name, x)


@pytest.mark.parametrize("s", ["", "a", "\N{BULLET}", "é'\"", None, 3, ["\N{SNAKE}"]])
def test_fstring_conversions(built, s):
    check(built("un_fstrings"), "conversions", s)


def test_fstring_values(built):
    b = built("un_fstrings")
    m = b.module
    check(b, "raw_global")
    check(b, "no_fields")
    assert m.around_fields(1, "s") == "\u20221\u2014s\U0001f40d"
    assert m.spec(5, 3) == "\u2022" * 7 + "5|\u00b75\u00b7|+0000005"
    assert m.debug(3) == "\u2022x=3\u2022x =    3"
    assert m.braces(2) == "{\u2022}2{}\u2022{"
    assert m.raw_fields(7) == "\\N7" + "\\N7\\N" + "\\N   7" + "\\N{x}"
    assert m.raw_global() == "\\N<the global BULLET>"
    assert m.no_fields() == "\u2022\U0001f40d"


USES_CASES = [
    ("dict_keys", (3,)), ("lookup", ({"\N{SNAKE}": 5},)), ("lookup", ({"SNAKE": 5},)),
    ("compare", ("\u2022",)), ("compare", ("\u03b1\u03b2",)), ("compare", ("*",)), ("compare", (None,)),
    ("not_equal", ("a",)), ("not_equal", ("\N{LATIN SMALL LETTER A}\N{BULLET}",)),
    ("join_items", (["a", "é", "\N{SNAKE}"],)), ("join_items", ([],)), ("join_items", ([1],)),
    ("join_generator", ([1, "x", 2.5],)), ("join_generator", ([],)),
    ("contains", ("a\N{SNAKE}b",)), ("contains", ("ab",)), ("contains", (3,)),
    ("loop_concat", (0,)), ("loop_concat", (5,)),
    ("default_arg", ()), ("default_arg", ("x",)),
    ("conditional", (True,)), ("conditional", (False,)),
    ("in_list", (0,)), ("in_list", (2,)), ("in_list", (3,)),
    ("raise_message", (1,)), ("raise_message", (-1,)),
]


@pytest.mark.parametrize("name,args", [pytest.param(n, a, id=f"{n}{a!r}") for n, a in USES_CASES])
def test_uses(built, name, args):
    check(built("un_uses"), name, *args)


def test_use_values(built):
    m = built("un_uses").module
    assert m.dict_keys(1) == {"\u2022": 1, "\u2022x": 2, "\U0001f40d1": 3}
    assert m.lookup({"\U0001f40d": 9}) == 9
    assert m.compare("\u2022") is True
    assert m.join_items(["a", "b"]) == "a\u2022 b"
    with pytest.raises(ValueError, match="^\u2022 n must be >= 0, got -2$"):
        m.raise_message(-2)


def test_bytes_keep_backslash_n(built):
    b = built("un_bytes")
    assert check(b, "bytes_lit") == b"\\N{x}\\N{BULLET}\\N"


# --------------------------------------------------------------------------
# Exactly the running interpreter's names
# --------------------------------------------------------------------------

def _python_accepts(name: str) -> bool:
    """Whether this Python's parser resolves the name in a str literal."""
    try:
        compile('s = "\\N{%s}"' % name, "<probe>", "exec")
    except SyntaxError:
        return False
    return True


def _sample_names() -> list[str]:
    """Names of code points across the whole range (every 97th named one),
    each spelled in upper, lower or title case in turn."""
    names = []
    named = 0
    for cp in range(0x110000):
        name = unicodedata.name(chr(cp), "")
        if not name:
            continue
        named += 1
        if named % 97 == 0:
            names.append((name, name.lower(), name.title())[len(names) % 3])
    return names


def test_sampled_names_match_python(tmp_path):
    """Hundreds of names of this Python's Unicode version in one module:
    the compiled strings are the ones Python's own parser makes. The
    spellings Python refuses (lower-case algorithmic names such as
    `cjk unified ideograph-4e00`), kiln refuses too."""
    sample = _sample_names()
    names = [n for n in sample if _python_accepts(n)]
    refused = [n for n in sample if n not in names]
    assert len(names) > 500 and refused
    for n in refused:
        res = _compiler.compile(f's = "\\N{{{n}}}"\n'.encode(), "x.py", "x", 0)
        assert not res["ok"] and f"x.py:1:6: error[KILN001]: {UNKNOWN}" in res["diagnostics"], n
    chunks = [names[i:i + 250] for i in range(0, len(names), 250)]
    src = "".join(f"def chunk{i}() -> tuple:\n    return (\n"
                  + "".join(f'        "\\N{{{n}}}",\n' for n in chunk) + "    )\n\n\n"
                  for i, chunk in enumerate(chunks))
    path = tmp_path / "un_sample.py"
    path.write_text(src, encoding="utf-8")
    mod = kiln.build(str(path), out_dir=str(tmp_path))
    for i, chunk in enumerate(chunks):
        fn = getattr(mod, f"chunk{i}")
        assert fn is not mod.__kiln_python__[f"chunk{i}"]
        got = fn()
        assert got == mod.__kiln_python__[f"chunk{i}"]()
        assert got == tuple(unicodedata.lookup(n) for n in chunk)


# Names whose fate depends on the running Python's Unicode version, or on
# the details of its lookup (algorithmic names only in capitals, named
# sequences refused, names Python does not compute).
VERSION_DEPENDENT = ["SHAKING FACE", "CJK UNIFIED IDEOGRAPH-31350", "cjk unified ideograph-9fa5",
                     "TANGUT IDEOGRAPH-17000", "LATIN CAPITAL LETTER A WITH MACRON AND GRAVE",
                     "KHITAN SMALL SCRIPT CHARACTER-18B00", "hangul syllable ga", "HANGUL SYLLABLE GAG"]


@pytest.mark.parametrize("name", VERSION_DEPENDENT)
def test_same_verdict_as_python(tmp_path, name):
    """kiln accepts a name exactly when the running Python does, and the
    compiler itself (not only kiln.build's syntax check) says so."""
    src = f'def f() -> str:\n    return "\\N{{{name}}}"\n'
    res = _compiler.compile(src.encode(), "probe.py", "probe", 0)
    if _python_accepts(name):
        assert res["ok"], res["diagnostics"]
        path = tmp_path / "un_probe.py"
        path.write_text(src, encoding="utf-8")
        mod = kiln.build(str(path), out_dir=str(tmp_path))
        assert mod.f is not mod.__kiln_python__["f"]
        assert mod.f() == mod.__kiln_python__["f"]()
    else:
        assert not res["ok"]
        assert "probe.py:2:13: error[KILN001]: unknown Unicode character name" in res["diagnostics"]


# --------------------------------------------------------------------------
# Errors: KILN001 at the escape, never a crash
# --------------------------------------------------------------------------

# (source line, column of the escape's backslash, CPython's reason)
UNKNOWN = "unknown Unicode character name"
MALFORMED = "malformed \\N character escape"
ERROR_CASES = [
    ('s = "\\N{NOT A CHARACTER NAME}"', 6, UNKNOWN),
    ('s = "ab\\N{BULLET}\\N{BULLETS}"', 18, UNKNOWN),
    ('s = "\\N{ BULLET}"', 6, UNKNOWN),
    ('s = "\\N{BULLET }"', 6, UNKNOWN),
    ('s = "\\N{BULLET_OPERATOR}"', 6, UNKNOWN),
    ('s = "\\N{é}"', 6, UNKNOWN),
    ('s = "é\\N{ÉTÉ}"', 7, UNKNOWN),
    ('s = "\\N{%s}"' % ("A" * 300), 6, UNKNOWN),
    ('s = "\\N{%s}"' % ("LATIN SMALL LETTER A " * 5000), 6, UNKNOWN),
    ('s = """\\N{BUL\nLET}"""', 8, UNKNOWN),
    ('s = "\\N{\\x41}"', 6, UNKNOWN),
    ('s = "\\N{}"', 6, MALFORMED),
    ('s = "\\NBULLET"', 6, MALFORMED),
    ('s = "\\N"', 6, MALFORMED),
    ('s = "x\\N{BULLET"', 7, MALFORMED),
    ('s = "\\N{BULLET" + "}"', 6, MALFORMED),
    ('s = """\\N{BULLET\n"""', 8, MALFORMED),
    ('s = "\\N\\{BULLET}"', 6, MALFORMED),
    ('s = f"\\N{NOT A CHARACTER NAME}"', 7, UNKNOWN),
    ('s = f"{1}\\N{BULLETS}{2}"', 10, UNKNOWN),
    ('s = f"{1:\\N{BULLETS}>4}"', 10, UNKNOWN),
    ('s = f"{1}\\N{}"', 10, MALFORMED),
    ('s = f"\\N{BULLET"', 7, MALFORMED),
    ('s = f"x\\N{BULLET" + "}"', 8, MALFORMED),
    ('s = f"""\\N{BULLET\n"""', 9, MALFORMED),
    ('s = "\\N{BULLET}" f"{1}" "\\N{bulletx}"', 26, UNKNOWN),
]


def _error_params():
    return [pytest.param(src, col, reason, id=f"{reason.split()[0]}-{i}")
            for i, (src, col, reason) in enumerate(ERROR_CASES)]


@pytest.mark.parametrize("src,col,reason", _error_params())
def test_compiler_error(src, col, reason):
    """kiln._compiler.compile (what kiln.build runs after Python's syntax
    check): KILN001 at the escape with CPython's reason."""
    with pytest.raises((SyntaxError, UnicodeDecodeError)) as python:  # really invalid Python
        compile(src, "<case>", "exec")
    # (3.12+ raise UnicodeDecodeError for a bad escape in a format spec)
    message = python.value.msg if isinstance(python.value, SyntaxError) else str(python.value)
    assert message.endswith(reason), message
    source = "def f() -> int:\n    return 1\n" + src + "\n"
    res = _compiler.compile(source.encode(), "bad.py", "bad", 0)
    assert not res["ok"]
    first = res["diagnostics"].splitlines()[0]
    assert first == f"bad.py:3:{col}: error[KILN001]: {reason}", first
    report = res["report"]
    assert report  # a report even on error, as for any source error


@pytest.mark.parametrize("src,col,reason", _error_params()[::4])
def test_build_error(tmp_path, src, col, reason):
    """kiln.build fails with KILN001 and a location (CPython's: its syntax
    check runs first); no traceback from the compiler, no module."""
    path = tmp_path / "bad_escape.py"
    path.write_text("def f() -> int:\n    return 1\n" + src + "\n", encoding="utf-8")
    with pytest.raises(kiln.KilnError) as info:
        kiln.build(str(path), out_dir=str(tmp_path))
    assert info.value.code == "KILN001"
    # A triple-quoted string's error is on its line 3 or 4. (3.12+ raise
    # UnicodeDecodeError, with no location, for a bad escape in a format
    # spec: kiln's lexer gives it, kiln/_build.py check_syntax.)
    assert re.search(r"bad_escape\.py:[34]:\d+: error\[KILN001\]", info.value.diagnostics), \
        info.value.diagnostics
    assert reason in info.value.diagnostics
    assert not list(tmp_path.glob("bad_escape*.so"))


def test_cli_check_error(tmp_path):
    path = tmp_path / "bad_cli.py"
    path.write_text('def f() -> str:\n    return "\\N{NO SUCH NAME}"\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "kiln", "check", str(path)], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 1, r.stderr
    assert f"{path}:2:" in r.stderr and "error[KILN001]" in r.stderr and UNKNOWN in r.stderr
    assert "Traceback" not in r.stderr


def test_bad_names_among_good_ones_leave_no_exception():
    """The hook clears the Python error of every failed lookup: a good
    source compiled right after many bad names is fine, and a compile that
    failed on a bad name returned normally (a leaked exception would make
    the call raise SystemError)."""
    for i in range(200):
        res = _compiler.compile(f's = "\\N{{NO SUCH NAME {i}}}"\n'.encode(), "x.py", "x", 0)
        assert not res["ok"]
    res = _compiler.compile('s = "\\N{BULLET}"\n'.encode(), "x.py", "x", 0)
    assert res["ok"], res["diagnostics"]


def test_dump_resolves_names():
    """kiln._compiler.dump runs with the GIL held; the hook works there too."""
    ok, text = _compiler.dump('s = "\\N{BULLET}\\N{snake}"\n'.encode(), "x.py", 0)
    assert ok, text
    assert 'STRING "\u2022\U0001f40d"' in text
    ok, text = _compiler.dump('s = "\\N{NO SUCH NAME}"\n'.encode(), "x.py", 0)
    assert not ok and f"error[KILN001]: {UNKNOWN}" in text


def test_concurrent_compiles():
    """kiln._compiler.compile runs without the GIL; each name lookup takes it
    back. Several threads compiling sources full of names at once agree."""
    names = ["BULLET", "snake", "LATIN CAPITAL LETTER GHA", "CJK UNIFIED IDEOGRAPH-4E00",
             "HANGUL SYLLABLE GA", "GRINNING FACE"] * 50
    src = "def f() -> str:\n    return " + " + ".join(f'"\\N{{{n}}}"' for n in names) + "\n"
    bad = src.replace("GRINNING FACE", "GRINNING FAC")

    def one(i):
        res = _compiler.compile((bad if i % 3 == 0 else src).encode(), "t.py", "t", 0)
        return i, res["ok"], res["c_source"], res["diagnostics"]

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, range(24)))
    assert all(ok == (i % 3 != 0) for i, ok, _, _ in results)
    assert len({c for i, _, c, _ in results if i % 3}) == 1  # the same C each time
    assert all(f"error[KILN001]: {UNKNOWN}" in d for i, _, _, d in results if i % 3 == 0)


def test_kilnc_has_no_database(tmp_path):
    """kilnc (no hook): a well-formed escape is refused with a pointer to
    `kiln build`; a malformed one gets the malformed error first."""
    kilnc = ROOT / "kilnc"
    if not kilnc.exists():
        pytest.skip("kilnc is not built (make build)")
    good = tmp_path / "good.py"
    good.write_text('def f() -> str:\n    return f"{1} \\N{BULLET}"\n', encoding="utf-8")
    r = subprocess.run([str(kilnc), "check", str(good)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert f"{good}:2:18: error[KILN001]:" in r.stderr and "`kiln build`" in r.stderr, r.stderr
    assert "not supported" not in r.stderr
    bad = tmp_path / "bad.py"
    bad.write_text('s = "\\N{}"\n', encoding="utf-8")
    r = subprocess.run([str(kilnc), "check", str(bad)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and f"{bad}:1:6: error[KILN001]: {MALFORMED}" in r.stderr, r.stderr
