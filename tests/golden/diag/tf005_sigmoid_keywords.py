import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D


def f(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    y = tf.nn.sigmoid(x, name="p")
    return tf.sigmoid(x)
