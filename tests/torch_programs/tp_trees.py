"""Trees of elementwise ops that kiln runs as one pass (a stack program):
both operands of + - * / are more than a local or a literal. Compared with
eager torch by tests/test_ewise_trees.py."""
import torch
import torch.nn.functional as F

from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def norm(x: TensorF32Cpu2D, m: TensorF32Cpu1D, v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    """rsqrt of a row is not pushed: a pass would compute it once per element."""
    return (x - m) * torch.rsqrt(v + 1e-5)


def colnorm(x: TensorF32Cpu2D, mu: TensorF32Cpu2D, var: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """mu, var columns [m, 1]: rsqrt is costly, so not pushed."""
    return (x - mu) * torch.rsqrt(var + 1e-5)


def sgate(g: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """A chain whose first value, a row, the result stretches: the runtime
    computes sigmoid(g) * 2.0 on its own first where the result has many
    more elements."""
    return torch.sigmoid(g) * 2.0 * x + 1.0


def sgate1(g: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """As sgate with one step on each side of the split: each part runs as
    its op's own call."""
    return torch.sigmoid(g) * x


def sgate_col(g: TensorF32Cpu2D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """A column [m, 1] stretched across the rows: one step split off, two after."""
    return 1.0 - torch.exp(g) / x


def gate(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """A costly op (tanh) in the second operand: not pushed, op by op."""
    return torch.sigmoid(a) * torch.tanh(b)


def mix(m: TensorF32Cpu2D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return 0.9 * m + 0.1 * x


def square_diff(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (a - b) * (a - b)


def arith_deep(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D, d: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (a * 2 - b) * ((c + 1) / (d * 3 + (a - c * (b + 1))))


def acts_deep(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D, d: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """Cheap activations in the pushed subtrees, a costly one on the spine."""
    return torch.tanh(a * 2 - b) * ((c + 1) / (torch.relu(d) + torch.abs(a - c * F.leaky_relu(b + 1, 0.2))))


def lstm_cell(gi: TensorF32Cpu2D, gf: TensorF32Cpu2D, gg: TensorF32Cpu2D, c: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return torch.sigmoid(gf) * c + torch.sigmoid(gi) * torch.tanh(gg)


def row_first(r: TensorF32Cpu1D, x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """The first value a row, the pushed subtree the whole matrix."""
    return (r * 2) - (x / 3)


def column_pushed(x: TensorF32Cpu2D, col: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return (x + 1) * (col - 0.5)


def rows(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (a + 1) * (b - 1)


def clamped(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """Clamps and leaky_relu are cheap: pushed."""
    return torch.clamp(a, -1.0, 2.0) - F.leaky_relu(b * 2, 0.1)


def forwarded(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    s = torch.sigmoid(a) * 2
    return s + torch.relu(b) * 3


def too_deep(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D, d: TensorF32Cpu2D,
             e: TensorF32Cpu2D, f: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """Five values set aside at once: one more than a pass holds."""
    return (a * 2) - ((b * 2) - ((c * 2) - ((d * 2) - ((e * 2) - (f * 2)))))


def too_long(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """More steps than one pass takes: the subtree is not cut."""
    return (a + 1) * (((((((((b + 1) * 2 - 3) / 4 + 5) * 6 - 7) / 8 + 9) * 10 - 11) / 12 + 13) * 14 - 15) / 16)


def spine_errors(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return ((a * 2)
            + (b
               - c))


def bump(t: TensorF32Cpu2D) -> TensorF32Cpu2D:
    t.mul_(2.0)
    return t + 1


def opaque_first(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """A call that changes y in place, then tanh(y) of the changed y."""
    return bump(y) * torch.tanh(y)


def softmax_first(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """The first value an op no chain takes, evaluated on its own first."""
    return F.softmax(x, dim=-1) * (y * 2 - 1).abs()


def opaque_second(x: TensorF32Cpu2D, y: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """A call in the second operand: tanh(x) must run before it (it changes
    x), so no tree here."""
    return torch.tanh(x) * (bump(x) + 1)


def maybe_unbound(a: TensorF32Cpu2D, b: TensorF32Cpu2D, flag: bool) -> TensorF32Cpu2D:
    if flag:
        k = 2.0
    return (a * 2) + (b * k)


def forwarded_late(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D, d: TensorF32Cpu2D) -> TensorF32Cpu2D:
    """t is read after a - d, so its value is not moved there: b - c runs
    (and fails) first, as in Python."""
    t = b - c
    return (a - d) * 2 + t * 3


def forwarded_late_costly(a: TensorF32Cpu2D, b: TensorF32Cpu2D, c: TensorF32Cpu2D,
                          d: TensorF32Cpu2D) -> TensorF32Cpu2D:
    t = b - c
    return torch.relu(a - d) + torch.sigmoid(t)


def clamp_across(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    """A chain forwarded across three statements whose clamp raises (a bound
    past float32's range): the traceback names the clamp's line."""
    y = x * 2.0
    z = torch.clamp(y, lo, hi)
    return z + 1.0


def hardtanh_across(x: TensorF32Cpu2D, lo: float, hi: float) -> TensorF32Cpu2D:
    y = x * 2.0
    z = F.hardtanh(y, lo, hi)
    return z + 1.0


def gemm_across(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    """A fused GEMM chain forwarded across three statements."""
    y = x @ w
    z = torch.relu(y)
    return z + b
