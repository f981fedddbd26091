import math
from torch.nn import functional as F
import torch.nn.functional

N = 3


def g(n: int, *, k: int = 2) -> int:
    a, b = 0, 1
    total: int = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        elif i > 10:
            break
        else:
            total += a * k
        a, b = b, a + b
    else:
        pass
    while total > 100:
        total //= 2
    del a
    assert total >= 0, "negative"
    return total
