"""Reference README, "Rejected or not covered (illustrative)", one function
per example, plus the neighbouring forms of each rejection lane. Each site
must be reported as EXPECT says and must run exactly as eager PyTorch.
The reference's `x * y`, `x - y`, `x + 1.0`, `torch.relu(x)` and
`torch.softmax(x, dim=-1)` are claimed by kiln (tp_arith.py, tp_forms.py);
their places here hold forms kiln leaves to eager."""
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D
import torch
import torch.nn.functional as F

# name -> (site target, outcome, code)
EXPECT = {
    "linear_1d_weight": ("torch.nn.functional.linear", "rejected", "KILN-TORCH-001"),
    "linear_keyword_bias": ("torch.nn.functional.linear", "rejected", "KILN-TORCH-001"),
    "linear_none_bias": ("torch.nn.functional.linear", "rejected", "KILN-TORCH-001"),
    "mean_dim0": ("mean", "rejected", "KILN-TORCH-005"),
    "mean_keepdim_dynamic": ("mean", "rejected", "KILN-TORCH-005"),
    "mean_dynamic_dim": ("mean", "rejected", "KILN-TORCH-005"),
    "sum_positional_dim0": ("sum", "rejected", "KILN-TORCH-005"),
    "sum_positional_keepdim_dynamic": ("sum", "rejected", "KILN-TORCH-005"),
    "sum_whole": ("sum", "rejected", "KILN-TORCH-005"),
    "mean_fn_dim0": ("torch.mean", "rejected", "KILN-TORCH-005"),
    "sum_fn_whole": ("torch.sum", "rejected", "KILN-TORCH-005"),
    "sum_fn_dtype": ("torch.sum", "rejected", "KILN-TORCH-005"),
    "mean_dim_twice": ("mean", "rejected", "KILN-TORCH-005"),
    "mean_rank1": ("mean", "rejected", "KILN-TORCH-005"),
    "matmul_1d_1d": ("@", "rejected", "KILN-TORCH-003"),
    "matmul_a_transposed": ("@", "not-covered", None),
    "matmul_bt_rank1": ("@", "not-covered", None),
    "matmul_at_method": ("@", "not-covered", None),
    "matmul_bt_method_rank1": ("@", "not-covered", None),
    "matmul_bt_method_arg": ("@", "not-covered", None),
    "matmul_call_1d_1d": ("torch.matmul", "rejected", "KILN-TORCH-003"),
    "mm_vec_bt": ("torch.mm", "not-covered", None),
    "matmul_method_1d_1d": ("matmul", "rejected", "KILN-TORCH-003"),
    "relu_with_arg": ("relu", "rejected", "KILN-TORCH-002"),
    "softmax": ("torch.softmax", "rejected", "KILN-TORCH-006"),
    "log2": ("torch.log2", "not-covered", None),
    "inplace_relu": ("relu_", "not-covered", None),
    "relu_inplace_kw": ("torch.nn.functional.relu", "rejected", "KILN-TORCH-002"),
    "power": ("**", "not-covered", None),
    "floor_div": ("//", "not-covered", None),
    "transpose": ("transpose", "not-covered", None),
    "add_bool_sub": ("-", "not-covered", None),
    "unannotated_add": ("+", "not-covered", None),
    # every tensor by keyword: the rule's diagnostic (these were silent)
    "linear_all_keywords": ("torch.nn.functional.linear", "rejected", "KILN-TORCH-001"),
    "relu_input_kw": ("torch.relu", "rejected", "KILN-TORCH-002"),
    "softmax_input_kw": ("torch.softmax", "rejected", "KILN-TORCH-006"),
    "sum_input_kw": ("torch.sum", "rejected", "KILN-TORCH-005"),
}


def linear_1d_weight(x: TensorF32Cpu2D, w_1d: TensorF32Cpu1D):
    return F.linear(x, w_1d)


def linear_keyword_bias(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D):
    return F.linear(x, w, bias=b)


def linear_none_bias(x: TensorF32Cpu2D, w: TensorF32Cpu2D):
    return F.linear(x, w, None)


def mean_dim0(t: TensorF32Cpu2D):
    return t.mean(dim=(0,), keepdim=False)  # a tuple of dims: not a literal int


def mean_keepdim_dynamic(t: TensorF32Cpu2D, keep: bool):
    return t.mean(dim=1, keepdim=keep)  # the result's rank is not known


def mean_dynamic_dim(t: TensorF32Cpu2D, d: int):
    return t.mean(dim=d, keepdim=False)


def sum_positional_dim0(t: TensorF32Cpu2D):
    return t.sum((0,))


def sum_positional_keepdim_dynamic(t: TensorF32Cpu2D, keep: bool):
    return t.sum(1, keep)


def mean_fn_dim0(t: TensorF32Cpu2D):
    return torch.mean(t, (0,))


def sum_fn_whole(t: TensorF32Cpu2D):
    return torch.sum(t)


def sum_fn_dtype(t: TensorF32Cpu2D):
    return torch.sum(t, dim=1, dtype=torch.float64)


def mean_dim_twice(t: TensorF32Cpu2D):
    return t.mean(1, dim=1)


def sum_whole(t: TensorF32Cpu2D):
    return t.sum()


def mean_rank1(t: TensorF32Cpu1D):
    return t.mean(dim=1, keepdim=False)


def matmul_1d_1d(a_1d: TensorF32Cpu1D, b_1d: TensorF32Cpu1D):
    return a_1d @ b_1d  # a 0-d tensor


def matmul_a_transposed(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return a.T @ b


def matmul_bt_rank1(a: TensorF32Cpu2D, v: TensorF32Cpu1D):
    return a @ v.T


def matmul_at_method(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    return a.t() @ b


def matmul_bt_method_rank1(a: TensorF32Cpu2D, v: TensorF32Cpu1D):
    return a @ v.t()


def matmul_bt_method_arg(a: TensorF32Cpu2D, b: TensorF32Cpu2D, flag: bool):
    return a @ b.t(flag)  # not a bare .t(): eager's (TypeError)


def matmul_call_1d_1d(a: TensorF32Cpu1D, b: TensorF32Cpu1D):
    return torch.matmul(a, b)


def matmul_method_1d_1d(a: TensorF32Cpu1D, b: TensorF32Cpu1D):
    return a.matmul(b)


def relu_with_arg(x: TensorF32Cpu2D, flag: bool):
    return x.relu(flag)


def softmax(x: TensorF32Cpu2D):
    return torch.softmax(x, dim=0)  # the last dim is native (tp_arith.py)


def log2(x: TensorF32Cpu2D):
    return torch.log2(x)


def relu_inplace_kw(x: TensorF32Cpu2D):
    return F.relu(x, inplace=True)


def inplace_relu(x: TensorF32Cpu2D):
    return x.relu_()


def power(x: TensorF32Cpu2D, y: TensorF32Cpu2D):
    return x ** y


def floor_div(x: TensorF32Cpu2D, y: TensorF32Cpu2D):
    return x // y


def transpose(x: TensorF32Cpu2D):
    return x.transpose(0, 1)


def add_bool_sub(x: TensorF32Cpu2D, flag: bool):
    return x - flag  # eager torch refuses `-` with a bool: its RuntimeError


def unannotated_add(x, y):
    return x + y


def mm_vec_bt(v: TensorF32Cpu1D, w: TensorF32Cpu2D):
    return torch.mm(v, w.T)  # torch.mm takes matrices only: eager's RuntimeError


def linear_all_keywords(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D):
    return F.linear(input=x, weight=w, bias=b)


def relu_input_kw(x: TensorF32Cpu2D):
    return torch.relu(input=x)


def softmax_input_kw(x: TensorF32Cpu2D):
    return torch.softmax(input=x, dim=1)


def sum_input_kw(x: TensorF32Cpu2D):
    return torch.sum(input=x, dim=1)
