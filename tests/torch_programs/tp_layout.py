"""Results in eager's memory order (tests/test_result_layout.py): every
elementwise form kiln-torch claims, alone and in chains, whose result strides
and F.gelu special values depend on the layout eager gives each
intermediate."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def relu(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.relu(x)


def sigmoid(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sigmoid(x)


def neg(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return -x


def gelu(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x)


def scalar_left(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 2.0 - x


def scalar_div(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 3.0 / x


def add(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x + y


def mul_row(r: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return r * x


def clamp(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.clamp(-1.0, 1.0)


def clamp_nan(x: TensorF32Cpu2D, lo: float) -> TensorF32Cpu2D:
    return torch.clamp(x, min=lo)


def leaky(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x, 0.1)


def hardtanh(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.hardtanh(x)


def normalize(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.normalize(x, dim=-1)


def relu_then_gelu(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(F.relu(x))


def gelu_of_kept(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    y = torch.relu(x)
    z = F.gelu(y)
    return z + y


def gelu_after_row(r: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(r + x)


def gelu_after_swap(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(y + x * 1.0)


def gelu_after_add(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x * 2.0 + y) - 1.0


def gelu_after_nan_clamp(x: TensorF32Cpu2D, lo: float) -> TensorF32Cpu2D:
    return F.gelu(torch.clamp(x * 1.0, min=lo) + x)


def gelu_chain_of_row(r: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(F.gelu(r * 2.0) + x)
