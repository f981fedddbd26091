"""Shape errors inside claimed ops: a RuntimeError naming both shapes and
this file's line."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def mm(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.matmul(a, b)  # line 9


def add_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.add(a, b)  # line 13


def plus_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b  # line 17


def chain(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = tf.nn.relu(tf.matmul(x, w))
    h = h + b  # line 22
    return tf.reduce_mean(h, axis=1)
