"""A small torch model for the kiln HTML report (docs/report.md)."""
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def mlp(x: TensorF32Cpu2D, w1: TensorF32Cpu2D, b1: TensorF32Cpu1D,
        w2: TensorF32Cpu2D, b2: TensorF32Cpu1D, steps: int) -> TensorF32Cpu1D:
    h = F.linear(x, w1, b1).relu()          # native kernels: linear, relu
    for i in range(steps):                   # native scalar loop
        h = (h @ w2 + b2).tanh()             # native kernels: @, +, tanh
    scale = 1.0 / (steps + 1)                # native scalar arithmetic
    p = torch.log2(h)                        # no plugin covers log2: Python fallback
    s = h.sum(dim=(0, 1))                    # rejected: a tuple of dims is not native
    return h.mean(dim=1, keepdim=False) * scale


def rows(x: TensorF32Cpu2D):
    for i in range(x.shape[0]):
        yield x[i]                           # a generator: the function stays Python
