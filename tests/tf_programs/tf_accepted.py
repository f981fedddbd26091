"""Every form kiln-tensorflow claims, spelled through `import tensorflow as tf`.

The first two functions are the reference README's accepted example
(rextio-tensorflow 0.1.0) under kiln's markers; tf_accepted_full.py is the
same file spelled `tensorflow.*` (kept in sync by test_tf_plugin.py).
"""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def inference(x: TensorF32Cpu2D, weight: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = tf.matmul(x, weight)
    h = tf.nn.relu(h)
    h = h + bias
    return tf.reduce_mean(h, axis=1)


def inference_sigmoid(x: TensorF32Cpu2D, weight: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = tf.matmul(x, weight)
    h = tf.nn.relu(h)
    h = tf.nn.sigmoid(h)
    h = tf.add(h, bias)
    return tf.reduce_mean(h, axis=1)


def mm(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.matmul(a, b)


def mm_linalg(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.linalg.matmul(a, b)


def mm_at(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a @ b


def relu2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.relu(x)


def relu1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.relu(x)


def sigmoid2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.sigmoid(x)


def sigmoid1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.sigmoid(x)


def sigmoid_top(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.sigmoid(x)


def sigmoid_math(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.sigmoid(x)


def add_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.add(a, b)


def add_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.add(a, b)


def add_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.add(a, b)


def add_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.add(a, b)


def math_add_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.add(a, b)


def math_add_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.add(a, b)


def math_add_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.math.add(a, b)


def math_add_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.add(a, b)


def plus_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b


def plus_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return a + b


def plus_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a + b


def plus_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b


def mean_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, axis=1)


def mean_pos(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, 1)


def mean_keep_false(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, axis=1, keepdims=False)


def mean_pos_keep_false(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, 1, keepdims=False)


def math_mean(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.math.reduce_mean(x, axis=1)


def math_mean_keep_false(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.math.reduce_mean(x, axis=1, keepdims=False)


def mean_neg1(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, axis=-1)


def sum_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_sum(x, axis=1)


def math_sum_pos_keep_false(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.math.reduce_sum(x, 1, keepdims=False)


def sum_neg1(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_sum(x, axis=-1)


def mm_tb(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.matmul(a, b, transpose_b=True)


def mm_linalg_tb(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.linalg.matmul(a, b, transpose_a=False, transpose_b=True)


def mm_tb_false(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.matmul(a, b, transpose_b=False)


def chain_tb(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = tf.nn.relu(tf.matmul(x, w, transpose_b=True) + b)
    return tf.reduce_sum(h, axis=1)
