"""The elementwise functions of one tensor kiln-tensorflow claims besides
the activations: tf.abs, tf.sqrt, tf.square and tf.exp (and their tf.math
names) and tf.math.log, alone, fused and after a GEMM; compared with eager TensorFlow by
tests/test_math_ops.py. NAME_1 / NAME_2: the operand's rank."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def abs_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.abs(x)


def abs_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.abs(v)


def sqrt_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.sqrt(x)


def sqrt_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.sqrt(v)


def square_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.square(x)


def square_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.square(v)


def exp_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.exp(x)


def exp_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.exp(v)


def log_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.log(x)


def log_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.log(v)


def relu6_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.relu6(x)


def relu6_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.relu6(v)


def rsqrt_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.rsqrt(x)


def rsqrt_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.rsqrt(v)


def relu6_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.nn.relu6(tf.matmul(x, w) + b), axis=1)


def rms_norm(x: TensorF32Cpu2D, g: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return x * tf.math.rsqrt(tf.square(x) + 1e-6) * g


def rms_chain(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.sqrt(tf.square(x - y) + 1e-6) * 0.5


def exp_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.exp(tf.matmul(x, w) + b), axis=1)


def col_mean(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, axis=0)


def col_sum(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.math.reduce_sum(x, -2)


def col_mean_keep(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.reduce_mean(x, axis=0, keepdims=True)


def col_sum_keep(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.reduce_sum(x, -2, keepdims=True)


def row_sum_keep(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.reduce_sum(x, axis=-1, keepdims=True)


def center(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x - tf.reduce_mean(x, axis=1, keepdims=True)


def pool_keep(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.math.reduce_mean(tf.nn.relu(tf.matmul(x, w) + b), axis=1, keepdims=True)


def bias_add(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.bias_add(x, b)


def bias_add_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b)), axis=1)


def exp_kw(x: TensorF32Cpu2D):
    return tf.exp(x, name="e")  # KILN-TF-005: eager TensorFlow


def leaky_default(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.leaky_relu(x)


def leaky(x: TensorF32Cpu2D, a: float) -> TensorF32Cpu2D:
    return tf.nn.leaky_relu(x, a)


def leaky_kw_1d(x: TensorF32Cpu1D, a: float) -> TensorF32Cpu1D:
    return tf.nn.leaky_relu(x, alpha=a)


def leaky_int(x: TensorF32Cpu2D, a: int) -> TensorF32Cpu2D:
    return tf.nn.leaky_relu(x, a)


def leaky_chain(x: TensorF32Cpu2D, a: float) -> TensorF32Cpu2D:
    return tf.nn.leaky_relu(x * 2.0 - 1.0, a) * 3.0


def leaky_chain_default(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.leaky_relu(x + 1.0) - 0.5


def silu_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.silu(x)


def silu_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.swish(v)


def silu_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.nn.silu(tf.matmul(x, w) + b), axis=1)


def silu_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.silu(x * 2.0) + 1.0


def row_mean_neg(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(-x, axis=1)


def col_sum_keep_neg(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.reduce_sum(tf.negative(x), axis=0, keepdims=True)


def row_mean(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.reduce_mean(x, axis=1)


def row_sum_math(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return tf.math.reduce_sum(x, 1, keepdims=False)


def relu_sign_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 1.0 / tf.nn.relu(x * -1.0)


def relu6_sign_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.rsqrt(tf.nn.relu6(-x))


def relu_sign_row(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return 1.0 / tf.nn.relu(x * b)


def relu_sign_1d(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return 1.0 / tf.nn.relu(-v)


def relu_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.relu(x)


def relu_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.relu(v)


def log_neg_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.log(-x) * 2.0


def log_row_chain(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.math.log(x * b) + 1.0


def one_add(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return x + b


def one_add_l(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + x


def one_mul(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.multiply(x, b)


def one_mul_l(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b * x


def one_add_1(v: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v + b


def s_add(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return x + s


def s_add_l(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return s + x


def s_mul(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return x * s


def s_mul_l(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return s * x


def s_chain(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return tf.nn.relu(x * s) + s


def one_chain(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (x + b) * 2.0 - b


def one_value_chain(b: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.abs(b) * x + 1.0


def bias_one(x: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.bias_add(x, b)


def mm_one(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.matmul(x, w) + b


def mm_bias_one(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.bias_add(tf.matmul(x, w), b)


def log_mm(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.log(tf.matmul(x, w))


def log_mm_mean(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.math.log(tf.matmul(x, w) + b), axis=1)
