"""Indexing kiln-tensorflow tensors with ints and slices (tests/test_index.py
compares each with eager TensorFlow). Functions named n_* hold forms kiln
leaves to eager."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def row(x: TensorF32Cpu2D, i: int) -> TensorF32Cpu1D:
    return x[i]


def col(x: TensorF32Cpu2D, j: int) -> TensorF32Cpu1D:
    return x[:, j]


def block(x: TensorF32Cpu2D, a: int, b: int, c: int, d: int) -> TensorF32Cpu2D:
    return x[a:b, c:d]


def rows(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x[a:b]


def stepped(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x[1::2, ::3]


def vec(v: TensorF32Cpu1D, a: int, b: int) -> TensorF32Cpu1D:
    return v[a:b]


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, k: int) -> TensorF32Cpu1D:
    return tf.nn.sigmoid(tf.matmul(x[:, :k], w))[:, 0]


def n_scalar(v: TensorF32Cpu1D, i: int):
    return v[i]


def n_newaxis(v: TensorF32Cpu1D):
    return v[tf.newaxis, :]


def n_neg_step(v: TensorF32Cpu1D):
    return v[::-1]
