"""The reference README's rejected / not-covered examples (rextio-tensorflow
0.1.0) and kiln's own other-forms rules. Each site must be reported
`rejected` (with a KILN-TF code) or `not-covered`, and run on the Python
fallback with eager TensorFlow's result."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def mm_rank1(v: TensorF32Cpu1D, w: TensorF32Cpu2D):
    return tf.matmul(v, w)


def mm_rank21(a: TensorF32Cpu2D, v: TensorF32Cpu1D):
    return tf.linalg.matmul(a, v)


def mm_transpose_a(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return tf.matmul(a, b, transpose_a=True)


def mm_at_rank1(v: TensorF32Cpu1D, w: TensorF32Cpu2D):
    return v @ w


def relu_kw(x: TensorF32Cpu2D):
    return tf.nn.relu(x, name="r")


def sigmoid_kw(x: TensorF32Cpu2D):
    return tf.nn.sigmoid(x, name="s")


def add_kw(a: TensorF32Cpu2D, b: TensorF32Cpu1D):
    return tf.add(a, b, name="a")


def mean_noaxis(x: TensorF32Cpu2D):
    return tf.reduce_mean(x)


def mean_axis0(x: TensorF32Cpu2D):
    return tf.reduce_mean(x, axis=[0])  # a list of axes: not a literal int


def mean_keepdims_int(x: TensorF32Cpu2D):
    return tf.reduce_mean(x, axis=1, keepdims=1)  # not a bool literal


def mean_rank1(v: TensorF32Cpu1D):
    return tf.reduce_mean(v, axis=0)


def mean_dynamic_axis(x: TensorF32Cpu2D, axis: int):
    return tf.reduce_mean(x, axis=axis)


def mean_dynamic_keepdims(x: TensorF32Cpu2D, keep: bool):
    return tf.math.reduce_mean(x, axis=1, keepdims=keep)


def add_scalar(x: TensorF32Cpu2D, s: float):
    return tf.add(x, s)


def relu_scalar(s: float):
    return tf.nn.relu(s)


def cos(x: TensorF32Cpu2D):
    return tf.cos(x)


def transpose(x: TensorF32Cpu2D):
    return tf.transpose(x)


def method_receiver(x: TensorF32Cpu2D):
    nn = tf.nn
    return nn.relu(x)


def method_dunder(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return a.__add__(b)


def untyped(a, b):
    return tf.matmul(a, b)


def mm_kw_operands(x: TensorF32Cpu2D, w: TensorF32Cpu2D):
    return tf.matmul(a=x, b=w)


def relu_kw_operand(x: TensorF32Cpu2D):
    return tf.nn.relu(features=x)


def mean_kw_operand(x: TensorF32Cpu2D):
    return tf.reduce_mean(input_tensor=x, axis=1)


def relu_positional_name(x: TensorF32Cpu2D):
    return tf.nn.relu(x, "r")


def bias_add_kw(x: TensorF32Cpu2D, b: TensorF32Cpu1D):
    return tf.nn.bias_add(x, b, data_format="NHWC")


def leaky_relu_name(x: TensorF32Cpu2D):
    return tf.nn.leaky_relu(x, 0.1, name="act")


def gelu_name(x: TensorF32Cpu2D):
    return tf.nn.gelu(x, name="act")


def gelu_dynamic(x: TensorF32Cpu2D, a: bool):
    return tf.nn.gelu(x, approximate=a)


def softmax_axis0(x: TensorF32Cpu2D):
    return tf.nn.softmax(x, axis=0)


def softmax_name(x: TensorF32Cpu2D):
    return tf.nn.log_softmax(x, name="p")
