import kilntest
from kilntest import Tensor2D


def drifting(x: Tensor2D) -> Tensor2D:
    return kilntest.drift(x)
