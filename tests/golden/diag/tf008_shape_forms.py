import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, d: int, shape):
    a = tf.squeeze(x)
    b = tf.squeeze(x, axis=[1])
    c = tf.reshape(x, [1, 1, -1])
    e = tf.reshape(x, shape)
    g = tf.reshape(x, [-1], name="flat")
    h = tf.expand_dims(x, 0)
    k = tf.squeeze(x, d)
    m = tf.reshape(x, shape=[-1])
    n = tf.expand_dims(v, 2)
    return a, b, c, e, g, h, k, m, n


def ok(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reshape(x, [-1]) + tf.squeeze(tf.expand_dims(v, 1), axis=-1)
