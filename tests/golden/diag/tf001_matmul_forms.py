import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f(a: TensorF32Cpu2D, b: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    x = tf.matmul(a, b, transpose_a=True)
    y = tf.linalg.matmul(a, v)
    z = a @ v
    return tf.matmul(a, b)
