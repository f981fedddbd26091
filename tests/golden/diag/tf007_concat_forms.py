import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, d: int):
    a = tf.concat([x, x], d)
    b = tf.concat([x, x])
    c = tf.concat([x, v], 0)
    e = tf.concat((x, x), -3)
    g = tf.concat([x, x], 0, name="j")
    h = tf.concat(values=[x, x], axis=0)
    return a, b, c, e, g, h


def g(x: TensorF32Cpu2D, v: TensorF32Cpu1D):
    a = tf.stack([x, x])
    b = tf.stack([v, v], axis=-3)
    c = tf.stack([v, v], 0, name="s")
    return a, b, c
