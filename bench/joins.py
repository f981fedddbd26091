"""Joins (torch.cat, tf.concat) compiled against eager, alone and feeding a
scoring head's GEMM: one thread, interleaved rounds, medians.

    .venv/bin/python bench/joins.py [--rounds 41]

Not part of `make bench` (whose cells it does not change); the README quotes
its output for the twelfth session of 2026-12-05."""
import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import torch  # noqa: E402

import kiln  # noqa: E402

TORCH_SOURCE = '''
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def join(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a, b], 1)


def head(u: TensorF32Cpu2D, v: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(torch.cat([u, v], 1), w, b).relu().mean(dim=1)
'''

TF_SOURCE = '''
import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def join(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([a, b], 1)


def head(u: TensorF32Cpu2D, v: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.nn.relu(tf.matmul(tf.concat([u, v], 1), w) + b), axis=1)
'''


def sample(fn, args):
    """Seconds per call over back-to-back calls filling ~2 ms."""
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(50):
            fn(*args)
        n += 50
        t = time.perf_counter() - t0
        if t > 0.002:
            return t / n


def compare(mod, name, args, rounds):
    """(kiln us, eager us, median over rounds of eager / kiln)."""
    native, eager = getattr(mod, name), mod.__kiln_python__[name]
    ks, es, rs = [], [], []
    for i in range(rounds):
        pair = [(native, ks), (eager, es)]
        for fn, out in pair if i % 2 == 0 else pair[::-1]:
            out.append(sample(fn, args))
        rs.append(es[-1] / ks[-1])
    return statistics.median(ks) * 1e6, statistics.median(es) * 1e6, statistics.median(rs)


def build(source, stem, out):
    src = pathlib.Path(out) / f"{stem}.py"
    src.write_text(source)
    return kiln.build(str(src), out_dir=out)


def setup():
    """--rounds, after pinning torch and TensorFlow to one thread."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=41)
    rounds = ap.parse_args().rounds
    torch.set_num_threads(1)
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    return rounds


def main():
    import tensorflow as tf
    rounds = setup()
    with tempfile.TemporaryDirectory() as out:
        sys.path.insert(0, out)
        tm, fm = build(TORCH_SOURCE, "joins_torch", out), build(TF_SOURCE, "joins_tf", out)
        g = torch.Generator().manual_seed(0)
        print("one thread; kiln us, eager us, eager/kiln (median of per-round ratios)")
        for m, n in [(1, 32), (16, 64), (256, 512)]:
            a, b = torch.randn(m, n, generator=g), torch.randn(m, n, generator=g)
            k, e, r = compare(tm, "join", (a, b), rounds)
            print(f"torch.cat([a, b], 1), a and b {m}x{n}: {k:.2f} {e:.2f} {r:.1f}x")
        for m, n, o in [(1, 32, 16), (16, 64, 32), (64, 64, 64)]:
            u, v = torch.randn(m, n, generator=g), torch.randn(m, n, generator=g)
            w, bb = torch.randn(o, 2 * n, generator=g), torch.randn(o, generator=g)
            k, e, r = compare(tm, "head", (u, v, w, bb), rounds)
            print(f"F.linear(torch.cat([u, v], 1), w, b).relu().mean(1), {m}/{2 * n}->{o}: {k:.2f} {e:.2f} {r:.1f}x")
        for m, n in [(1, 32), (16, 64), (256, 512)]:
            a, b = tf.random.normal([m, n], seed=1), tf.random.normal([m, n], seed=2)
            k, e, r = compare(fm, "join", (a, b), rounds)
            print(f"tf.concat([a, b], 1), a and b {m}x{n}: {k:.2f} {e:.2f} {r:.1f}x")
        for m, n, o in [(1, 32, 16), (16, 64, 32)]:
            u, v = tf.random.normal([m, n], seed=3), tf.random.normal([m, n], seed=4)
            w, bb = tf.random.normal([2 * n, o], seed=5), tf.random.normal([o], seed=6)
            k, e, r = compare(fm, "head", (u, v, w, bb), rounds)
            print(f"reduce_mean(relu(concat([u, v], 1) @ w + b), 1), {m}/{2 * n}->{o}: {k:.2f} {e:.2f} {r:.1f}x")


if __name__ == "__main__":
    main()
