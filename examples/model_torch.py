"""An example model written with kiln's markers.

The markers prove dtype (float32), device (CPU) and rank; kiln compiles each
function into native code with its own fused kernels.  Run as plain Python
(``mod.__kiln_python__[name]``) the same functions are ordinary eager torch.
"""

import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def score(
    x: TensorF32Cpu2D,
    w1: TensorF32Cpu2D,
    b1: TensorF32Cpu1D,
    w2: TensorF32Cpu2D,
    b2: TensorF32Cpu1D,
) -> TensorF32Cpu1D:
    """A scoring head: linear -> relu -> matmul + bias -> sigmoid -> row mean."""
    hidden = F.linear(x, w1, b1).relu()
    out = hidden @ w2 + b2
    return out.sigmoid().mean(dim=1, keepdim=False)


def deep(
    x: TensorF32Cpu2D,
    weight: TensorF32Cpu2D,
    bias: TensorF32Cpu1D,
    depth: int,
    phase: int,
) -> TensorF32Cpu1D:
    """The reference Phase B shape: an int-driven loop alternating relu and
    sigmoid layers that share one weight."""
    hidden = x
    for layer in range(depth):
        if (layer + phase) % 2 == 0:
            even = hidden @ weight + bias
            hidden = even.relu()
        else:
            odd = hidden @ weight + bias
            hidden = odd.sigmoid()
    return hidden.mean(dim=1, keepdim=False)
