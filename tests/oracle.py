"""Equivalence oracle: run a kiln-compiled function natively and its Python
original (``module.__kiln_python__[name]``) on deep copies of the same
inputs, and compare everything a caller could observe:

- the result: type, and for tensors dtype, shape, device and values (within
  a tolerance, or bit for bit), recursively through tuples/lists/dicts;
- an exception instead: the same type and the same *message class* (a coarse
  category such as "shape" or "dtype": kiln's wording differs from eager's);
- the inputs afterwards: each input's state (values bit for bit, shape,
  strides, dtype) must be what the original left behind, and where the
  original did not mutate an input the native run must not either.

Usage::

    from oracle import check_equivalent
    check_equivalent(mod, "inference", x, w, b, rtol=1e-5, atol=1e-6)

``check_equivalent`` raises ``AssertionError`` describing the first
difference and returns an ``Outcome`` (native and python results) otherwise.
torch is imported lazily so the helper also works for non-tensor functions.
"""

from __future__ import annotations

import copy
import math
import re
import types
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Outcome", "run_both", "check_equivalent", "compare_values", "message_class",
           "snapshot", "assert_same_state", "is_tensor", "same_value", "Built", "build_cache",
           "check_report_status", "activation_truth", "check_activation",
           "EAGER_ACTIVATION_INACCURATE"]


def _torch():
    import torch
    return torch


def is_tensor(v: Any) -> bool:
    try:
        import sys
        torch = sys.modules.get("torch")
        return torch is not None and isinstance(v, torch.Tensor)
    except Exception:  # pragma: no cover
        return False


# --------------------------------------------------------------------------
# Exceptions

_CLASSES = [
    ("shape", re.compile(r"shape|size|mat1 and mat2|must match|dimension|cannot be multiplied|"
                         r"out of range|expected .*rank|broadcast", re.I)),
    ("dtype", re.compile(r"dtype|float32|Float|Double|Half|Long|scalar type", re.I)),
    ("device", re.compile(r"device|cpu|cuda|meta", re.I)),
    ("type", re.compile(r"expected a |must be|not supported|unsupported operand|argument", re.I)),
]


def message_class(exc: BaseException) -> str:
    """A coarse category of an exception message, comparable between kiln's
    and eager PyTorch's wording."""
    text = str(exc)
    for name, rx in _CLASSES:
        if rx.search(text):
            return name
    return "other"


# --------------------------------------------------------------------------
# Input state

def snapshot(v: Any) -> Any:
    """A deep, independent record of v's observable state."""
    if is_tensor(v):
        t = v.detach()
        return ("tensor", type(v), t.dtype, tuple(t.shape), tuple(t.stride()), t.storage_offset(),
                t.device.type, v.requires_grad, t.clone() if t.device.type != "meta" else None)
    if isinstance(v, (list, tuple)):
        return (type(v), [snapshot(x) for x in v])
    if isinstance(v, dict):
        return (dict, {k: snapshot(x) for k, x in v.items()})
    try:
        return ("copy", _deepcopy(v))
    except Exception:
        return ("id", id(v))


def _same_bits(a, b) -> bool:
    torch = _torch()
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    if a.is_floating_point():
        ia = a.contiguous().view(torch.uint8)
        ib = b.contiguous().view(torch.uint8)
        return bool(torch.equal(ia, ib))
    return bool(torch.equal(a, b))


def _same_state(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and a and a[0] == "tensor":
        if a[:8] != b[:8]:
            return False
        if a[8] is None or b[8] is None:
            return a[8] is None and b[8] is None
        return _same_bits(a[8], b[8])
    if isinstance(a, tuple) and len(a) == 2 and a[0] in (list, tuple):
        return len(a[1]) == len(b[1]) and all(_same_state(x, y) for x, y in zip(a[1], b[1]))
    if isinstance(a, tuple) and len(a) == 2 and a[0] is dict:
        return a[1].keys() == b[1].keys() and all(_same_state(a[1][k], b[1][k]) for k in a[1])
    try:
        return bool(a == b) or _nan_equal(a, b)
    except Exception:
        return False


def _nan_equal(a, b) -> bool:
    if isinstance(a, tuple) and len(a) == 2 and isinstance(a[1], float) and isinstance(b[1], float):
        return math.isnan(a[1]) and math.isnan(b[1])
    return False


def assert_same_state(before: Any, after: Any, what: str) -> None:
    assert _same_state(before, after), f"{what}: state differs"


# --------------------------------------------------------------------------
# Results

def compare_values(native: Any, python: Any, *, rtol: float = 1e-5, atol: float = 1e-6,
                   bitwise: bool = False, grad_free: bool = True, path: str = "result") -> None:
    """Asserts native ~ python. ``bitwise``: tensors identical bit for bit
    (NaN payloads and -0.0 included). ``grad_free``: the native tensor must
    have requires_grad False whatever the python one has."""
    assert type(native) is type(python), \
        f"{path}: type {type(native).__name__} != {type(python).__name__}"
    if is_tensor(native):
        torch = _torch()
        assert native.dtype == python.dtype, f"{path}: dtype {native.dtype} != {python.dtype}"
        assert native.shape == python.shape, f"{path}: shape {tuple(native.shape)} != {tuple(python.shape)}"
        assert native.device == python.device, f"{path}: device {native.device} != {python.device}"
        if native.dim() == 2 and min(native.shape) > 1:  # eager's memory order (size-1 dims: cosmetic)
            assert native.stride() == python.stride(), f"{path}: strides {native.stride()} != {python.stride()}"
        if grad_free:
            assert native.requires_grad is False, f"{path}: native result requires grad"
        else:
            assert native.requires_grad == python.requires_grad, f"{path}: requires_grad differs"
        n, p = native.detach(), python.detach()
        if bitwise:
            if not _same_bits(n, p):
                diff = (n != p) & ~(n.isnan() & p.isnan())
                raise AssertionError(f"{path}: not bit-identical ({int(diff.sum())} elements differ "
                                     f"by value; signs of zero or NaN payloads otherwise)")
        else:
            torch.testing.assert_close(n, p, rtol=rtol, atol=atol, equal_nan=True,
                                       msg=lambda m: f"{path}: {m}")
        return
    if isinstance(native, (list, tuple)):
        assert len(native) == len(python), f"{path}: length {len(native)} != {len(python)}"
        for i, (a, b) in enumerate(zip(native, python)):
            compare_values(a, b, rtol=rtol, atol=atol, bitwise=bitwise, grad_free=grad_free,
                           path=f"{path}[{i}]")
        return
    if isinstance(native, dict):
        assert native.keys() == python.keys(), f"{path}: keys differ"
        for k in native:
            compare_values(native[k], python[k], rtol=rtol, atol=atol, bitwise=bitwise,
                           grad_free=grad_free, path=f"{path}[{k!r}]")
        return
    if isinstance(native, float):
        if math.isnan(native) and math.isnan(python):
            return
        assert native == python and math.copysign(1, native) == math.copysign(1, python), \
            f"{path}: {native!r} != {python!r}"
        return
    assert native == python, f"{path}: {native!r} != {python!r}"


@dataclass
class Outcome:
    native: Any = None
    python: Any = None
    native_exc: BaseException | None = None
    python_exc: BaseException | None = None
    native_inputs: Any = None   # the inputs the native run received, afterwards
    python_inputs: Any = None


def _call(fn: Callable, args: tuple, kwargs: dict):
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 — compared below
        return None, exc


def _shared_memo(obj: Any, memo: dict | None = None) -> dict:
    """A deepcopy memo mapping objects that cannot or should not be copied
    (modules, classes, functions) to themselves: both runs share them."""
    import types as _types
    memo = {} if memo is None else memo
    if isinstance(obj, (_types.ModuleType, type, _types.FunctionType, _types.BuiltinFunctionType)):
        memo[id(obj)] = obj
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for x in obj:
            _shared_memo(x, memo)
    elif isinstance(obj, dict):
        for x in obj.values():
            _shared_memo(x, memo)
    return memo


def _deepcopy(obj: Any) -> Any:
    return copy.deepcopy(obj, _shared_memo(obj))


def run_both(native_fn: Callable, python_fn: Callable, args: tuple = (), kwargs: dict | None = None
             ) -> tuple[Outcome, Any]:
    """Runs both on deep copies (one deepcopy per side, so shared storage
    between arguments is kept). Returns the outcome and the pristine state."""
    kwargs = kwargs or {}
    pristine = snapshot((args, kwargs))
    n_args, n_kwargs = _deepcopy((args, kwargs))
    p_args, p_kwargs = _deepcopy((args, kwargs))
    out = Outcome()
    out.native, out.native_exc = _call(native_fn, n_args, n_kwargs)
    out.python, out.python_exc = _call(python_fn, p_args, p_kwargs)
    out.native_inputs = (n_args, n_kwargs)
    out.python_inputs = (p_args, p_kwargs)
    return out, pristine


def check_equivalent(mod, name: str, *args, kwargs: dict | None = None, rtol: float = 1e-5,
                     atol: float = 1e-6, bitwise: bool = False, grad_free: bool = True,
                     native_fn: Callable | None = None) -> Outcome:
    """The oracle: ``getattr(mod, name)`` vs ``mod.__kiln_python__[name]``."""
    nfn = native_fn or getattr(mod, name)
    pfn = mod.__kiln_python__[name]
    assert nfn is not pfn, f"{name}: the module's function is the Python original"
    out, pristine = run_both(nfn, pfn, args, kwargs)
    if out.python_exc is not None or out.native_exc is not None:
        assert out.native_exc is not None, \
            f"{name}: python raised {out.python_exc!r}, native returned {out.native!r}"
        assert out.python_exc is not None, f"{name}: native raised {out.native_exc!r}, python did not"
        assert type(out.native_exc) is type(out.python_exc), \
            f"{name}: exception {type(out.native_exc).__name__}({out.native_exc}) != " \
            f"{type(out.python_exc).__name__}({out.python_exc})"
        assert message_class(out.native_exc) == message_class(out.python_exc), \
            f"{name}: message class differs: {out.native_exc} / {out.python_exc}"
    else:
        compare_values(out.native, out.python, rtol=rtol, atol=atol, bitwise=bitwise,
                       grad_free=grad_free)
    # Inputs afterwards: as the original left them; untouched where it did not touch them.
    n_after, p_after = snapshot(out.native_inputs), snapshot(out.python_inputs)
    assert _same_state(n_after, p_after), f"{name}: inputs after the native run differ from the original's"
    if _same_state(p_after, pristine):
        assert _same_state(n_after, pristine), f"{name}: native run mutated its inputs"
    return out


# --------------------------------------------------------------------------
# sigmoid / tanh against eager torch: the contract of
# test_kernels_vs_torch.py::test_sigmoid_tanh_vs_torch. kiln's result is
# checked against a float64 truth computed by NumPy (independent of torch's
# process state) first; torch's own float32 result was seen (once, in a full
# suite run) to lose ~1e-4 relative accuracy after other libraries loaded in
# the process, so the comparison with eager is only meaningful while eager
# is itself accurate (rtol 2e-6, atol 1e-7 of the truth). Callers skip
# (once their other checks are done) when it is not.

EAGER_ACTIVATION_INACCURATE = "torch's own float32 result is not accurate in this process state"


def activation_truth(x, act: str):
    """act ("sigmoid" or "tanh") of the float32 tensor x, computed in float64
    by NumPy and rounded to float32."""
    import numpy as np
    torch = _torch()
    x64 = x.detach().double().cpu().numpy()
    with np.errstate(over="ignore"):  # exp(-x) of a very negative x: inf, sigmoid 0
        t = np.tanh(x64) if act == "tanh" else 1.0 / (1.0 + np.exp(-x64))
    return torch.from_numpy(t.astype(np.float32))


def check_activation(got, x, act: str, *, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """got is kiln's act(x): asserts it within rtol/atol of the float64
    truth, then, when eager torch's float32 act(x) is accurate, within
    rtol/atol of eager's. Returns False when eager was not accurate (not
    compared): the caller skips with EAGER_ACTIVATION_INACCURATE."""
    import numpy as np
    torch = _torch()
    truth = activation_truth(x, act)
    torch.testing.assert_close(got.detach(), truth, rtol=rtol, atol=atol, equal_nan=True,
                               msg=lambda m: f"{act} vs float64 truth: {m}")
    eager = (torch.sigmoid if act == "sigmoid" else torch.tanh)(x.detach())
    if not np.allclose(eager.numpy(), truth.numpy(), rtol=2e-6, atol=1e-7, equal_nan=True):
        return False
    torch.testing.assert_close(got.detach(), eager, rtol=rtol, atol=atol, equal_nan=True,
                               msg=lambda m: f"{act} vs eager torch: {m}")
    return True


# --------------------------------------------------------------------------
# Programs built once per test module, compared value for value
# --------------------------------------------------------------------------

def same_value(x: Any, y: Any) -> bool:
    """Equal in type and value, recursively: NaN equals NaN, 0.0 differs
    from -0.0; instances of classes without their own __eq__ compare by
    their attributes."""
    if type(x) is not type(y):
        return False
    if isinstance(x, float):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    if isinstance(x, complex):
        return same_value(x.real, y.real) and same_value(x.imag, y.imag)
    if isinstance(x, (tuple, list)):
        return len(x) == len(y) and all(same_value(a, b) for a, b in zip(x, y))
    if isinstance(x, dict):
        return list(x) == list(y) and all(same_value(x[k], y[k]) for k in x)
    if isinstance(x, types.SimpleNamespace) or type(x).__eq__ is object.__eq__:
        return same_value(getattr(x, "__dict__", {}), getattr(y, "__dict__", {}))
    return x == y


@dataclass
class Built:
    """A source built by kiln.build: the module, its report and where."""
    module: Any
    report: dict
    out_dir: Any

    @property
    def by_name(self) -> dict:
        return {f["name"]: f for f in self.report.get("functions", [])}


def build_cache(tmp_path_factory, source_path: Callable[[str, Any], Any]) -> Callable[[str], Built]:
    """get(stem) builds the program named stem once (source_path(stem,
    out_dir) gives its .py, written there if need be) and returns a Built;
    a failed build fails every test that asks for it, without rebuilding."""
    import json

    import kiln
    import pytest

    cache: dict = {}

    def get(stem: str) -> Built:
        if stem not in cache:
            out = tmp_path_factory.mktemp(f"kiln_{stem}")
            try:
                module = kiln.build(str(source_path(stem, out)), out_dir=str(out))
                report = json.loads((out / f"{stem}.kiln.json").read_text(encoding="utf-8"))
            except Exception as exc:  # remember the failure: build once only
                cache[stem] = exc
            else:
                cache[stem] = Built(module, report, out)
        entry = cache[stem]
        if isinstance(entry, Exception):
            pytest.fail(f"kiln.build({stem}.py) failed: {type(entry).__name__}: {entry}")
        return entry

    return get


def check_report_status(b: Built, stem: str, name: str, python_names) -> None:
    """The report's status of function name in b: "python" (KILN010, with a
    reason, the module exposing the Python function) for names in
    python_names, else "native" (the module exposing the native one, unless
    KILN_MODE=python)."""
    import os

    entry = b.by_name.get(name)
    assert entry is not None, f"{stem}.kiln.json has no entry for {name}"
    if name in python_names:
        assert entry.get("status") == "python", \
            f"{stem}.{name}: expected status 'python' (KILN010), got {entry.get('status')!r}"
        assert entry.get("code") == "KILN010", f"{stem}.{name}: {entry}"
        assert entry.get("reason"), f"{stem}.{name}: no reason: {entry}"
        assert getattr(b.module, name) is b.module.__kiln_python__[name], \
            f"{stem}.{name}: left as Python but the module does not expose the Python function"
    else:
        assert entry.get("status") == "native", \
            f"{stem}.{name}: expected status 'native', got {entry.get('status')!r} " \
            f"(reason: {entry.get('reason')!r})"
        if os.environ.get("KILN_MODE", "auto") != "python":
            assert getattr(b.module, name) is not b.module.__kiln_python__[name], \
                f"{stem}.{name}: reported native but the module exposes the Python function"
