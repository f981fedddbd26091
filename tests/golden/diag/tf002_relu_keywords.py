import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu2D


def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    y = tf.nn.relu(x, name="act")
    return tf.nn.relu(x)
