"""Torch workloads of the benchmark, written with kiln's markers.

bench/run.py builds this file with kiln.build; the eager peer of each
function is the original Python (``mod.__kiln_python__[name]``), the
torch.jit.script peer is its twin in torch_twins.py (TorchScript needs
torch.Tensor annotations) and the torch.compile peer compiles the original.
"""

import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def phase_a(x: TensorF32Cpu2D, weight: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu1D:
    """Reference Phase A: linear -> relu -> row mean."""
    return F.linear(x, weight, bias).relu().mean(dim=1, keepdim=False)


def phase_b(
    x: TensorF32Cpu2D,
    weight: TensorF32Cpu2D,
    bias: TensorF32Cpu1D,
    depth: int,
    phase: int,
) -> TensorF32Cpu1D:
    """Reference Phase B: an int-driven loop alternating relu / sigmoid layers."""
    hidden = x
    for layer in range(depth):
        if (layer + phase) % 2 == 0:
            even = hidden @ weight + bias
            hidden = even.relu()
        else:
            odd = hidden @ weight + bias
            hidden = odd.sigmoid()
    return hidden.mean(dim=1, keepdim=False)


def lennard_jones(
    x: TensorF32Cpu2D,
    w1: TensorF32Cpu2D, b1: TensorF32Cpu1D,
    w2: TensorF32Cpu2D, b2: TensorF32Cpu1D,
    w3: TensorF32Cpu2D, b3: TensorF32Cpu1D,
    w4: TensorF32Cpu2D, b4: TensorF32Cpu1D,
    w5: TensorF32Cpu2D, b5: TensorF32Cpu1D,
) -> TensorF32Cpu2D:
    """TorchBench lennard_jones: Linear(1,16) Tanh (Linear(16,16) Tanh) x3 Linear(16,1)."""
    h = F.linear(x, w1, b1).tanh()
    h = F.linear(h, w2, b2).tanh()
    h = F.linear(h, w3, b3).tanh()
    h = F.linear(h, w4, b4).tanh()
    return F.linear(h, w5, b5)


def elementwise(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, sd: TensorF32Cpu1D, gain: TensorF32Cpu1D,
                bias: TensorF32Cpu1D, scale: float) -> TensorF32Cpu2D:
    """Standardise with given statistics, then an affine map, clipped and scaled:
    six elementwise ops on one value (one pass in kiln)."""
    return ((x - mu) / sd * gain + bias).relu() * scale


def matmul(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """kiln's GEMM through a compiled function."""
    return a @ b


def first_of_three(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """Fixed cost: three checked tensor arguments in, the first one out."""
    return a
