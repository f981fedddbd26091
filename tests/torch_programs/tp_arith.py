"""The arithmetic operators kiln-torch claims: + - * / between tensors
(ranks 2/2, 2/1, 1/2, 1/1) and between a tensor and an int, float or bool
(either side), compared with eager torch by tests/test_elementwise.py.
NAME_XY: X and Y are the operands (2, 1: tensor ranks; f, i, b: a float,
int or bool scalar; t: a rank-2 tensor)."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


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
    h = F.linear(x, w, b)
    gate = (h / temp).sigmoid()
    return (h * gate).mean(dim=1, keepdim=False)


def scaled_loop(x: TensorF32Cpu2D, w: TensorF32Cpu2D, depth: int, decay: float) -> TensorF32Cpu2D:
    h = x
    for i in range(depth):
        h = (h @ w).tanh() * decay + h * (1 - decay)
        decay = decay / 2
    return h


def augmented(x: TensorF32Cpu2D, s: float, n: int) -> TensorF32Cpu2D:
    y = x * 1.0
    y -= s
    y *= n
    y /= 3
    y += x
    return y


# ---- chains fused into one pass (kr_tensor_ewise) --------------------------

def chain_lines(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, sd: TensorF32Cpu1D, k: float) -> TensorF32Cpu2D:
    centred = x - mu
    scaled = centred / sd
    return (scaled * k).relu() + 0.5


def chain_stretched(row: TensorF32Cpu1D, x: TensorF32Cpu2D, col: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (row * 2.0 - x) / col + row


def chain_scalar_left(x: TensorF32Cpu2D, n: int, s: float) -> TensorF32Cpu2D:
    return s / (n - (1.5 * x + n) * s)


def chain_acts(x: TensorF32Cpu2D, g: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return ((x * 2.0 - 1.0).sigmoid() * g).tanh() - 0.25


def chain_long(x: TensorF32Cpu2D, r: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return ((((((((((x + r) * 1.5 - r) / 2.0 + r) * r - 0.5) / r + 1.0) * 0.5 - r) + r) * 2.0
              - x) / 3.0 + r) * r - 1.0) / 2.0 + x


def chain_after_gemm(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, s: float) -> TensorF32Cpu2D:
    return (F.linear(x, w, b).relu() * s - b) / 2.0


def chain_maybe_unbound(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, flag: bool) -> TensorF32Cpu2D:
    if flag:
        k = 2.0
    return (x - mu) * k + mu



def gemm_maybe_unbound(x: TensorF32Cpu2D, w: TensorF32Cpu2D, r: TensorF32Cpu1D, flag: bool) -> TensorF32Cpu2D:
    if flag:
        b = r + r
    return (x @ w + b).relu()


# ---- softmax over the last dim (kk_softmax) ----------------------------------

def softmax_fn(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.softmax(x, dim=1)


def softmax_f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.softmax(x, -1)


def softmax_method(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.softmax(dim=-1)


def softmax_1d(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.softmax(0)


def softmax_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, temp: float) -> TensorF32Cpu2D:
    return torch.softmax(F.linear(x, w, b) / temp, dim=1)


# ---- unary minus: the sign bit flipped (NaNs too) ----------------------------

def neg_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return -x


def neg_method(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.neg()


def neg_fn(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.neg(v)


def neg_chain(x: TensorF32Cpu2D, r: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return -(x * 2.0 - r).relu() + 1.0


# ---- sigmoid: a NaN comes out with its sign flipped (eager negates x first) ----

def sigmoid_fn(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sigmoid(x)


def sigmoid_linear(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b).sigmoid()


def sigmoid_xw(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (x @ w + b).sigmoid()


def sigmoid_chain(x: TensorF32Cpu2D, r: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (x - r).sigmoid() * 2.0


# A bias or a row added to a GEMM's result (test_bias_nan_payloads): where
# the product and the row are both NaN, eager's + gives its right operand's.
def bias_xw(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return x @ w + b


def bias_xw_left(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + x @ w


def bias_linear(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b)


def bias_linear_relu(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b).relu()


def bias_xw_relu_mean(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (x @ w + b).relu().mean(dim=1, keepdim=False)


def bias_post(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.relu(x @ w) + b


def bias_post_left(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + torch.relu(x @ w)
