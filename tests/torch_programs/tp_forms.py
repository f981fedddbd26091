"""Forms the issue requires beyond the reference examples: method calls on
any receiver expression, keyword order and the other spellings of the
reductions (positional, keepdim left out, torch.mean / torch.sum), linear
without a bias (alone and with a row added), torch.mm and .mm, matmuls
against `w.T` (read transposed in place, as linear's weight), every `+` rank
pair, every activation on both ranks (methods, torch.* and F.* functions),
all matmul spellings."""
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D
import torch
import torch.nn.functional as F


def binop_receiver(a: TensorF32Cpu2D, b: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (a @ b + bias).relu()


def call_receiver(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (F.linear(x, w, b) + b).tanh().sum(keepdim=False, dim=1).sigmoid()


def mean_kw_order(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.mean(keepdim=False, dim=1)


def sum_kw_order(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.sum(keepdim=False, dim=1)


def mean_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.mean(dim=1, keepdim=False)


def sum_kw(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.sum(dim=1, keepdim=False)


def add_11(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return a + b


def add_22(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b


def add_21(a: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a + b


def add_12(a: TensorF32Cpu1D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a + b


def relu_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return x.relu()


def relu_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.relu()


def sigmoid_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return x.sigmoid()


def sigmoid_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.sigmoid()


def tanh_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return x.tanh()


def tanh_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.tanh()


def relu_fn_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.relu(x)


def relu_fn_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.relu(x)


def sigmoid_fn_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.sigmoid(x)


def sigmoid_fn_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sigmoid(x)


def tanh_fn_1(x: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.tanh(x)


def tanh_fn_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.tanh(x)


def matmul_op(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a @ b


def matmul_call(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.matmul(a, b)


def matmul_method(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return a.matmul(b)


def linear_f(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b)


def linear_full(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.nn.functional.linear(x, w, b)


def identity(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x


def mlp(x: TensorF32Cpu2D, w1: TensorF32Cpu2D, b1: TensorF32Cpu1D,
        w2: TensorF32Cpu2D, b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = F.linear(x, w1, b1).relu()
    return (h @ w2 + b2).sigmoid().mean(dim=-1, keepdim=False)


def post_mean(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = (x @ w).relu()
    return (h + b).mean(dim=1, keepdim=False)


def post_first(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + (x @ w).sigmoid()


def post_linear_sum(x: TensorF32Cpu2D, w: TensorF32Cpu2D, c: TensorF32Cpu1D,
                    b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (F.linear(x, w, c).tanh() + b).sum(dim=1, keepdim=False)


def post_bias(x: TensorF32Cpu2D, w: TensorF32Cpu2D, c: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (x @ w + c).relu() + b


def mean_dim_only(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.mean(dim=1)


def mean_positional(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.mean(1)


def sum_last(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.sum(-1)


def sum_positional_keepdim(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return x.sum(1, False)


def mean_fn(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.mean(x, dim=1)


def sum_fn(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.sum(x, -1, keepdim=False)


def mean_fn_positional(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.mean(x, 1, False)


def post_fn_mean(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.mean(torch.relu(x @ w + b), dim=1)


def linear_nobias(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.linear(x, w)


def linear_nobias_row(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return (F.linear(x, w) + b).relu()


def linear_nobias_row_first(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.sigmoid(b + F.linear(x, w)).sum(1)


def matmul_mm(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.mm(a, b)


def matmul_mm_method(a: TensorF32Cpu2D, b: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return a.mm(b) + bias


def matmul_bt(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x @ w.T


def matmul_bt_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (x @ w.T + b).relu().mean(1)


def matmul_bt_call(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.matmul(x, w.T).sigmoid()


def matmul_bt_mm_method(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return b + x.mm(w.T)


def col_mean(a: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return a.mean(0)


def col_sum_kw(a: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return a.sum(dim=-2, keepdim=False)


def col_mean_fn(a: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.mean(a, dim=0)


def col_sum_fn(a: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.sum(a, 0)


def col_mean_pool(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(x, w, b).relu().mean(dim=0)


def matmul_bt_method(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x @ w.t()


def matmul_bt_method_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.silu(torch.matmul(x, w.t()) + b).sum(-1)


def matmul_bt_method_mm(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return x.mm(w.t()) + b


# one sample: a rank-1 x (linear, a vector times a matrix) or a rank-1
# right operand (a matrix times a vector) gives a rank-1 result


def linear_vec(x: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(x, w, b)


def linear_vec_nobias(x: TensorF32Cpu1D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return F.linear(x, w)


def linear_vec_head(x: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, c: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.linear(x, w, b).relu() + c


def linear_vec_mlp(x: TensorF32Cpu1D, w1: TensorF32Cpu2D, b1: TensorF32Cpu1D, w2: TensorF32Cpu2D,
                   b2: TensorF32Cpu1D) -> TensorF32Cpu1D:
    h = torch.tanh(F.linear(x, w1, b1))
    return torch.sigmoid(F.linear(h, w2, b2))


def matmul_vm(v: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (v @ w + b).relu()


def matmul_vm_call(v: TensorF32Cpu1D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return torch.matmul(v, w)


def matmul_mv(w: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return w @ v


def matmul_mv_method(w: TensorF32Cpu2D, v: TensorF32Cpu1D, c: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return w.matmul(v) + c


def matmul_vec_bt(v: TensorF32Cpu1D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return b + v @ w.T


def matmul_vec_bt_method(v: TensorF32Cpu1D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return v.matmul(w.t()).sigmoid()


# keepdim=True: an [M, 1] or [1, N] result, the same values


def mean_keepdim(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.mean(dim=1, keepdim=True)


def sum_keepdim_positional(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.sum(-1, True)


def mean_fn_keepdim(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.mean(x, -1, keepdim=True)


def col_sum_keepdim(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.sum(dim=0, keepdim=True)


def col_mean_fn_keepdim(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.mean(x, -2, True)


def mean_center(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x - x.mean(dim=-1, keepdim=True)


def mean_norm(x: TensorF32Cpu2D, g: TensorF32Cpu1D) -> TensorF32Cpu2D:
    mu = x.mean(-1, keepdim=True)
    d = x - mu
    var = (d * d).mean(-1, keepdim=True)
    return d * torch.rsqrt(var + 1e-5) * g


def mean_keepdim_pool(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b).relu().mean(dim=1, keepdim=True)
