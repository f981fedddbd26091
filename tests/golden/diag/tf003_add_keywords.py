import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    y = tf.add(a, b, name="sum")
    return tf.math.add(a, b)
