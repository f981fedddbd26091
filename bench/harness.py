"""Timing harness shared by every workload group.

The machine is shared and noisy, so contenders are never timed one after the
other: each round times one sample of every contender (the order rotates from
round to round), and a cell reports per contender the median per-call time
over all rounds, and per peer the median of the per-round ratios
peer / kiln (the two samples of a round saw the same machine state).
"""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Budget:
    """How long a cell may take.  ``quick`` shrinks everything."""

    cell_s: float = 6.0        # wall time for the timed rounds of one cell
    sample_s: float = 2e-3     # target duration of one sample (n calls)
    min_rounds: int = 9
    max_rounds: int = 301

    @classmethod
    def quick(cls) -> "Budget":
        return cls(cell_s=0.25, sample_s=5e-4, min_rounds=3, max_rounds=15)


@dataclass
class Cell:
    """The measurements of one cell: times in microseconds per call."""

    group: str
    label: str
    params: dict[str, Any]
    contenders: list[str]
    reference: str = "kiln"
    median_us: dict[str, float] = field(default_factory=dict)
    p25_us: dict[str, float] = field(default_factory=dict)
    p75_us: dict[str, float] = field(default_factory=dict)
    ratio: dict[str, float] = field(default_factory=dict)   # peer / reference (>1: kiln faster)
    rounds: int = 0
    calls_per_sample: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)     # checks, compile times, GFLOP/s

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _sample(fn: Callable[[], Any], n: int) -> float:
    """Seconds per call over n back-to-back calls, GC off."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) / n
    finally:
        if gc_was_enabled:
            gc.enable()


def calibrate(fn: Callable[[], Any], budget: Budget) -> tuple[int, float]:
    """(calls per sample, rough seconds per call) after a short warm-up."""
    for _ in range(3):
        fn()
    n = 1
    while True:
        t = _sample(fn, n)
        if t * n >= budget.sample_s / 4 or n >= 1 << 20:
            break
        n *= 4
    per_call = min(t, _sample(fn, n))
    return max(1, round(budget.sample_s / per_call)), per_call


def _run_for(fn: Callable[[], Any], seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        fn()


def measure(group: str, label: str, params: dict[str, Any],
            contenders: dict[str, Callable[[], Any]], budget: Budget,
            reference: str = "kiln", settle_s: float = 0.0) -> Cell:
    """Time every contender (zero-argument callables) interleaved.  With
    settle_s, run each contender untimed for that long before its sample:
    multi-threaded libraries keep their idle worker threads spinning for a
    while after a call, and those would take cores from the next
    contender's threads. (Sleeping instead lets this VM's cores go idle,
    and the calls after it ran up to 2x slower.)"""
    names = list(contenders)
    cell = Cell(group, label, params, names, reference)
    per_call = {}
    for name in names:
        cell.calls_per_sample[name], per_call[name] = calibrate(contenders[name], budget)
    round_s = sum(cell.calls_per_sample[n] * per_call[n] + settle_s for n in names)
    rounds = int(budget.cell_s / max(round_s, 1e-9))
    rounds = max(budget.min_rounds, min(budget.max_rounds, rounds))
    if rounds * round_s > 4 * budget.cell_s:  # slow calls (or an overloaded machine)
        rounds = max(3, int(4 * budget.cell_s / round_s))
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            if settle_s:
                _run_for(contenders[name], settle_s)
            samples[name].append(_sample(contenders[name], cell.calls_per_sample[name]))
    cell.rounds = rounds
    for name in names:
        s = sorted(samples[name])
        q = statistics.quantiles(s, n=4) if len(s) >= 2 else [s[0]] * 3
        cell.median_us[name] = statistics.median(s) * 1e6
        cell.p25_us[name], cell.p75_us[name] = q[0] * 1e6, q[2] * 1e6
    if reference in samples:
        ref = samples[reference]
        for name in names:
            if name != reference:
                cell.ratio[name] = statistics.median(
                    p / k for p, k in zip(samples[name], ref))
    return cell


def first_call_seconds(fn: Callable[[], Any]) -> float:
    """Wall time of one call: for a lazily compiling peer, its compile time."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# ---- correctness -----------------------------------------------------------

RTOL = 1e-4


def compare(kiln_out: Any, ref_out: Any, what: str) -> dict[str, Any]:
    """Max abs difference of two array-likes (torch, TF or NumPy), judged
    against RTOL * max(1, max |ref|).  A mismatch is printed loudly."""
    import numpy as np

    a = np.asarray(kiln_out.numpy() if hasattr(kiln_out, "numpy") else kiln_out, dtype=np.float64)
    b = np.asarray(ref_out.numpy() if hasattr(ref_out, "numpy") else ref_out, dtype=np.float64)
    if a.shape != b.shape:
        res = {"ok": False, "max_abs_diff": float("inf"),
               "detail": f"shape {a.shape} != {b.shape}"}
    else:
        diff = float(np.max(np.abs(a - b))) if a.size else 0.0
        if np.isnan(diff):
            diff = float("inf")
        scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
        res = {"ok": diff <= RTOL * scale, "max_abs_diff": diff}
    if not res["ok"]:
        banner = "!" * 72
        print(f"\n{banner}\nMISMATCH in {what}: kiln differs from eager "
              f"(max abs diff {res['max_abs_diff']:.3g}) {res.get('detail', '')}\n{banner}\n",
              flush=True)
    return res


def log(cell: Cell) -> None:
    """One line per cell on stdout while the suite runs."""
    parts = [f"{n} {cell.median_us[n]:.2f}us" for n in cell.contenders]
    ratios = [f"{n}/{cell.reference} x{r:.2f}" for n, r in cell.ratio.items()]
    check = cell.extra.get("check")
    flag = "" if check is None or check["ok"] else "  MISMATCH!"
    print(f"  [{cell.group}] {cell.label:<18} " + "  ".join(parts)
          + ("  | " + "  ".join(ratios) if ratios else "") + flag, flush=True)
