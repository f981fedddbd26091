"""Type markers for TensorFlow EagerTensor parameters.

This module never imports TensorFlow: the markers are plain classes that the
kiln compiler recognises by their qualified name; at run time the generated
code checks each argument (a TensorFlow ``EagerTensor``, float32, on the CPU,
of the rank) and fails closed with a clear error otherwise.
"""

from __future__ import annotations

__all__ = ["TensorF32Cpu1D", "TensorF32Cpu2D"]


class TensorF32Cpu1D:
    """A rank-1 float32 CPU TensorFlow ``EagerTensor``."""

    __kiln_type_key__ = "kiln-tensorflow/tensor-f32-cpu-1d"
    __slots__ = ()


class TensorF32Cpu2D:
    """A rank-2 float32 CPU TensorFlow ``EagerTensor``."""

    __kiln_type_key__ = "kiln-tensorflow/tensor-f32-cpu-2d"
    __slots__ = ()
