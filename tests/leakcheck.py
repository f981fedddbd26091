"""Leak check: RSS and reference counts over many calls of compiled torch and
scalar functions — success paths, argument errors, shape errors, exceptions
raised inside fallback sites, tensors released inside fallback calls.

    python tests/leakcheck.py [CALLS]      (make leakcheck; default 1,000,000)

Prints RSS after a warm-up and every 10% of the run; fails (exit 1) if RSS
grows by more than 16 MB after warm-up or a reference count moved."""

from __future__ import annotations

import gc
import os
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import kiln  # noqa: E402
from test_boundary_matrix import SRC  # noqa: E402  (the boundary module)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> int:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as d:
        (pathlib.Path(d) / "kleak.py").write_text(SRC)
        m = kiln.build(str(pathlib.Path(d) / "kleak.py"), out_dir=d)
    a, b, bias = torch.randn(8, 8), torch.randn(8, 8), torch.randn(8)
    bad, wrong = a.double(), torch.randn(3, 5)
    watched = (a, b, bias, bad, wrong)
    refs = [sys.getrefcount(t) for t in watched]
    # one "call" = one compiled-function call; the mix cycles through 10 kinds
    kinds = [
        lambda i: m.lin(a, b, bias),
        lambda i: m.add2(a, b),
        lambda i: m.mm(a, b),
        lambda i: m.head(a),
        lambda i: m.stash_and_release(a, b),
        lambda i: m.scalars(i, 0.5, c=bool(i & 1)),
        lambda i: m.raises_inside(a, 0),
    ]
    errors = [
        (lambda i: m.add2(a, bad), ValueError),
        (lambda i: m.add2(a, wrong), RuntimeError),
        (lambda i: m.raises_inside(a, 1), ValueError),
        (lambda i: m.lin(a, b), TypeError),
        (lambda i: m.add2(a, None), TypeError),
    ]

    def run(n: int) -> None:
        for i in range(n):
            k = i % 10
            if k < 7:
                kinds[k](i)
            else:
                fn, exc = errors[(i // 10) % len(errors)]
                try:
                    fn(i)
                except exc:
                    pass
                else:
                    raise AssertionError("no error")

    t0 = time.perf_counter()
    run(min(50_000, calls // 10))
    gc.collect()
    base = rss_mb()
    print(f"leakcheck: {calls:,} calls; RSS after warm-up {base:.1f} MB")
    step = max(calls // 10, 1)
    done = 0
    while done < calls:
        n = min(step, calls - done)
        run(n)
        done += n
        gc.collect()
        print(f"  {done:>10,} calls  RSS {rss_mb():8.1f} MB  (+{rss_mb() - base:.2f})")
    grown = rss_mb() - base
    now = [sys.getrefcount(t) for t in watched]
    ok = grown < 16 and now == refs
    print(f"leakcheck: {'OK' if ok else 'FAILED'}: RSS +{grown:.2f} MB, refcounts "
          f"{'flat' if now == refs else f'{refs} -> {now}'}, {time.perf_counter() - t0:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
