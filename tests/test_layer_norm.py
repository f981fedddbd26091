"""F.layer_norm on kiln's kernels (tests/torch_programs/tp_layer_norm.py)
against eager torch. Each row's mean and variance are computed in double
(kk_moments), rstd = 1 / sqrt(var + eps) and -mean * rstd rounded once to
float32, then (x * rstd - mean * rstd) * weight + bias in float32 as eager
orders it: within a few float32 roundings of eager's float32 moments. A NaN
or inf in a row makes the row NaN, as eager's. Rows whose deviations from
the mean pass ~1e19 overflow eager's float32 moments (to zeros or NaN,
depending on the row's length); kiln's give the true normalized values there,
checked against float64. A normalized_shape other than (N,) with N the last
dim, or weights of another length, run eager's own F.layer_norm: its result
or its error."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import HERE, build, emitted, layouts, same_result_or_error  # noqa: E402

SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (3, 300), (0, 4), (4, 0)]


@pytest.fixture(scope="module")
def lnmod(tmp_path_factory):
    return build("tp_layer_norm", "torch_programs", tmp_path_factory)


def rows_of(shape, seed):
    """Normal rows with an offset (so the mean matters), and rows salted with
    a NaN, +-inf, a constant row, a row of zeros and signed zeros, huge and
    tiny values."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 3 + 10).astype(np.float32)
    m, n = shape
    specials = [[np.nan], [np.inf], [-np.inf], [np.inf, -np.inf], "const", "zeros", [1e20, -1e20], [3e38, -3e38],
                [1e-40, -1e-40]]
    for i in range(min(m, len(specials))):
        s = specials[(i + seed) % len(specials)]
        if n == 0:
            continue
        if s == "const":
            a[i, :] = 2.5
        elif s == "zeros":
            a[i, :] = np.where(np.arange(n) % 2, -0.0, 0.0)
        else:
            for k, v in enumerate(s):
                a[i, (k * 7 + seed) % n] = v
    return a


def truth(x, w, b, eps):
    """Layer norm in float64 (what kiln's double moments approximate)."""
    x = x.astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # eps 0 on a constant row: inf * 0
        rstd = 1.0 / np.sqrt(var + np.float64(np.float32(eps)))
        y = (x - mean) * rstd
    if w is not None:
        y = y * w.astype(np.float64)
    if b is not None:
        y = y + b.astype(np.float64)
    return y


def check(got, exp, x, w, b, eps, where):
    """NaNs where eager's are; rows eager's float32 moments can hold: close
    to eager's; every finite row: close to float64."""
    g, e, xa = got.numpy(), exp.numpy(), x.numpy()
    assert g.shape == e.shape, (where, g.shape, e.shape)
    if g.size == 0:
        return
    g2, e2, x2 = g.reshape(-1, g.shape[-1]), e.reshape(-1, e.shape[-1]), xa.reshape(-1, xa.shape[-1])
    nonfinite = ~np.isfinite(x2).all(axis=1)
    assert (np.isnan(g2[nonfinite]) == np.isnan(e2[nonfinite])).all(), (where, "NaN rows", g2[nonfinite])
    assert np.isnan(g2[nonfinite]).all(), where
    with np.errstate(over="ignore", invalid="ignore"):
        spread = np.abs(x2.astype(np.float64) - x2.astype(np.float64).mean(axis=1, keepdims=True)).max(axis=1)
    ok_rows = ~nonfinite & (spread < 1e18)
    scale = 1.0 + (np.abs(w.numpy()).max() if w is not None and w.numel() else 0.0)
    np.testing.assert_allclose(g2[ok_rows], e2[ok_rows], rtol=1e-5, atol=2e-5 * scale, err_msg=str(where))
    t = truth(x2[~nonfinite], None if w is None else w.numpy(), None if b is None else b.numpy(), eps)
    fin = np.isfinite(t)
    np.testing.assert_allclose(g2[~nonfinite][fin], t[fin], rtol=1e-5, atol=2e-5 * scale, err_msg=str(where))


def test_sites_claimed(lnmod):
    _, report = lnmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] == "torch.nn.functional.layer_norm"]
        assert len(sites) == 1, f["name"]
        want = "not-covered" if f["name"].startswith("n_") else "claimed"
        assert sites[0]["outcome"] == want, (f["name"], sites)
        rules.add(sites[0]["rule"])
    assert {"kiln-torch/function-layer-norm-f32-cpu-1d", "kiln-torch/function-layer-norm-f32-cpu-2d"} <= rules


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_values(lnmod, shape):
    mod, _ = lnmod
    py = mod.__kiln_python__
    m, n = shape
    rng = np.random.default_rng(m * 1000 + n)
    w, b = torch.from_numpy(rng.standard_normal(n).astype(np.float32)), torch.from_numpy(
        rng.standard_normal(n).astype(np.float32))
    for layout, x in layouts(rows_of(shape, 3)):
        v = x[0] if m else x.reshape(-1)[:0]
        for eps in (1e-5, 1e-3, 0.0, 1.0):
            for name, args, ww, bb in [("ln_plain", (x, n), None, None), ("ln_affine", (x, w, b, n), w, b),
                                       ("ln_kw", (x, w, b, eps), w, b), ("ln_weight_only", (x, w, n), w, None),
                                       ("ln_bias_only", (x, b, n), None, b), ("ln_shape_obj", (x, (n,)), None, None),
                                       ("ln_shape_obj", (x, torch.Size([n])), None, None),
                                       ("ln_weights_obj", (x, [n], w, b), w, b)]:
                e = eps if name == "ln_kw" else (1e-3 if name == "ln_weight_only" else 1e-5)
                check(getattr(mod, name)(*args), py[name](*args), x, ww, bb, e, (name, layout, eps))
            if m:
                check(mod.ln_1d(v, w, b), py["ln_1d"](v, w, b), v.reshape(1, -1), w, b, 1e-6, ("ln_1d", layout))
        for eps in (0, 1, 3):
            check(mod.ln_int_eps(x, n, eps), py["ln_int_eps"](x, n, eps), x, None, None, eps, ("ln_int_eps", eps))


def test_zero_rows_are_positive_zeros(lnmod):
    """A row of zeros of either sign normalizes to +0.0 without a bias (eager
    adds 0.0 when weight or bias is missing): difftest seed 9660 found -0.0
    (rsqrt then gave -inf)."""
    mod, _ = lnmod
    py = mod.__kiln_python__
    w = torch.ones(3)
    for r in ([-0.0], [-0.0, -0.0, -0.0], [0.0, -0.0, 0.0]):
        x = torch.tensor([r])
        n = len(r)
        for got, want in [(mod.ln_plain(x, n), py["ln_plain"](x, n)), (mod.ln_1d(x[0], w[:n], -w[:n]),
                                                                       py["ln_1d"](x[0], w[:n], -w[:n]))]:
            assert (np.signbit(got.numpy()) == np.signbit(want.numpy())).all() and (got == want).all(), r
        if n == 3:
            for got, want in [(mod.ln_weight_only(x, w, 3), py["ln_weight_only"](x, w, 3)),
                              (mod.ln_bias_only(x, -w * 0, 3), py["ln_bias_only"](x, -w * 0, 3))]:
                assert (np.signbit(got.numpy()) == np.signbit(want.numpy())).all(), r


def test_huge_rows_are_true_values(lnmod):
    """Deviations past ~1e19: eager's float32 moments give zeros or NaN by
    the row's length; kiln's the float64 answer rounded. The step after the
    moments is eager's float32 x * rstd - mean * rstd: a constant row of
    3e38 overflows there (inf - inf), NaN in both."""
    mod, _ = lnmod
    py = mod.__kiln_python__
    for n in (4, 32):
        x = torch.tensor([[1e19, 1e19, 1e19, -1e19] * (n // 4), [2e38, -2e38, 0.0, 0.0] * (n // 4), [3e38] * n])
        got = mod.ln_plain(x, n).numpy()
        t = truth(x.numpy(), None, None, 1e-5)
        np.testing.assert_allclose(got[:2], t[:2], rtol=1e-6, atol=1e-6)
        assert np.isnan(got[2]).all() and np.isnan(py["ln_plain"](x, n).numpy()[2]).all()


def test_delegated_forms(lnmod):
    """normalized_shape other than one int matching the last dim, weights of
    another length: eager's F.layer_norm, its result or its error."""
    mod, _ = lnmod
    py = mod.__kiln_python__
    x = torch.randn(5, 4)
    w3, b3 = torch.randn(3), torch.randn(3)
    for args in [(x, (3,)), (x, (5, 4)), (x, 4), (x, [4.0]), (x, [True]), (x, (4, 1)), (x, ()), (x, None),
                 (x, "4"), (x, [2 ** 70]), (x, (-4,))]:
        try:
            want = py["ln_shape_obj"](*args)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)) as got:
                mod.ln_shape_obj(*args)
            # the first line: an overflowing int's message goes on with C++ frame addresses
            assert str(got.value).splitlines()[0] == str(e).splitlines()[0], args[1:]
            continue
        torch.testing.assert_close(mod.ln_shape_obj(*args), want, rtol=1e-5, atol=1e-5)
    for name, args in [("ln_weight_only", (x, w3, 4)), ("ln_bias_only", (x, b3, 4)),
                       ("ln_weights_obj", (x, (4,), w3, b3)), ("ln_weights_obj", (x, (3,), w3, b3)),
                       ("ln_weights_obj", (x, (4,), torch.randn(4), b3))]:
        with pytest.raises(RuntimeError) as want:
            py[name](*args)
        with pytest.raises(RuntimeError) as got:
            getattr(mod, name)(*args)
        assert str(got.value) == str(want.value), name
    # the whole matrix: eager's result, and no grad even where eager's would have one
    xg = torch.randn(2, 3, requires_grad=True)
    out = mod.ln_shape_obj(xg, (2, 3))
    torch.testing.assert_close(out, py["ln_shape_obj"](xg, (2, 3)).detach(), rtol=1e-6, atol=1e-6)
    assert not out.requires_grad
    wg, bg = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
    assert not mod.ln_weights_obj(x, (4,), wg, bg).requires_grad


@pytest.mark.parametrize("name", ["n_tensor_shape", "n_no_shape", "n_weight_2d"])
def test_left_to_eager(lnmod, name):
    mod, _ = lnmod
    py = mod.__kiln_python__
    x = torch.randn(2, 3)
    args = {"n_tensor_shape": (x, torch.ones(1)), "n_no_shape": (x,), "n_weight_2d": (x, torch.ones(2, 3))}[name]
    same_result_or_error(getattr(mod, name), py[name], args, torch.testing.assert_close)


def test_block(lnmod):
    mod, _ = lnmod
    py = mod.__kiln_python__
    for m, k, h in [(1, 8, 16), (8, 64, 64), (3, 17, 33), (0, 4, 8)]:
        g = torch.Generator().manual_seed(m + k + h)
        args = (torch.randn(m, k, generator=g), torch.randn(h, k, generator=g), torch.randn(h, generator=g),
                torch.randn(h, generator=g), torch.randn(h, generator=g), torch.randn(5, h, generator=g),
                torch.randn(5, generator=g))
        torch.testing.assert_close(mod.ln_block(*args), py["ln_block"](*args), rtol=1e-5, atol=1e-5)


def test_emitted_call():
    body = emitted(HERE / "torch_programs" / "tp_layer_norm.py")
    assert body("ln_plain").count("kr->tensor_layer_norm(") == 1 and ", NULL, NULL, 1e-5, kl_file" in body("ln_plain")
    assert "kr->tensor_layer_norm(" in body("ln_int_eps") and "(double)(" in body("ln_int_eps")
    assert "kr->tensor_layer_norm(" not in body("n_weight_2d")
