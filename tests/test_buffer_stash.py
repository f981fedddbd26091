"""The buffer stash (runtime/runtime.c, "A lane in front of the pool"): a
kiln tensor that dies holding the only reference to its buffer hands it to
the next new tensor of its size class. A loop-carried tensor then reuses one
buffer per iteration; a buffer anything else still references (a tensor
handed to Python, kept in a list, returned) must never be handed on.

Every test compares against eager torch."""
from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
try:
    import kiln._compiler  # noqa: F401
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

import kiln
import kiln._runtime as rt

SRC = """\
from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D


def chain(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, n: int) -> TensorF32Cpu2D:
    h = x
    for i in range(n):
        if i % 2 == 0:
            h = (h @ w + b).relu()
        else:
            h = (h @ w + b).sigmoid()
    return h


def keep_every_layer(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D, n: int) -> list:
    kept = []
    h = x
    for i in range(n):
        h = (h @ w + b).relu()
        kept.append(h)
    return kept


def keep_and_continue(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
    first = (x @ w + b).relu()
    second = (first @ w + b).relu()
    first = (second @ w + b).relu()
    return first - second
"""


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    if os.environ.get("KILN_MODE", "auto") not in ("", "auto", "native"):
        pytest.skip("these tests need native code: run with KILN_MODE unset")
    out = tmp_path_factory.mktemp("stash")
    src = out / "stash_model.py"
    src.write_text(SRC)
    return kiln.build(src, out_dir=out)


def gen(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def close(got, want):
    # eager's sigmoid and kiln's agree within float32 rounding, layer after layer
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def eager_chain(x, w, b, n):
    h = x
    for i in range(n):
        h = (h @ w + b).relu() if i % 2 == 0 else (h @ w + b).sigmoid()
    return h


@pytest.mark.parametrize("M,N", [(1, 1), (1, 16), (8, 64), (4, 32), (16, 128), (3, 7), (64, 256)])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16])
def test_loop_carried_tensor_matches_eager(m, M, N, n):
    x, w, b = gen(1, M, N), gen(2, N, N) / N ** 0.5, gen(3, N)
    for _ in range(3):  # later calls run on stashed buffers
        got = m.chain(x, w, b, n)
        close(got, eager_chain(x, w, b, n))


@pytest.mark.parametrize("M,N", [(1, 8), (8, 64), (5, 33)])
def test_tensors_kept_in_a_list_are_not_reused(m, M, N):
    x, w, b = gen(4, M, N), gen(5, N, N) / N ** 0.5, gen(6, N)
    kept = m.keep_every_layer(x, w, b, 6)
    h, want = x, []
    for _ in range(6):
        h = (h @ w + b).relu()
        want.append(h)
    assert len(kept) == 6
    for got, ref in zip(kept, want):
        close(got, ref)
    # the kept tensors own their memory: more calls do not change them
    snapshot = [t.clone() for t in kept]
    for _ in range(3):
        m.keep_every_layer(x, w, b, 6)
        m.chain(x, w, b, 4)
    for got, ref in zip(kept, snapshot):
        assert torch.equal(got, ref)


def test_rebinding_a_live_name_keeps_the_value_it_reads(m):
    x, w, b = gen(7, 8, 64), gen(8, 64, 64) / 8, gen(9, 64)
    first = (x @ w + b).relu()
    second = (first @ w + b).relu()
    want = (second @ w + b).relu() - second
    for _ in range(3):
        close(m.keep_and_continue(x, w, b), want)


def test_returned_results_stay_distinct(m):
    x, w, b = gen(10, 8, 64), gen(11, 64, 64) / 8, gen(12, 64)
    results = [m.chain(x + i, w, b, 3) for i in range(4)]
    for i, got in enumerate(results):
        close(got, eager_chain(x + i, w, b, 3))
    assert len({r.data_ptr() for r in results}) == 4


def test_idle_bytes_count_the_stash(m):
    x, w, b = gen(13, 8, 64), gen(14, 64, 64) / 8, gen(15, 64)
    m.chain(x, w, b, 4)
    assert 0 < rt.buffer_stats()["idle_bytes"] <= 32 << 20
