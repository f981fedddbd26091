"""tf.maximum / tf.minimum in every form kiln claims (tests/test_tf_minmax.py):
two tensors broadcast as tf.add, or a tensor and an int, float or bool on
either side; in chains and after a GEMM; and a form it rejects (n_*)."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def mx_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.maximum(a, b)


def mn_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.minimum(a, b)


def mx_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.math.maximum(a, b)


def mn_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.minimum(a, b)


def mx_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.maximum(a, b)


def mn_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.minimum(a, b)


def mx_s(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return tf.maximum(a, s)


def mn_s(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return tf.minimum(a, s)


def mx_s_left(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return tf.maximum(s, a)


def mn_s_left(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return tf.minimum(s, a)


def mn_s_left_1d(a: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    return tf.math.minimum(s, a)


def mx_int(a: TensorF32Cpu2D, i: int) -> TensorF32Cpu2D:
    return tf.maximum(a, i)


def mn_bool(a: TensorF32Cpu2D, f: bool) -> TensorF32Cpu2D:
    return tf.minimum(f, a)


def mx_zero(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.maximum(a, 0.0)


def floor_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, floor: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.maximum(tf.matmul(x, w), floor), axis=1)


def clip_between(x: TensorF32Cpu2D, lo: TensorF32Cpu1D, hi: float) -> TensorF32Cpu2D:
    return tf.minimum(tf.maximum(x, lo), hi) * 2.0 - x


def n_name(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return tf.maximum(a, b, name="m")


def n_numbers(a: TensorF32Cpu2D, s: float, u: float):
    return a + tf.maximum(s, u)  # two numbers: KILN-TF-010, eager's


def clip(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return tf.clip_by_value(x, lo, hi)


def clip_1d(x: TensorF32Cpu1D, lo: float, hi: float) -> TensorF32Cpu1D:
    return tf.clip_by_value(x, lo, hi)


def clip_lit(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.clip_by_value(x * 2.0, -1, 1.0) + x


def clip_int_bool(x: TensorF32Cpu2D, i: int, f: bool) -> TensorF32Cpu2D:
    return tf.clip_by_value(x, i, f)


def n_clip_tensor(x: TensorF32Cpu2D, lo: TensorF32Cpu1D, hi: TensorF32Cpu1D):
    return tf.clip_by_value(x, lo, hi)  # tensor bounds: KILN-TF-003, eager's
