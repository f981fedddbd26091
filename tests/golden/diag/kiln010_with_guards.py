import contextlib
import torch
import torch.autograd as ag
from torch import inference_mode


def a(n: int) -> int:
    with torch.no_grad():                      # compiled: a guard kiln applies itself
        n = n * 2
    return n


def b(n: int) -> int:
    with ag.no_grad(), inference_mode(mode=True):   # compiled: nested guards
        return n * 3


def c(n: int) -> int:
    for i in range(n):
        with torch.inference_mode(True):       # compiled: break/continue leave the block
            if i == 2:
                break
    return n


def d(n: int) -> int:
    with contextlib.suppress(ValueError):      # compiled: through its __enter__/__exit__
        n = n * 4
    return n


def e(n: int) -> int:
    with torch.no_grad() as g:                 # compiled: with `as`, through __enter__/__exit__
        return n * 5


def f(n: int) -> int:
    with torch.inference_mode(False):          # compiled: the object torch returns, through __enter__/__exit__
        return n * 6


def g(n: int, torch: object) -> int:
    with torch.no_grad():                      # compiled: `torch` is a parameter here (its no_grad() is called)
        return n * 7


def h(n: int) -> int:
    with (torch.no_grad(), torch.no_grad()):   # compiled: a parenthesised list of two items
        return n * 8
