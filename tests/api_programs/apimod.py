"""A small module used by tests/test_api.py."""
import math

import torch.nn.functional as F

import kiln
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D

OFFSET = 7


def scaled(n: int, k: int = 3, *, bias: int = 0) -> int:
    total = 0
    for i in range(n):
        total += i * k
    return total + bias + OFFSET


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(x, w, b).relu().mean(dim=1, keepdim=False)


def with_lambda(v):
    return (lambda: (t := v + 1))()  # := in a lambda's body: still Python


def uses_math(x: float) -> float:
    return math.floor(x) + 0.5


def boom(n: int) -> int:
    return 10 // n


@kiln.compile
def decorated(n: int) -> int:
    return n * 2
