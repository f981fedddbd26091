from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D, d: int) -> TensorF32Cpu1D:
    a = x.mean(0)
    b = x.sum(dim=0, keepdim=False)
    c = x.mean(dim=d, keepdim=False)
    e = x.sum(dim=(0, 1), keepdim=True)
    g = v.mean(dim=1, keepdim=False)
    return x.mean(keepdim=False, dim=1)
