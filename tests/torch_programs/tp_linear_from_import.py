"""F.linear reached through `from torch.nn import functional as F`."""
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D
from torch.nn import functional as F


def linear_from(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return F.linear(x, w, b)
