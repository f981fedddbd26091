"""F.gelu, both forms (tests/test_gelu.py): every function here must be
native, its gelu site claimed, but for the n_* ones (left to eager)."""
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def gelu_2d(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x)


def gelu_none_1d(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.gelu(x, approximate="none")


def gelu_tanh_2d(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x, approximate="tanh")


def gelu_tanh_1d(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.gelu(x, approximate='tanh')


def gelu_chain(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x * 2.0 - y) * 0.5 + y


def gelu_tanh_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x + 1.0, approximate="tanh") * 3.0


def gelu_mlp(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.gelu(F.linear(x, w, b)).mean(1)


def gelu_tanh_layer(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.gelu(x @ w + b, approximate="tanh")


def n_dynamic(x: TensorF32Cpu2D, a: str) -> TensorF32Cpu2D:
    return F.gelu(x, approximate=a)


def n_positional(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x, "tanh")


def n_bogus(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.gelu(x, approximate="fast")
