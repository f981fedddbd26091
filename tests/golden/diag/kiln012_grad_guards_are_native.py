import torch
from torch import inference_mode, no_grad


@torch.no_grad()                 # compiled: the function turns grad mode off itself
def a(n: int) -> int:
    return n * 2


@no_grad()
def b(n: int) -> int:
    return n * 3


@torch.no_grad                   # the bare form works too (torch >= 2.0)
def c(n: int) -> int:
    return n * 4


@torch.inference_mode()          # compiled: the function enters inference mode itself
def d(n: int) -> int:
    return n * 5


@inference_mode
def e(n: int) -> int:
    return n * 6


@torch.autograd.inference_mode(mode=True)
def f(n: int) -> int:
    return n * 7


@torch.inference_mode(False)     # KILN012: only the mode that is on
def g(n: int) -> int:
    return n * 8


@torch.no_grad()
@torch.inference_mode()          # KILN012: one guard per function
def h(n: int) -> int:
    return n * 9


@torch.inference_mode(mode=1)    # KILN012: True spelt otherwise
def i(n: int) -> int:
    return n * 10
