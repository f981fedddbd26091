"""tf.nn.softmax / log_softmax over the last axis (tests/test_tf_softmax.py):
every function native, its softmax site claimed."""
import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def sm_2d(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.softmax(x)


def sm_axis(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.softmax(x, axis=-1)


def sm_math_1d(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.softmax(x, 0)


def sm_none(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.softmax(x, None)


def lsm_2d(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.log_softmax(x, 1)


def lsm_math_1d(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.log_softmax(x, axis=-1)


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.softmax(tf.matmul(x, w) + b)


def head_scaled(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.log_softmax((x @ w + b) * 0.5, axis=1)
