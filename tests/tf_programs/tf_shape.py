"""t.shape[k] on TensorFlow tensors (tests/test_tensor_shape.py)."""
import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def dims(x: TensorF32Cpu2D) -> int:
    return x.shape[0] * 1000 + x.shape[1] * 10 + x.shape[-1] - x.shape[-2]


def of_result(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> int:
    return tf.matmul(x, w).shape[-1]


def dim_1d(v: TensorF32Cpu1D) -> int:
    return v.shape[-1]


def length(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> int:
    return len(x) * 100 + len(v)


def ndims(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> int:
    return x.ndim * 10 + v.ndim + tf.matmul(x, x, transpose_b=True).ndim * 100
