"""Result reuse (runtime/torch_bridge.c, "result reuse"): a small result
tensor that only kiln's cache still references, unchanged since it was made,
is refilled and returned again instead of a new tensor being made.

Every test compares against eager torch, and checks that whatever the
caller can still reach (the result itself, a view, its storage, a NumPy
array, a DLPack capsule, autograd's saved copy, a weak reference) keeps the
values and state it had, and that a later result is as fresh as eager's."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import weakref

import pytest

torch = pytest.importorskip("torch")
try:
    import kiln._compiler  # noqa: F401
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

import kiln
import kiln._runtime as rt
from oracle import EAGER_ACTIVATION_INACCURATE, check_activation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# First on a subprocess's PYTHONPATH: it imports this checkout's kiln, not an installed one.
ROOT_PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

SRC = """\
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
    return (x @ w + b).relu().mean(dim=1, keepdim=False)


def act(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
    return x.sigmoid()


def negate_in_python(a: TensorF32Cpu2D, b: TensorF32Cpu2D) -> TensorF32Cpu2D:
    h = a @ b
    h.mul_(-1.0)       # a fallback site: h is boxed, changed in place by torch
    return h.sigmoid()  # native again: must see the change
"""


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    if os.environ.get("KILN_MODE", "auto") not in ("", "auto", "native"):
        pytest.skip("these tests need native code: run with KILN_MODE unset")
    out = tmp_path_factory.mktemp("reuse")
    src = out / "reuse_model.py"
    src.write_text(SRC)
    mod = kiln.build(src, out_dir=out)
    mod.act(torch.zeros(1, 1))  # resolves torch in the runtime
    if rt.boundary_paths()["torch_reuse"] != "on":
        pytest.skip(f"result reuse is {rt.boundary_paths()['torch_reuse']}")
    return mod


def gen(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def eager_head(x, w, b):
    return (x @ w + b).relu().mean(dim=1)


def test_reuse_is_on_for_this_torch(m):
    assert rt.boundary_paths()["torch_reuse"] == "on"


@pytest.mark.parametrize("M,K,N", [(1, 32, 32), (8, 64, 64), (16, 128, 64), (3, 5, 7), (256, 4, 4)])
def test_dropped_results_are_refilled_correctly(m, M, K, N):
    w, b = gen(1, K, N), gen(2, N)
    ids = []
    reused = rt.buffer_stats()["reused_results"]
    for i in range(8):
        x = gen(10 + i, M, K)
        got = m.head(x, w, b)
        torch.testing.assert_close(got, eager_head(x, w, b), rtol=1e-5, atol=1e-5)
        assert got.shape == (M,) and got._version == 0 and not got.requires_grad
        ids.append(id(got))
        del got
    assert len(set(ids)) <= 2, "a dropped small result was not reused"
    # the count, not only the ids: a new tensor may land at a freed address
    assert rt.buffer_stats()["reused_results"] - reused >= 7


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (1, 5), (5, 1)])
def test_column_major_results_are_refilled_too(m, shape):
    """A transposed operand gives a column-major result, as eager's; such
    results are kept and refilled as row-major ones are, strides and all,
    and never handed out for a row-major result."""
    for i in range(6):
        x = gen(30 + i, shape[1], shape[0]).t()
        before = rt.buffer_stats()["reused_results"]
        got, want = m.act(x), torch.sigmoid(x)
        if i:  # the one dropped in the last round
            assert rt.buffer_stats()["reused_results"] - before == 1
        assert got.stride() == want.stride() or min(shape) == 1
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
        del got
        y = gen(40 + i, *shape)
        again = m.act(y)
        assert again.stride() == torch.sigmoid(y).stride()
        torch.testing.assert_close(again, torch.sigmoid(y), rtol=1e-6, atol=1e-6)
        del again


def test_results_still_referenced_are_never_overwritten(m):
    w, b = gen(1, 16, 8), gen(2, 8)
    xs = [gen(100 + i, 4, 16) for i in range(40)]
    kept = [m.head(x, w, b) for x in xs]  # all alive at once
    prev = m.head(xs[0], w, b)
    for x in xs[1:]:
        cur = m.head(x, w, b)  # `prev` is still bound while this runs
        assert cur is not prev
        prev = cur
    for x, r in zip(xs, kept):
        torch.testing.assert_close(r, eager_head(x, w, b), rtol=1e-5, atol=1e-5)
    assert len({id(r) for r in kept}) == len(kept)


# Each holder keeps something that reaches the result (or its memory) after
# the caller drops the result itself; `see` reads what the holder sees.
HOLDERS = {
    "view": (lambda r: r[1:], lambda h: h.clone()),
    "storage": (lambda r: r.untyped_storage(),
                lambda h: torch.tensor([], dtype=torch.float32).set_(h)[:6].clone()),
    "numpy": (lambda r: r.numpy(), lambda h: torch.from_numpy(h.copy())),
    "dlpack": (lambda r: torch.utils.dlpack.to_dlpack(r), None),
    "list": (lambda r: [r], lambda h: h[0].clone()),
    "weakref": (lambda r: weakref.ref(r), lambda h: h().clone() if h() is not None else None),
}


@pytest.mark.parametrize("kind", sorted(HOLDERS))
def test_whatever_still_reaches_a_result_keeps_its_values(m, kind):
    hold, see = HOLDERS[kind]
    x0 = gen(5, 6, 3)
    r = m.act(x0)
    want = r.clone()
    # sigmoid: float64 truth first, eager while it is accurate (oracle.check_activation)
    eager_ok = check_activation(want, x0, "sigmoid", rtol=1e-6, atol=1e-6)
    holder = hold(r)
    before = see(holder) if see else None
    del r
    for i in range(6):
        x = gen(20 + i, 6, 3)
        eager_ok &= check_activation(m.act(x), x, "sigmoid", rtol=1e-6, atol=1e-6)
    if kind == "dlpack":
        torch.testing.assert_close(torch.from_dlpack(holder), want, rtol=0, atol=0)
    else:
        after = see(holder)
        if after is not None:  # a weak referent may since have died: see below
            torch.testing.assert_close(after, before, rtol=0, atol=0)
    if not eager_ok:
        pytest.skip(EAGER_ACTIVATION_INACCURATE)


def test_autograd_saved_result_is_not_overwritten(m):
    x0 = gen(6, 4, 5)
    r = m.act(x0)
    want = r.clone()
    w = torch.ones(4, 5, requires_grad=True)
    z = (w * r).sum()  # autograd saves r for w's gradient
    del r
    for i in range(6):
        m.act(gen(30 + i, 4, 5))
    z.backward()
    torch.testing.assert_close(w.grad, want, rtol=0, atol=0)


# Changes the caller makes before dropping a result: the next result must be
# as fresh as eager's (no version bump, no grad, no attribute, same strides).
CHANGES = {
    "add_": lambda r: r.add_(1.0),
    "requires_grad_": lambda r: r.requires_grad_(),
    "attribute": lambda r: setattr(r, "tag", 1),
    "t_": lambda r: r.t_(),
    "fill_": lambda r: r.fill_(7.0),
}


@pytest.mark.parametrize("kind", sorted(CHANGES))
def test_a_result_changed_before_it_was_dropped_is_not_handed_out(m, kind):
    x = gen(7, 3, 3)
    for _ in range(3):  # a kept, reusable result of this shape exists
        m.act(x)
    r = m.act(x)
    CHANGES[kind](r)
    del r
    eager_ok = True
    for i in range(6):
        x = gen(40 + i, 3, 3)
        got, want = m.act(x), torch.sigmoid(x)
        # values: float64 truth first, eager while it is accurate (oracle.check_activation)
        eager_ok &= check_activation(got, x, "sigmoid", rtol=1e-6, atol=1e-6)
        assert (got._version, got.requires_grad, got.stride()) == \
            (want._version, want.requires_grad, want.stride())
        assert not hasattr(got, "tag")
    if not eager_ok:
        pytest.skip(EAGER_ACTIVATION_INACCURATE)


def test_inference_mode_matches_eager(m):
    x = gen(8, 2, 7)
    for _ in range(3):
        m.act(x)
    with torch.inference_mode():
        got = m.act(x)
        assert got.is_inference() == torch.sigmoid(x).is_inference() is True
        del got
        got = m.act(x)
        assert got.is_inference()
        del got
    got = m.act(x)
    assert not got.is_inference()
    # float64 truth first, eager while it is accurate (oracle.check_activation)
    if not check_activation(got, x, "sigmoid", rtol=1e-6, atol=1e-6):
        pytest.skip(EAGER_ACTIVATION_INACCURATE)


def test_a_weakly_referenced_result_dies_at_the_next_small_result(m):
    """The one postponement reuse allows: a kept result that is weakly
    referenced when its last reference goes dies at the next small result."""
    died = []
    x = gen(9, 5, 2)
    r = m.act(x)
    ref = weakref.ref(r, lambda _: died.append(1))
    del r
    m.act(gen(10, 1, 1))
    assert ref() is None and died == [1]


def test_large_results_are_not_kept(m):
    x = gen(11, 64, 32)  # 8 KiB: above the 4 KiB reuse limit
    r = m.act(x)
    ref = weakref.ref(r)
    del r
    assert ref() is None


def test_native_code_sees_fallback_changes_to_a_refilled_result(m):
    a, b = gen(12, 3, 4), gen(13, 4, 5)
    eager_ok = True
    for i in range(8):
        a = gen(50 + i, 3, 4)
        # sigmoid: float64 truth first, eager while it is accurate (oracle.check_activation)
        eager_ok &= check_activation(m.negate_in_python(a, b), -(a @ b), "sigmoid", rtol=1e-5, atol=1e-6)
    if not eager_ok:
        pytest.skip(EAGER_ACTIVATION_INACCURATE)


def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=ROOT_PYTHONPATH, **env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=e,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_kill_switch_and_first_use_inside_inference_mode():
    probe = """
        import torch, kiln._runtime as rt
        {ctx}
            out = rt.boundary_paths()
        print(out['torch_direct'], '|', out['torch_reuse'])
    """
    # the calibrations run with InferenceMode off even when kiln first meets
    # torch inside `with torch.inference_mode()` (they used to fail there)
    inside = _run(probe.format(ctx="with torch.inference_mode():"))
    assert inside == "on | on"
    off = _run(probe.format(ctx="if True:"), KILN_TORCH_REUSE="0")
    assert off == "on | off (KILN_TORCH_REUSE=0)"
    nodirect = _run(probe.format(ctx="if True:"), KILN_TORCH_DIRECT="0")
    assert nodirect == "off (KILN_TORCH_DIRECT=0) | off (needs the direct read)"
