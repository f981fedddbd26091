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


def cmd_build(args: argparse.Namespace) -> int:
    src = Path(args.src)
    if not src.is_file():
        raise KilnError(f"kiln: no such file: {args.src}")
    so, analysis = _build.build_file(src, args.output, deny_fallback=args.deny_fallback)
    if analysis.diagnostics:
        _err(analysis.diagnostics)
    print(so)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    src, source, stem = _source(args.src)
    analysis = _build.analyze(source, os.fspath(src), stem)
    out = Path(args.output) if args.output else (src.parent if str(src.parent) else Path("."))
    _build.write_reports(analysis, out, stem, html_too=False)
    if analysis.diagnostics:
        _err(analysis.diagnostics)
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


def cmd_doctor(args: argparse.Namespace) -> int:
    problems = 0

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
        problems += 1
        row("toolchain", f"MISSING: {exc}")
    include = Path(_build.get_include())
    headers = sorted(p.name for p in include.glob("*.h"))
    row("kiln headers", f"{include} ({', '.join(headers) or 'none!'})")
    try:
        comp = _build.load_compiler()
        row("compiler", f"kiln._compiler {getattr(comp, 'version', '?')}")
    except KilnError as exc:
        problems += 1
        row("compiler", f"MISSING: {exc}")
    paths: dict[str, Any] = {}
    isa = "?"
    try:
        rt = importlib.import_module("kiln._runtime")
        try:
            isa = str(rt.isa())
        except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
            isa = f"? ({type(exc).__name__}: {exc})"
        try:
            paths = dict(rt.boundary_paths())
        except Exception as exc:  # noqa: BLE001
            paths = {"?": f"{type(exc).__name__}: {exc}"}
    except ImportError as exc:
        problems += 1
        isa = f"MISSING: kiln._runtime is not built ({exc})"
    for name, ver in _cache.framework_versions().items():
        boundary = paths.get(name)
        row(name, (ver or "not installed") + (f" (boundary: {boundary})" if boundary else ""))
    for name, value in paths.items():
        if name not in ("torch", "tensorflow"):
            row(name, str(value))
    row("CPU kernels", isa)
    row("KILN_MODE", os.environ.get("KILN_MODE", "auto (default)"))
    try:
        row("cache", f"{_cache.cache_dir()} (mode 0700)")
    except KilnError as exc:
        problems += 1
        row("cache", f"REFUSED: {exc}")
    row("platform", f"{platform.platform()} ({sysconfig.get_platform()})")
    return 1 if problems else 0


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
