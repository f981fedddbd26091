"""torch.clamp and its spellings (tests/test_clamp.py): every function here
must be native, its clamp site claimed, but for the n_* ones (left to eager)."""
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def clamp_lit(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.clamp(x, 0.0, 1.0)


def clamp_kw(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return x.clamp(min=lo, max=hi)


def clamp_pos(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return torch.clamp(x, lo, hi)


def clamp_1d(x: TensorF32Cpu1D, lo: float, hi: float) -> TensorF32Cpu1D:
    return x.clamp(lo, max=hi)


def clamp_lo(x: TensorF32Cpu2D, lo: float) -> TensorF32Cpu2D:
    return torch.clamp(x, min=lo)


def clamp_hi(x: TensorF32Cpu2D, hi: float) -> TensorF32Cpu2D:
    return x.clamp(None, hi)


def clamp_min_m(x: TensorF32Cpu1D, lo: int) -> TensorF32Cpu1D:
    return x.clamp_min(lo)


def clamp_min_fn(x: TensorF32Cpu2D, lo: float) -> TensorF32Cpu2D:
    return torch.clamp_min(x, min=lo)


def clamp_max_fn(x: TensorF32Cpu2D, hi: float) -> TensorF32Cpu2D:
    return torch.clamp_max(x, hi)


def clip_fn(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.clip(x, -1, 1)


def clip_m(x: TensorF32Cpu2D, hi: int) -> TensorF32Cpu2D:
    return x.clip(max=hi, min=0)


def clamp_bool(x: TensorF32Cpu2D, b: bool) -> TensorF32Cpu2D:
    return x.clamp(b)


def clamp_chain(x: TensorF32Cpu2D, hi: float) -> TensorF32Cpu2D:
    return torch.clamp_max(x * 0.5 + 0.5, hi).relu() * 2.0


def clamp_mlp(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (x @ w + b).clamp(0.0, 6.0).mean(1)


def n_no_bounds(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.clamp(x)  # eager's RuntimeError


def n_none_bounds(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.clamp(None, None)


def n_tensor_bound(x: TensorF32Cpu2D, t: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.clamp(x, min=t)


def n_out(x: TensorF32Cpu2D, o: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.clamp(x, 0.0, 1.0, out=o)


def n_twice(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.clamp(0.0, min=1.0)  # eager's TypeError


def chain_both(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return (x * 2.0 - 1.0).clamp(lo, hi) * 3.0


def chain_two_sites(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return x.clamp_min(lo).clamp_max(hi) + 1.0


def chain_min_only(x: TensorF32Cpu1D, lo: int) -> TensorF32Cpu1D:
    return (x + 1).clamp(min=lo).abs()


def hardtanh_b(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return F.hardtanh(x, lo, hi)


def hardtanh_kw(x: TensorF32Cpu1D, lo: float, hi: int) -> TensorF32Cpu1D:
    return F.hardtanh(x, max_val=hi, min_val=lo, inplace=False)


def hardtanh_chain(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    return F.hardtanh(x * 2.0, lo, hi) + 1.0
