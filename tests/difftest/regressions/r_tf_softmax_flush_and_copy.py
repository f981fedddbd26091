"""difftest regression r_tf_softmax_flush_and_copy.

Found by `python -m tests.difftest.run --seed 4 --tensor-frac 1.0 --tf-frac 1.0
--cases 12` (the first TensorFlow run of the tester: batch 33 f13, batches
143, 286 and 324), reduced by hand.

f13: expected (python): inf where a softmax element is e^-87.1 / sum: eager
TF's softmax (oneDNN's) gives 0 for x - max < -125 ln 2; observed (kiln):
7.4e37, kiln's softmax kept the normal float 1.35e-38 (kk_softmax_tf).
mean_one / col_one: expected (python): -inf, eager TF reduces a length-1 axis
by copying it, so -0.0 stays; observed (kiln): inf, its sum from +0.0 gave
+0.0 (tensor_ops.c copies the axis now).
"""
import math
import tensorflow as tf
from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def f13(x: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    t1 = tf.nn.softmax(3 / x, axis=None)
    return tf.divide(s - t1, t1)


def mean_one(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.math.rsqrt(tf.reduce_mean(x, 1))


def col_one(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.rsqrt(tf.reduce_sum(x, axis=0, keepdims=True))


CASES = {'f13': [(tf.constant([-0.03387668, -0.7781833, -0.3483899, -2.0791256], dtype=tf.float32), 0.5),
                 (tf.constant([-0.0339, -0.03445, 1.0, -math.inf], dtype=tf.float32), 2.0)],
         'mean_one': [(tf.constant([[0.25], [-0.0], [0.0], [4.0]], dtype=tf.float32),)],
         'col_one': [(tf.constant([[-0.0, 0.0, 1.0, -0.0]], dtype=tf.float32),)]}
TOL = {'f13': (1e-05, 1e-06), 'mean_one': (1e-05, 1e-06), 'col_one': (1e-05, 1e-06)}
