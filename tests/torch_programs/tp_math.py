"""The elementwise functions of one tensor kiln-torch claims besides the
activations: abs, sqrt, rsqrt, square (and t ** 2), exp, log, F.silu, F.relu6 and F.hardtanh, in every
spelling, alone, in fused elementwise chains and as a GEMM's epilogue;
compared with eager torch by tests/test_math_ops.py. NAME_1 / NAME_2: the
operand's rank. The *_eager functions are spellings kiln leaves to eager
torch (not covered): their results must still be eager's."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def abs_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.abs()


def abs_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.abs(v)


def sqrt_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sqrt(x)


def sqrt_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.sqrt()


def square_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.square()


def square_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.square(v)


def pow_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x ** 2


def pow_method_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.pow(2)


def pow_call_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.pow(v, 2)


def exp_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.exp(x)


def exp_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.exp()


def log_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.log(x)


def log_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return v.log()


def rsqrt_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.rsqrt()


def rsqrt_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.rsqrt(v)


def relu6_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.relu6(x)


def relu6_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.nn.functional.relu6(v, inplace=False)


def hardtanh_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.hardtanh(x)


def hardtanh_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.hardtanh(v, inplace=False)


def hard_swish_chain(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x * F.relu6(x + 3.0) / 6.0


def hardtanh_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.hardtanh(F.linear(x, w, b)).mean(1)


def silu_2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.silu(x)


def silu_1(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.silu(v, inplace=False)


def log_softmax_fn(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.log_softmax(x, dim=-1)


def log_softmax_f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return F.log_softmax(x, dim=1)


def log_softmax_method(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.log_softmax(-1)


def log_softmax_1d(v: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.log_softmax(v, 0)


def nll_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.log_softmax(F.linear(x, w, b), dim=-1)


# ---- fused: one elementwise pass, and a GEMM's epilogue ---------------------

def rms_chain(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sqrt((x - y) ** 2 + 1e-6) * 0.5


def gauss_chain(x: TensorF32Cpu2D, mu: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.exp(-(x - mu).square() * 0.5).abs()


def normalize(x: TensorF32Cpu2D, mu: TensorF32Cpu1D, g: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.rsqrt((x - mu).square() + 1e-5) * g


def silu_chain(x: TensorF32Cpu2D, g: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.silu(x * g) + x.abs()


def log_likelihood(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return torch.log(torch.sigmoid(x @ w + b)).sum(1)


def silu_mlp(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return F.silu(F.linear(x, w, b)).mean(dim=1)


def exp_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.exp(x @ w + b)


def square_sum(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu1D:
    return ((x @ w) ** 2).sum(1)


def abs_sqrt_head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.sqrt(torch.abs(x @ w.T + b))


# ---- left to eager torch ------------------------------------------------------

def pow_three_eager(x: TensorF32Cpu2D):
    return x ** 3


def pow_float_eager(x: TensorF32Cpu2D):
    return x ** 2.0


def exp_out_eager(x: TensorF32Cpu2D, out):
    return torch.exp(x, out=out)


def silu_inplace_eager(x: TensorF32Cpu2D):
    return F.silu(x * 1.0, inplace=True)


def hardtanh_one_bound_eager(x: TensorF32Cpu2D):
    return F.hardtanh(x, -2.0)  # one bound given, the other the default: eager's


def log_softmax_dim0_eager(x: TensorF32Cpu2D):
    return F.log_softmax(x, dim=0)  # KILN-TORCH-006: not the last dim
