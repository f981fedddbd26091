"""End-to-end scalar corpus: every program in tests/scalar/ is compiled with
kiln.build and each native function is checked against the original Python
function (the oracle, `module.__kiln_python__[name]`).

Program files define, at module level:

- ``CASES = {"func": [case, ...]}`` where a case is a tuple of positional
  arguments or a dict ``{"args": (...), "kwargs": {...}}``; a dict with
  ``"binding": True`` expects an argument-binding TypeError (missing,
  duplicate, unexpected or too many arguments), whose type alone is compared.
- ``OVERFLOW = {"func": [args, ...]}`` (optional): CPython computes an int
  outside int64 somewhere; the native function must raise OverflowError whose
  message contains ``STEM.py:LINE``, LINE being one of the lines marked
  ``# OVF`` inside that function.
- ``EXPECT_PYTHON = {"func": word or (word, ...)}`` (optional): the function
  uses syntax kiln does not compile; the report must say status "python" with
  a reason mentioning one of the words (case-insensitive). Every other
  top-level function must be reported "native".
- ``TYPE_ERRORS = {"func": [{"args": ..., "kwargs": ..., "arg": name}]}``
  (optional): the entry check of an annotated parameter must raise TypeError
  naming ``arg`` (plain Python does not check annotations, so no oracle).

The programs are ordinary Python: the case data are read by importing the
sources directly (under private module names) at collection time.

Run with the default ``KILN_MODE`` (auto).
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import os
import pathlib
import re
import types

import pytest

try:
    import kiln._compiler  # noqa: F401  (the C compiler extension)
except ImportError as exc:  # the compiler has not landed in this checkout yet
    pytest.skip(
        f"kiln._compiler cannot be imported ({exc}); the scalar corpus needs the compiler",
        allow_module_level=True,
    )

import kiln
from oracle import Built, build_cache, same_value

PROGRAM_DIR = pathlib.Path(__file__).resolve().parent / "scalar"

# Files whose functions only use int/float/bool operators (no calls, no
# objects): every site in their report must be a native "scalar" site.
SCALAR_ONLY = ["ks_int_arith", "ks_floordiv_mod", "ks_bitwise", "ks_overflow",
               "ks_while", "ks_compare"]

SITE_KINDS = {"call", "method", "binop", "compare", "unaryop"}
SITE_OUTCOMES = {"claimed", "rejected", "not-covered", "scalar"}
SITE_KEYS = {"line", "col", "kind", "target", "outcome", "plugin", "rule", "code", "message"}


# --------------------------------------------------------------------------
# Program metadata (plain CPython, collection time)
# --------------------------------------------------------------------------

class Program:
    def __init__(self, path: pathlib.Path):
        self.path = path
        self.stem = path.stem
        self.source = path.read_text(encoding="utf-8")
        self.lines = self.source.splitlines()
        self.tree = ast.parse(self.source, filename=str(path))
        self.funcs = {node.name: node for node in self.tree.body
                      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.assigned = [target.id for node in self.tree.body if isinstance(node, ast.Assign)
                         for target in node.targets if isinstance(target, ast.Name)]
        spec = importlib.util.spec_from_file_location(f"_kiln_scalar_src_{self.stem}", path)
        plain = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(plain)
        self.plain = plain
        self.cases = getattr(plain, "CASES", {})
        self.overflow = getattr(plain, "OVERFLOW", {})
        self.expect_python = getattr(plain, "EXPECT_PYTHON", {})
        self.type_errors = getattr(plain, "TYPE_ERRORS", {})

    def marked_lines(self, func: str) -> list[int]:
        node = self.funcs[func]
        return [n for n in range(node.lineno, node.end_lineno + 1)
                if "# OVF" in self.lines[n - 1]]


PROGRAMS = {p.stem: Program(p) for p in sorted(PROGRAM_DIR.glob("*.py"))}


def _split(case):
    """(args, kwargs, binding) of a case entry."""
    if isinstance(case, dict):
        return tuple(case.get("args", ())), dict(case.get("kwargs", {})), bool(case.get("binding"))
    return tuple(case), {}, False


def _params():
    cases, overflow, type_errors, funcs = [], [], [], []
    for stem, prog in PROGRAMS.items():
        for func, entries in prog.cases.items():
            for i, _ in enumerate(entries):
                cases.append(pytest.param(stem, func, i, id=f"{stem}:{func}:{i}"))
        for func, entries in prog.overflow.items():
            for i, _ in enumerate(entries):
                overflow.append(pytest.param(stem, func, i, id=f"{stem}:{func}:{i}"))
        for func, entries in prog.type_errors.items():
            for i, _ in enumerate(entries):
                type_errors.append(pytest.param(stem, func, i, id=f"{stem}:{func}:{i}"))
        for func in prog.funcs:
            funcs.append(pytest.param(stem, func, id=f"{stem}:{func}"))
    return cases, overflow, type_errors, funcs


CASE_PARAMS, OVERFLOW_PARAMS, TYPE_ERROR_PARAMS, FUNC_PARAMS = _params()


# --------------------------------------------------------------------------
# Building (once per program per session)
# --------------------------------------------------------------------------

def report_function(b: Built, prog: Program, func: str) -> dict:
    node = prog.funcs[func]
    lines = {node.lineno} | {d.lineno for d in node.decorator_list}
    found = [f for f in b.report.get("functions", []) if f.get("name") == func]
    if len(found) > 1:
        found = [f for f in found if f.get("line") in lines] or found
    assert found, f"{prog.stem}.kiln.json has no entry for function {func!r}"
    return found[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_cache(tmp_path_factory, lambda stem, out: PROGRAMS[stem].path)


# --------------------------------------------------------------------------
# Comparison helpers
# --------------------------------------------------------------------------

same = same_value


def run(fn, args, kwargs):
    """Call fn on private deep copies; returns (kind, value_or_exc, args_after, kwargs_after)."""
    args = copy.deepcopy(args)
    kwargs = copy.deepcopy(kwargs)
    try:
        value = fn(*args, **kwargs)
        if isinstance(value, types.GeneratorType):
            value = ("<generator>", list(value))
    except Exception as exc:  # compared below
        return "raise", exc, args, kwargs
    return "return", value, args, kwargs


def describe(outcome) -> str:
    kind, value = outcome[0], outcome[1]
    if kind == "raise":
        return f"raised {type(value).__name__}: {value}"
    return f"returned {type(value).__name__} {value!r}"


def natives(b: Built, prog: Program, func: str):
    module = b.module
    assert hasattr(module, "__kiln_python__"), f"{prog.stem}: module has no __kiln_python__"
    assert func in module.__kiln_python__, f"{prog.stem}: __kiln_python__ lacks {func!r}"
    return getattr(module, func), module.__kiln_python__[func]


def mentions_line(message: str, stem: str, lines) -> bool:
    return any(re.search(rf"{re.escape(stem)}\.py:{n}(?!\d)", message) for n in lines)


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

@pytest.mark.parametrize("stem,func,idx", CASE_PARAMS)
def test_matches_python(built, stem, func, idx):
    prog = PROGRAMS[stem]
    args, kwargs, binding = _split(prog.cases[func][idx])
    native, oracle = natives(built(stem), prog, func)
    want = run(oracle, args, kwargs)
    got = run(native, args, kwargs)
    where = f"{stem}.{func}(*{args!r}, **{kwargs!r})"

    if binding:
        assert want[0] == "raise" and type(want[1]) is TypeError, "corpus error: not a binding case"
        assert got[0] == "raise" and type(got[1]) is TypeError, \
            f"{where}: expected an argument-binding TypeError, native {describe(got)}"
        return

    assert got[0] == want[0], f"{where}: python {describe(want)}, native {describe(got)}"
    if want[0] == "raise":
        assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1]), \
            f"{where}: python {describe(want)}, native {describe(got)}"
    else:
        assert same(got[1], want[1]), f"{where}: python {describe(want)}, native {describe(got)}"
    # Mutations of the (separately copied) arguments must match too.
    assert same(list(got[2]), list(want[2])) and same(got[3], want[3]), \
        f"{where}: arguments after the call differ: python {want[2]!r} {want[3]!r}, " \
        f"native {got[2]!r} {got[3]!r}"


@pytest.mark.parametrize("stem,func,idx", OVERFLOW_PARAMS)
def test_int64_overflow(built, stem, func, idx):
    prog = PROGRAMS[stem]
    args, kwargs, _ = _split(prog.overflow[func][idx])
    lines = prog.marked_lines(func)
    assert lines, f"corpus error: {stem}.{func} has no '# OVF' line"
    native, oracle = natives(built(stem), prog, func)
    want = run(oracle, args, kwargs)
    assert want[0] == "return", f"corpus error: python {describe(want)}"
    got = run(native, args, kwargs)
    where = f"{stem}.{func}(*{args!r}, **{kwargs!r})"
    # int64 applies to natively typed int sites. When an overflowing line also
    # has a Python-fallback site (a call, a module global), the value there is
    # a Python int and the exact result is the right answer too.
    entry = report_function(built(stem), prog, func)
    native_only = all(s["outcome"] == "scalar" for s in entry["sites"] if s["line"] in lines)
    if not native_only and got[0] == "return":
        assert got[1] == want[1] and type(got[1]) is type(want[1]), \
            f"{where}: fallback line must give python's exact {want[1]!r}, native {describe(got)}"
        return
    assert got[0] == "raise" and type(got[1]) is OverflowError, \
        f"{where}: expected OverflowError (python gives {want[1]!r}), native {describe(got)}"
    message = str(got[1])
    assert mentions_line(message, stem, lines), \
        f"{where}: OverflowError message {message!r} does not name {stem}.py:{lines}"


@pytest.mark.parametrize("stem,func,idx", TYPE_ERROR_PARAMS)
def test_parameter_type_check(built, stem, func, idx):
    prog = PROGRAMS[stem]
    entry = prog.type_errors[func][idx]
    args, kwargs, _ = _split(entry)
    native, _ = natives(built(stem), prog, func)
    got = run(native, args, kwargs)
    where = f"{stem}.{func}(*{args!r}, **{kwargs!r})"
    assert got[0] == "raise" and type(got[1]) is TypeError, \
        f"{where}: expected TypeError naming {entry['arg']!r}, native {describe(got)}"
    assert re.search(rf"\b{re.escape(entry['arg'])}\b", str(got[1])), \
        f"{where}: TypeError message {str(got[1])!r} does not name argument {entry['arg']!r}"


@pytest.mark.parametrize("stem,func", FUNC_PARAMS)
def test_report_status(built, stem, func):
    prog = PROGRAMS[stem]
    b = built(stem)
    entry = report_function(b, prog, func)
    node = prog.funcs[func]
    if not node.decorator_list:
        assert entry.get("line") == node.lineno, \
            f"{stem}.{func}: report line {entry.get('line')} != def line {node.lineno}"
    expected = prog.expect_python.get(func)
    if expected is not None:
        words = (expected,) if isinstance(expected, str) else tuple(expected)
        assert entry.get("status") == "python", \
            f"{stem}.{func}: expected status 'python' (uses {words[0]}), got {entry.get('status')!r}"
        reason = entry.get("reason") or ""
        assert any(w.lower() in reason.lower() for w in words), \
            f"{stem}.{func}: reason {reason!r} does not mention any of {words}"
    else:
        assert entry.get("status") == "native", \
            f"{stem}.{func}: expected status 'native', got {entry.get('status')!r} " \
            f"(reason: {entry.get('reason')!r})"
        if os.environ.get("KILN_MODE", "auto") != "python":
            native, oracle = natives(b, prog, func)
            assert native is not oracle, \
                f"{stem}.{func}: reported native but the module exposes the Python function"


@pytest.mark.parametrize("stem", list(PROGRAMS))
def test_report_and_module_shape(built, stem):
    prog = PROGRAMS[stem]
    b = built(stem)
    report = b.report
    assert isinstance(report.get("functions"), list)
    source = report.get("source")
    if source is not None:
        assert str(source).endswith(f"{stem}.py")
    names = {f.get("name") for f in report["functions"]}
    assert set(prog.funcs) <= names, f"{stem}: report lacks {sorted(set(prog.funcs) - names)}"
    for f in report["functions"]:
        assert f.get("status") in ("native", "python"), f
        for site in f.get("sites") or []:
            assert SITE_KEYS <= set(site), f"{stem}.{f.get('name')}: site lacks keys: {site}"
            assert site["kind"] in SITE_KINDS, site
            assert site["outcome"] in SITE_OUTCOMES, site
            assert site["outcome"] != "rejected", \
                f"{stem}.{f.get('name')}: site rejected in a scalar program: {site}"
    # Drop-in: same public functions and module-level values as the source.
    assert set(prog.funcs) <= set(b.module.__kiln_python__), \
        f"{stem}: __kiln_python__ lacks {sorted(set(prog.funcs) - set(b.module.__kiln_python__))}"
    for name in prog.funcs:
        assert callable(getattr(b.module, name, None)), f"{stem}: module lacks function {name}"
    for name in prog.assigned:
        assert hasattr(b.module, name), f"{stem}: module lacks module-level name {name}"
        assert same(getattr(b.module, name), getattr(prog.plain, name)), \
            f"{stem}: module-level {name} differs from the source's value"


@pytest.mark.parametrize("stem", SCALAR_ONLY)
def test_scalar_only_sites(built, stem):
    prog = PROGRAMS[stem]
    b = built(stem)
    for func in prog.funcs:
        entry = report_function(b, prog, func)
        assert entry.get("status") == "native", f"{stem}.{func}: {entry.get('reason')!r}"
        bad = [s for s in entry.get("sites") or [] if s.get("outcome") != "scalar"]
        assert not bad, f"{stem}.{func}: int/float-only code has non-scalar sites: {bad}"


INVERT_BOOL_SRC = """\
def inv(b: bool) -> int:
    return ~b


def inv_compare(x: int, y: int) -> int:
    return ~(x < y)


def inv_int(x: int) -> int:
    return ~x
"""


@pytest.mark.parametrize("name,args", [("inv", (True,)), ("inv", (False,)), ("inv_compare", (1, 2)),
                                       ("inv_compare", (3, 2)), ("inv_int", (5,))])
def test_invert_bool_warns_as_python(tmp_path, name, args):
    """`~` on a bool: 3.12 deprecated it (DeprecationWarning, same text); the
    native code warns as Python does on each version, and a warning filter
    that makes it an error makes both raise."""
    import warnings

    src = tmp_path / "invert_bool.py"
    src.write_text(INVERT_BOOL_SRC)
    m = kiln.build(str(src), out_dir=str(tmp_path))
    native, python = getattr(m, name), m.__kiln_python__[name]
    assert native is not python
    seen = []
    for fn in (native, python):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(*args)
        seen.append((result, [(w.category, str(w.message)) for w in caught]))
    assert seen[0] == seen[1], seen
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outcomes = []
        for fn in (native, python):
            try:
                outcomes.append(("ok", fn(*args)))
            except DeprecationWarning as exc:
                outcomes.append(("raise", str(exc)))
        assert outcomes[0] == outcomes[1], outcomes
