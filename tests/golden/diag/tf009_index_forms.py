import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, i: int):
    a = v[i]
    b = x[i, 0]
    c = v[tf.newaxis, :]
    e = x[..., 0]
    g = v[::-1]
    return a, b, c, e, g


def ok(x: TensorF32Cpu2D, v: TensorF32Cpu1D, i: int) -> TensorF32Cpu1D:
    return x[i] + x[:, -1] + v[i::2]
