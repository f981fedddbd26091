"""Helpers shared by the workload modules: building the bench models."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent
MODELS = BENCH / "models"


def build_model(name: str, out_dir: str | os.PathLike[str]) -> ModuleType:
    """kiln.build bench/models/<name>.py into <out_dir>/build and check that
    every function compiled natively (a benchmark of a fallback is no
    benchmark of kiln)."""
    import json

    import kiln

    build_dir = Path(out_dir) / "build"
    build_dir.mkdir(parents=True, exist_ok=True)
    mod = kiln.build(MODELS / f"{name}.py", out_dir=build_dir)
    report = json.loads((build_dir / f"{name}.kiln.json").read_text())
    for fn in report["functions"]:
        fallback = [s for s in fn["sites"] if s["outcome"] in ("rejected", "not-covered")]
        if fn["status"] != "native" or fallback:
            print(f"WARNING: {name}.{fn['name']} is not fully native "
                  f"(status {fn['status']}, {len(fallback)} fallback sites)", flush=True)
    return mod


def fma_runner(out_dir: str | os.PathLike[str]):
    """bench/fma_peak.c built as a shared library: fma(n) runs n float
    multiply-adds from registers at the core's peak (AVX-512, else AVX2), so a
    cell can time the FMA peak in the same rounds as kiln. None if the CPU has
    neither ISA or no C compiler is found."""
    import ctypes
    import subprocess

    lib_path = Path(out_dir) / "build" / "fma_peak.so"
    lib_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-DFMA_PEAK_LIB", str(BENCH / "fma_peak.c"),
                        "-o", str(lib_path)], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"WARNING: no in-process FMA peak ({exc})", flush=True)
        return None
    fn = ctypes.CDLL(str(lib_path)).kiln_bench_fma
    fn.argtypes, fn.restype = [ctypes.c_long], ctypes.c_int
    return fn if fn(1) else None
