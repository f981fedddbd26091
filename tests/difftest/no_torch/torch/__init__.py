"""A stand-in for torch where it is not installed (the other Pythons): the
difftest's scalar programs import torch in their header but never use it.
A tensor program fails on it at once (no attribute), never silently."""
from . import nn  # noqa: F401


class Tensor:
    """Never made: the harness's isinstance tests see no tensor."""
