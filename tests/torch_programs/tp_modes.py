"""One function kiln compiles and one it leaves in Python (an except* clause
is not compiled), for the KILN_MODE tests."""
from kiln.torch import TensorF32Cpu2D


def native_fn(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.relu()


def python_fn(x: TensorF32Cpu2D):
    y = None
    try:
        y = x.relu()
    except* ValueError:
        pass
    return y
