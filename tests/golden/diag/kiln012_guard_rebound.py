import torch
from torch import inference_mode


def wrapped(fn):
    return fn


torch.no_grad = wrapped          # torch.no_grad is no longer torch's guard here


@torch.no_grad()                 # KILN012: the module replaced it
def a(n: int) -> int:
    return n * 2


def b(n: int) -> int:
    with torch.no_grad():        # compiled: calls what the module bound, through __enter__/__exit__
        return n * 3


@torch.inference_mode()          # compiled: torch.inference_mode is untouched
def c(n: int) -> int:
    return n * 4


@inference_mode                  # KILN012: the name is bound twice in the module
def d(n: int) -> int:            # (kiln does not follow which binding a decorator saw)
    return n * 5


inference_mode = wrapped
