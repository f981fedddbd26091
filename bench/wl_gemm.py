"""GEMM sweep: kiln's GEMM (a compiled ``a @ b``) vs torch.matmul vs NumPy,
in GFLOP/s, all three interleaved in one process.

run.py starts this group in its own subprocess with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset (they slow a current NumPy; torch uses MKL and kiln
its own kernels, so only NumPy sees them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import harness
from common import build_model, fma_runner
from harness import Budget, Cell

SQUARE = [64, 128, 256, 512, 1024, 2048]
SKINNY_M = [1, 2, 4, 8, 16]
SKINNY_NK = 1024
QUICK_SHAPES = [("square", 64, 64, 64), ("skinny", 1, SKINNY_NK, SKINNY_NK)]
SETTLE_S = 0.3              # longer than OpenBLAS's and libgomp's idle spin
# every cell but 64^3: skinny calls thread too (4x1024x1024 at 2 threads,
# unsettled, interleaved with kiln: torch 1.2 GFLOP/s; 8x1024x1024: kiln 47)
SETTLE_MIN_MNK = 1024 ** 2
# cells from this size on (one-thread pass) also time "fma peak": the cell's
# multiply-adds from registers at the core's peak, in the same rounds, so
# (fma peak time / kiln time) is kiln's share of the peak on the same machine
# state; ctypes' call overhead (~0.3 us) is under 0.5% of these cells (a
# --quick run times it in every cell, to exercise it)
PEAK_MIN_MNK = 256 ** 3


def shapes(quick: bool) -> list[tuple[str, int, int, int]]:
    if quick:
        return QUICK_SHAPES
    return ([("square", n, n, n) for n in SQUARE]
            + [("skinny", m, SKINNY_NK, SKINNY_NK) for m in SKINNY_M])


def blas_info() -> list[dict[str, Any]]:
    """Which BLAS NumPy runs, and with which kernel (threadpoolctl)."""
    try:
        import threadpoolctl
    except ImportError:
        return [{"note": "threadpoolctl not installed"}]
    keep = ("internal_api", "version", "architecture", "num_threads", "filepath")
    return [{k: info.get(k) for k in keep} for info in threadpoolctl.threadpool_info()
            if info.get("user_api") == "blas"]


def run(out_dir: str, budget: Budget, quick: bool, groups: list[str]) -> dict[str, list[Cell]]:
    mod = build_model("torch_models", out_dir)
    native = mod.matmul
    cells = []
    fma = fma_runner(out_dir) if torch.get_num_threads() == 1 else None
    print("== gemm", flush=True)
    for kind, m, n, k in shapes(quick):
        a = torch.randn(m, k)
        b = torch.randn(k, n)
        a_np, b_np = a.numpy(), b.numpy()
        label = f"{m}x{n}x{k}"
        contenders = {
            "kiln": lambda: native(a, b),
            "torch": lambda: torch.matmul(a, b),
            "numpy": lambda: a_np @ b_np,
        }
        if fma and (quick or m * n * k >= PEAK_MIN_MNK):
            contenders["fma peak"] = lambda: fma(m * n * k)
        check = harness.compare(native(a, b), torch.matmul(a, b), f"gemm {label}")
        cell_budget = Budget(**{**budget.__dict__, "cell_s": budget.cell_s * 0.7})
        # Threaded peers: each contender runs untimed until the previous
        # one's idle threads stopped spinning (1024^3, 2 threads, all three
        # interleaved: kiln/torch/NumPy 14.9/15.0/11.2 ms without, 7.0/6.4/7.0
        # with; alone 7.2/6.6/7.4).
        settle = SETTLE_S if torch.get_num_threads() > 1 and m * n * k >= SETTLE_MIN_MNK else 0.0
        cell = harness.measure("gemm", label, {"kind": kind, "m": m, "n": n, "k": k},
                               contenders, cell_budget, settle_s=settle)
        cell.extra["settle_s"] = settle
        flops = 2.0 * m * n * k
        cell.extra["check"] = check
        cell.extra["gflops"] = {c: flops / (t * 1e-6) * 1e-9 for c, t in cell.median_us.items()}
        harness.log(cell)
        cells.append(cell)
    cells[0].extra["numpy_blas"] = blas_info()
    return {"gemm": cells}
