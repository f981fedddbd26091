"""Reference README, "Accepted (Phase A certified chain)" — verbatim except
for the marker import (kiln.torch instead of rextio_torch.types)."""
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D
import torch.nn.functional as F


def inference(
    x: TensorF32Cpu2D,
    weight: TensorF32Cpu2D,
    bias: TensorF32Cpu1D,
) -> TensorF32Cpu1D:
    return F.linear(x, weight, bias).relu().mean(dim=1, keepdim=False)
