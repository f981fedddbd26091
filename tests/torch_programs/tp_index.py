"""Indexing kiln tensors with ints and slices (tests/test_reshape.py compares
each with eager). Functions named n_* hold forms kiln leaves to eager."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def row(x: TensorF32Cpu2D, i: int) -> TensorF32Cpu1D:
    return x[i]


def col(x: TensorF32Cpu2D, j: int) -> TensorF32Cpu1D:
    return x[:, j]


def rows(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x[a:b]


def cols(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x[:, a:b]


def block(x: TensorF32Cpu2D, a: int, b: int, c: int, d: int) -> TensorF32Cpu2D:
    return x[a:b, c:d]


def row_part(x: TensorF32Cpu2D, i: int, a: int) -> TensorF32Cpu1D:
    return x[i, a:]


def col_part(x: TensorF32Cpu2D, b: int, j: int) -> TensorF32Cpu1D:
    return x[:b, j]


def stepped(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x[::2, 1::3]


def stepped_none(x: TensorF32Cpu2D, a: int) -> TensorF32Cpu2D:
    return x[None:a:1, ::None]


def vec(v: TensorF32Cpu1D, a: int, b: int) -> TensorF32Cpu1D:
    return v[a:b]


def vec_tail(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v[-3:]


def vec_step(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v[1::2]


def last_col(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x[:, -1]


def features(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, k: int) -> TensorF32Cpu1D:
    # a scoring head reading one logit column of a linear layer over the first k features
    return torch.sigmoid(F.linear(x[:, :k], w, b))[:, 1]


def in_loop(x: TensorF32Cpu2D, n: int) -> TensorF32Cpu1D:
    acc = x[0] * 0.0
    for i in range(n):
        acc = acc + x[i % x.shape[0]]
    return acc


def order(x: TensorF32Cpu2D, i: int, j: int) -> TensorF32Cpu1D:
    # x[i] fails first when both are out of range, as in eager
    return x[i] + x[:, j]


def rows_then_view(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu1D:
    # eager's x[a:b] is a view of x: a flat view of it exists, as of kiln's copy
    return x[a:b].view(-1)


def cols_then_view(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu1D:
    # eager's x[:, a:b] is a view whose rows do not run on: no flat view of it, nor of kiln's copy
    return x[:, a:b].view(-1)


def cols_then_ops(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x[:, a:b] * 2.0 + 1.0


def gelu_col(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    # eager's x[:, 0] is strided: F.gelu takes ATen's path, not oneDNN's (review of 2026-12-05)
    return F.gelu(x[:, 0])


def max_col(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    # eager's maximum gives a strided operand's -0.0 / NaN by its loop over that layout
    return torch.maximum(x[:, 0], v)


def min_cols(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.minimum(x[:, ::2], y)


def twice_then_view(x: TensorF32Cpu2D, b: int) -> TensorF32Cpu1D:
    # a view of a slice of a slice: allowed or refused as eager's
    return x[:, 0:b][:, ::5].view(-1)


def twice_then_view4(x: TensorF32Cpu2D, b: int) -> TensorF32Cpu1D:
    return x[:, 0:b][:, ::4].view(-1)


def scaled_then_view(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return (x[0:2] * 2.0).view(-1)


def realloc_after(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x[:, 0] * len(x.resize_(4000, 4000).fill_(7.0))


def n_scalar(v: TensorF32Cpu1D, i: int):
    return v[i]


def n_element(x: TensorF32Cpu2D, i: int, j: int):
    return x[i, j]


def n_newaxis(v: TensorF32Cpu1D):
    return v[None]


def n_ellipsis(x: TensorF32Cpu2D):
    return x[..., 0]


def n_bool(x: TensorF32Cpu2D):
    return x[True]


def n_tensor_index(x: TensorF32Cpu2D, idx):
    return x[idx]


def n_neg_step(v: TensorF32Cpu1D):
    return v[::-1]


def n_float_bound(v: TensorF32Cpu1D, f: float):
    return v[:f]
