"""F.layer_norm (tests/test_layer_norm.py): every function here must be
native with its layer_norm site claimed, but for the n_* ones (left to
eager by the claim)."""
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def ln_plain(x: TensorF32Cpu2D, n: int) -> TensorF32Cpu2D:
    return F.layer_norm(x, (n,))


def ln_affine(x: TensorF32Cpu2D, w: TensorF32Cpu1D, b: TensorF32Cpu1D, n: int) -> TensorF32Cpu2D:
    return F.layer_norm(x, [n], w, b)


def ln_kw(x: TensorF32Cpu2D, w: TensorF32Cpu1D, b: TensorF32Cpu1D, eps: float) -> TensorF32Cpu2D:
    return F.layer_norm(x, normalized_shape=x.shape[-1:], weight=w, bias=b, eps=eps)


def ln_weight_only(x: TensorF32Cpu2D, w: TensorF32Cpu1D, n: int) -> TensorF32Cpu2D:
    return F.layer_norm(x, (n,), w, None, 1e-3)


def ln_bias_only(x: TensorF32Cpu2D, b: TensorF32Cpu1D, n: int) -> TensorF32Cpu2D:
    return F.layer_norm(x, (n,), bias=b)


def ln_int_eps(x: TensorF32Cpu2D, n: int, eps: int) -> TensorF32Cpu2D:
    return F.layer_norm(x, (n,), None, None, eps)


def ln_1d(v: TensorF32Cpu1D, w: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.layer_norm(v, v.shape, w, b, 1e-6)


def ln_shape_obj(x: TensorF32Cpu2D, shape) -> TensorF32Cpu2D:
    return F.layer_norm(x, shape)


def ln_weights_obj(x: TensorF32Cpu2D, shape, w: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.layer_norm(x, shape, w, b)


def ln_block(x: TensorF32Cpu2D, w1: TensorF32Cpu2D, b1: TensorF32Cpu1D, g: TensorF32Cpu1D, beta: TensorF32Cpu1D,
             w2: TensorF32Cpu2D, b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = F.linear(x, w1, b1)
    h = F.layer_norm(h, (h.shape[1],), g, beta)
    return torch.sigmoid(F.linear(F.relu(h), w2, b2)).mean(1)


def n_tensor_shape(x: TensorF32Cpu2D, s: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.layer_norm(x, s)  # eager's TypeError


def n_no_shape(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.layer_norm(x)  # eager's TypeError


def n_weight_2d(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.layer_norm(x, (2, 3), w)
