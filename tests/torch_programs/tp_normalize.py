"""F.normalize over the last dim (tests/test_normalize.py): every function
here must be native with its normalize site claimed, but for the n_* ones
(left to eager by the claim)."""
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def nz_default(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.normalize(x)


def nz_kw(x: TensorF32Cpu2D, eps: float) -> TensorF32Cpu2D:
    return F.normalize(x, p=2.0, dim=-1, eps=eps)


def nz_pos(x: TensorF32Cpu2D, eps: int) -> TensorF32Cpu2D:
    return F.normalize(x, 2, 1, eps)


def nz_1d(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.normalize(v, dim=0)


def cosine(q: TensorF32Cpu2D, keys: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.normalize(q, dim=1) @ F.normalize(keys, dim=1).T


def n_dim0(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.normalize(x, dim=0)


def n_p1(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.normalize(x, p=1)


def n_1d_default(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.normalize(v)  # dim 1 of a vector: eager's IndexError


def n_out(x: TensorF32Cpu2D, o: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.normalize(x, out=o)
