# Tensors passed only by keyword are the torch plugin's operands too: each
# call gets its rule's diagnostic (it was silently not covered).
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def linear_kw(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(input=x, weight=w, bias=b)


def relu_kw(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.relu(input=x)


def softmax_kw(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.softmax(input=x, dim=1)


def mean_kw(x: TensorF32Cpu2D):
    return torch.mean(input=x, dim=1)
