"""Trees of elementwise ops on TensorFlow tensors, run as one pass; compared
with eager TensorFlow by tests/test_ewise_trees.py."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def norm(x: TensorF32Cpu2D, m: TensorF32Cpu1D, v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (x - m) * tf.math.rsqrt(v + 1e-5)


def gate(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.sigmoid(a) * tf.tanh(b)


def mix(m: TensorF32Cpu2D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 0.9 * m + 0.1 * x


def arith_deep(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D, d: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (a * 2 - b) * ((c + 1) / (d * 3 + (a - c * (b + 1))))
