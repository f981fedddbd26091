"""tf.nn.gelu, both forms (tests/test_gelu.py): every function native, its
gelu site claimed."""
import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def gelu_2d(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.gelu(x)


def gelu_none_1d(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.gelu(x, False)


def gelu_tanh_2d(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.gelu(x, approximate=True)


def gelu_tanh_1d(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.gelu(x, True)


def gelu_chain(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.gelu(x * 2.0 - y) * 0.5 + y


def gelu_tanh_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.gelu(x + 1.0, approximate=True) * 3.0


def gelu_mlp(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.nn.gelu(x @ w + b), axis=1)


def gelu_tanh_layer(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.gelu(tf.nn.bias_add(tf.matmul(x, w), b), approximate=True)
