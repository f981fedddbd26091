import kilntest
from kilntest import Tensor2D


def both(x: Tensor2D) -> Tensor2D:
    return kilntest.conflict(x)
