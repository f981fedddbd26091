"""torch_models.py with torch.Tensor annotations, for torch.jit.script."""

import torch
import torch.nn.functional as F


def phase_a(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return F.linear(x, weight, bias).relu().mean(dim=1, keepdim=False)


def phase_b(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
            depth: int, phase: int) -> torch.Tensor:
    hidden = x
    for layer in range(depth):
        if (layer + phase) % 2 == 0:
            even = hidden @ weight + bias
            hidden = even.relu()
        else:
            odd = hidden @ weight + bias
            hidden = odd.sigmoid()
    return hidden.mean(dim=1, keepdim=False)


def lennard_jones(x: torch.Tensor,
                  w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor,
                  w3: torch.Tensor, b3: torch.Tensor, w4: torch.Tensor, b4: torch.Tensor,
                  w5: torch.Tensor, b5: torch.Tensor) -> torch.Tensor:
    h = F.linear(x, w1, b1).tanh()
    h = F.linear(h, w2, b2).tanh()
    h = F.linear(h, w3, b3).tanh()
    h = F.linear(h, w4, b4).tanh()
    return F.linear(h, w5, b5)


def elementwise(x: torch.Tensor, mu: torch.Tensor, sd: torch.Tensor, gain: torch.Tensor,
                bias: torch.Tensor, scale: float) -> torch.Tensor:
    return ((x - mu) / sd * gain + bias).relu() * scale
