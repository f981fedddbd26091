"""Python fallback sites that change a tensor's metadata or observe its
identity, between native tensor operations on the same variable.

The native code keeps the view it took of an argument at entry (data
pointer, shape, strides) and boxes a native intermediate into a new
torch.Tensor at every crossing into Python; eager PyTorch sees one object
whose metadata the in-place methods changed."""
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D
import torch


def param_relu_(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    x.relu_()                      # values only: fine
    return x.sum(dim=1, keepdim=False)


def inter_mul_(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu1D:
    h = a @ b
    h.mul_(-1.0)                   # values only: fine
    return h.relu().sum(dim=1, keepdim=False)


def param_t_(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    x.t_()
    return x.sum(dim=1, keepdim=False)


def inter_t_(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu1D:
    h = a @ b
    h.t_()
    return h.sum(dim=1, keepdim=False)


def param_set_(x: TensorF32Cpu2D, y: TensorF32Cpu2D, keep) -> TensorF32Cpu1D:
    x.set_(y)                      # `keep` shares x's old storage (keeps it alive)
    return x.sum(dim=1, keepdim=False)


def param_resize_(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
    x.resize_(200, 300)
    x.fill_(1.0)
    return x.sum(dim=1, keepdim=False)


def inter_identity(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    h = a @ b
    pair = [h, h]
    return pair[0] is pair[1]


def inter_requires_grad(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    h = a @ b
    h.requires_grad_(True)
    return h.requires_grad


def inter_dict_key(a: TensorF32Cpu2D, b: TensorF32Cpu2D):
    h = a @ b
    seen = {h: 1}
    return h in seen
