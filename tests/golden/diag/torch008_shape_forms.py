import torch
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, d: int, s: float, shape):
    a = x.squeeze()
    b = x.view(1, 1, -1)
    c = x.view(torch.int32)
    e = x.squeeze(d)
    g = x.unsqueeze(0)
    h = v.squeeze(0)
    k = x.reshape(shape)
    m = x.view(s)
    n = x.flatten(1, 0)
    p = torch.squeeze(x, 2)
    q = torch.reshape(x, -1)
    r = x.squeeze((0, 1))
    t = x.contiguous(memory_format=torch.contiguous_format)
    u = x.float(1)
    return a, b, c, e, g, h, k, m, n, p, q, r, t, u


def ok(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return x.view(-1) + x.reshape(x.size(0), -1).flatten() + v.unsqueeze(1).squeeze(-1).repeat(x.size(1)) + \
        x.clone().detach().contiguous().cpu().float().view(-1)
