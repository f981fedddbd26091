import torch
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    a = v @ v
    b = torch.matmul(v, v)
    c = x.matmul(x, out=None)
    return x @ x
