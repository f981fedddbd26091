"""Trees of elementwise ops (one pass) against the same ops one a statement
(separate kernels) and eager torch: one thread, interleaved rounds, medians.

    .venv/bin/python bench/ewise_trees.py [--rounds 11]

Not part of `make bench` (whose cells it does not change); the README quotes
its output for the fifth session of 2026-12-04."""
import argparse
import pathlib
import statistics
import tempfile
import time

import torch

import kiln

SOURCE = '''
import torch
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def mix(m: TensorF32Cpu2D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 0.9 * m + 0.1 * x


def mix_ops(m: TensorF32Cpu2D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    b = 0.1 * x
    a = 0.9 * m
    n = 0
    return a + b


def sqd(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (a - b) * (a - b)


def sqd_ops(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    d = a - b
    e = a - b
    n = 0
    return d * e


def sgate(g: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sigmoid(g) * x


def sgate_ops(g: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    s = torch.sigmoid(g)
    n = 0
    return s * x
'''
# (`n = 0` keeps the locals from being forwarded into one expression)


def timed(f, args, n):
    t = time.perf_counter_ns()
    for _ in range(n):
        f(*args)
    return (time.perf_counter_ns() - t) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=11)
    a = ap.parse_args()
    torch.set_num_threads(1)
    out = pathlib.Path(tempfile.mkdtemp(prefix="kiln-trees-"))
    (out / "trees.py").write_text(SOURCE)
    mod = kiln.build(str(out / "trees.py"), out_dir=str(out))
    eager = mod.__kiln_python__
    print("workload          shape      fused     op by op  (ratio)   eager   (ratio)")
    for m, n in [(1, 64), (16, 64), (64, 256), (256, 1024)]:
        cases = {"mix": (torch.randn(m, n), torch.randn(m, n)), "sqd": (torch.randn(m, n), torch.randn(m, n)),
                 "sgate": (torch.randn(n), torch.randn(m, n))}
        for name, args in cases.items():
            fs = [getattr(mod, name), getattr(mod, name + "_ops"), eager[name]]
            reps = max(20, 300000 // (m * n))
            res = [[] for _ in fs]
            for _ in range(a.rounds):
                for i, f in enumerate(fs):
                    res[i].append(timed(f, args, reps))
            fused, ops, py = (statistics.median(r) / 1000 for r in res)
            print(f"{name:16s} {m:4d}x{n:<5d} {fused:7.2f} us {ops:7.2f} us ({ops / fused:4.2f}x) "
                  f"{py:8.2f} us ({py / fused:5.1f}x)")


if __name__ == "__main__":
    main()
