"""kiln: an ahead-of-time compiler from typed Python inference functions
(PyTorch / TensorFlow) to native CPython extension modules.

Importing this package never imports torch or TensorFlow.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, TypeVar, overload

__version__ = "0.1.0"

__all__ = [
    "KilnError",
    "KilnWarning",
    "__version__",
    "build",
    "compile",
    "get_include",
]

if TYPE_CHECKING:
    from types import ModuleType

F = TypeVar("F", bound=Callable[..., Any])


class KilnError(Exception):
    """A build failed: source errors, a missing C toolchain, a refused cache.

    ``str(err)`` is the full human-readable message; ``diagnostics`` holds the
    rendered compiler diagnostics alone ('' when there are none).
    """

    def __init__(self, message: str, diagnostics: str = "", code: str | None = None):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.code = code


class KilnWarning(UserWarning):
    """A function decorated with ``kiln.compile`` runs as plain Python."""


def get_include() -> str:
    """Directory holding ``kiln_runtime.h``, for compiling generated modules."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def build(path: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None,
          deny_fallback: bool = False) -> ModuleType:
    """Compile the Python file *path* into an extension module, write it and
    its ``.kiln.json`` / ``.kiln.html`` reports into *out_dir* (default:
    beside the source), import it and return the module."""
    from kiln import _build

    return _build.build(path, out_dir=out_dir, deny_fallback=deny_fallback)


@overload
def compile(fn: F) -> F: ...
@overload
def compile(fn: None = None) -> Callable[[F], F]: ...


def compile(fn: Any = None) -> Any:
    """Return a native version of the module-level function *fn*.

    Usable as ``kiln.compile(f)``, ``@kiln.compile`` or ``@kiln.compile()``.
    Depending on ``KILN_MODE`` a function that cannot be compiled is returned
    unchanged (``auto``, with a warning) or raises :class:`KilnError`
    (``native``); ``KILN_MODE=python`` always returns *fn* unchanged.
    """
    if fn is None:
        return compile
    from kiln import _build

    return _build.compile_function(fn)
