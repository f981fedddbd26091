"""The ``kiln`` command line (also ``python -m kiln``).

Exit status: 0 success; 1 the source has errors (diagnostics on stderr) or
the build failed; 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Sequence

from kiln import KilnError, __version__, _build, _cache

# Codes raised by the Python side of kiln (the rest live in the C compiler).
PY_EXPLAIN = {
    "KILN001": (
        "KILN001: the file is not valid Python.\n\n"
        "kiln first parses the file with the running Python itself (nothing is\n"
        "executed). The diagnostic points at the line and column Python reported.\n"
        "Fix: make the file run under plain Python first (`python -m py_compile FILE`),\n"
        "then compile it with kiln."
    ),
}


def _err(msg: str) -> None:
    sys.stderr.write(msg if msg.endswith("\n") else msg + "\n")


def _source(path: str) -> tuple[Path, bytes, str]:
    src = Path(path)
    if not src.is_file():
        raise KilnError(f"kiln: no such file: {path}")
    return src, _build.read_source(src), _build.module_stem(src)


def _print_diagnostics(analysis: _build.Analysis) -> None:
    text = analysis.diagnostics or ""
    if text:
        _err(text)


def cmd_build(args: argparse.Namespace) -> int:
    src = Path(args.src)
    if not src.is_file():
        raise KilnError(f"kiln: no such file: {args.src}")
    try:
        so, analysis = _build.build_file(src, args.output, deny_fallback=args.deny_fallback)
    except KilnError as exc:
        if args.deny_fallback and "--deny-fallback" in str(exc) and exc.diagnostics:
            _err(exc.diagnostics)  # the warnings first, then the list of sites
        raise
    _print_diagnostics(analysis)
    print(so)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    src, source, stem = _source(args.src)
    analysis = _build.analyze(source, os.fspath(src), stem)
    out = Path(args.output) if args.output else (src.parent if str(src.parent) else Path("."))
    _build.write_reports(analysis, out, stem, html_too=False)
    _print_diagnostics(analysis)
    if args.json:
        text = analysis.report_text
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0 if analysis.ok else 1
    if not analysis.ok:
        return 1
    funcs = analysis.report.get("functions", [])
    native = sum(1 for f in funcs if f.get("status") == "native")
    print(f"{src}: {native} of {len(funcs)} function(s) native, "
          f"{analysis.fallback_sites} fallback site(s)")
    return 0


def cmd_emit(args: argparse.Namespace) -> int:
    src, source, stem = _source(args.src)
    analysis = _build.analyze(source, os.fspath(src), stem)
    if analysis.diagnostics:
        _err(analysis.diagnostics)
    if not analysis.ok or analysis.c_source is None:
        return 1
    sys.stdout.write(analysis.c_source)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    code = args.code.strip().upper()
    text: str | None = None
    comp_error: KilnError | None = None
    try:
        text = _build.load_compiler().explain(code)
    except KilnError as exc:
        comp_error = exc
    if text is None:
        text = PY_EXPLAIN.get(code)
    if text is None:
        if comp_error is not None:
            raise comp_error
        _err(f"kiln: unknown diagnostic code '{args.code}' (see `kiln rules` for the codes "
             "in use)")
        return 2
    print(text.rstrip("\n"))
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    rules: list[dict[str, Any]] = list(_build.load_compiler().rules())
    if args.json:
        print(json.dumps(rules, indent=2))
        return 0
    cols = ("id", "plugin", "form", "outcome", "code", "verified")
    table = [[("yes" if r.get(c) else "no") if c == "verified" else str(r.get(c) or "-")
              for c in cols] for r in rules]
    widths = [max([len(c)] + [len(row[i]) for row in table]) for i, c in enumerate(cols)]
    for row in [list(cols)] + table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 0


def _compiler_version(cc: list[str]) -> str:
    try:
        proc = subprocess.run([*cc, "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=20)
        lines = proc.stdout.strip().splitlines()
        return lines[0] if lines else "?"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"? ({exc})"


def _cpu_features() -> str:
    """The x86 features the kernels dispatch on, from /proc/cpuinfo (Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    want = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl")
                    return " ".join(w for w in want if w in flags) or "none of sse4_2/avx/avx2/fma/avx512"
    except OSError:
        pass
    return f"unknown ({platform.machine()})"


def _import_framework(name: str) -> str | None:
    """Import torch / tensorflow so the runtime can pick its boundary path;
    None on success, else why not."""
    if name in sys.modules:
        return None
    if name == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - a broken install is reported, not raised
        return f"import failed: {type(exc).__name__}: {exc}"
    return None


def _cache_status() -> tuple[str, str | None]:
    """(description, fix or None)."""
    try:
        path = _cache.cache_dir()
    except KilnError as exc:
        return f"REFUSED: {exc}", "set KILN_CACHE_DIR to a directory you own (it is created mode 0700)"
    st = os.stat(path)
    mode = stat.S_IMODE(st.st_mode)
    owner = "you" if st.st_uid == os.getuid() else f"uid {st.st_uid}"
    writable = os.access(path, os.W_OK)
    desc = f"{path} (mode {mode:04o}, owned by {owner}{'' if writable else ', NOT writable'})"
    if not writable:
        return desc, f"make {path} writable by you, or set KILN_CACHE_DIR elsewhere"
    return desc, None


def cmd_doctor(args: argparse.Namespace) -> int:
    fixes: list[str] = []

    def row(name: str, value: str) -> None:
        print(f"{name:<14}{value}")

    row("kiln", f"{__version__} ({Path(__file__).resolve().parent})")
    row("python", f"{platform.python_version()} {sys.executable} "
                  f"[{sys.implementation.cache_tag}, {_cache.ext_suffix()}]")
    try:
        tc = _build.find_toolchain()
        row("C compiler", f"{' '.join(tc.cc)}: {_compiler_version(tc.cc)}")
        row("linker", tc.describe())
        row("Python.h", os.path.join(tc.python_include, "Python.h"))
    except KilnError as exc:
        row("toolchain", f"MISSING: {exc}")
        fixes.append(str(exc).replace("kiln: ", "", 1))
    include = Path(_build.get_include())
    headers = sorted(p.name for p in include.glob("*.h"))
    row("kiln headers", f"{include} ({', '.join(headers) or 'none!'})")
    if not headers:
        fixes.append(f"the kiln runtime headers are missing from {include}; reinstall kiln "
                     "(`pip install -e .` or `make build`)")
    try:
        comp = _build.load_compiler()
        row("compiler", f"kiln._compiler {getattr(comp, 'version', '?')}")
    except KilnError as exc:
        row("compiler", f"MISSING: {exc}")
        fixes.append("build the compiler extension: `make build` (or `pip install -e .`)")
    rt: Any = None
    try:
        rt = importlib.import_module("kiln._runtime")
    except ImportError as exc:
        fixes.append("build the runtime extension: `make build` (or `pip install -e .`)")
        row("runtime", f"MISSING: kiln._runtime is not built ({exc})")
    versions = _cache.framework_versions()
    import_notes = {name: _import_framework(name) for name, ver in versions.items() if ver}
    paths: dict[str, Any] = {}
    if rt is not None:
        try:
            paths = dict(rt.boundary_paths())
        except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
            paths = {"boundary": f"? ({type(exc).__name__}: {exc})"}
    for name, ver in versions.items():
        if not ver:
            row(name, f"not installed (optional; only code using kiln.{name} needs it)")
            continue
        note = import_notes.get(name)
        boundary = note or paths.get(name, "?")
        row(name, f"{ver} (boundary: {boundary})")
    for name, value in paths.items():
        if name not in versions:
            row(name, str(value))
    row("CPU features", _cpu_features())
    if rt is not None:
        try:
            row("CPU kernels", f"{rt.isa()} (selected at run time)")
        except Exception as exc:  # noqa: BLE001
            row("CPU kernels", f"? ({type(exc).__name__}: {exc})")
    else:
        row("CPU kernels", "? (kiln._runtime is not built)")
    row("KILN_MODE", os.environ.get("KILN_MODE", "auto (default)"))
    desc, fix = _cache_status()
    row("cache", desc)
    if fix:
        fixes.append(fix)
    row("platform", f"{platform.platform()} ({sysconfig.get_platform()})")
    if fixes:
        print(f"\n{len(fixes)} problem(s); to fix:")
        for f in fixes:
            print(f"  - {f}")
        return 1
    print("\nall required parts found")
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kiln", description="Compile typed Python inference functions "
                                 "(PyTorch/TensorFlow) into native CPython extension modules.")
    parser.add_argument("--version", action="version", version=f"kiln {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("build", help="build SRC.py into an extension module and reports")
    p.add_argument("src", metavar="SRC.py")
    p.add_argument("-o", "--output", metavar="DIR", help="output directory (default: beside SRC)")
    p.add_argument("--deny-fallback", action="store_true",
                   help="fail if any site or function would run as Python")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("check", help="analyse only: diagnostics and the JSON report")
    p.add_argument("src", metavar="SRC.py")
    p.add_argument("-o", "--output", metavar="DIR", help="report directory (default: beside SRC)")
    p.add_argument("--json", action="store_true",
                   help="print the JSON report to stdout (diagnostics stay on stderr)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("emit", help="print the generated C")
    p.add_argument("src", metavar="SRC.py")
    p.set_defaults(func=cmd_emit)

    p = sub.add_parser("explain", help="explain a diagnostic code")
    p.add_argument("code", metavar="CODE")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("doctor", help="check the toolchain, frameworks and runtime")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("rules", help="list every rule of every plugin")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KilnError as exc:
        _err(str(exc))
        return 1
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
