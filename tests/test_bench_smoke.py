"""Smoke test of the benchmark suite: `bench/run.py --quick` runs end to end
and writes its result files.  No timing is asserted (the machine is shared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("torch")
pytest.importorskip("tensorflow")


def test_bench_quick(tmp_path: Path) -> None:
    out = tmp_path / "results"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick",
                           "--out", str(out)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]

    md = (out / "results.md").read_text()
    for heading in ("# kiln benchmark results", "## Machine", "## Summary",
                    "### Phase A", "### Phase B", "### TorchBench lennard_jones", "### Elementwise chain",
                    "### TensorFlow chain", "### GEMM sweep", "### Scalar loops",
                    "### Fixed cost"):
        assert heading in md, heading
    for header in ("| cell | kiln us | eager us | jit.script us |",
                   "| M x N x K | kiln GFLOP/s | torch GFLOP/s | numpy GFLOP/s |",
                   "| function(n) | kiln us | CPython us | CPython/kiln |",
                   "| call | kiln ns | C no-op ns |",
                   "| pass | group | ratio | geomean | range |"):
        assert header in md, header
    assert "**MISMATCH** (" not in md and "**MISMATCHES" not in md
    # kernel-only split: the section follows the Targets table and has a kernel time
    assert "## Where the time goes (one thread)" in md
    assert md.index("## Targets") < md.index("## Where the time goes")
    split = md[md.index("## Where the time goes"):].split("\n## ")[0]
    rows = [line.split(" | ") for line in split.splitlines()
            if line.startswith(("| Phase A |", "| Phase B |", "| TF chain |"))]
    assert rows, split
    assert all(float(row[3]) > 0 for row in rows), rows  # kernel us

    results = json.loads((out / "results.json").read_text())
    assert results["quick"] is True
    assert results["machine"]["kiln_isa"] in ("avx512", "avx2", "reference")
    groups = results["passes"]["single"]
    for group in ("phase_a", "phase_b", "lennard_jones", "elementwise", "tf_chain", "gemm", "scalar",
                  "fixed_cost"):
        assert groups[group], group
        for cell in groups[group]:
            assert cell["extra"]["check"]["ok"], (group, cell["label"])
    assert results["fma_peak_gflops"]
    if results["machine"]["kiln_isa"] in ("avx512", "avx2"):  # the FMA peak timed in the GEMM rounds
        for cell in groups["gemm"]:
            assert cell["median_us"]["fma peak"] > 0 and cell["ratio"]["fma peak"] > 0, cell["label"]
        assert "kiln % of FMA peak (same rounds)" in md
    if results["machine"]["kiln_isa"] == "avx512":  # the load-fed peak, for "Targets not met"
        assert results["fma_peak_gflops"]["avx512_loadfed"] > 0
    kernels = results["kernel_cells"]
    for group in ("phase_a", "phase_b", "tf_chain"):
        assert {c["label"] for c in groups[group]} == set(kernels[group]), group
        assert all(us > 0 for us in kernels[group].values()), group
        if results["machine"]["kiln_isa"] in ("avx512", "avx2"):  # the FMA peak in the same samples
            shares = results["kernel_cells_peak_share"][group]
            assert set(shares) == set(kernels[group]) and all(f > 0 for f in shares.values()), group

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for png in ("phase_a.png", "gemm.png"):
        assert (out / png).stat().st_size > 0, png
