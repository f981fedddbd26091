"""torch.nn.functional.linear spelled out after a bare `import torch`."""
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D
import torch


def linear_dotted(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    return torch.nn.functional.linear(x, w, b).relu()
