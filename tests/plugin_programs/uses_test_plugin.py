import kilntest
from kilntest import Tensor2D


def claimed(x: Tensor2D) -> Tensor2D:
    return kilntest.relu(x)


def rejected(x: Tensor2D) -> Tensor2D:
    return kilntest.reject(x)


def not_covered(x: Tensor2D) -> Tensor2D:
    return kilntest.other(x)
