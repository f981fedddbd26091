import torch
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, i: int, s: float, idx):
    a = v[i]
    b = x[i, 0]
    c = v[None]
    e = x[..., 0]
    g = x[True]
    h = x[idx]
    k = v[::-1]
    m = v[:s]
    n = x[0, 1, 2]
    p = v[::i]
    return a, b, c, e, g, h, k, m, n, p


def ok(x: TensorF32Cpu2D, v: TensorF32Cpu1D, i: int) -> TensorF32Cpu1D:
    return x[i] + x[:, -1] + x[1:3, :2].flatten() + v[i::2] + x.shape[0] + (x.shape[0], 1)[1]
