"""F.gelu and tf.nn.gelu, both forms, on kiln's kernels (tests/torch_programs/
tp_gelu.py, tests/tf_programs/tf_gelu.py), against each framework's eager
result and the true value on many shapes, three layouts and special values.

Eager computes the float formula x/2 (1 + erf(x/sqrt 2)) (tanh form: x/2 (1 +
tanh(sqrt(2/pi) (x + 0.044715 x^3)))): below x = -3, 1 + erf (1 + tanh)
cancels, and eager's result there is off the true value by up to ~3e-7 |x|
(torch's contiguous oneDNN path; its strided path and TF's less), and
exactly -0.0 below the point where 1 + erf (1 + tanh) rounds to 0, which
differs by path (kernels.c KK_GELU_ZERO_BELOW; kiln gives -0.0 from the
lowest such point down, test_torch_zero_tail / test_tf_zero_tail). kiln
computes without the cancellation: the erf form within 8 ulp of the true value
and 2.5e-7 |x|, the tanh form within 10 ulp where |x| <= 2 and 1.6e-7 |x|
everywhere. So the two agree within 4e-7 |x|, and bit for bit on every NaN (a
NaN x quietened with its
sign; -inf gives the x86 default NaN, eager's -inf * 0, +inf inf), as eager
TF's and eager torch's own loop; torch's erf form runs in oneDNN for a
row-major contiguous tensor of more than one element, whose +inf gives
0xffc00000 and -inf 0x7fc00000: kiln takes the same path by the same rule
(a chain's intermediates, and kiln's results, have the layouts eager gives
them: tests/test_result_layout.py)."""
import math
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import HERE, bits, build, emitted, layouts, salted, same_result_or_error  # noqa: E402

SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]
# the two ranges' seam (|x| = 1/sqrt 2), the cancelling tail, where erfc
# underflows (-14.8), where x^3 overflows (7e12), both infinities
EDGES = np.array([0.70710677, 0.7071068, -0.70710677, -0.7071068, -3.0, -5.9, -6.0, -10.0, -13.1, -14.5, -14.8,
                  -15.0, -20.0, 5.0, 16.0, 7e12, -7e12, 1e20, -1e20, -1e-45, 1e-45, -1e-38],
                 dtype=np.float32)
TOL_X = 4e-7  # |kiln - eager| / |x|
# ulps of the true value over |x| <= bound (None: all), |error| / |x| everywhere
FORMS = {"erf": (8, None, 2.5e-7), "tanh": (10, 2.0, 1.6e-7)}


@pytest.fixture(scope="module")
def tmod(tmp_path_factory):
    return build("tp_gelu", "torch_programs", tmp_path_factory)


@pytest.fixture(scope="module")
def tfmod(tmp_path_factory):
    pytest.importorskip("tensorflow")
    return build("tf_gelu", "tf_programs", tmp_path_factory)


def values(shape, seed):
    """salted() values (NaNs, infinities, zeros, subnormals, huge) with gelu's
    edges mixed in."""
    with np.errstate(over="ignore"):
        a = salted(shape, seed) * np.float32(3)
    flat = a.reshape(-1)
    for i in range(min(flat.size // 2, len(EDGES))):
        flat[(i * 104729 + 5 * seed + 2) % flat.size] = EDGES[(i + seed) % len(EDGES)]
    return a


def truth(form, x):
    """The true value in float64 (erfc: no cancellation)."""
    xd = x.astype(np.float64)
    if form == "erf":
        return 0.5 * xd * np.array([math.erfc(-v / math.sqrt(2.0)) for v in xd.reshape(-1)]).reshape(xd.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        return xd / (1.0 + np.exp(-2.0 * math.sqrt(2.0 / math.pi) * (xd + 0.044715 * xd ** 3)))


def ulps(a):
    i = bits(a).astype(np.int64)
    return np.where(i & 0x80000000, 0x80000000 - i, i)


def check(form, x, got, want, where):
    """got (kiln) against want (eager) and against the true value."""
    x, got, want = np.asarray(x), np.asarray(got), np.asarray(want)
    assert got.shape == want.shape == x.shape, where
    nan = np.isnan(got) | np.isnan(want) | np.isinf(x)
    assert (bits(got[nan]) == bits(want[nan])).all(), (where, x[nan], got[nan], want[nan])
    fin = ~np.isnan(x) & ~np.isinf(x)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got[fin].astype(np.float64) - want[fin])
        bound = TOL_X * np.abs(x[fin]) + 1.5e-45
        assert (diff <= bound).all(), (where, x[fin][diff > bound], got[fin][diff > bound], want[fin][diff > bound])
        assert (np.signbit(got[fin]) == np.signbit(want[fin])).all(), where
        # kiln's -0.0 only where eager's is -0.0 too, and -0.0 wherever eager's
        # is below the lowest edge of eager's paths (test_torch_zero_tail)
        xf, zero_got, zero_want = x[fin], got[fin] == 0, want[fin] == 0
        neg = xf < 0
        assert not (zero_got & neg & ~zero_want).any(), (where, xf[zero_got & neg & ~zero_want])
        deep = zero_want & (xf <= TORCH_BANDS[form][0])
        assert zero_got[deep].all(), (where, xf[deep & ~zero_got])
        t = truth(form, x[fin])
        normal = np.abs(t) >= 1.1754944e-38
        ulp_bound, upto, rel_x = FORMS[form]
        sel = normal & (np.abs(x[fin]) <= upto if upto else True) & ~(zero_got & (xf < -4))
        d = np.abs(ulps(got[fin][sel]) - ulps(t[sel].astype(np.float32)))
        assert (d <= ulp_bound).all(), (where, x[fin][sel][d > ulp_bound], d.max())
        # subnormal x: TF's kernels (and kiln's for TF) run with denormals-are-zero
        big = np.abs(x[fin]) >= 1.1754944e-38
        assert (np.abs(got[fin] - t)[big] <= rel_x * np.abs(x[fin])[big] + 1.5e-45).all(), where


def test_torch_sites_claimed(tmod):
    _, report = tmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] == "torch.nn.functional.gelu"]
        assert sites, f["name"]
        want = "not-covered" if f["name"].startswith("n_") else "claimed"
        assert all(s["outcome"] == want for s in sites), (f["name"], f["sites"])
        rules |= {s["rule"] for s in sites if s["outcome"] == "claimed"}
    assert rules == {f"kiln-torch/function-gelu{t}-f32-cpu-{r}" for t in ("", "-tanh") for r in ("1d", "2d")}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_torch_values(tmod, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    for seed in (1, 2):
        for layout, x in layouts(values(shape, seed)):
            v = x[0] if shape[0] else x.reshape(-1)[:0]
            for name, arg, form in [("gelu_2d", x, "erf"), ("gelu_none_1d", v, "erf"), ("gelu_tanh_2d", x, "tanh"),
                                    ("gelu_tanh_1d", v, "tanh")]:
                check(form, arg.numpy(), getattr(mod, name)(arg).numpy(), py[name](arg).numpy(), (name, layout, seed))


def test_torch_sweep(tmod):
    """Every 61st float in [-20, 20] through both forms, contiguous (eager's
    oneDNN path) and strided (eager's own vector loop)."""
    mod, _ = tmod
    py = mod.__kiln_python__
    lo, hi = np.array([-20.0, 20.0], dtype=np.float32).view(np.uint32).astype(np.int64)
    neg = np.arange(0x80000000, lo + 1, 61)
    pos = np.arange(0, hi + 1, 61)
    x = np.concatenate([neg, pos]).astype(np.uint32).view(np.float32)
    for layout, t in [("contiguous", torch.from_numpy(x)), ("strided", torch.from_numpy(np.repeat(x, 2))[::2])]:
        for name, form in [("gelu_none_1d", "erf"), ("gelu_tanh_1d", "tanh")]:
            check(form, x, mod.__getattribute__(name)(t).numpy(), py[name](t).numpy(), (name, layout))


def test_torch_chains_and_layers(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (16, 128, 32), (0, 5, 4)]:
        g = torch.Generator().manual_seed(m * 100 + n)
        x, y = torch.randn(m, k, generator=g) * 4, torch.randn(m, k, generator=g)
        for name, args in [("gelu_chain", (x, y)), ("gelu_tanh_chain", (x,))]:
            torch.testing.assert_close(getattr(mod, name)(*args), py[name](*args), rtol=1e-5, atol=1e-5)
        w, b = torch.randn(n, k, generator=g), torch.randn(n, generator=g)
        torch.testing.assert_close(mod.gelu_mlp(x, w, b), py["gelu_mlp"](x, w, b), rtol=1e-5, atol=1e-4)
        wt = w.T.contiguous()
        torch.testing.assert_close(mod.gelu_tanh_layer(x, wt, b), py["gelu_tanh_layer"](x, wt, b), rtol=1e-5,
                                   atol=1e-4)


def test_torch_chain_specials(tmod):
    """NaN and +-inf through chains and a GEMM epilogue, every layout: the
    same NaN bits as eager's (the oneDNN path's for an intermediate)."""
    mod, _ = tmod
    py = mod.__kiln_python__
    for shape in [(1, 1), (1, 5), (3, 17), (16, 33)]:
        for seed in (1, 2, 3):
            for (layout, x), (_, y) in zip(layouts(values(shape, seed)), layouts(values(shape, seed + 10))):
                for name, args in [("gelu_chain", (x, y)), ("gelu_tanh_chain", (x,))]:
                    got, want = getattr(mod, name)(*args).numpy(), py[name](*args).numpy()
                    nan = np.isnan(got) | np.isnan(want) | np.isinf(want)
                    assert (bits(got[nan]) == bits(want[nan])).all(), (name, layout, shape, seed)
    w, b = torch.ones(3, 2), torch.zeros(3)
    for x in (torch.tensor([[float("inf"), 0.0]]), torch.tensor([[-float("inf"), 0.0], [1.0, float("inf")]]),
              torch.tensor([[1.0, -float("inf")]])):
        for name, args in [("gelu_mlp", (x, w, b)), ("gelu_tanh_layer", (x, w.T.contiguous(), b))]:
            got, want = getattr(mod, name)(*args).numpy(), py[name](*args).numpy()
            assert bits(got).tolist() == bits(want).tolist(), (name, x)


def test_torch_one_pass():
    """An elementwise chain is one kernel pass, a GEMM's gelu its epilogue."""
    body = emitted(HERE / "torch_programs" / "tp_gelu.py")
    for name, op in [("gelu_chain", "KR_OP_GELU"), ("gelu_tanh_chain", "KR_OP_GELU_TANH")]:
        b = body(name)
        assert b.count("kr->tensor_ewise(") == 1 and "kr->tensor_op(" not in b, name
        assert re.search(r"\{%s, \d+, 0, KR_EW_ACT\}" % op, b), (name, b)
    for name, op in [("gelu_mlp", "KR_OP_GELU"), ("gelu_tanh_layer", "KR_OP_GELU_TANH")]:
        b = body(name)
        assert b.count("kr->tensor_fused(") == 1 and op in b and "kr->tensor_op(" not in b, name
    assert "kr->tensor_op(KR_OP_GELU_TANH," in body("gelu_tanh_2d")
    assert "kr->tensor_op(KR_OP_GELU," in body("gelu_2d")


@pytest.mark.parametrize("name,extra", [("n_dynamic", ("none",)), ("n_dynamic", ("tanh",)), ("n_dynamic", ("x",)),
                                        ("n_positional", ()), ("n_bogus", ())])
def test_torch_left_to_eager(tmod, name, extra):
    mod, _ = tmod
    x = torch.from_numpy(values((3, 4), 3))

    def compare(got, want):
        assert bits(got.numpy()).tolist() == bits(want.numpy()).tolist()
    same_result_or_error(getattr(mod, name), mod.__kiln_python__[name], (x, *extra), compare)


def test_tf_values(tfmod):
    tf = pytest.importorskip("tensorflow")
    mod, report = tfmod
    py = mod.__kiln_python__
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        assert all(s["outcome"] == "claimed" for s in f["sites"] if s["target"] == "tensorflow.nn.gelu"), f["name"]
    for shape in SHAPES:
        for seed in (1, 2):
            a = values(shape, seed)
            x = tf.constant(a)
            v = tf.constant(a[0] if shape[0] else a.reshape(-1)[:0])
            for name, arg, form in [("gelu_2d", x, "erf"), ("gelu_none_1d", v, "erf"), ("gelu_tanh_2d", x, "tanh"),
                                    ("gelu_tanh_1d", v, "tanh")]:
                check(form, arg.numpy(), getattr(mod, name)(arg).numpy(), py[name](arg).numpy(), (name, shape, seed))
    rng = np.random.default_rng(5)
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        x = tf.constant((rng.standard_normal((m, k)) * 4).astype(np.float32))
        y = tf.constant(rng.standard_normal((m, k)).astype(np.float32))
        w = tf.constant(rng.standard_normal((k, n)).astype(np.float32))
        b = tf.constant(rng.standard_normal(n).astype(np.float32))
        for name, args in [("gelu_chain", (x, y)), ("gelu_tanh_chain", (x,)), ("gelu_mlp", (x, w, b)),
                           ("gelu_tanh_layer", (x, w, b))]:
            np.testing.assert_allclose(getattr(mod, name)(*args).numpy(), py[name](*args).numpy(), rtol=1e-5,
                                       atol=1e-4, err_msg=name)
    body = emitted(HERE / "tf_programs" / "tf_gelu.py")
    assert body("gelu_mlp").count("kr->tensor_fused(") == 1 and "KR_OP_GELU" in body("gelu_mlp")
    assert body("gelu_tanh_chain").count("kr->tensor_ewise(") == 1 and "KR_OP_GELU_TANH" in body("gelu_tanh_chain")


MKLDNN_SCRIPT = """
import sys
import numpy as np
import torch
import kiln
mod = kiln.build(sys.argv[1], out_dir=sys.argv[2])
py = mod.__kiln_python__
inf = float("inf")
x = torch.tensor([[inf, -inf, 1.0], [2.0, float("nan"), -3.0]])
h = torch.tensor([[inf, 0.0, 1.0], [1.0, 2.0, 3.0]])  # F.linear(h, ones(1, 3)) holds +inf
w, b = torch.ones(1, 3), torch.zeros(1)
def same(got, want):  # NaN and inf bit for bit, finite values within rounding (test_torch_values)
    g, w = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(want.numpy())
    special = ~np.isfinite(w)
    return (g.view(np.uint32)[special] == w.view(np.uint32)[special]).all() and np.allclose(g[~special], w[~special],
                                                                                          rtol=1e-5, atol=1e-6)
was = torch.backends.mkldnn.enabled
for on in (False, True, False, was):
    torch.backends.mkldnn.enabled = on
    for name, args in [("gelu_2d", (x,)), ("gelu_chain", (x, x)), ("gelu_mlp", (h, w, b))]:
        got, want = getattr(mod, name)(*args), py[name](*args)
        assert same(got, want), (on, name, got, want)
    assert (mod.gelu_2d(x)[0, 0].item() == inf) == (not on), on
    assert (mod.gelu_mlp(h, w, b)[0].item() == inf) == (not on), on
print("ok")
"""


@pytest.mark.parametrize("public", ["0", "1"])
def test_torch_mkldnn_switched_off(tmp_path, public):
    """With torch.backends.mkldnn.enabled off, eager's gelu runs its own loop
    on every layout (+inf stays inf): kiln reads the flag at each call, from
    c10 (KILN_TORCH_PUBLIC=0) or through torch._C (=1), and follows it."""
    import os
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", MKLDNN_SCRIPT, str(HERE / "torch_programs" / "tp_gelu.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=600, cwd=str(HERE.parent),
                       env=dict(os.environ, KILN_TORCH_PUBLIC=public))
    assert r.returncode == 0 and r.stdout.split()[-1:] == ["ok"], r.stderr[-3000:]


# Eager's zero tail: the largest x where it gives exactly -0.0, by path,
# read off eager on every float in [-5.7, -4.7] ([-14, -12] for TF's erf
# form): torch's vector loop, its scalar loop (the last n % 32 of a run, a
# shorter run, a strided one; the tanh edge one float lower without FMA
# contraction), oneDNN; TF. kiln gives -0.0 from each form's lowest edge
# down (kernels.c KK_GELU_ZERO_BELOW), where every path does; between the
# edges eager's answer depends on the element's position in its loop and
# kiln's is its accurate negative value.
ZERO_EDGES = [0xc0b16097, 0xc0b15cef, 0xc0b15ced, 0xc0a1f6d5, 0xc0a50d26, 0xc0a50d27, 0xc09ae297, 0xc1500c85]
# form -> (kiln's edge: -0.0 from here down, the band's top: eager's
# highest zero on any path, oneDNN's scattered ones included)
TORCH_BANDS = {"erf": (np.float32(-5.5430408), np.float32(-5.4858)),
               "tanh": (np.float32(-5.1578555), np.float32(-5.0613809))}
TF_EDGES = {"erf": np.float32(-13.003057), "tanh": np.float32(-4.8401599)}


def zero_tail_probes():
    edges = np.array(ZERO_EDGES, dtype=np.int64)
    near = np.concatenate([edges + d for d in (-2, -1, 0, 1, 2)]).astype(np.uint32).view(np.float32)
    grid = np.linspace(-14.0, -4.5, 1901, dtype=np.float32)
    return np.concatenate([near, grid])


def assert_zero_tail(x, got, want, form, where, tf_edge=None):
    """kiln: -0.0 exactly from its edge down, a negative number above it;
    eager agrees everywhere outside torch's band (TF: everywhere)."""
    x, got, want = (np.asarray(a, dtype=np.float32).reshape(-1) for a in (x, got, want))
    edge, top = (tf_edge, tf_edge) if tf_edge is not None else TORCH_BANDS[form]
    tail = x <= edge
    assert (bits(got[tail]) == 0x80000000).all(), (where, x[tail][bits(got[tail]) != 0x80000000])
    assert (bits(want[tail]) == 0x80000000).all(), (where, "eager's tail moved", x[tail][want[tail] != 0])
    above = ~tail
    assert ((got[above] < 0) & (got[above] > -1e-4)).all(), (where, x[above][got[above] == 0])
    outside = above & (x > top)
    assert ((want[outside] < 0) & (want[outside] > -1e-4)).all(), (where, x[outside][want[outside] == 0])


def test_torch_zero_tail(tmod):
    """Every layout eager loops over differently: contiguous (oneDNN or the
    vector loop, with a scalar tail), short tensors (all scalar), strided,
    expanded, one element, a fused linear layer's output, a chain."""
    mod, _ = tmod
    py = mod.__kiln_python__
    x = zero_tail_probes()
    for name, form in (("gelu_none_1d", "erf"), ("gelu_tanh_1d", "tanh")):
        f, ref = getattr(mod, name), py[name]
        cases = {"contiguous": torch.from_numpy(x.copy()),
                 "strided": torch.from_numpy(np.repeat(x, 2))[::2]}
        for n in (1, 2, 5, 16, 31, 32, 33, 40, 65):
            cases[f"short {n}"] = torch.from_numpy(x[:n].copy())
        for where, t in cases.items():
            assert_zero_tail(t.numpy(), f(t), ref(t), form, (name, where))
        one = x[::11]
        got = np.array([f(torch.from_numpy(one[i:i + 1].copy())).item() for i in range(one.size)], np.float32)
        want = np.array([ref(torch.from_numpy(one[i:i + 1].copy())).item() for i in range(one.size)], np.float32)
        assert_zero_tail(one, got, want, form, (name, "one element"))
    for name, form in (("gelu_2d", "erf"), ("gelu_tanh_2d", "tanh")):
        f, ref = getattr(mod, name), py[name]
        sq = x[:1936].reshape(44, 44)
        cases = {"column-major": torch.from_numpy(np.stack([x, x], 1)).t(),
                 "sliced rows": torch.from_numpy(sq.copy())[:, :40],
                 "transposed slice": torch.from_numpy(sq.copy())[:, :3].t(),
                 "expanded row": torch.from_numpy(x[:64].copy()).expand(8, 64),
                 "expanded column": torch.from_numpy(x[:8].copy())[:, None].expand(8, 64),
                 "4x4": torch.from_numpy(x[:16].reshape(4, 4).copy())}
        for where, t in cases.items():
            assert_zero_tail(t.numpy(), f(t), ref(t), form, (name, where))
    # fused into a GEMM epilogue: x @ w + b is x's first column exactly
    # (w = [[1...], [0...]], b = 0), 1 x 16 (scalar loop) and 48 x 16
    w, b = torch.cat([torch.ones(1, 16), torch.zeros(1, 16)]), torch.zeros(16)
    for m in (1, 48):
        xt = torch.from_numpy(np.stack([x[:m], np.zeros(m, np.float32)], 1))
        got, want = mod.gelu_tanh_layer(xt, w, b), py["gelu_tanh_layer"](xt, w, b)
        assert_zero_tail(np.repeat(x[:m, None], 16, 1), got, want, "tanh", ("gelu_tanh_layer", m))


def test_tf_zero_tail(tfmod):
    tf = pytest.importorskip("tensorflow")
    mod, _ = tfmod
    py = mod.__kiln_python__
    x = zero_tail_probes()
    for name, form in (("gelu_none_1d", "erf"), ("gelu_tanh_1d", "tanh")):
        for n in (x.size, 1, 7, 33):
            t = tf.constant(x[:n])
            assert_zero_tail(x[:n], getattr(mod, name)(t).numpy(), py[name](t).numpy(), form, (name, n),
                             tf_edge=TF_EDGES[form])
