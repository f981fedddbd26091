import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu2D


def f(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    y = tf.add(a, s)
    return tf.matmul(a, 2)
