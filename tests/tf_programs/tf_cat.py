"""tf.concat and tf.stack of tensors written out in the call (tests/test_cat.py compares
each with eager TensorFlow). Functions named n_* hold forms kiln leaves to
eager."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def c_axis1(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([a, b], 1)


def c_axis0(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat((a, b), axis=0)


def c_neg1(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([a, b], axis=-1)


def c_neg2(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([a, b], -2)


def c_three(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([a, b, c], 1)


def c_single(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([a], 0)


def v_concat(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.concat([a, b], 0)


def v_concat3(a: TensorF32Cpu1D, b: TensorF32Cpu1D, c: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.concat((a, b, c), axis=-1)


def c_exprs(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.concat([tf.nn.relu(a), b * 2.0, -a], 1)


def head(u: TensorF32Cpu2D, v: TensorF32Cpu2D, w: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = tf.concat([tf.nn.relu(u), v], -1)
    return tf.reduce_mean(tf.nn.sigmoid(tf.matmul(h, w) + bias), axis=1)


def s_rows(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.stack([a, b])


def s_cols(a: TensorF32Cpu1D, b: TensorF32Cpu1D, c: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.stack((a, b, c), axis=1)


def s_neg(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.stack([a, b], -1) + tf.stack([b, a], axis=1) + tf.transpose(tf.stack([a, b], -2))


def n_stack_matrices(a: TensorF32Cpu2D):
    return tf.stack([a, a])


def n_no_axis(a: TensorF32Cpu2D):
    return tf.concat([a, a])


def n_axis_variable(a: TensorF32Cpu2D, d: int):
    return tf.concat([a, a], d)


def n_mixed_ranks(a: TensorF32Cpu2D, b: TensorF32Cpu1D):
    return tf.concat([a, b], 0)


def n_name(a: TensorF32Cpu2D):
    return tf.concat([a, a], 0, name="joined")


def n_keyword(a: TensorF32Cpu2D):
    # the tensors by keyword: reported (KILN-TF-007) and eager's, not silent (2026-12-05)
    return tf.concat(values=[a, a], axis=1)
