"""The arithmetic operators kiln-tensorflow claims: + - * / between tensors
(ranks 2/2, 2/1, 1/2, 1/1) and between a tensor and an int, float or bool
(either side), compared with eager TensorFlow by tests/test_elementwise.py.
NAME_XY: X and Y are the operands (2, 1: tensor ranks; f, i, b: a float,
int or bool scalar; t: a rank-2 tensor)."""
import tensorflow as tf

from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


def add_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b


def add_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a + b


def add_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b


def add_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return a + b


def add_tf(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return a + s


def add_ft(s: float, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s + a


def add_ti(a: TensorF32Cpu2D, s: int) -> TensorF32Cpu2D:
    return a + s


def add_it(s: int, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s + a


def add_tb(a: TensorF32Cpu2D, s: bool) -> TensorF32Cpu2D:
    return a + s


def add_bt(s: bool, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s + a


def add_1f(a: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    return a + s


def add_f1(s: float, a: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return s + a


def add_lit(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 2 + (a + 0.75)


def sub_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a - b


def sub_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a - b


def sub_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a - b


def sub_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return a - b


def sub_tf(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return a - s


def sub_ft(s: float, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s - a


def sub_ti(a: TensorF32Cpu2D, s: int) -> TensorF32Cpu2D:
    return a - s


def sub_it(s: int, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s - a


def sub_tb(a: TensorF32Cpu2D, s: bool) -> TensorF32Cpu2D:
    return a - s


def sub_bt(s: bool, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s - a


def sub_1f(a: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    return a - s


def sub_f1(s: float, a: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return s - a


def sub_lit(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 2 - (a - 0.75)


def mul_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a * b


def mul_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a * b


def mul_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a * b


def mul_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return a * b


def mul_tf(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return a * s


def mul_ft(s: float, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s * a


def mul_ti(a: TensorF32Cpu2D, s: int) -> TensorF32Cpu2D:
    return a * s


def mul_it(s: int, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s * a


def mul_tb(a: TensorF32Cpu2D, s: bool) -> TensorF32Cpu2D:
    return a * s


def mul_bt(s: bool, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s * a


def mul_1f(a: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    return a * s


def mul_f1(s: float, a: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return s * a


def mul_lit(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 2 * (a * 0.75)


def div_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a / b


def div_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a / b


def div_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a / b


def div_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return a / b


def div_tf(a: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return a / s


def div_ft(s: float, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s / a


def div_ti(a: TensorF32Cpu2D, s: int) -> TensorF32Cpu2D:
    return a / s


def div_it(s: int, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s / a


def div_tb(a: TensorF32Cpu2D, s: bool) -> TensorF32Cpu2D:
    return a / s


def div_bt(s: bool, a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return s / a


def div_1f(a: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    return a / s


def div_f1(s: float, a: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return s / a


def div_lit(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 2 / (a / 0.75)


def standardize(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, sd: TensorF32Cpu1D, g: TensorF32Cpu1D,
                b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (x - mu) / sd * g + b


def gated(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, temp: float) -> TensorF32Cpu1D:
    h = tf.matmul(x, w) + b
    gate = tf.nn.sigmoid(h / temp)
    return tf.reduce_mean(h * gate, axis=1)


def augmented(x: TensorF32Cpu2D, s: float, n: int) -> TensorF32Cpu2D:
    y = x * 1.0
    y -= s
    y *= n
    y /= 3
    y += x
    return y


def chain_lines(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, sd: TensorF32Cpu1D, k: float) -> TensorF32Cpu2D:
    centred = x - mu
    scaled = centred / sd
    return tf.nn.relu(scaled * k) + 0.5


def chain_stretched(row: TensorF32Cpu1D, x: TensorF32Cpu2D, col: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (row * 2.0 - x) / col + row


def chain_scalar_left(x: TensorF32Cpu2D, n: int, s: float) -> TensorF32Cpu2D:
    return s / (n - (1.5 * x + n) * s)


# ---- call forms and tanh ---------------------------------------------------

def subtract_call(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.subtract(a, b)


def multiply_call(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.multiply(a, b)


def divide_call(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.divide(a, b)


def truediv_call(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.truediv(a, b)


def tanh_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.nn.tanh(x)


def tanh_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.tanh(x)


def tanh_math(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.math.tanh(x)


def chain_calls(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, sd: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.tanh(tf.divide(tf.subtract(x, mu), sd)) * 2.0


def multiply_kw(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return tf.multiply(a, b, name="m")  # KILN-TF-003: eager TensorFlow


def tanh_kw(x: TensorF32Cpu2D):
    return tf.nn.tanh(x, name="t")  # KILN-TF-005: eager TensorFlow


def neg_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return -x


def neg_call(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.negative(x)


def neg_math(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.math.negative(v)


def neg_chain(x: TensorF32Cpu2D, r: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return -tf.nn.relu(x * 2.0 - r) + 1.0


def neg_kw(x: TensorF32Cpu2D):
    return tf.negative(x, name="n")  # KILN-TF-005: eager TensorFlow


# ---- sigmoid: a NaN keeps its sign (eager TF folds no negation into it) ----

def sigmoid_fn(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return tf.nn.sigmoid(x)


def sigmoid_xw(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.sigmoid(tf.matmul(x, w) + b)


def sigmoid_chain(x: TensorF32Cpu2D, r: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.sigmoid(x - r) * 2.0


# A bias or a row added to a GEMM's result (test_bias_nan_payloads): where
# the product and the row are both NaN, eager's + gives its left operand's.
def bias_xw(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.matmul(x, w) + b


def bias_xw_left(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + tf.matmul(x, w)


def bias_xw_relu_mean(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return tf.reduce_mean(tf.nn.relu(tf.matmul(x, w) + b), axis=1)


def bias_post(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return tf.nn.relu(tf.matmul(x, w)) + b


def bias_post_left(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + tf.nn.relu(tf.matmul(x, w))
