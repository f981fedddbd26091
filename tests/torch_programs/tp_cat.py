"""torch.cat / torch.concat / torch.concatenate and torch.stack of tensors
written out in the call (tests/test_cat.py compares each with eager). Functions named n_* hold
forms kiln leaves to eager."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def c_dim1(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a, b], dim=1)


def c_dim0(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat((a, b))


def c_neg1(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a, b], -1)


def c_neg2(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a, b], axis=-2)


def c_concat3(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.concat([a, b, c], dim=1)


def c_concatenate3(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.concatenate((a, b, c), axis=0)


def c_single(a: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a], 1)


def c_sixteen(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b], 1)


def v_cat(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.cat([a, b])


def v_cat3(a: TensorF32Cpu1D, b: TensorF32Cpu1D, c: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.cat((a, b, c), -1)


def c_exprs(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.cat([a.relu(), b * 2.0, -a], 1)


def c_then_ops(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    h = torch.cat([a, b], 1)
    return h.relu() * 3.0 - h


def c_order(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    # the first element's error is raised first, as in eager
    return torch.cat([a + b, a / b, a - b], 0)


def head(u: TensorF32Cpu2D, v: TensorF32Cpu2D, w: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = torch.cat([u.relu(), v], -1)
    return F.linear(h, w, bias).sigmoid().mean(dim=1)


def layers(x: TensorF32Cpu2D, w: TensorF32Cpu2D, n: int) -> TensorF32Cpu2D:
    # a skip connection joined on every step of a loop
    h = x
    for _ in range(n):
        h = (torch.cat([h, x], 1) @ w).tanh()
    return h


def s_rows(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.stack([a, b])


def s_cols(a: TensorF32Cpu1D, b: TensorF32Cpu1D, c: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.stack((a, b, c), dim=1)


def s_neg(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.stack([a, b], -1) + torch.stack([b, a], axis=-1)


def s_neg2(a: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.stack([a, a * 2.0, -a], -2).softmax(dim=-1)


def n_stack_matrices(a: TensorF32Cpu2D):
    return torch.stack([a, a])


def n_stack_dim_out_of_range(a: TensorF32Cpu1D):
    return torch.stack([a, a], 2)


def n_dim_variable(a: TensorF32Cpu2D, d: int):
    return torch.cat([a, a], d)


def n_dim_out_of_range(a: TensorF32Cpu2D):
    return torch.cat([a, a], 2)


def n_mixed_ranks(a: TensorF32Cpu2D, b: TensorF32Cpu1D):
    return torch.cat([a, b])


def n_seventeen(a: TensorF32Cpu1D):
    return torch.cat([a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a])


def n_list_variable(a: TensorF32Cpu2D):
    xs = [a, a]
    return torch.cat(xs, 1)


def n_out(a: TensorF32Cpu2D, o: TensorF32Cpu2D):
    return torch.cat([a, a], 0, out=o)


def n_keyword(a: TensorF32Cpu2D):
    # the tensors by keyword: reported (KILN-TORCH-007) and eager's, not silent (2026-12-05)
    return torch.cat(tensors=[a, a], dim=1)
