"""Products with one multiply-add per output (K == 1) and the sign of a zero
result: eager torch's MKL gives the outer product's -0.0 (with F.linear's
own bias, product + bias) where a sum started from +0.0 gives +0.0
(tests/test_gemm_k1.py)."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def mm(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x @ w


def mm_fn(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.matmul(x, w)


def lin(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.linear(x, w)


def linb(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b)


def linb_relu(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b).relu()


def mm_bias_relu(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.relu(x @ w + b)


def bias_mm(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + x @ w


def mm_tanh_post(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.tanh(x @ w) + b


def lin_1d(v: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(v, w, b)


def lin_1d_nobias(v: TensorF32Cpu1D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return F.linear(v, w)


def vm(v: TensorF32Cpu1D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return v @ w


def mv(x: TensorF32Cpu2D, u: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return x @ u


def recip(x: TensorF32Cpu2D, w: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    """The differential tester's find (seed 9802): a relu'd column times a
    row, then a scalar over it: 0.5 / -0.0 is -inf."""
    t1 = x.relu() @ w
    return s / t1


def linb_tanh_mean(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(x, w, b).tanh().mean(dim=1)
