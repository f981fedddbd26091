import torch
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, d: int, o: TensorF32Cpu2D):
    a = torch.cat([x, x], d)
    b = torch.cat([x, v])
    c = torch.cat((x, x), 2)
    e = torch.concat([x, x], 0, out=o)
    g = torch.cat([x, 1.0])
    h = torch.concatenate([v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v])
    k = torch.cat([x, x], dim=0, axis=0)
    return a, b, c, e, g, h, k


def g(x: TensorF32Cpu2D, v: TensorF32Cpu1D):
    a = torch.stack([x, x])
    b = torch.stack([v, v], 2)
    c = torch.stack([v, x])
    return a, b, c
