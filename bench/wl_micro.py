"""Micro workloads: a compiled pure-int loop vs CPython running the same
function, and the fixed cost of a compiled call vs a C no-op extension."""

from __future__ import annotations

import importlib.util
import shlex
import subprocess
import sysconfig
from pathlib import Path
from types import ModuleType

import torch

import harness
from common import BENCH, build_model
from harness import Budget, Cell

SCALAR_CELLS = [("sum_sq_mod", 200_000), ("nested", 400)]
QUICK_SCALAR = [("sum_sq_mod", 20_000), ("nested", 60)]


def build_noop(out_dir: str) -> ModuleType:
    """Compile bench/noop_ext.c with the compiler and flags CPython was built
    with, and import it."""
    build_dir = Path(out_dir) / "build"
    build_dir.mkdir(parents=True, exist_ok=True)
    so = build_dir / ("kiln_bench_noop" + sysconfig.get_config_var("EXT_SUFFIX"))
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    cmd = [*cc, "-O2", "-fPIC", "-shared", f"-I{sysconfig.get_paths()['include']}",
           str(BENCH / "noop_ext.c"), "-o", str(so)]
    subprocess.run(cmd, check=True)
    spec = importlib.util.spec_from_file_location("kiln_bench_noop", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scalar(out_dir: str, budget: Budget, quick: bool) -> list[Cell]:
    mod = build_model("scalar_models", out_dir)
    cells = []
    for name, n in (QUICK_SCALAR if quick else SCALAR_CELLS):
        native, python = getattr(mod, name), mod.__kiln_python__[name]
        ok = native(n) == python(n)
        if not ok:
            harness.compare([native(n)], [python(n)], f"scalar {name}")
        contenders = {"kiln": lambda: native(n), "cpython": lambda: python(n)}
        cell = harness.measure("scalar", f"{name}({n})", {"function": name, "n": n},
                               contenders, budget)
        cell.extra["check"] = {"ok": ok, "max_abs_diff": 0.0 if ok else float("inf")}
        harness.log(cell)
        cells.append(cell)
    return cells


def fixed_cost(out_dir: str, budget: Budget, quick: bool) -> list[Cell]:
    mod = build_model("torch_models", out_dir)
    noop = build_noop(out_dir).noop
    native = mod.first_of_three
    python = mod.__kiln_python__["first_of_three"]
    a, b, c = torch.randn(4, 4), torch.randn(4, 4), torch.randn(4, 4)
    contenders = {
        "kiln": lambda: native(a, b, c),
        "C no-op": lambda: noop(a, b, c),
        "python": lambda: python(a, b, c),
    }
    out = native(a, b, c)
    ok = isinstance(out, torch.Tensor) and torch.equal(out, a)
    if not ok:
        harness.compare(out, a, "fixed_cost first_of_three")
    cell = harness.measure("fixed_cost", "3 tensors in, 1 out", {}, contenders, budget,
                           reference="C no-op")
    cell.extra["check"] = {"ok": ok, "max_abs_diff": 0.0 if ok else float("inf"),
                           "returns_same_object": out is a}
    harness.log(cell)
    return [cell]


def run(out_dir: str, budget: Budget, quick: bool, groups: list[str]) -> dict[str, list[Cell]]:
    results = {}
    if "scalar" in groups:
        print("== scalar", flush=True)
        results["scalar"] = scalar(out_dir, budget, quick)
    if "fixed_cost" in groups:
        print("== fixed_cost", flush=True)
        results["fixed_cost"] = fixed_cost(out_dir, budget, quick)
    return results
