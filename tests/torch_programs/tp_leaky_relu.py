"""F.leaky_relu with a scalar slope (tests/test_leaky_relu.py): every function
here must be native, its leaky_relu site claimed, but for the n_* ones (left
to eager)."""
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def lr_default(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x)


def lr_lit(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x, 0.2)


def lr_pos(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return F.leaky_relu(x, s)


def lr_kw_1d(x: TensorF32Cpu1D, s: float) -> TensorF32Cpu1D:
    return F.leaky_relu(x, negative_slope=s, inplace=False)


def lr_int(x: TensorF32Cpu2D, s: int) -> TensorF32Cpu2D:
    return F.leaky_relu(x, s, False)


def lr_bool(x: TensorF32Cpu2D, b: bool) -> TensorF32Cpu2D:
    return F.leaky_relu(x, b)


def lr_inplace_kw(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.leaky_relu(x, inplace=False)


def lr_chain(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return F.leaky_relu(x * 2.0 - 1.0, s) * 3.0


def lr_chain_default(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.leaky_relu(x + 1.0).abs()


def lr_chain_two(x: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    return F.leaky_relu(F.leaky_relu(x, s) + 0.5, 0.1) - 0.25


def lr_across(x: TensorF32Cpu2D, y: TensorF32Cpu2D, s: int) -> TensorF32Cpu2D:
    h = x * 0.5 + y
    a = F.leaky_relu(h, s)
    return a / 4.0


def lr_mlp(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.leaky_relu(x @ w + b, 0.1).mean(1)


def n_inplace(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x, 0.1, True)


def n_none(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x, None)  # eager's TypeError


def n_tensor_slope(x: TensorF32Cpu2D, t: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x, t)  # eager's TypeError


def n_twice(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.leaky_relu(x, 0.1, negative_slope=0.2)  # eager's TypeError


def n_inplace_dynamic(x: TensorF32Cpu2D, flag: bool) -> TensorF32Cpu2D:
    return F.leaky_relu(x, 0.1, inplace=flag)
