import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, d: int) -> TensorF32Cpu2D:
    a = torch.softmax(x, dim=0)
    b = F.softmax(x)
    c = x.softmax(dim=d)
    e = torch.softmax(x, 1, dtype=torch.float32)
    g = v.softmax(1)
    h = F.softmax(v, dim=0) + F.softmax(x, -1)[0]
    return x.softmax(-1) + torch.softmax(x, dim=1)
