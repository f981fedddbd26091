import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    a = tf.reduce_mean(x, axis=0)
    b = tf.reduce_mean(x, axis=[0, 1], keepdims=True)
    c = tf.reduce_mean(v, axis=1)
    d = tf.reduce_mean(x)
    return tf.reduce_mean(x, 1)
