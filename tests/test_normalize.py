"""F.normalize(x, p=2, dim=last, eps) on kiln's kernels
(tests/torch_programs/tp_normalize.py) against eager torch: x / max(norm,
eps) with the norm a float32 sum of squares (eager's too, in another order:
within a few ulp), eps taken as clamp_min takes its bound (NaN: all NaN;
past float32's range: eager's RuntimeError), the division bit for bit with
eager's NaNs; zero rows, huge rows (the norm overflows to inf, as eager's)
and NaN / inf rows as eager's."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import HERE, bits, build, emitted, layouts, salted, same_result_or_error  # noqa: E402
from tests.test_math_ops import assert_close_ulps  # noqa: E402

SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (3, 300), (0, 4), (4, 0)]


@pytest.fixture(scope="module")
def nmod(tmp_path_factory):
    return build("tp_normalize", "torch_programs", tmp_path_factory)


def test_sites_claimed(nmod):
    _, report = nmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] == "torch.nn.functional.normalize"]
        assert sites, f["name"]
        want = "not-covered" if f["name"].startswith("n_") else "claimed"
        assert all(s["outcome"] == want for s in sites), (f["name"], sites)
        rules |= {s["rule"] for s in sites}
    assert {"kiln-torch/function-normalize-f32-cpu-1d", "kiln-torch/function-normalize-f32-cpu-2d"} <= rules


def rows(shape, seed):
    """Normal rows, and salted ones: zeros of both signs, NaN, inf, huge (the
    sum of squares overflows), tiny (it underflows to 0)."""
    a = salted(shape, seed)
    m, n = shape
    rng = np.random.default_rng(seed)
    for i in range(m):
        if n and i % 4 == 1:
            a[i] = rng.standard_normal(n).astype(np.float32)  # a clean row among salted ones
        if n and i % 5 == 2:
            a[i] = np.where(np.arange(n) % 2, -0.0, 0.0)
    return a


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_values(nmod, shape):
    mod, _ = nmod
    py = mod.__kiln_python__
    for layout, x in layouts(rows(shape, 9)):
        v = x[0] if shape[0] else x.reshape(-1)[:0]
        # NaN-ness and infinities exact, the rest within 4 ulp (the norm's rounding, one division)
        assert_close_ulps(mod.nz_default(x).numpy(), py["nz_default"](x).numpy(), 4, ("nz_default", layout))
        for eps in (1e-12, 0.0, 1.0, 1e-45, 3e38):
            assert_close_ulps(mod.nz_kw(x, eps).numpy(), py["nz_kw"](x, eps).numpy(), 4, ("nz_kw", layout, eps))
        for eps in (0, 1, 2 ** 40):
            assert_close_ulps(mod.nz_pos(x, eps).numpy(), py["nz_pos"](x, eps).numpy(), 4, ("nz_pos", layout, eps))
        assert_close_ulps(mod.nz_1d(v).numpy(), py["nz_1d"](v).numpy(), 4, ("nz_1d", layout))


def test_eps_as_clamp_min(nmod):
    mod, _ = nmod
    py = mod.__kiln_python__
    x = torch.from_numpy(rows((5, 7), 3))
    got, want = mod.nz_kw(x, float("nan")), py["nz_kw"](x, float("nan"))
    assert np.isnan(got.numpy()).all() and (bits(got.numpy()) == bits(want.numpy())).all()
    for eps in (1e40, -1e39):
        with pytest.raises(RuntimeError) as w:
            py["nz_kw"](x, eps)
        with pytest.raises(RuntimeError) as g:
            mod.nz_kw(x, eps)
        assert str(g.value) == str(w.value)


def test_cosine(nmod):
    mod, _ = nmod
    py = mod.__kiln_python__
    for m, n, k in [(1, 8, 5), (16, 64, 100), (0, 4, 3)]:
        g = torch.Generator().manual_seed(m + n + k)
        q, keys = torch.randn(m, n, generator=g), torch.randn(k, n, generator=g)
        torch.testing.assert_close(mod.cosine(q, keys), py["cosine"](q, keys), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["n_dim0", "n_p1", "n_1d_default", "n_out"])
def test_left_to_eager(nmod, name):
    mod, _ = nmod
    py = mod.__kiln_python__
    x = torch.randn(3, 4)
    args = {"n_1d_default": (torch.randn(4),), "n_out": (x, torch.empty(3, 4))}.get(name, (x,))
    same_result_or_error(getattr(mod, name), py[name], args, torch.testing.assert_close)


def test_emitted():
    body = emitted(HERE / "torch_programs" / "tp_normalize.py")
    assert "kr->tensor_normalize((KrTensor *)lv_0, KR_EW_FLOAT, 1e-12, 0," in body("nz_default")
    assert "KR_EW_INT" in body("nz_pos") and body("cosine").count("kr->tensor_normalize(") == 2
    assert "kr->tensor_normalize(" not in body("n_dim0")
