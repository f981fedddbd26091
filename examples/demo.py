#!/usr/bin/env python3
"""kiln demo (`make demo`): build examples/model_torch.py, check it against
eager PyTorch and time both.

Builds the model with kiln.build into build/demo/, compares every compiled
function's output with the original Python (eager torch), then prints median
times of kiln vs eager at batch 1, 16 and 64, measured interleaved on one
thread.  Prints numbers only: a shared, noisy machine can make any single
ratio wobble, so nothing here asserts speed.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

import kiln  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "demo"
WIDTH, HIDDEN, HEADS, DEPTH = 64, 64, 16, 8


def per_call(fn, n: int) -> float:
    gc.disable()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    dt = time.perf_counter() - t0
    gc.enable()
    return dt / n


def interleaved(kiln_fn, eager_fn, rounds: int = 31, sample_s: float = 2e-3):
    """Median seconds per call of each, and the median per-round ratio."""
    per = [per_call(f, 10) for f in (kiln_fn, eager_fn)]
    n_k, n_e = (max(1, int(sample_s / p)) for p in per)
    tk, te = [], []
    for r in range(rounds):
        pair = [(kiln_fn, n_k, tk), (eager_fn, n_e, te)]
        for fn, n, acc in (pair if r % 2 == 0 else pair[::-1]):
            acc.append(per_call(fn, n))
    ratio = statistics.median(e / k for e, k in zip(te, tk))
    return statistics.median(tk), statistics.median(te), ratio


def main() -> int:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    t0 = time.perf_counter()
    mod = kiln.build(ROOT / "examples" / "model_torch.py", out_dir=OUT)
    print(f"built {mod.__file__} in {time.perf_counter() - t0:.2f} s")

    w1 = torch.randn(HIDDEN, WIDTH) / WIDTH ** 0.5
    b1 = torch.randn(HIDDEN) * 0.1
    w2 = torch.randn(HIDDEN, HEADS) / HIDDEN ** 0.5
    b2 = torch.randn(HEADS) * 0.1
    w = torch.randn(WIDTH, WIDTH) / WIDTH ** 0.5
    b = torch.randn(WIDTH) * 0.1

    def args_for(name: str, x: torch.Tensor) -> tuple:
        return (x, w1, b1, w2, b2) if name == "score" else (x, w, b, DEPTH, 1)

    print("\nkiln vs eager (max abs diff of the outputs):")
    worst = 0.0
    for name in ("score", "deep"):
        for batch in (1, 16, 64):
            args = args_for(name, torch.randn(batch, WIDTH))
            diff = (getattr(mod, name)(*args) - mod.__kiln_python__[name](*args)).abs().max().item()
            worst = max(worst, diff)
            print(f"  {name:<6} batch {batch:>3}: {diff:.3g}")
    if worst > 1e-4:
        print(f"WARNING: kiln differs from eager by {worst:.3g}")

    print(f"\nmedian time per call, one thread (score: linear {WIDTH}->{HIDDEN} relu, "
          f"@ {HIDDEN}x{HEADS} + b, sigmoid, mean;\n  deep: {DEPTH} layers of width {WIDTH}):")
    print(f"  {'function':<8} {'batch':>5} {'kiln us':>9} {'eager us':>9} {'eager/kiln':>11}")
    for name in ("score", "deep"):
        native, eager = getattr(mod, name), mod.__kiln_python__[name]
        for batch in (1, 16, 64):
            args = args_for(name, torch.randn(batch, WIDTH))
            tk, te, ratio = interleaved(lambda: native(*args), lambda: eager(*args))
            print(f"  {name:<8} {batch:>5} {tk * 1e6:>9.2f} {te * 1e6:>9.2f} {ratio:>10.1f}x")

    print(f"\nHTML report (per source line: native kernel / scalar / fallback): "
          f"{OUT / 'model_torch.kiln.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
