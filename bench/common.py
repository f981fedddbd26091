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
