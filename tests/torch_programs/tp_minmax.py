"""torch.maximum / torch.minimum of two tensors in every spelling kiln claims
(tests/test_minmax.py), in chains and after a GEMM, and the forms it leaves
to eager (n_*)."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def mx_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.maximum(a, b)


def mn_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.minimum(a, b)


def mx_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a.maximum(b)


def mn_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a.minimum(b)


def mx_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.max(a, b)


def mn_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.min(a, b)


def mx_method_max(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a.max(b)


def mn_method_min(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a.min(b)


def floor_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, bias: TensorF32Cpu1D, floor: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.maximum(F.linear(x, w, bias), floor).relu().mean(dim=1)


def clip_between(x: TensorF32Cpu2D, lo: TensorF32Cpu2D, hi: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.minimum(torch.maximum(x, lo), hi) * 2.0 - x


def n_reduce(a: TensorF32Cpu2D):
    return torch.max(a, 1)  # a (values, indices) pair: eager's


def n_scalar(a: TensorF32Cpu2D):
    return torch.maximum(a, 2.0)  # eager's TypeError


def n_out(a: TensorF32Cpu2D, b: TensorF32Cpu2D, o: TensorF32Cpu2D):
    return torch.maximum(a, b, out=o)


def n_keyword(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return torch.minimum(a, other=b)


def n_transposed(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return torch.maximum(a, b.T)  # eager's: kiln reads only matmul's operands transposed


def n_transposed_method(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return a.min(b.t())


def n_transposed_first(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return torch.max(a.T, b)
