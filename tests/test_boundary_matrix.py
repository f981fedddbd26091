"""Boundary and lifetime matrix for compiled torch functions (and TF, briefly).

Each bad or unusual argument must give the documented error (DESIGN.md,
"Runtime errors") or eager's result, must leave the inputs untouched, and
must leak nothing: reference counts stay flat and RSS stays flat over 200,000
calls (tests/leakcheck.py does 1,000,000, run by `make leakcheck`).
Also: tensors whose last reference is dropped inside a Python-fallback call,
exceptions raised inside fallback sites (traceback entry at the .py line),
keyword misuse."""

from __future__ import annotations

import gc
import os
import pathlib
import sys
import textwrap
import traceback

import pytest

torch = pytest.importorskip("torch")

try:
    import kiln._compiler  # noqa: F401
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

import kiln

SRC = textwrap.dedent('''\
    import torch
    import torch.nn.functional as F
    from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D

    KEEP = []


    def lin(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
        return F.linear(x, w, b).relu()


    def add2(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return a + b


    def add1(a: TensorF32Cpu1D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
        return a + b


    def mm(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return a @ b


    def head(x: TensorF32Cpu2D) -> TensorF32Cpu1D:
        return x.sigmoid().mean(dim=1, keepdim=False)


    def stash(t):
        KEEP.append(t)


    def release():
        KEEP.clear()


    def stash_and_release(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
        h = a @ b
        stash(h)
        release()
        g = (h + a).relu()
        stash(g)
        release()
        return g + h


    def boom(n):
        raise ValueError("boom %d" % n)


    def raises_inside(x: TensorF32Cpu2D, n: int) -> TensorF32Cpu2D:
        h = x.relu()
        if n > 0:
            boom(n)
        return h


    def scalars(a: int, b: float = 2.5, *, c: bool = False) -> float:
        if c:
            return a * b
        return a + b
''')
RAISE_LINE = SRC.splitlines().index("        boom(n)") + 1


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    if os.environ.get("KILN_MODE", "auto") not in ("", "auto", "native"):
        pytest.skip("compares native code: run with KILN_MODE unset")
    d = tmp_path_factory.mktemp("boundary")
    (d / "kbound.py").write_text(SRC)
    m = kiln.build(str(d / "kbound.py"), out_dir=str(d))
    import json
    report = json.loads((d / "kbound.kiln.json").read_text())
    native = {f["name"] for f in report["functions"] if f["status"] == "native"}
    assert {"lin", "add2", "add1", "mm", "head", "stash_and_release", "raises_inside", "scalars"} <= native
    return m


def eager(mod, name):
    return mod.__kiln_python__[name]


def t2(m=3, n=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(m, n, generator=g)


def t1(n=4, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, generator=g)


def snapshot(args):
    return [(a, a.clone(), a.stride(), a.data_ptr()) if isinstance(a, torch.Tensor) else (a, None, None, None)
            for a in args]


def assert_untouched(snap):
    for a, copy, stride, ptr in snap:
        if copy is None:
            continue
        assert a.stride() == stride and a.data_ptr() == ptr
        if a.device.type == "meta":
            continue
        assert torch.equal(a, copy) or (a.isnan() == copy.isnan()).all() and \
            torch.equal(torch.nan_to_num(a), torch.nan_to_num(copy))


def same_outcome(mod, name, args, kwargs=None):
    """Native and eager agree: equal results, or the same exception type."""
    kwargs = kwargs or {}
    snap = snapshot(list(args) + list(kwargs.values()))
    try:
        want = eager(mod, name)(*args, **kwargs)
        want_exc = None
    except Exception as e:  # noqa: BLE001
        want, want_exc = None, e
    try:
        got = getattr(mod, name)(*args, **kwargs)
        got_exc = None
    except Exception as e:  # noqa: BLE001
        got, got_exc = None, e
    assert_untouched(snap)
    return want, want_exc, got, got_exc


# ---- bad arguments: the documented errors ------------------------------------

class DispatchWrapper(torch.Tensor):
    """A __torch_dispatch__ wrapper subclass: no data of its own."""

    @staticmethod
    def __new__(cls, inner):
        return torch.Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError(f"DispatchWrapper: {func}")


class FunctionLogged(torch.Tensor):
    """A __torch_function__ subclass: a plain tensor underneath, but eager
    would call this hook on every operation and kiln's native code cannot."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


class PlainSubclass(torch.Tensor):
    """A subclass that redefines nothing."""


def shrunk(nbytes):
    """A 3x4 tensor whose storage was resized to nbytes afterwards (FSDP frees
    parameters this way); eager torch reads past the storage's end."""
    t = t2()
    t.untyped_storage().resize_(nbytes)
    return t


BAD_2D = [
    # (id, value, exception, message fragments)
    ("none", None, TypeError, ["kiln-torch:", "'a'", "expected a torch.Tensor"]),
    ("int", 3, TypeError, ["kiln-torch:", "'a'", "expected a torch.Tensor"]),
    ("list", [[1.0]], TypeError, ["kiln-torch:", "'a'", "expected a torch.Tensor"]),
    ("ndarray", "numpy", TypeError, ["kiln-torch:", "'a'", "expected a torch.Tensor"]),
    ("float64", lambda: t2().double(), ValueError, ["'a'", "expected a float32 tensor", "float64"]),
    ("float16", lambda: t2().half(), ValueError, ["'a'", "expected a float32 tensor", "float16"]),
    ("bfloat16", lambda: t2().bfloat16(), ValueError, ["'a'", "expected a float32 tensor", "bfloat16"]),
    ("int64", lambda: torch.ones(3, 4, dtype=torch.int64), ValueError, ["'a'", "expected a float32 tensor"]),
    ("bool", lambda: torch.ones(3, 4, dtype=torch.bool), ValueError, ["'a'", "expected a float32 tensor"]),
    ("complex", lambda: torch.ones(3, 4, dtype=torch.complex64), ValueError, ["'a'", "expected a float32 tensor"]),
    ("meta", lambda: torch.empty(3, 4, device="meta"), ValueError, ["'a'", "expected a CPU tensor"]),
    ("rank0", lambda: torch.tensor(1.0), ValueError, ["'a'", "expected rank-2 tensor, got rank 0"]),
    ("rank1", lambda: t1(), ValueError, ["'a'", "expected rank-2 tensor, got rank 1"]),
    ("rank3", lambda: torch.ones(2, 3, 4), ValueError, ["'a'", "expected rank-2 tensor, got rank 3"]),
]


def _value(v):
    if v == "numpy":
        np = pytest.importorskip("numpy")
        return np.ones((3, 4), dtype=np.float32)
    return v() if callable(v) else v


@pytest.mark.parametrize("case", BAD_2D, ids=[c[0] for c in BAD_2D])
@pytest.mark.parametrize("position", [0, 1])
def test_bad_argument(mod, case, position):
    _, value, exc, fragments = case
    value = _value(value)
    args = [t2(), t2(seed=5)]
    args[position] = value
    snap = snapshot(args)
    before = sys.getrefcount(value)
    with pytest.raises(exc) as info:
        mod.add2(*args)
    msg = str(info.value)
    name = "'a'" if position == 0 else "'b'"
    for f in fragments:
        assert f.replace("'a'", name) in msg or f.replace("'a'", name.strip("'")) in msg, (f, msg)
    del info
    assert_untouched(snap)
    gc.collect()
    if value is not None and not isinstance(value, int):  # shared objects: counts move
        assert sys.getrefcount(value) == before


# Arguments kiln cannot compute with as eager would, several of which eager
# torch itself cannot even read safely (so no snapshot/clone of them):
# refused before any data is touched, in either position.
REFUSED = [
    ("dispatch_subclass", lambda: DispatchWrapper(t2()), TypeError, "DispatchWrapper defines __torch_dispatch__"),
    ("function_subclass", lambda: t2().as_subclass(FunctionLogged), TypeError,
     "FunctionLogged defines __torch_function__"),
    ("storage_shrunk", lambda: shrunk(40), ValueError, "extend past the end of its storage"),
    ("storage_freed", lambda: shrunk(0), ValueError, "storage"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
@pytest.mark.parametrize("position", [0, 1])
def test_argument_kiln_cannot_honour_is_refused(mod, case, position):
    name, make, exc, fragment = case
    import kiln._runtime as rt
    if name == "storage_shrunk" and rt.boundary_paths()["torch_direct"] != "on":
        pytest.skip("a shrunk storage is only detected by the direct read (its size is not in DLPack)")
    value = make()
    args = [t2(), t2(seed=5)]
    args[position] = value
    before = sys.getrefcount(value)
    for _ in range(100):
        with pytest.raises(exc) as info:
            mod.add2(*args)
        assert "kiln-torch:" in str(info.value) and fragment in str(info.value), str(info.value)
        assert ("'a'" if position == 0 else "'b'") in str(info.value)
    del info
    gc.collect()
    assert sys.getrefcount(value) == before


def test_error_paths_do_not_leak_refs(mod):
    good, bad = t2(), t2().double()
    refs = (sys.getrefcount(good), sys.getrefcount(bad))
    for _ in range(2000):
        with pytest.raises(ValueError):
            mod.add2(good, bad)
        with pytest.raises(TypeError):
            mod.add2(good, None)
        with pytest.raises(RuntimeError):
            mod.add2(good, t2(4, 5))
    assert (sys.getrefcount(good), sys.getrefcount(bad)) == refs


# ---- unusual but valid arguments: eager's result ------------------------------

def _unusual():
    base = torch.randn(6, 8)
    return {
        "transposed": (base.t(), torch.randn(8, 6)),
        "sliced_rows": (base[::2], torch.randn(3, 8)),
        "sliced_cols": (base[:, 1:7:2], torch.randn(6, 3)),
        "expanded_row": (torch.randn(1, 8).expand(6, 8), base),
        "expanded_zero_stride": (torch.tensor(2.0).expand(6, 8), base),
        "zero_rows": (torch.empty(0, 8), torch.empty(0, 8)),
        "zero_cols": (torch.empty(6, 0), torch.empty(6, 0)),
        "zero_zero": (torch.empty(0, 0), torch.empty(0, 0)),
        "broadcast_1xn": (torch.randn(1, 8), base),
        "broadcast_mismatch": (torch.randn(5, 8), base),
        "nan_inf": (torch.tensor([[float("nan"), float("inf")], [-0.0, -float("inf")]]),
                    torch.tensor([[1.0, -float("inf")], [0.0, 1.0]])),
        "requires_grad": (torch.randn(6, 8, requires_grad=True), base),
        "parameter": (torch.nn.Parameter(torch.randn(6, 8)), base),
        "plain_subclass": (torch.randn(6, 8).as_subclass(PlainSubclass), base),
        "storage_offset": (torch.randn(100)[10:58].view(6, 8), base),
        "channels_last_like": (torch.randn(8, 6).t().contiguous().t(), base),
    }


UNUSUAL = _unusual()


@pytest.mark.parametrize("name", sorted(UNUSUAL))
@pytest.mark.parametrize("fn", ["add2", "mm_t", "head"])
def test_unusual_arguments_match_eager(mod, name, fn):
    a, b = UNUSUAL[name]
    if fn == "head":
        args, fname = (a,), "head"
    elif fn == "mm_t":
        args, fname = (a, b.t()), "mm"
    else:
        args, fname = (a, b), "add2"
    want, want_exc, got, got_exc = same_outcome(mod, fname, args)
    if want_exc is not None:
        assert got_exc is not None and type(got_exc) is type(want_exc) or \
            isinstance(got_exc, RuntimeError), (want_exc, got_exc)
        return
    assert got_exc is None, got_exc
    assert got.dtype == torch.float32 and got.device.type == "cpu" and got.shape == want.shape
    assert not got.requires_grad
    torch.testing.assert_close(got, want.detach(), rtol=1e-5, atol=1e-5, equal_nan=True)


def test_aliasing_same_tensor_in_every_parameter(mod):
    x = torch.randn(5, 5)
    snap = snapshot([x])
    for fn, args in (("add2", (x, x)), ("mm", (x, x)), ("lin", (x, x, x[0])),
                     ("stash_and_release", (x, x))):
        want = eager(mod, fn)(*args)
        got = getattr(mod, fn)(*args)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        assert got.data_ptr() != x.data_ptr()
    assert_untouched(snap)
    # an output never aliases an input, even when the function is the identity-like add of views
    v = x[1:3]
    out = mod.add2(v, v)
    assert out.data_ptr() not in (x.data_ptr(), v.data_ptr())


def test_tensors_released_inside_fallback(mod):
    """stash_and_release boxes native intermediates into Python, where a global
    list holds and then drops them, and keeps using them natively afterwards."""
    a, b = torch.randn(7, 7), torch.randn(7, 7)
    want = eager(mod, "stash_and_release")(a, b)
    for _ in range(200):
        got = mod.stash_and_release(a, b)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    refs = sys.getrefcount(a), sys.getrefcount(b)
    for _ in range(500):
        mod.stash_and_release(a, b)
    assert (sys.getrefcount(a), sys.getrefcount(b)) == refs
    assert mod.KEEP == [] if hasattr(mod, "KEEP") else True


def test_caller_reference_dropped_during_call(mod):
    """The only named reference to the argument is a global list that a
    fallback site clears; the call's own reference keeps it alive."""
    keep = mod.KEEP if hasattr(mod, "KEEP") else None
    if keep is None:
        pytest.skip("module globals are not shared")
    keep.append(torch.randn(4, 4))
    out = mod.stash_and_release(keep[0], torch.eye(4))
    assert out.shape == (4, 4) and keep == []


def test_exception_inside_fallback_site(mod):
    x = torch.randn(3, 3)
    refs = sys.getrefcount(x)
    with pytest.raises(ValueError, match="boom 7") as info:
        mod.raises_inside(x, 7)
    tb = traceback.extract_tb(info.value.__traceback__)
    here = [f for f in tb if f.filename.endswith("kbound.py")]
    assert any(f.lineno == RAISE_LINE and f.name == "raises_inside" for f in here), tb
    # the raising function's own frame is there too
    assert any(f.name == "boom" for f in here), tb
    del info
    for _ in range(1000):
        with pytest.raises(ValueError):
            mod.raises_inside(x, 1)
    gc.collect()
    assert sys.getrefcount(x) == refs
    torch.testing.assert_close(mod.raises_inside(x, 0), x.relu())


KW_CASES = [
    ("all_keywords", (), {"x": "X", "w": "W", "b": "B"}),
    ("mixed", ("X",), {"w": "W", "b": "B"}),
    ("duplicate", ("X", "W", "B"), {"x": "X"}),
    ("unexpected", ("X", "W", "B"), {"bias": "B"}),
    ("missing", ("X", "W"), {}),
    ("too_many", ("X", "W", "B", "B"), {}),
    ("none_for_bias", ("X", "W"), {"b": None}),
    ("empty", (), {}),
]


@pytest.mark.parametrize("case", KW_CASES, ids=[c[0] for c in KW_CASES])
def test_keyword_misuse(mod, case):
    _, args, kwargs = case
    vals = {"X": torch.randn(3, 4), "W": torch.randn(5, 4), "B": torch.randn(5)}
    args = tuple(vals[a] for a in args)
    kwargs = {k: (vals[v] if v is not None else None) for k, v in kwargs.items()}
    want, want_exc, got, got_exc = same_outcome(mod, "lin", args, kwargs)
    if want_exc is not None:
        assert type(got_exc) is type(want_exc), (want_exc, got_exc)
    elif "b" in kwargs and kwargs["b"] is None:
        # eager F.linear accepts bias=None; the marker promises a tensor: documented TypeError
        assert isinstance(got_exc, TypeError) and "'b'" in str(got_exc), got_exc
    else:
        assert got_exc is None
        torch.testing.assert_close(got, want)


SCALAR_KW = [((1,), {}), ((1, 0.5), {}), ((2,), {"c": True}), ((), {"a": 3, "b": 1.5}),
             ((1,), {"a": 2}), ((1, 2.0, True), {}), ((), {}), ((1,), {"d": 1}),
             (("x",), {}), ((1, "y"), {}), ((2**70,), {}), ((True,), {"b": 3})]


@pytest.mark.parametrize("args,kwargs", SCALAR_KW)
def test_scalar_keyword_misuse(mod, args, kwargs):
    want, want_exc, got, got_exc = same_outcome(mod, "scalars", args, kwargs)
    if want_exc is None and isinstance(got_exc, OverflowError):
        assert "int64" in str(got_exc) or "64-bit" in str(got_exc)  # documented: int is int64
    elif want_exc is None:
        assert got_exc is None and got == want, (got_exc, got, want)
    else:
        # annotated parameters are checked on entry (TypeError/OverflowError where eager may succeed)
        assert got_exc is not None and isinstance(got_exc, (type(want_exc), TypeError, OverflowError))


def test_rank_and_shape_errors_name_the_py_line(mod):
    with pytest.raises(RuntimeError) as info:
        mod.add2(torch.randn(2, 3), torch.randn(4, 5))
    msg = str(info.value)
    assert "kbound.py" in msg and "2, 3" in msg.replace("[", "").replace("(", "") and "4, 5" in msg.replace("[", "")
    with pytest.raises(RuntimeError):
        mod.mm(torch.randn(2, 3), torch.randn(4, 5))
    with pytest.raises(RuntimeError):
        mod.lin(torch.randn(2, 3), torch.randn(4, 5), torch.randn(4))


# ---- no leaks ------------------------------------------------------------------

def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
@pytest.mark.skipif(os.environ.get("KILN_SANITIZE") == "1",
                    reason="ASan keeps freed memory in quarantine: RSS grows by design")
def test_rss_flat_over_200k_calls(mod):
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    bias = torch.randn(4)
    bad = a.double()
    refs = [sys.getrefcount(t) for t in (a, b, bias)]

    def burst(n):
        for i in range(n):
            mod.lin(a, b, bias)
            mod.add2(a, b)
            if i % 16 == 0:
                mod.stash_and_release(a, b)
                try:
                    mod.add2(a, bad)
                except ValueError:
                    pass
                try:
                    mod.raises_inside(a, 1)
                except ValueError:
                    pass
            mod.scalars(i, 0.5)
    burst(20_000)  # warm up allocators and caches
    gc.collect()
    start = rss_bytes()
    burst(200_000)
    gc.collect()
    grown = rss_bytes() - start
    assert [sys.getrefcount(t) for t in (a, b, bias)] == refs
    # a leak of even one 4x4 float32 tensor (64 B + headers) per call is > 20 MB here
    assert grown < 8 * 1024 * 1024, f"RSS grew by {grown / 1e6:.1f} MB over 200,000 calls"


# ---- TensorFlow, briefly ---------------------------------------------------------

TF_SRC = textwrap.dedent('''\
    import tensorflow as tf
    from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D


    def tadd(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return tf.add(a, b)
''')


def test_tensorflow_bad_arguments(tmp_path):
    if os.environ.get("KILN_BOUNDARY_TF", "1") == "0":
        pytest.skip("disabled")
    tf = pytest.importorskip("tensorflow")
    (tmp_path / "ktfbound.py").write_text(TF_SRC)
    m = kiln.build(str(tmp_path / "ktfbound.py"), out_dir=str(tmp_path))
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    torch_t = torch.ones(2, 2)
    for bad, exc, frag in ((None, TypeError, "expected a TensorFlow EagerTensor"),
                           (torch_t, TypeError, "expected a TensorFlow EagerTensor"),
                           (tf.constant([[1.0, 2.0]], dtype=tf.float64), ValueError, "expected a float32 tensor"),
                           (tf.constant([1.0, 2.0]), ValueError, "expected rank-2 tensor, got rank 1")):
        with pytest.raises(exc, match=frag):
            m.tadd(a, bad)
    refs = sys.getrefcount(a)
    for _ in range(2000):
        m.tadd(a, a)
        with pytest.raises(TypeError):
            m.tadd(a, None)
    assert sys.getrefcount(a) == refs
    assert (m.tadd(a, a).numpy() == (a + a).numpy()).all()
