from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def f(x: TensorF32Cpu2D, v: TensorF32Cpu1D) -> TensorF32Cpu2D:
    a = x.relu(inplace=True)
    b = v.sigmoid(v)
    return x.tanh()
