"""Runtime side of the test plugin (compiler/plugins/testplugin.c): the Python
functions its sites fall back to, and its markers."""
import torch


class Tensor1D:
    """marker: kiln-test/tensor-f32-cpu-1d"""


class Tensor2D:
    """marker: kiln-test/tensor-f32-cpu-2d"""


def relu(x):
    return torch.relu(x)


def reject(x):
    return x * 2


def other(x):
    return x - 1
