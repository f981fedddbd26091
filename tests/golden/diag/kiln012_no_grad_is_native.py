import torch
from torch import no_grad


@torch.no_grad()                 # compiled: the function turns grad mode off itself
def a(n: int) -> int:
    return n * 2


@no_grad()
def b(n: int) -> int:
    return n * 3


@torch.no_grad                   # the bare form works too (torch >= 2.0)
def c(n: int) -> int:
    return n * 4


@torch.inference_mode()          # KILN012
def d(n: int) -> int:
    return n * 5
