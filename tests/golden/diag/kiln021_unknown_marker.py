import torch

import kiln.torch
from kiln.torch import TensorF32Cpu2D


def f(x: kiln.torch.TensorF32Cpu3D, y: TensorF32Cpu2D, z: torch.Tensor) -> TensorF32Cpu2D:
    return y.relu()
