"""tf.reshape / tf.squeeze / tf.expand_dims of kiln tensors
(tests/test_reshape.py compares each with eager). Functions named n_* hold
forms kiln leaves to eager."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def r_flat(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reshape(x, [-1])


def r_2(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return tf.reshape(x, (a, b))


def r_v2(v: TensorF32Cpu1D, a: int, b: int) -> TensorF32Cpu2D:
    return tf.reshape(v, [a, b])


def r_n(v: TensorF32Cpu1D, n: int) -> TensorF32Cpu1D:
    return tf.reshape(v, (n,))


def r_kw(x: TensorF32Cpu2D, a: int) -> TensorF32Cpu2D:
    return tf.reshape(x, shape=(a, -1))


def sq_1(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.squeeze(x, 1)


def sq_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.squeeze(x, axis=-2)


def ex_0(v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.expand_dims(v, 0)


def ex_kw(v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.expand_dims(v, axis=-1)


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D) -> TensorF32Cpu1D:
    h = tf.nn.relu(tf.matmul(x, w) + b)
    return tf.squeeze(tf.nn.sigmoid(tf.matmul(h, w2)), axis=1)


def one_sample(v: TensorF32Cpu1D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reshape(tf.nn.relu(tf.matmul(tf.expand_dims(v, 0), w)), [-1])


def n_squeeze_all(x: TensorF32Cpu2D):
    return tf.squeeze(x)


def n_axis_list(x: TensorF32Cpu2D):
    return tf.squeeze(x, axis=[1])


def n_rank3(x: TensorF32Cpu2D):
    return tf.reshape(x, [1, 1, -1])


def n_shape_object(x: TensorF32Cpu2D, shape):
    return tf.reshape(x, shape)


def n_named(x: TensorF32Cpu2D):
    return tf.reshape(x, [-1], name="flat")
