"""difftest regression r_k1_outer_product_zero_sign.

Found by `python -m tests.difftest.run --seed 9802` (module 133, function f17), shrunk
by hand to three rows.

expected (python): tensor(3, 3) [[-inf, -inf, inf], [1.7, ...], ...]: relu(-0.11) * -0.61 is -0.0 in eager
torch's K == 1 product (MKL's outer product), and 0.5 / -0.0 is -inf
observed (kiln):   +inf there: the kernels summed the one product from +0.0
"""
import math
import torch
import torch.nn.functional as F
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f17(x: TensorF32Cpu2D, w2: TensorF32Cpu2D, s: float) -> TensorF32Cpu2D:
    t1 = x.relu() @ w2
    t3 = s / t1
    t8 = t3
    return t8


CASES = {'f17': [(torch.tensor([[-0.11002720892429352], [0.35698744654655457], [-0.0]], dtype=torch.float32), torch.tensor([[-0.6081486940383911, -0.3429489731788635, 0.4086957573890686]], dtype=torch.float32), 0.5)]}
TOL = {'f17': (1e-05, 1e-06)}
