"""Covered TF ops, uncovered TF ops and scalar control flow over int params
in one function (the reference E2E's range(depth) + integer condition
choosing relu or sigmoid, plus tf.cos / tf.transpose / tf.reduce_sum on the
Python fallback)."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def mixed(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, depth: int, mode: int):
    h = tf.matmul(x, w)
    total = 0
    for i in range(depth):
        if (i + mode) % 3 == 0:
            h = tf.nn.relu(h)
        elif mode > 1:
            h = tf.nn.sigmoid(h)
        else:
            h = h + b
        total += i * mode
    m = tf.reduce_mean(h, axis=1)
    c = tf.cos(h)
    t = tf.transpose(c)
    s = tf.reduce_sum(t, axis=0)
    if total > 3:
        m = m + m
    return m, s + m, total


def native_after_fallback(x: TensorF32Cpu2D, w: TensorF32Cpu2D, n: int) -> TensorF32Cpu1D:
    y = tf.transpose(w)
    h = tf.matmul(x, w)
    while n > 0:
        h = tf.nn.sigmoid(tf.add(h, h))
        n -= 1
    return tf.math.reduce_mean(h, 1) + tf.reduce_sum(y * 0.0, axis=0)[0]
