"""tf.nn.softmax / tf.nn.log_softmax (and their tf.math names) over the last
axis on kiln's kernels (tests/tf_programs/tf_softmax.py), against eager TF.

A tensor of finite values (-inf elements too: 0, or -inf for log_softmax)
runs on kiln's softmax kernels: within a few ulp of TF's (rtol 1e-5;
log_softmax also within 1e-6 (1 + |x - max|) absolute, its values near 0
being differences). Where kiln's result holds a NaN (the tensor holds a NaN,
a +inf or a row of -inf), TF's own softmax answers: which elements come out
NaN, 0 or -inf there is TF's kernel's choice, so kiln's result is TF's bit
for bit."""
import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
from tests.test_elementwise import HERE, bits, build, emitted, salted  # noqa: E402

SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0), (1, 1000)]
NAMES_2D = ["sm_2d", "sm_axis", "sm_none", "lsm_2d"]
NAMES_1D = ["sm_math_1d", "lsm_math_1d"]


@pytest.fixture(scope="module")
def smod(tmp_path_factory):
    return build("tf_softmax", "tf_programs", tmp_path_factory)


def close(name, got, want, x, where):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, where
    if "lsm" in name:
        with np.errstate(invalid="ignore", over="ignore"):
            spread = np.abs(x - x.max(axis=-1, keepdims=True)) if x.size else x
            ok = (got == want) | (np.abs(got - want) <= 1e-5 * np.abs(want) + 1e-6 * (1 + spread))
        assert ok.all(), (where, got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, err_msg=str(where))


def tfs_own(a):
    """Whether eager TF answers: a NaN, a +inf or a row of -inf (a NaN in
    kiln's result)."""
    rows = a.reshape(-1, a.shape[-1]) if a.size else a
    return bool(np.isnan(a).any() or (a == np.inf).any() or (a.size and (rows == -np.inf).all(axis=-1).any()))


def test_sites_claimed(smod):
    _, report = smod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if "softmax" in (s["target"] or "")]
        assert sites and all(s["outcome"] == "claimed" for s in sites), (f["name"], f["sites"])
        rules |= {s["rule"] for s in sites}
    assert rules == {f"kiln-tensorflow/{k}-f32-cpu-{r}" for k in ("softmax", "log-softmax") for r in ("1d", "2d")}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_finite_values(smod, shape):
    mod, _ = smod
    py = mod.__kiln_python__
    for seed, scale in enumerate([1.0, 5.0, 30.0, 1e3, 1e-3, 3e37]):
        a = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)
        x, v = tf.constant(a), tf.constant(a[0] if shape[0] else a.reshape(-1)[:0])
        for name in NAMES_2D:
            close(name, getattr(mod, name)(x).numpy(), py[name](x).numpy(), a, (name, shape, scale))
        for name in NAMES_1D:
            close(name, getattr(mod, name)(v).numpy(), py[name](v).numpy(), v.numpy(), (name, shape, scale))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_nonfinite_is_tfs_own(smod, shape):
    mod, _ = smod
    py = mod.__kiln_python__
    for seed in (1, 2, 3):
        a = salted(shape, seed)
        x, v = tf.constant(a), tf.constant(a[0] if shape[0] else a.reshape(-1)[:0])
        for name, arg in [(n, x) for n in NAMES_2D] + [(n, v) for n in NAMES_1D]:
            got, want = getattr(mod, name)(arg).numpy(), py[name](arg).numpy()
            if not tfs_own(arg.numpy()):  # no NaN, no +inf, no row of -inf: the kernels'
                close(name, got, want, arg.numpy(), (name, shape, seed))
                continue
            assert got.shape == want.shape and (bits(got) == bits(want)).all(), (name, shape, seed)
    # one NaN, one inf, one -inf row among finite ones: TF's own
    if shape[0] >= 3 and shape[1] >= 2:
        a = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
        a[0, 0], a[1, 1], a[2, :] = np.nan, np.inf, -np.inf
        x = tf.constant(a)
        for name in NAMES_2D:
            got, want = getattr(mod, name)(x).numpy(), py[name](x).numpy()
            assert (bits(got) == bits(want)).all(), (name, shape)


def test_underflow_is_tfs(smod):
    """Eager TF's softmax (oneDNN's) gives 0 where x - max < -125 ln 2 (about
    -86.6434), also where e^(x - max) / sum is a normal float: its exp forms
    2 (2^(n-1) p), and 2^(n-1) p is subnormal there, flushed. kiln's zeros are
    TF's, both ways, over every float d in [-86.66, -86.62] (as [0, d] rows, in
    one long row, beside a -1) and at random spreads; the rest as
    test_finite_values. (difftest seed 4, batch 33: `(s - t) / t` after a
    softmax gave 7e37 where eager gives inf.)"""
    mod, _ = smod
    py = mod.__kiln_python__
    lo, hi = np.float32(-86.66).view(np.uint32), np.float32(-86.62).view(np.uint32)
    d = np.arange(hi, lo + 1, dtype=np.uint32).view(np.float32)
    rows = [np.stack([np.zeros_like(d), d], 1), np.stack([d, np.full_like(d, -1.0), np.zeros_like(d)], 1),
            np.concatenate([[0.0], d]).astype(np.float32)[None, :]]
    rng = np.random.default_rng(11)
    for scale in (20.0, 40.0, 80.0):
        rows.append((rng.standard_normal((64, 37)) * scale).astype(np.float32))
    for a in rows:
        x = tf.constant(a)
        for name in ("sm_2d", "sm_axis", "sm_none"):
            got, want = getattr(mod, name)(x).numpy(), py[name](x).numpy()
            assert ((got == 0) == (want == 0)).all(), (name, a.shape, a[(got == 0) != (want == 0)][:4])
            close(name, got, want, a, (name, a.shape))
        v = tf.constant(a[0])
        got, want = mod.sm_math_1d(v).numpy(), py["sm_math_1d"](v).numpy()
        assert ((got == 0) == (want == 0)).all() and np.allclose(got, want, rtol=1e-5, atol=0)
    assert (py["sm_2d"](tf.constant(rows[0])).numpy()[:, 1] == 0).sum() > 1000  # the rows reach the edge
    assert (py["sm_2d"](tf.constant(rows[0])).numpy()[:, 1] != 0).sum() > 1000


def test_heads(smod):
    mod, _ = smod
    py = mod.__kiln_python__
    rng = np.random.default_rng(3)
    for m, k, n in [(1, 4, 3), (8, 64, 10), (3, 17, 70), (16, 128, 64), (0, 5, 4)]:
        x = tf.constant(rng.standard_normal((m, k)).astype(np.float32))
        w = tf.constant(rng.standard_normal((k, n)).astype(np.float32))
        b = tf.constant(rng.standard_normal(n).astype(np.float32))
        for name in ("head", "head_scaled"):
            got, want = getattr(mod, name)(x, w, b).numpy(), py[name](x, w, b).numpy()
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=name)
    body = emitted(HERE / "tf_programs" / "tf_softmax.py")
    assert "kr->tensor_op(KR_OP_SOFTMAX," in body("sm_2d") and "kr->tensor_op(KR_OP_LOG_SOFTMAX," in body("lsm_2d")
    assert "kr->tensor_fused(" in body("head") and "kr->tensor_op(KR_OP_SOFTMAX," in body("head")


def test_eager_function_cached_once(tmp_path):
    """TF's own softmax is looked up on first use and kept: one reference,
    however many threads reach that first use together (its import can let
    another thread in) and however many calls follow."""
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent(f"""
        import sys, threading
        import numpy as np
        import tensorflow as tf
        import kiln
        mod = kiln.build({str(HERE / "tf_programs" / "tf_softmax.py")!r}, out_dir={str(tmp_path)!r})
        x = tf.constant(np.array([[1.0, np.nan, 2.0], [np.inf, 0.0, 1.0]], dtype=np.float32))
        import tensorflow.nn  # the module kiln imports: its dict refers to both
        tf.nn.softmax(x), tf.nn.log_softmax(x)  # TF's own first-call caches
        before = (sys.getrefcount(tf.nn.softmax), sys.getrefcount(tf.nn.log_softmax))
        go = threading.Barrier(8)
        def run():
            go.wait()
            for _ in range(20):
                mod.sm_2d(x)
                mod.lsm_2d(x)
        ts = [threading.Thread(target=run) for _ in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        after = (sys.getrefcount(tf.nn.softmax), sys.getrefcount(tf.nn.log_softmax))
        print(after[0] - before[0], after[1] - before[1])
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                         cwd=str(HERE.parent))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == ["1", "1"], out.stdout
