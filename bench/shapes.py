"""Shape ops (squeeze, view, unsqueeze; tf.squeeze, tf.reshape) and indexing
(x[:, :k], x[:, j]) compiled against eager, in the scoring heads that use them: one thread, interleaved
rounds, medians. Each torch head is also compiled with its squeeze written
`.squeeze()` (no dim: a form kiln leaves to eager, KILN-TORCH-008), which is
what every squeeze cost before shape ops were native.

    .venv/bin/python bench/shapes.py [--rounds 41]

Not part of `make bench` (whose cells it does not change); the README quotes
its output for the thirteenth session of 2026-12-05."""
import sys
import tempfile

import torch

from joins import build, compare, setup  # bench/joins.py: the same timing

TORCH_SOURCE = '''
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D, b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = F.linear(x, w, b).relu()
    return torch.sigmoid(F.linear(h, w2, b2)).squeeze(-1)


def head_eager_squeeze(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D,
                       b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = F.linear(x, w, b).relu()
    return torch.sigmoid(F.linear(h, w2, b2)).squeeze()


def head_view(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D, b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = F.linear(x, w, b).relu()
    return torch.sigmoid(F.linear(h, w2, b2).view(-1))


def one_sample(v: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(v.unsqueeze(0), w, b).relu().view(-1)


def pick(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, k: int) -> TensorF32Cpu1D:
    return torch.softmax(F.linear(x[:, :k], w, b), dim=-1)[:, 1]
'''

TF_SOURCE = '''
import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D) -> TensorF32Cpu1D:
    h = tf.nn.relu(tf.matmul(x, w) + b)
    return tf.squeeze(tf.nn.sigmoid(tf.matmul(h, w2)), axis=1)


def head_reshape(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D) -> TensorF32Cpu1D:
    h = tf.nn.relu(tf.matmul(x, w) + b)
    return tf.reshape(tf.nn.sigmoid(tf.matmul(h, w2)), [-1])


def pick(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, k: int) -> TensorF32Cpu1D:
    return tf.nn.softmax(tf.matmul(x[:, :k], w) + b)[:, 1]
'''


def main():
    import tensorflow as tf
    rounds = setup()
    with tempfile.TemporaryDirectory() as out:
        sys.path.insert(0, out)
        tm, fm = build(TORCH_SOURCE, "shapes_torch", out), build(TF_SOURCE, "shapes_tf", out)
        g = torch.Generator().manual_seed(0)
        print("one thread; kiln us, eager us, eager/kiln (median of per-round ratios)")
        for m, n, o in [(1, 32, 32), (16, 64, 64), (64, 128, 64)]:
            x, w, b = torch.randn(m, n, generator=g), torch.randn(o, n, generator=g), torch.randn(o, generator=g)
            w2, b2 = torch.randn(1, o, generator=g), torch.randn(1, generator=g)
            for name, what in [("head", "sigmoid(linear(relu(linear(x)))).squeeze(-1)"),
                               ("head_eager_squeeze", "the same, .squeeze() left to eager"),
                               ("head_view", "sigmoid(linear(...).view(-1))")]:
                k, e, r = compare(tm, name, (x, w, b, w2, b2), rounds)
                print(f"{what}, {m}/{n}->{o}->1: {k:.2f} {e:.2f} {r:.1f}x")
        for n, o in [(32, 32), (128, 64)]:
            v, w, b = torch.randn(n, generator=g), torch.randn(o, n, generator=g), torch.randn(o, generator=g)
            k, e, r = compare(tm, "one_sample", (v, w, b), rounds)
            print(f"linear(v.unsqueeze(0), w, b).relu().view(-1), {n}->{o}: {k:.2f} {e:.2f} {r:.1f}x")
        for m, n in [(1, 32), (16, 64)]:
            x, w, b = torch.randn(m, 2 * n, generator=g), torch.randn(4, n, generator=g), torch.randn(4, generator=g)
            k, e, r = compare(tm, "pick", (x, w, b, n), rounds)
            print(f"softmax(linear(x[:, :k], w, b), -1)[:, 1], {m}/{n} of {2 * n}->4: {k:.2f} {e:.2f} {r:.1f}x")
        for m, n, o in [(1, 32, 32), (16, 64, 64)]:
            x, w, b = tf.random.normal([m, n], seed=1), tf.random.normal([n, o], seed=2), tf.random.normal([o], seed=3)
            w2 = tf.random.normal([o, 1], seed=4)
            for name, what in [("head", "tf.squeeze(sigmoid(relu(x @ w + b) @ w2), axis=1)"),
                               ("head_reshape", "tf.reshape(..., [-1])")]:
                k, e, r = compare(fm, name, (x, w, b, w2), rounds)
                print(f"{what}, {m}/{n}->{o}->1: {k:.2f} {e:.2f} {r:.1f}x")
        for m, n in [(1, 32), (16, 64)]:
            x, w, b = tf.random.normal([m, 2 * n], seed=5), tf.random.normal([n, 4], seed=6), tf.random.normal([4], seed=7)
            k, e, r = compare(fm, "pick", (x, w, b, n), rounds)
            print(f"softmax(x[:, :k] @ w + b)[:, 1], {m}/{n} of {2 * n}->4: {k:.2f} {e:.2f} {r:.1f}x")


if __name__ == "__main__":
    main()
