"""t.shape[k] and t.size(k) read natively (tests/test_tensor_shape.py): an
int literal index naming one of the tensor's dims; others (out of range, a
variable index, the whole shape) stay Python's. t.dim() / t.ndimension(),
t.ndim and t.numel() / t.nelement() too."""
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def dims(x: TensorF32Cpu2D) -> int:
    return x.shape[0] * 1000 + x.shape[1] * 10 + x.shape[-1] - x.shape[-2]


def dim_1d(v: TensorF32Cpu1D) -> int:
    return v.shape[0] + v.shape[-1]


def loop_rows(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        s += float(i)
    h = x @ w
    return s + h.shape[1]


def of_result(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> int:
    return (x @ w).shape[1]


def after_mutation(x: TensorF32Cpu2D) -> int:
    a = x.shape[0]
    x.t_()  # Python changes the tensor's shape in place: the next read sees it
    return a * 100 + x.shape[0]


def norm_width(x: TensorF32Cpu2D, w: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.layer_norm(x, (x.shape[1],), w, b)


def length(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> int:
    return len(x) * 100 + len(v)


def sizes(x: TensorF32Cpu2D) -> int:
    return x.size(0) * 1000 + x.size(1) * 10 + x.size(-1) - x.size(dim=-2) + x.size(dim=1) * 7


def size_1d(v: TensorF32Cpu1D) -> int:
    return v.size(0) + v.size(-1) * 3 + v.size(dim=0) * 5


def counts(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> int:
    return x.dim() * 100000 + v.ndimension() * 10000 + x.numel() * 10 + v.nelement() + x.ndimension()


def batch_loop(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> float:
    s = 0.0
    for i in range(x.size(0)):
        s += float(i) / (x.size(1) + 1)
    h = x @ w
    return s + h.size(1) + h.numel()


def ndims(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> int:
    return x.ndim * 10 + v.ndim + (x @ x.T).ndim * 100


def size_after_mutation(x: TensorF32Cpu2D) -> int:
    a = x.size(0)
    x.t_()  # Python changes the tensor's shape in place: the next read sees it
    return a * 100 + x.size(0) + x.numel()


def p_size_out_of_range(x: TensorF32Cpu2D) -> int:
    return x.size(2)  # Python's IndexError


def p_size_variable(x: TensorF32Cpu2D, k: int) -> int:
    return x.size(k)


def p_size_whole(x: TensorF32Cpu2D):
    return x.size()


def p_out_of_range(v: TensorF32Cpu1D) -> int:
    return v.shape[1]  # Python's IndexError


def p_variable(x: TensorF32Cpu2D, k: int) -> int:
    return x.shape[k]


def p_whole(x: TensorF32Cpu2D):
    return x.shape
