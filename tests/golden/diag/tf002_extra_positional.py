import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu2D


# An extra positional argument (TF's `name`) gets the op's own message, not
# "an operand is not a kiln-tensorflow tensor" (KILN-TF-010).
def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.relu(x, "r") + tf.nn.sigmoid(x, "s") + tf.add(x, x, "a") + tf.matmul(x, x, False)
