"""view / reshape / flatten / squeeze / unsqueeze of kiln tensors
(tests/test_reshape.py compares each with eager). Functions named n_* hold
forms kiln leaves to eager."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def view_flat(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.view(-1)


def view_flat_v(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.view(-1)


def view_2(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x.view(a, b)


def view_tuple(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x.view((a, b))


def view_v2(v: TensorF32Cpu1D, a: int) -> TensorF32Cpu2D:
    return v.view(a, -1)


def view_n(x: TensorF32Cpu2D, n: int) -> TensorF32Cpu1D:
    return x.view([n])


def reshape_flat(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.reshape(-1)


def reshape_2(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return x.reshape(a, b)


def reshape_fn(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return torch.reshape(x, (a, b))


def reshape_fn_kw(x: TensorF32Cpu2D, a: int, b: int) -> TensorF32Cpu2D:
    return torch.reshape(x, shape=[a, b])


def reshape_fn_flat(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.reshape(x, [-1])


def reshape_v2(v: TensorF32Cpu1D, b: int) -> TensorF32Cpu2D:
    return v.reshape(-1, b)


def reshape_exprs(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.reshape(x.size(1), x.shape[0])


def flatten(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.flatten()


def flatten_fn(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.flatten(x, 0, -1)


def flatten_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.flatten(start_dim=0, end_dim=1)


def flatten_same_v(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.flatten()


def flatten_same_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.flatten(x, 1)


def squeeze_1(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.squeeze(1)


def squeeze_neg1(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.squeeze(-1)


def squeeze_0(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.squeeze(x, 0)


def squeeze_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.squeeze(dim=-2)


def unsqueeze_0(v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return v.unsqueeze(0)


def unsqueeze_1(v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.unsqueeze(v, 1)


def unsqueeze_neg(v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return v.unsqueeze(dim=-1)


def unsqueeze_neg2(v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return v.unsqueeze(-2)


def score_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, w2: TensorF32Cpu2D,
               b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    # the usual scoring head: one output column squeezed away
    h = F.linear(x, w, b).relu()
    return torch.sigmoid(F.linear(h, w2, b2)).squeeze(-1)


def one_sample(v: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    # a batch of one made and taken apart again
    return F.linear(v.unsqueeze(0), w, b).relu().view(-1)


def chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    # results of shape ops feed other native ops
    y = x.reshape(-1).unsqueeze(1) * 2.0
    return y.relu() + y.view(1, -1).view(-1, 1)


def in_loop(x: TensorF32Cpu2D, n: int) -> TensorF32Cpu2D:
    for _ in range(n):
        x = x.flatten().view(x.size(0), -1) + 1.0
    return x


def order(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu1D:
    # the first op's error is raised first, as in eager
    return x.view(-1) + y.squeeze(1)


def mutate_after(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    # kiln's result is a new tensor: changing it in place leaves x alone
    y = x.view(x.size(1), -1)
    y.add_(1.0)
    return y


def n_squeeze_all(x: TensorF32Cpu2D):
    return x.squeeze()


def n_rank3(x: TensorF32Cpu2D):
    return x.view(1, 1, -1)


def n_dtype(x: TensorF32Cpu2D):
    return x.view(torch.int32)


def n_dim_var(x: TensorF32Cpu2D, d: int):
    return x.squeeze(d)


def n_unsqueeze_2d(x: TensorF32Cpu2D):
    return x.unsqueeze(0)


def n_squeeze_1d(v: TensorF32Cpu1D):
    return v.squeeze(0)


def n_shape_object(x: TensorF32Cpu2D, shape):
    return x.reshape(shape)


def n_float_size(x: TensorF32Cpu2D, n: float):
    return x.view(n)


def n_flatten_backwards(x: TensorF32Cpu2D):
    return x.flatten(1, 0)


def view_after_reshape(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    # eager's reshape of a transposed x is a view with x's strides, which no
    # flat view can have: so kiln's (review of 2026-12-05)
    return x.reshape(x.size(0), -1).view(-1)


def view_after_view(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.view(x.size(0), x.size(1)).view(-1)


def t_flatten_T(w: TensorF32Cpu2D):
    # a shape op of `w.T` is no kiln form (only matmul reads w transposed): eager's
    return torch.flatten(w.T)


def t_reshape_t(w: TensorF32Cpu2D):
    return torch.reshape(w.t(), (-1,))


def t_squeeze_T(w: TensorF32Cpu2D):
    return torch.squeeze(w.T, 0)


def contiguous(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.contiguous()


def clone(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.clone()


def detach(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.detach()


def same_float(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.float()


def same_cpu(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.cpu()


def noise(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    # the calls model code scatters about, between native ops
    h = (x.detach().float() @ w).contiguous().relu().clone()
    return h.cpu().mean(dim=1)


def n_contiguous_format(x: TensorF32Cpu2D):
    return x.contiguous(memory_format=torch.contiguous_format)


def n_clone_format(x: TensorF32Cpu2D):
    return x.clone(memory_format=torch.preserve_format)


def clone_view(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    # eager's clone of a non-dense x is dense in x's stride order (review of 2026-12-05)
    return x.clone().view(-1)


def clone_add(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.clone() + 1.0
