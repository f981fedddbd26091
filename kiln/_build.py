"""Driving a build: syntax check, the C compiler extension, reports, the C
toolchain, importing the result; and ``kiln.compile`` on top of the cache."""

from __future__ import annotations

import builtins
import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import types
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kiln import KilnError, KilnWarning, _cache, _report_html, get_include

FLAG_BIND_GLOBALS = 1  # mirrors kiln._compiler.FLAG_BIND_GLOBALS

# Flags for generated code in user builds: warnings on, never -Werror.
GENERATED_CFLAGS = ["-O2", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-DNDEBUG"]
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1"]

INSTALL_CC_HINT = ("install one, e.g. `apt-get install gcc` (Debian/Ubuntu), "
                   "`dnf install gcc` (Fedora) or `xcode-select --install` (macOS), "
                   "or point $CC at it")
INSTALL_HEADERS_HINT = ("install them, e.g. `apt-get install python3-dev` (Debian/Ubuntu) "
                        "or `dnf install python3-devel` (Fedora)")


# --------------------------------------------------------------------------
# The C compiler extension and Python's own syntax check


def load_compiler() -> types.ModuleType:
    try:
        return importlib.import_module("kiln._compiler")
    except ImportError as exc:
        raise KilnError("kiln: the compiler extension kiln._compiler is not built "
                        f"({exc}); run `make build` or `pip install -e .`") from exc


def render_diagnostic(filename: str, line: int, col: int, code: str, message: str,
                      source_line: str | None) -> str:
    """One rustc-style diagnostic: location, message, source line, caret."""
    out = [f"{filename}:{line}:{col}: error[{code}]: {message}"]
    if source_line is not None:
        text = source_line.rstrip("\r\n").expandtabs(1)
        out.append(f"{line:5d} | {text}")  # the layout of the compiler's diagnostics
        out.append(f"      | {' ' * max(col - 1, 0)}^")
    return "\n".join(out) + "\n"


# kiln's lexer's codes for what CPython reports as a SyntaxError (or a
# ValueError) with less precision: bytes the encoding does not allow, NUL
# bytes, indentation (CPython's locations for these vary by version and
# can point past the line or before it).
LEXER_CODES = ("KILN002", "KILN003")


def lexer_error(source: bytes, filename: str) -> tuple[str, str, int] | None:
    """(diagnostics, code, line) when kiln's lexer refuses the source, else None."""
    ok, text = load_compiler().dump(source, filename, 0)
    if ok:
        return None
    found = re.search(r":(\d+):\d+: error\[(KILN[0-9A-Z-]+)\]", text)
    return (text, found.group(2), int(found.group(1))) if found else (text, "KILN001", 0)


def check_syntax(source: bytes, filename: str) -> None:
    """Parse (never run) the source with Python itself; KILN001 on error,
    or kiln's lexer's KILN002/KILN003 when it names the error more precisely."""
    try:
        builtins.compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        lexed = lexer_error(source, filename)
        # not past CPython's error: an earlier syntax error is reported first
        if lexed and lexed[1] in LEXER_CODES and (not exc.lineno or lexed[2] <= exc.lineno):
            raise KilnError(lexed[0], diagnostics=lexed[0], code=lexed[1]) from None
        line = exc.lineno or 1
        text = exc.text
        if text is None:
            lines = source.decode("utf-8", "replace").splitlines()
            text = lines[line - 1] if 0 < line <= len(lines) else None
        # within the line shown (CPython's offset can be past its end)
        col = max(1, exc.offset or 1)
        if text is not None:
            col = min(col, len(text.rstrip("\r\n")) + 1)
        diag = render_diagnostic(filename, line, col, "KILN001",
                                 f"invalid Python syntax: {exc.msg}", text)
        raise KilnError(diag, diagnostics=diag, code="KILN001") from None
    except ValueError as exc:  # e.g. null bytes on some Python versions
        # 3.12+ raise UnicodeDecodeError, with no location, for a bad escape
        # in an f-string's format spec; kiln's lexer finds the escape.
        lexed = lexer_error(source, filename)
        if lexed and (lexed[1] in LEXER_CODES or isinstance(exc, UnicodeDecodeError)):
            raise KilnError(lexed[0], diagnostics=lexed[0], code=lexed[1]) from None
        diag = f"{filename}:1:1: error[KILN001]: invalid Python source: {exc}\n"
        raise KilnError(diag, diagnostics=diag, code="KILN001") from None
    except (MemoryError, RecursionError) as exc:
        # CPython's own parser gives up on very deeply nested source: the
        # module could not be imported either.
        diag = (f"{filename}:1:1: error[KILN001]: source too deeply nested for CPython's parser "
                f"({type(exc).__name__})\n")
        raise KilnError(diag, diagnostics=diag, code="KILN001") from None


@dataclass
class Analysis:
    """The result of ``kiln._compiler.compile`` for one file."""

    filename: str
    source: bytes
    ok: bool
    c_source: str | None
    report_text: str
    report: dict[str, Any]
    diagnostics: str
    fallback_sites: int
    python_functions: list[str]


def analyze(source: bytes, filename: str, module_name: str, flags: int = 0) -> Analysis:
    """Syntax check, then the C compiler. Never raises on source errors:
    check ``ok`` (the report is always there)."""
    check_syntax(source, filename)
    comp = load_compiler()
    res = comp.compile(source, filename, module_name, flags)
    report_text = res.get("report") or "{}"
    try:
        report = json.loads(report_text)
    except ValueError as exc:
        raise KilnError(f"kiln: internal error: the compiler produced an invalid JSON "
                        f"report for {filename}: {exc}") from exc
    return Analysis(filename=filename, source=source, ok=bool(res.get("ok")),
                    c_source=res.get("c_source"), report_text=report_text,
                    report=report if isinstance(report, dict) else {},
                    diagnostics=res.get("diagnostics") or "",
                    fallback_sites=int(res.get("fallback_sites") or 0),
                    python_functions=list(res.get("python_functions") or []))


def source_error(analysis: Analysis) -> KilnError:
    diag = analysis.diagnostics or f"{analysis.filename}: error: kiln could not compile this file\n"
    return KilnError(diag, diagnostics=analysis.diagnostics)


def fallback_summary(analysis: Analysis) -> list[str]:
    """One line per site or function that would run as Python."""
    lines: list[str] = []
    fname = analysis.filename
    for fn in analysis.report.get("functions", []):
        if fn.get("status") == "python":
            lines.append(f"{fname}:{fn.get('line')}: function {fn.get('name')} runs as "
                         f"Python: {fn.get('reason') or 'not compiled'}")
            continue
        for site in fn.get("sites", []):
            outcome = site.get("outcome")
            if outcome not in ("not-covered", "rejected"):
                continue
            what = f"{site.get('kind')} {site.get('target') or ''}".rstrip()
            why = f"outcome {outcome}, code {site.get('code') or '-'}"
            if site.get("message"):
                why += f": {site['message']}"
            lines.append(f"{fname}:{site.get('line')}:{site.get('col')}: {what} in "
                         f"{fn.get('name')} runs on the Python fallback ({why})")
    named = {fn.get("name") for fn in analysis.report.get("functions", [])
             if fn.get("status") == "python"}
    for name in analysis.python_functions:
        if name not in named:
            lines.append(f"{fname}: function {name} runs as Python")
    if not lines and analysis.fallback_sites:
        lines.append(f"{fname}: {analysis.fallback_sites} fallback site(s)")
    return lines


# --------------------------------------------------------------------------
# Reports


# The HTML page lives in kiln._report_html.
render_html = _report_html.render_html


def _atomic_write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_reports(analysis: Analysis, out_dir: Path, stem: str, html_too: bool = True) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"{stem}.kiln.json"
    text = analysis.report_text
    _atomic_write_text(json_path, text if text.endswith("\n") else text + "\n")
    written = [json_path]
    if html_too:
        html_path = out_dir / f"{stem}.kiln.html"
        _atomic_write_text(html_path, render_html(analysis.source, analysis.report,
                                                  analysis.c_source))
        written.append(html_path)
    return written


# --------------------------------------------------------------------------
# The C toolchain


@dataclass
class Toolchain:
    cc: list[str]
    ldshared: list[str]
    python_include: str

    def describe(self) -> str:
        return shlex.join(self.ldshared)


def _split(cmd: str | None) -> list[str]:
    return shlex.split(cmd) if cmd else []


_sysconfig_lock = threading.Lock()


def find_toolchain() -> Toolchain:
    """The C compiler the way Python's build tools find it: sysconfig, with
    $CC (and $LDSHARED) taking precedence. Raises a KilnError saying what to
    install when the compiler or Python.h is missing."""
    # sysconfig fills its cache on first use, and that is not thread-safe:
    # racing first calls could see different values (and cache keys).
    with _sysconfig_lock:
        sysconfig.get_config_vars()
    sys_cc = sysconfig.get_config_var("CC") or "cc"
    env_cc = os.environ.get("CC")
    cc = _split(env_cc) or _split(sys_cc) or ["cc"]
    if os.environ.get("LDSHARED"):
        ldshared = _split(os.environ["LDSHARED"])
    else:
        sys_ld = sysconfig.get_config_var("LDSHARED") or ""
        if sys_ld and env_cc and sys_ld.startswith(sys_cc):
            sys_ld = env_cc + sys_ld[len(sys_cc):]
        ldshared = _split(sys_ld) or [*cc, "-shared"]
    for tool, what in ((cc, "$CC" if env_cc else "sysconfig CC"),
                       (ldshared, "$LDSHARED" if os.environ.get("LDSHARED") else "LDSHARED")):
        if not shutil.which(tool[0]):
            raise KilnError(f"kiln: no C compiler found: '{tool[0]}' (from {what}) does not "
                            f"exist or is not executable. kiln builds native modules with a "
                            f"C11 compiler; {INSTALL_CC_HINT}.")
    include = sysconfig.get_paths().get("include") or sysconfig.get_config_var("INCLUDEPY") or ""
    if not os.path.isfile(os.path.join(include, "Python.h")):
        raise KilnError(f"kiln: the Python development headers are missing (no Python.h in "
                        f"{include or '?'}); {INSTALL_HEADERS_HINT}.")
    return Toolchain(cc=cc, ldshared=ldshared, python_include=include)


def sanitize_enabled() -> bool:
    return os.environ.get("KILN_SANITIZE") == "1"


def compile_c(c_source: str, module_name: str, out_path: Path,
              toolchain: Toolchain | None = None) -> Path:
    """Compile generated C into the extension module *out_path* (atomically)."""
    tc = toolchain or find_toolchain()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"kiln-{module_name}-"))
    c_path = work / f"{module_name}.c"
    c_path.write_text(c_source, encoding="utf-8")
    tmp_out = out_path.parent / f".{out_path.name}.{os.getpid()}.tmp"
    flags = [*GENERATED_CFLAGS, *(SANITIZE_FLAGS if sanitize_enabled() else [])]
    cmd = [*tc.ldshared, *flags, f"-I{tc.python_include}", f"-I{get_include()}",
           str(c_path), "-o", str(tmp_out)]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
    except OSError as exc:
        raise KilnError(f"kiln: cannot run the C compiler '{cmd[0]}': {exc}; "
                        f"{INSTALL_CC_HINT}.") from exc
    if proc.returncode != 0:
        try:
            tmp_out.unlink()
        except OSError:
            pass
        raise KilnError(f"kiln: internal error: the generated C for {module_name} did not "
                        f"compile (kept in {c_path}); please report this.\n"
                        f"$ {shlex.join(cmd)}\n{proc.stdout}")
    os.replace(tmp_out, out_path)
    shutil.rmtree(work, ignore_errors=True)
    return out_path


# --------------------------------------------------------------------------
# Importing extension modules

_loaded_paths: set[str] = set()


def import_extension(name: str, path: Path) -> types.ModuleType:
    """Import the extension module *name* from *path*.

    A process cannot dlopen a path twice (it gets the first library back),
    so a path already loaded here is imported from a private copy instead:
    a rebuilt module really is the new one.
    """
    real = os.path.realpath(path)
    copy_dir: str | None = None
    if real in _loaded_paths:
        copy_dir = tempfile.mkdtemp(prefix=".kiln-load-", dir=os.path.dirname(real))
        load_path = os.path.join(copy_dir, os.path.basename(real))
        shutil.copyfile(real, load_path)
    else:
        load_path = real
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, load_path)
        spec = importlib.util.spec_from_file_location(name, load_path, loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    finally:
        _loaded_paths.add(real)
        if copy_dir is not None:
            shutil.rmtree(copy_dir, ignore_errors=True)  # stays mapped once loaded
    return module


# --------------------------------------------------------------------------
# kiln.build


def read_source(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise KilnError(f"kiln: cannot read {path}: {exc.strerror or exc}") from exc


def module_stem(path: Path) -> str:
    stem = path.name[:-3] if path.name.endswith(".py") else path.stem
    if not stem.isidentifier():
        raise KilnError(f"kiln: cannot build {path}: '{stem}' is not a valid Python "
                        "module name")
    return stem


def build(path: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None,
          deny_fallback: bool = False) -> types.ModuleType:
    so_path, _ = build_file(Path(path), out_dir, deny_fallback)
    return import_extension(module_stem(Path(path)), so_path)


def build_file(src: Path, out_dir: str | os.PathLike[str] | None = None,
               deny_fallback: bool = False) -> tuple[Path, Analysis]:
    """Build *src* into an extension module; return its path and the analysis."""
    stem = module_stem(src)
    out = Path(out_dir) if out_dir is not None else (src.parent if str(src.parent) else Path("."))
    analysis = analyze(read_source(src), os.fspath(src), stem)
    write_reports(analysis, out, stem)
    if not analysis.ok or analysis.c_source is None:
        raise source_error(analysis)
    if deny_fallback:
        fallbacks = fallback_summary(analysis)
        if fallbacks:
            msg = (f"kiln: --deny-fallback: {len(fallbacks)} site(s)/function(s) in {src} "
                   "would run as Python:\n" + "\n".join(f"  {line}" for line in fallbacks))
            raise KilnError(msg, diagnostics=analysis.diagnostics)
    so_path = compile_c(analysis.c_source, stem, out / f"{stem}{_cache.ext_suffix()}")
    return so_path, analysis


# --------------------------------------------------------------------------
# kiln.compile


def kiln_mode() -> str:
    mode = os.environ.get("KILN_MODE", "auto").strip().lower() or "auto"
    if mode not in ("auto", "native", "python"):
        raise KilnError(f"kiln: KILN_MODE must be auto, native or python, not {mode!r}")
    return mode


_lock = threading.RLock()
_bound: dict[str, list[tuple[dict[str, Any], types.ModuleType]]] = {}
_warned: set[tuple[str, str]] = set()
_extra_key: dict[str, str] | None = None


def _hash_files(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode() + b"\0")
        try:
            h.update(p.read_bytes())
        except OSError:
            pass
    return h.hexdigest()


def _build_key_extra(comp: types.ModuleType, tc: Toolchain) -> dict[str, str]:
    """Key parts beyond the source: the compiler build, runtime ABI, C flags."""
    global _extra_key
    if _extra_key is None:
        comp_file = getattr(comp, "__file__", None)
        _extra_key = {
            "compiler_version": str(getattr(comp, "version", "?")),
            "compiler_build": _hash_files([Path(comp_file)]) if comp_file else "?",
            "runtime_headers": _hash_files(list(Path(get_include()).glob("*.h"))),
        }
    return {**_extra_key, "cc": tc.describe(), "sanitize": str(sanitize_enabled())}


def _fail(fn: Any, mode: str, reason: str) -> Any:
    if mode == "native":
        raise KilnError(f"kiln: KILN_MODE=native but {_describe(fn)} could not be "
                        f"compiled: {reason}")
    ident = (getattr(fn, "__module__", "?") or "?", getattr(fn, "__qualname__", repr(fn)))
    with _lock:
        first = ident not in _warned
        _warned.add(ident)
    if first:
        warnings.warn(f"kiln: {_describe(fn)} runs as Python: {reason}", KilnWarning,
                      stacklevel=4)
    return fn


def _describe(fn: Any) -> str:
    qualname = getattr(fn, "__qualname__", None) or repr(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{qualname}" if module else qualname


def compile_function(fn: Callable[..., Any]) -> Any:
    mode = kiln_mode()
    if mode == "python":
        return fn
    inner = inspect.unwrap(fn) if hasattr(fn, "__wrapped__") else fn
    globs = getattr(inner, "__globals__", None)
    if isinstance(globs, dict) and globs.get("__kiln_native__") is True:
        return fn  # a generated module running its embedded source
    try:
        return _compile_function(fn)
    except KilnError as exc:
        return _fail(fn, mode, str(exc).strip())


def _compile_function(fn: Any) -> Any:
    # Under a decorator that keeps the function as __wrapped__ (torch.no_grad):
    # the source, name and globals are the inner function's. The result
    # replaces the wrapper only when kiln compiled the function with every
    # decorator it has (status "native"; others leave it as Python).
    outer = fn
    fn = inspect.unwrap(fn) if hasattr(fn, "__wrapped__") else fn
    if not isinstance(fn, types.FunctionType):
        raise KilnError(f"{fn!r} is not a Python function")
    if fn.__qualname__ != fn.__name__:
        raise KilnError("only module-level functions can be compiled "
                        f"({fn.__qualname__} is nested or a method)")
    try:
        filename = inspect.getsourcefile(fn)
    except TypeError:
        filename = None
    if not filename or not os.path.isfile(filename):
        raise KilnError("its source file is not available")
    filename = os.path.abspath(filename)
    source = read_source(Path(filename))
    check_syntax(source, filename)
    comp = load_compiler()
    flags = int(getattr(comp, "FLAG_BIND_GLOBALS", FLAG_BIND_GLOBALS))
    tc = find_toolchain()
    key = _cache.cache_key(source, filename, flags, _build_key_extra(comp, tc))
    name = f"_kiln_{key[:16]}"
    with _lock:
        directory = _cache.cache_dir()
        entry = _cache.lookup(key, directory)
        if entry is None:
            analysis = analyze(source, filename, name, flags)
            if not analysis.ok or analysis.c_source is None:
                raise source_error(analysis)
            functions = {f.get("name"): {"status": f.get("status"), "reason": f.get("reason")}
                         for f in analysis.report.get("functions", [])}
            for pyname in analysis.python_functions:
                functions.setdefault(pyname, {"status": "python", "reason": None})
            with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as tmp:
                so = compile_c(analysis.c_source, name, Path(tmp) / f"{name}{_cache.ext_suffix()}", tc)
                entry = _cache.store(key, so, {"module_name": name, "source": filename,
                                               "functions": functions}, directory)
        info = entry.meta.get("functions", {}).get(fn.__name__)
        if info is None:
            raise KilnError(f"kiln found no module-level function {fn.__name__} in {filename}")
        if info.get("status") != "native":
            raise KilnError(f"not compiled: {info.get('reason') or 'left as Python'}")
        module = None
        for g, mod in _bound.get(key, []):
            if g is fn.__globals__:
                module = mod
        if module is None:
            module = import_extension(name, entry.so_path)
            _bound.setdefault(key, []).append((fn.__globals__, module))
            sys.modules.setdefault(name, module)
        # At decoration time the name is not bound in the globals yet: hand
        # the original over (its defaults are copied from it).
        module._kiln_bind(fn.__globals__, {fn.__name__: outer})
    native = getattr(module, fn.__name__, None)
    if native is None:
        raise KilnError(f"the compiled module has no function {fn.__name__}")
    return native
