"""abs, sqrt, square (t ** 2), exp and F.silu on kiln's kernels, for torch
(tests/torch_programs/tp_math.py) and TensorFlow (tests/tf_programs/
tf_math.py), against each framework's eager result on many shapes, three
memory layouts and every special value (NaNs with payloads, +-inf, +-0,
subnormals, the largest floats, exp's overflow and underflow edges).

abs, square and rsqrt (1 / sqrt) are IEEE operations: bit for bit. sqrt is correctly rounded
in kiln; eager torch's (Sleef) is within one ulp of it, TF's is IEEE and
matches bit for bit. exp and silu are polynomials in every library: kiln's exp is within 1 ulp
of the true value and 2 of eager's, its silu within 2 of the true value
and 4 of eager's (whose own silu is within 2 of the true value). Everywhere a NaN comes out with eager's exact bits: the input's
payload quietened with its sign (abs: unquietened, sign cleared), and for
sqrt of a negative number torch's 0x7fc00000 or TF's 0xffc00000.
"""
import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build, emitted, layouts, salted  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]

# exp's and silu's edges: overflow at 88.7228394 (the largest x with a
# finite e^x is 88.7228317), subnormal results below -87.34, zero below
# -103.97, silu's -0.0 below -88.72 and NaN at -inf
EDGES = np.array([88.72283, 88.7228317, 88.72284, 88.8, 89.0, -87.33, -87.34, -100.0, -103.9, -103.97, -104.0,
                  -110.0, -1e3, 1e3, 20.0, -20.0, 1e-7, -1e-7, 0.5, -0.5, 3.4028235e38, -3.4028235e38],
                 dtype=np.float32)


@pytest.fixture(scope="module")
def tmod(tmp_path_factory):
    return build("tp_math", "torch_programs", tmp_path_factory)


@pytest.fixture(scope="module")
def tfmod(tmp_path_factory):
    pytest.importorskip("tensorflow")
    return build("tf_math", "tf_programs", tmp_path_factory)


def values(shape, seed):
    """salted() values with exp's edges and negatives of every size mixed in."""
    a = salted(shape, seed)
    flat = a.reshape(-1)
    for i in range(min(flat.size // 2, len(EDGES))):
        flat[(i * 104729 + 3 * seed + 1) % flat.size] = EDGES[(i + seed) % len(EDGES)]
    return a


def ulps(a):
    """float32 values on a monotonic integer line (ulp distance = difference)."""
    i = bits(a).astype(np.int64)
    return np.where(i & 0x80000000, 0x80000000 - i, i)


def assert_close_ulps(got, exp, max_ulps, where, nan_bits=True):
    """NaNs and infinities bit for bit (nan_bits=False: any NaN where eager
    has one), everything else within max_ulps."""
    g = np.asarray(got, dtype=np.float32)
    e = np.asarray(exp, dtype=np.float32)
    assert g.shape == e.shape, (where, g.shape, e.shape)
    exact = np.isnan(e) | np.isnan(g) | np.isinf(e) | np.isinf(g)
    differ = (bits(g) != bits(e)) & ~(np.isnan(g) & np.isnan(e) & (not nan_bits))
    bad = (exact & differ) | (~exact & (np.abs(ulps(g) - ulps(e)) > max_ulps))
    assert not bad.any(), (f"{where}: {int(bad.sum())} of {g.size} differ; first at {np.argwhere(bad)[0].tolist()}: "
                           f"{g[bad][:4]} ({[hex(v) for v in bits(g[bad][:4])]}) vs "
                           f"{e[bad][:4]} ({[hex(v) for v in bits(e[bad][:4])]})")


# op -> largest ulp distance from eager torch / TF (0: bit for bit)
TORCH_ULPS = {"abs": 0, "square": 0, "pow": 0, "pow_method": 0, "pow_call": 0, "sqrt": 1, "exp": 2, "silu": 4,
              "log": 2, "rsqrt": 0, "relu6": 0, "hardtanh": 0}
# TF's silu is x * sigmoid(x) with Eigen's rational sigmoid: up to 8 ulp from the true
# value over a sweep of 23 million floats in (-100, 100), kiln's within 2
TF_ULPS = {"abs": 0, "square": 0, "sqrt": 0, "exp": 2, "log": 4, "silu": 8, "relu6": 0, "rsqrt": 2}


def test_torch_sites_claimed(tmod):
    _, report = tmod
    by_name = {f["name"]: f for f in report["functions"]}
    for name, f in by_name.items():
        assert f["status"] == "native", (name, f["reason"])
        outcomes = {s["outcome"] for s in f["sites"]}
        if name.endswith("_eager"):
            assert outcomes & {"not-covered", "rejected"}, (name, f["sites"])
        else:
            assert outcomes <= {"claimed", "scalar"}, (name, f["sites"])
    rules = {s["rule"] for f in report["functions"] for s in f["sites"] if s["outcome"] == "claimed"}
    for op in ("abs", "sqrt", "rsqrt", "square", "exp", "log", "pow-two"):
        for rank in (1, 2):
            assert f"kiln-torch/tensor-{op}-f32-cpu-{rank}d" in rules, op
    for fn in ("silu", "relu6", "hardtanh"):
        assert {f"kiln-torch/function-{fn}-f32-cpu-1d", f"kiln-torch/function-{fn}-f32-cpu-2d"} <= rules
    assert {"kiln-torch/log-softmax-f32-cpu-1d", "kiln-torch/log-softmax-f32-cpu-2d"} <= rules
    assert [(s["outcome"], s["code"]) for s in by_name["log_softmax_dim0_eager"]["sites"]] == [
        ("rejected", "KILN-TORCH-006")]


def test_torch_chains_fuse():
    """Elementwise chains through the new functions are one pass; a GEMM
    followed by one of them (and a reduction) is one fused kernel call."""
    src = HERE / "torch_programs" / "tp_math.py"
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(src)], capture_output=True, text=True,
                       check=True, timeout=120).stdout

    def body(name):
        i = c.index(f"/* def {name} ")
        return c[i:c.find("/* def ", i + 10)]
    for name in ("rms_chain", "gauss_chain", "normalize", "hard_swish_chain"):
        assert body(name).count("kr->tensor_ewise(") == 1, name
        assert "kr->tensor_op(" not in body(name), name
    for name, act in [("silu_mlp", "KR_OP_SILU"), ("exp_head", "KR_OP_EXP"), ("square_sum", "KR_OP_SQUARE"),
                      ("hardtanh_head", "KR_OP_HARDTANH")]:
        b = body(name)
        assert b.count("kr->tensor_fused(") == 1 and act in b and "kr->tensor_op(" not in b, name
    assert "KR_OP_SQRT" in body("abs_sqrt_head") and "KR_OP_ABS" in body("abs_sqrt_head")


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("op", ["abs", "sqrt", "rsqrt", "square", "pow", "pow_method", "exp", "silu", "log", "relu6",
                                "hardtanh"])
def test_torch_values(tmod, op, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    x = values(shape, 11)
    for layout, xt in layouts(x):
        assert_close_ulps(getattr(mod, f"{op}_2")(xt), py[f"{op}_2"](xt), TORCH_ULPS[op], f"{op}_2 {shape} {layout}")
    fn1 = {"pow": "pow_call_1", "pow_method": None}.get(op, f"{op}_1")
    if fn1:
        v = values((shape[1],), 12)
        for layout, vt in layouts(v):
            assert_close_ulps(getattr(mod, fn1)(vt), py[fn1](vt), TORCH_ULPS[op], f"{fn1} {shape[1]} {layout}")


def test_torch_exp_silu_sweep(tmod):
    """exp and silu over a dense sweep of the float line through every range
    (subnormal, underflowing and overflowing results): within 2 ulp of eager,
    infinities, zeros and NaNs exactly where eager has them."""
    mod, _ = tmod
    py = mod.__kiln_python__
    x = np.concatenate([np.linspace(-120, 120, 200003, dtype=np.float32),
                        np.linspace(88.7, 88.75, 1001, dtype=np.float32),
                        np.linspace(-104.5, -86.5, 5001, dtype=np.float32),
                        np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, -1e-45])])
    t = torch.from_numpy(x)
    xd = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        truth = {"exp_1": np.exp(xd), "silu_1": xd / (1 + np.exp(-xd))}
    for name, to_eager, to_truth in [("exp_1", 2, 1), ("silu_1", 4, 2)]:
        got = getattr(mod, name)(t)
        assert_close_ulps(got, py[name](t), to_eager, name)
        # where results and e^-x are normal floats (beyond, both libraries
        # give eager's inf, 0 and -0.0 above, not the true value)
        normal = (xd > -87.3) & (xd < 88.72)
        assert_close_ulps(got.numpy()[normal], truth[name][normal].astype(np.float32), to_truth, f"{name} vs float64")


def test_torch_log_sweep(tmod):
    """log over the float line's magnitudes, subnormals included: within 2
    ulp of eager's and 1 of the true value; -inf at +-0, eager's NaN below."""
    mod, _ = tmod
    py = mod.__kiln_python__
    pos = np.concatenate([np.geomspace(1e-45, 3e38, 300007).astype(np.float32),
                          np.linspace(0.5, 2.0, 100003, dtype=np.float32)])
    x = np.concatenate([pos, np.float32([0.0, -0.0, -1e-45, -1.0, -np.inf, np.inf, np.nan, 1.0])])
    t = torch.from_numpy(x)
    got = mod.log_1(t)
    assert_close_ulps(got, py["log_1"](t), 2, "log_1")
    truth = np.log(pos[pos > 0].astype(np.float64)).astype(np.float32)
    assert_close_ulps(got.numpy()[:pos.size][pos > 0], truth, 1, "log_1 vs float64")


def test_torch_nan_bits(tmod):
    """NaN payloads and signs come out as eager's, and sqrt of a negative
    number (down to the smallest subnormal, and -inf) is torch's 0x7fc00000."""
    mod, _ = tmod
    py = mod.__kiln_python__
    raw = np.array([0x7FA00001, 0xFFA00001, 0x7FC00005, 0xFFC00005, 0xFF800000, 0xBF800000, 0x80000001,
                    0x80000000, 0x00000001] * 5, dtype=np.uint32).view(np.float32)
    t = torch.from_numpy(raw.copy())
    for name in ("abs_1", "sqrt_1", "rsqrt_1", "square_1", "pow_call_1", "exp_1", "silu_1", "log_1", "relu6_1",
                 "hardtanh_1"):
        got, exp = bits(getattr(mod, name)(t)), bits(py[name](t))
        nan = np.isnan(raw)
        assert (got[nan] == exp[nan]).all(), (name, [hex(v) for v in got[nan]], [hex(v) for v in exp[nan]])
    assert (bits(mod.sqrt_1(t))[[4, 5, 6]] == 0x7FC00000).all()
    assert (bits(mod.log_1(t))[[4, 5, 6]] == 0x7FC00000).all() and (bits(mod.log_1(t))[[7, 8]] != 0x7FC00000).all()


@pytest.mark.parametrize("shape", [(1, 1), (3, 16), (5, 33), (16, 64), (0, 4)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_torch_fused(tmod, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    m, n = shape
    x, y = values(shape, 21), values(shape, 22)
    r = values((n,), 23)
    for layout, xt in layouts(x):
        yt, rt = torch.from_numpy(y), torch.from_numpy(r)
        vt = torch.from_numpy(np.abs(values((n,), 24)))
        for name, args in [("rms_chain", (xt, yt)), ("gauss_chain", (xt, rt)), ("silu_chain", (xt, rt)),
                           ("normalize", (xt, rt, vt)), ("hard_swish_chain", (xt,))]:
            assert_close_ulps(getattr(mod, name)(*args), py[name](*args), 4, f"{name} {shape} {layout}")
    # GEMM epilogues: finite inputs (kiln's and MKL's sums round differently)
    rng = np.random.default_rng(m * 100 + n)
    xs = torch.from_numpy(rng.standard_normal((m, n)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((n, 24)).astype(np.float32) * 0.3)
    b = torch.from_numpy(rng.standard_normal(24).astype(np.float32))
    wt = w.T.contiguous()
    kw = dict(rtol=2e-5, atol=2e-5)
    torch.testing.assert_close(mod.silu_mlp(xs, wt, b), py["silu_mlp"](xs, wt, b), **kw)
    torch.testing.assert_close(mod.exp_head(xs, w, b), py["exp_head"](xs, w, b), **kw)
    torch.testing.assert_close(mod.square_sum(xs, w), py["square_sum"](xs, w), rtol=2e-5, atol=1e-4)
    torch.testing.assert_close(mod.abs_sqrt_head(xs, wt, b), py["abs_sqrt_head"](xs, wt, b), **kw)
    torch.testing.assert_close(mod.log_likelihood(xs, w, b), py["log_likelihood"](xs, w, b), rtol=2e-5, atol=1e-4)
    torch.testing.assert_close(mod.hardtanh_head(xs, wt, b), py["hardtanh_head"](xs, wt, b), **kw)
    with pytest.raises(RuntimeError, match=r"kiln: linear: incompatible shapes"):
        mod.silu_mlp(xs, w[:, :3].T.contiguous() if n != 3 else torch.ones(2, 5), b)


def test_torch_eager_forms(tmod):
    """Spellings left to eager torch give eager's results (and mutations)."""
    mod, _ = tmod
    py = mod.__kiln_python__
    x = torch.from_numpy(values((4, 9), 31))
    for name in ("pow_three_eager", "pow_float_eager", "silu_inplace_eager", "log_softmax_dim0_eager",
                 "hardtanh_one_bound_eager"):
        assert_close_ulps(getattr(mod, name)(x), py[name](x), 0, name)
    out1, out2 = torch.zeros(4, 9), torch.zeros(4, 9)
    r1, r2 = mod.exp_out_eager(x, out1), py["exp_out_eager"](x, out2)
    assert r1 is out1 and r2 is out2
    assert_close_ulps(out1, out2, 0, "exp_out_eager")


@pytest.mark.parametrize("name", ["log_softmax_fn", "log_softmax_f", "log_softmax_method"])
def test_torch_log_softmax(tmod, name):
    """Within float32 rounding of eager's (its sum of exponentials in
    another order), with eager's NaN rows: a NaN, a +inf or a row of -inf."""
    mod, _ = tmod
    py = mod.__kiln_python__
    g = torch.Generator().manual_seed(7)
    for m, n in [(1, 1), (1, 7), (3, 16), (5, 33), (16, 64), (4, 1000), (2, 300), (0, 5), (3, 0)]:
        for scale in (1.0, 30.0):
            x = (torch.randn(m, n, generator=g) * scale).numpy()
            for layout, xt in layouts(x):
                got, exp = getattr(mod, name)(xt), py[name](xt)
                torch.testing.assert_close(got, exp, rtol=1e-5, atol=2e-6, equal_nan=True)
                assert torch.equal(got.isnan(), exp.isnan()) and not got.requires_grad, (name, m, n, layout)
    rows = torch.tensor([[1.0, float("nan"), 2.0, 0.0], [float("-inf")] * 4, [float("inf"), 1.0, 2.0, 0.0],
                         [float("inf")] * 2 + [0.0, 1.0], [-1e30, 0.0, 1e30, 5.0], [1.0, float("-inf"), 2.0, 3.0],
                         [1e-40, -1e-40, 0.0, -0.0], [88.0, -88.0, 0.0, 100.0], [-200.0, 0.0, -103.0, -87.0]])
    got, exp = getattr(mod, name)(rows), py[name](rows)
    torch.testing.assert_close(got, exp, rtol=1e-5, atol=2e-6, equal_nan=True)
    assert torch.equal(got.isnan(), exp.isnan()) and torch.equal(got.isinf(), exp.isinf())


def test_torch_log_softmax_1d_and_head(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    for n in (1, 5, 16, 17, 300, 257):
        v = torch.randn(n) * 5
        torch.testing.assert_close(mod.log_softmax_1d(v), py["log_softmax_1d"](v), rtol=1e-5, atol=2e-6)
    x, w, b = torch.randn(8, 32), torch.randn(10, 32) / 32 ** 0.5, torch.randn(10)
    torch.testing.assert_close(mod.nll_head(x, w, b), py["nll_head"](x, w, b), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match=r"kiln: linear: incompatible shapes"):
        mod.nll_head(torch.ones(2, 3), w, b)


# ==========================================================================
# TensorFlow


def test_tf_sites_claimed(tfmod):
    _, report = tfmod
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        for s in f["sites"]:
            if f["name"] == "exp_kw":
                assert (s["outcome"], s["code"]) == ("rejected", "KILN-TF-005"), s
            else:
                assert s["outcome"] in ("claimed", "scalar"), (f["name"], s)
    rules = {s["rule"] for f in report["functions"] for s in f["sites"] if s["outcome"] == "claimed"}
    for op in ("abs", "sqrt", "square", "exp", "log", "silu", "relu6", "rsqrt"):
        assert {f"kiln-tensorflow/{op}-f32-cpu-1d", f"kiln-tensorflow/{op}-f32-cpu-2d"} <= rules, op


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("op", ["abs", "sqrt", "square", "exp", "log", "silu", "relu6", "rsqrt"])
def test_tf_values(tfmod, op, shape):
    """TF runs these with subnormals flushed (inputs read as zero, results
    flushed): kiln's TF ops too, so sqrt(-1e-40) is -0.0 and exp's
    subnormal results 0. TF's log gives NaNs of two kinds: its vectorised
    loop 0xffffffff (kiln's), the scalar tail of a tensor (its last n % 8
    elements) the x86 default NaN, so there only NaN-ness is compared."""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    xa, va = values(shape, 41), values((shape[1],), 42)
    if op in ("log", "relu6"):  # the tail does not flush subnormals: only the loop's log(+-1e-40) is -inf,
        xa[np.abs(xa) < 1.1754944e-38] = 0.0  # its relu6(+-1e-40) +0.0 (kiln's; the tail's +-1e-40)
        va[np.abs(va) < 1.1754944e-38] = 0.0
    x, v = tf.constant(xa), tf.constant(va)
    nan_bits = op != "log"
    assert_close_ulps(getattr(mod, f"{op}_2")(x).numpy(), py[f"{op}_2"](x).numpy(), TF_ULPS[op], f"{op}_2 {shape}",
                      nan_bits)
    assert_close_ulps(getattr(mod, f"{op}_1")(v).numpy(), py[f"{op}_1"](v).numpy(), TF_ULPS[op], f"{op}_1 {shape}",
                      nan_bits)
    if op == "relu6":  # the vectorised loop's subnormals and -0.0 (the first 8 elements), bit for bit
        sub = tf.constant(np.float32([-1e-40, 1e-40, -0.0, np.nan, -np.inf, np.inf, 7.0, 5.5] * 2))
        assert (bits(mod.relu6_1(sub).numpy())[:8] == bits(py["relu6_1"](sub).numpy())[:8]).all()
    if op == "log":  # the vectorised loop's NaNs (TF's all-ones) and subnormals, bit for bit
        neg = tf.constant(np.float32([-1.0, np.nan, -np.inf, 1e-40, -1e-40, 0.0, 2.0, 1.0] * 2))
        assert (bits(mod.log_1(neg).numpy())[:8] == bits(py["log_1"](neg).numpy())[:8]).all()


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (7, 129), (200, 33), (0, 4), (4, 0)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_tf_column_reductions(tfmod, shape):
    """tf.reduce_mean / reduce_sum over axis 0 (and -2): the sums down each
    column, kiln's in another order than TF's; NaN and inf where TF has them
    (an empty column's mean is NaN)."""
    import tensorflow as tf
    mod, report = tfmod
    py = mod.__kiln_python__
    rules = {s["rule"] for f in report["functions"] for s in f["sites"]}
    assert {"kiln-tensorflow/reduce-mean-axis0-f32-cpu-2d", "kiln-tensorflow/reduce-sum-axis0-f32-cpu-2d"} <= rules
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    a = rng.standard_normal(shape).astype(np.float32)
    if a.size > 4:
        a.reshape(-1)[[1, 3]] = [np.nan, np.inf]
    x = tf.constant(a)
    for name in ("col_mean", "col_sum"):
        got, exp = getattr(mod, name)(x).numpy(), py[name](x).numpy()
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=2e-5, err_msg=name)
        assert (np.isnan(got) == np.isnan(exp)).all() and got.shape == (shape[1],), name


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (7, 129), (200, 33), (0, 4), (4, 0)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_tf_keepdims_reductions(tfmod, shape):
    """keepdims=True: an [M, 1] or [1, N] result with the values of the
    reduction without it; a matmul chain ending in one is one fused call."""
    import tensorflow as tf
    mod, report = tfmod
    py = mod.__kiln_python__
    rules = {s["rule"] for f in report["functions"] for s in f["sites"]}
    assert {f"kiln-tensorflow/reduce-{op}-axis{d}-keepdims-f32-cpu-2d" for op in ("mean", "sum") for d in (0, 1)} <= rules
    rng = np.random.default_rng(shape[0] * 5 + shape[1])
    a = rng.standard_normal(shape).astype(np.float32)
    if a.size > 4:
        a.reshape(-1)[[1, 3]] = [np.nan, np.inf]
    x = tf.constant(a)
    for name in ("col_mean_keep", "col_sum_keep", "row_sum_keep", "center"):
        got, exp = getattr(mod, name)(x).numpy(), py[name](x).numpy()
        assert got.shape == exp.shape, name
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=2e-5, err_msg=name)
        assert (np.isnan(got) == np.isnan(exp)).all(), name
    w, b = tf.constant(rng.standard_normal((shape[1], 6)).astype(np.float32)), tf.constant(np.float32([0.5] * 6))
    got, exp = mod.pool_keep(x, w, b).numpy(), py["pool_keep"](x, w, b).numpy()
    assert got.shape == exp.shape == (shape[0], 1)
    np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-4)
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(HERE / "tf_programs" / "tf_math.py")],
                       capture_output=True, text=True, check=True, timeout=120).stdout
    i = c.index("/* def pool_keep ")
    body = c[i:c.find("/* def ", i + 10)]
    assert body.count("kr->tensor_fused(") == 1 and "KR_OP_ROWMEAN | KR_OP_KEEPDIM" in body


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (3, 3), (2, 5), (5, 2), (4, 4), (1, 9), (3, 17), (7, 143), (0, 3)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_tf_relu_scalar_tail(tfmod, shape):
    """Eager TF computes the last n % 8 elements of a tensor (its scalar tail)
    with scalar code, where relu and relu6 keep -0.0 (its vector body gives
    +0.0): kiln gives eager's sign of zero at every position, alone and in a
    chain (a division or rsqrt after it shows the sign as +-inf), also with a
    stretched operand (op by op) and rank 1. (difftest seed 4, batches 45 /
    209 / 366: `1 / relu(x)` gave inf where eager gives -inf.)"""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    rng = np.random.default_rng(shape[0] * 31 + shape[1])
    a = np.where(rng.random(shape) < 0.6, np.float32(0.0), rng.standard_normal(shape).astype(np.float32))
    a = np.where(rng.random(shape) < 0.5, -a, a).astype(np.float32)  # zeros of both signs
    x = tf.constant(a)
    b = tf.constant(np.where(rng.random(shape[1]) < 0.5, -1.0, 1.0).astype(np.float32))
    v = tf.constant(a.reshape(-1))
    cases = [("relu_2", (x,)), ("relu6_2", (x,)), ("relu_sign_chain", (x,)), ("relu6_sign_chain", (x,)),
             ("relu_sign_row", (x, b)), ("relu_sign_1d", (v,)), ("relu6_1", (v,))]
    for name, args in cases:
        got, exp = getattr(mod, name)(*args).numpy(), py[name](*args).numpy()
        assert got.shape == exp.shape, name
        assert (np.signbit(got) == np.signbit(exp)).all(), (name, shape, np.signbit(got), np.signbit(exp))
        assert ((got == 0) == (exp == 0)).all() and (np.isinf(got) == np.isinf(exp)).all(), (name, shape)
        np.testing.assert_allclose(got, exp, rtol=1e-6, atol=0, err_msg=name)
    # eager's own rule (a TF upgrade that changes it shows here): 1 / relu(-(+0.0)) is
    # +inf in the vector body, -inf in the tail
    flat, y = a.reshape(-1), py["relu_sign_1d"](v).numpy()
    pz = (flat == 0) & ~np.signbit(flat)
    body = np.arange(flat.size) < flat.size - flat.size % 8
    assert np.isposinf(y[pz & body]).all() and np.isneginf(y[pz & ~body]).all()


def test_tf_relu_scalar_tail_subnormals(tfmod):
    """Subnormals in eager TF's relu / relu6 tail: relu6's keeps their bits,
    relu's its first element when the tail is odd, and gives a zero of their
    sign elsewhere; the vector body flushes them to +0.0. kiln's bits are
    eager's for 1-40 elements of subnormals of either sign, -0.0, NaN and
    ordinary values, alone and as a chain's first step."""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    rng = np.random.default_rng(5)
    pool = np.concatenate([np.float32([1e-40, -1e-40, 3e-39, -0.0, 0.0, 7.0, -2.0, 0.5]),
                           np.uint32([0x7FC12345, 0xFFC00001]).view(np.float32)])
    for n in range(1, 41):
        for fill in (np.float32(-1e-40), np.float32(1e-40), None):
            a = np.full(n, fill, np.float32) if fill is not None else rng.choice(pool, n).astype(np.float32)
            v = tf.constant(a)
            for name in ("relu_1", "relu6_1", "relu_sign_1d"):
                got, exp = getattr(mod, name)(v).numpy(), py[name](v).numpy()
                assert (bits(got) == bits(exp)).all(), (name, n, a, bits(got), bits(exp))


def test_tf_log_scalar_tail(tfmod):
    """Eager TF's log computes the last n % 8 elements with scalar code: a
    positive subnormal gives log 2^-150 there (-inf in the vector body, TF
    reads it as 0), a negative subnormal, negative number or -inf the x86
    default NaN, a NaN itself quietened (the body: all-ones NaNs). kiln's
    results are eager's on 1-40 elements and 2-D shapes, alone and in chains
    (a chain's log on `-x`, whose tail keeps subnormals, and on `x * b`, whose
    product TF flushes) and after a GEMM: NaNs bit for bit, the rest within
    1 ulp (the tail's log is not the body's)."""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    rng = np.random.default_rng(11)
    pool = np.concatenate([np.float32([1e-40, -1e-40, 3e-39, -3e-39, -0.0, 0.0, 7.0, -2.0, 0.5, np.inf, -np.inf,
                                       2e-38, 1e30]),
                           np.uint32([1, 0x80000001, 0x7FC12345, 0xFFC00001, 0x7F812345]).view(np.float32)])

    def check(name, got, exp, what, nan_bits=True):
        assert got.shape == exp.shape, (name, what)
        nan = np.isnan(exp)
        assert (np.isnan(got) == nan).all(), (name, what, got, exp)
        assert not nan_bits or (bits(got[nan]) == bits(exp[nan])).all(), (name, what, bits(got), bits(exp))
        assert (np.isinf(got) == np.isinf(exp)).all() and (got[np.isinf(exp)] == exp[np.isinf(exp)]).all(), (name, what)
        np.testing.assert_allclose(got[~nan], exp[~nan], rtol=2.4e-7, atol=0, err_msg=f"{name} {what}")

    for n in range(1, 41):
        a = rng.choice(pool, n).astype(np.float32)
        v = tf.constant(a)
        check("log_1", getattr(mod, "log_1")(v).numpy(), py["log_1"](v).numpy(), a)
    for shape in [(1, 1), (3, 3), (2, 8), (5, 7), (4, 17), (9, 1)]:
        a = rng.choice(pool, shape).astype(np.float32)
        b = rng.choice(np.float32([1.0, -1.0, 1e-30, 2.0]), shape[1]).astype(np.float32)
        for name, args in [("log_2", (tf.constant(a),)), ("log_neg_chain", (tf.constant(a),)),
                           ("log_row_chain", (tf.constant(a), tf.constant(b)))]:
            check(name, getattr(mod, name)(*args).numpy(), py[name](*args).numpy(), (shape, a))
    # as a GEMM's epilogue (op by op where the product has a tail): with w = I the
    # product is x, NaN rows included (NaN * 0)
    for shape in [(1, 3), (3, 5), (2, 9), (4, 4), (5, 7)]:
        a = rng.choice(pool[np.isfinite(pool) | np.isnan(pool)], shape).astype(np.float32)
        x, w = tf.constant(a), tf.constant(np.eye(shape[1], dtype=np.float32))
        b = tf.constant(np.zeros(shape[1], np.float32))
        check("log_mm", mod.log_mm(x, w).numpy(), py["log_mm"](x, w).numpy(), (shape, a))
        # (a row's sum of NaNs of several payloads keeps one eager's order picks: README)
        check("log_mm_mean", mod.log_mm_mean(x, w, b).numpy(), py["log_mm_mean"](x, w, b).numpy(), (shape, a),
              nan_bits=False)
    # eager's own rule (a TF upgrade that changes it shows here)
    y = py["log_1"](tf.constant(np.full(9, 1e-40, np.float32))).numpy()
    assert np.isneginf(y[:8]).all() and bits(y[8:]).tolist() == [0xC2CFF1B4]


def test_tf_one_element_operand_nans(tfmod):
    """TF runs + and * with a one-element operand (a Python float, or a
    tensor of one element) as a scalar op: where both operands are NaN, its
    vectorised loop gives the one element's NaN and its scalar tail (the last
    n % 8 elements) the other operand's; tf.nn.bias_add is no scalar op (a
    one-element bias gives x's NaN everywhere). kiln's NaNs are eager's bit
    for bit, in either order, alone, in fused chains (op by op there), after
    a GEMM, and with NaN-free values mixed in."""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    rng = np.random.default_rng(17)
    nan_x, nan_b = np.uint32([0x7FC12345, 0xFFC00001]).view(np.float32)
    sb = struct.unpack("<d", struct.pack("<Q", 0xFFF8000020000000))[0]  # float32 0xffc00001 as a Python float
    cases = 0
    for m, n in [(1, 1), (3, 1), (7, 1), (8, 1), (9, 1), (17, 1), (2, 3), (3, 5), (4, 4), (5, 7)]:
        for fill in ("nan", "mixed"):
            a = np.full((m, n), nan_x, np.float32)
            if fill == "mixed":
                a = np.where(rng.random((m, n)) < 0.5, a, rng.standard_normal((m, n)).astype(np.float32))
            x, b = tf.constant(a), tf.constant(np.float32([nan_b]))
            w = tf.constant(np.eye(n, dtype=np.float32))
            calls = [(f, (x, b)) for f in ("one_add", "one_add_l", "one_mul", "one_mul_l", "one_chain")]
            calls += [(f, (x, sb)) for f in ("s_add", "s_add_l", "s_mul", "s_mul_l", "s_chain")]
            calls += [("one_value_chain", (b, x)), ("mm_one", (x, w, b))]
            if n == 1:  # bias_add takes a bias exactly as long as a row
                calls += [("bias_one", (x, b)), ("mm_bias_one", (x, w, b))]
            calls += [("one_add_1", (tf.constant(a.reshape(-1)), b))]
            for name, args in calls:
                got, exp = getattr(mod, name)(*args).numpy(), py[name](*args).numpy()
                assert got.shape == exp.shape, name
                nan = np.isnan(exp)
                assert (np.isnan(got) == nan).all(), (name, m, n)
                assert (bits(got[nan]) == bits(exp[nan])).all(), (name, m, n, fill, bits(got), bits(exp))
                np.testing.assert_allclose(got[~nan], exp[~nan], rtol=1e-6, err_msg=name)
                cases += 1
    assert cases == 10 * 2 * 13 + 6 * 2 * 2
    # eager's own rule (a TF upgrade that changes it shows here)
    y = bits(py["one_add_1"](tf.constant(np.full(9, nan_x, np.float32)), tf.constant(np.float32([nan_b]))).numpy())
    assert y.tolist() == [0xFFC00001] * 8 + [0x7FC12345]


@pytest.mark.parametrize("shape", [(1, 1), (5, 1), (1, 6), (0, 1), (1, 0), (3, 2)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_tf_length_one_axis_is_a_copy(tfmod, shape):
    """TF reduces an axis of length 1 by copying it: -0.0, subnormals and NaN
    payloads come out as they went in, where a sum from +0.0 gives +0.0 for
    -0.0 and 0 for a subnormal (TF's DAZ); bit for bit, every reduction form.
    Over a longer axis, -0.0s sum to +0.0 as in TF. (difftest seed 4, batches
    143/286/324: `rsqrt(reduce_mean(x, 0))` of one row holding -0.0 gave inf
    where eager gives -inf.)"""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    vals = np.float32([-0.0, 0.0, 1e-40, -1e-40, 1.5, -2.0, np.inf, -np.inf])
    vals = np.concatenate([vals, np.uint32([0x7FC12345, 0xFFC00001]).view(np.float32)])
    a = np.resize(vals, shape).astype(np.float32) if 0 not in shape else np.zeros(shape, np.float32)
    if shape == (3, 2):
        a = np.full(shape, -0.0, np.float32)
    x = tf.constant(a)
    by_axis = {1: ["row_mean", "row_sum_math", "row_sum_keep", "row_mean_neg"],
               0: ["col_mean", "col_sum", "col_mean_keep", "col_sum_keep", "col_sum_keep_neg"]}
    checked = 0
    for axis, names in by_axis.items():
        for name in names:
            got, exp = getattr(mod, name)(x).numpy(), py[name](x).numpy()
            assert got.shape == exp.shape, (name, shape)
            if shape[axis] == 1 or shape == (3, 2):
                assert (bits(got) == bits(exp)).all(), (name, shape, bits(got), bits(exp))
                checked += got.size
    assert checked or 0 in shape
    if shape == (5, 1):  # the values kept: -0.0 and a subnormal
        assert bits(mod.row_mean(x).numpy())[0] == 0x80000000 and bits(mod.row_sum_math(x).numpy())[2] == bits(a)[2, 0]


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (2, 17), (7, 129), (0, 4), (4, 0)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_tf_bias_add(tfmod, shape):
    """tf.nn.bias_add(x, b) is TF's x + b, bit for bit (x's NaN where both
    are NaN); a matmul, bias_add, relu and row mean are one fused call."""
    import tensorflow as tf
    mod, report = tfmod
    py = mod.__kiln_python__
    assert "kiln-tensorflow/bias-add-f32-cpu-2d" in {s["rule"] for f in report["functions"] for s in f["sites"]}
    x, b = tf.constant(salted(shape, 61)), tf.constant(salted((shape[1],), 62))
    got, exp = mod.bias_add(x, b).numpy(), py["bias_add"](x, b).numpy()
    assert got.shape == exp.shape and (bits(got) == bits(exp)).all()
    rng = np.random.default_rng(shape[0] + shape[1])
    w = tf.constant(rng.standard_normal((shape[1], 9)).astype(np.float32))
    b9 = tf.constant(rng.standard_normal(9).astype(np.float32))
    xs = tf.constant(rng.standard_normal(shape).astype(np.float32))
    np.testing.assert_allclose(mod.bias_add_head(xs, w, b9).numpy(), py["bias_add_head"](xs, w, b9).numpy(),
                               rtol=1e-5, atol=1e-4)
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(HERE / "tf_programs" / "tf_math.py")],
                       capture_output=True, text=True, check=True, timeout=120).stdout
    i = c.index("/* def bias_add_head ")
    body = c[i:c.find("/* def ", i + 10)]
    assert body.count("kr->tensor_fused(") == 1 and "kr->tensor_op(" not in body
    # TF's BiasAdd takes a row exactly as long as x's rows (no broadcasting), fused or not
    for xs, bs in [((2, 3), (4,)), ((2, 3), (1,)), ((2, 1), (3,))]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            py["bias_add"](tf.ones(xs), tf.ones(bs))
        shapes = rf"\[{xs[0]}, {xs[1]}\] and \[{bs[0]}\]"
        with pytest.raises(RuntimeError, match=rf"kiln: bias_add: incompatible shapes {shapes} \(.*tf_math.py:\d+\)"):
            mod.bias_add(tf.ones(xs), tf.ones(bs))
        if xs[1] == 3:
            with pytest.raises(RuntimeError, match=rf"kiln: bias_add: incompatible shapes \[2, 9\] and \[{bs[0]}\]"):
                mod.bias_add_head(tf.ones((2, 3)), tf.ones((3, 9)), tf.ones(bs))


def test_tf_fused_and_rejected(tfmod):
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    for m, n in [(1, 1), (3, 16), (5, 33), (0, 4)]:
        x, y = tf.constant(values((m, n), 51)), tf.constant(values((m, n), 52))
        assert_close_ulps(mod.rms_chain(x, y).numpy(), py["rms_chain"](x, y).numpy(), 3, f"rms_chain {m}x{n}")
        rng = np.random.default_rng(m + n)
        xs = tf.constant(rng.standard_normal((m, n)).astype(np.float32))
        w = tf.constant(rng.standard_normal((n, 8)).astype(np.float32) * 0.3)
        b = tf.constant(rng.standard_normal(8).astype(np.float32))
        np.testing.assert_allclose(mod.exp_head(xs, w, b).numpy(), py["exp_head"](xs, w, b).numpy(),
                                   rtol=2e-5, atol=2e-5)
        assert_close_ulps(mod.exp_kw(x).numpy(), py["exp_kw"](x).numpy(), 0, "exp_kw")


TF_ALPHAS = [0.2, 0.01, -0.5, 0.0, -0.0, 1.0, 2.5, float("inf"), -float("inf"), float("nan"), 1e-40, 3.4e38, 1e40,
             -1e300, 0.1 + 2 ** -40]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_tf_leaky_relu(tfmod, shape):
    """tf.nn.leaky_relu(x[, alpha]) is TF's x > 0 ? x : x * alpha bit for bit,
    under TF's flushed subnormals: a NaN element's own NaN quieted (a NaN
    alpha too), alpha converted through a double (1e40 is inf, no error),
    absent 0.2; in chains one pass."""
    import tensorflow as tf
    mod, report = tfmod
    py = mod.__kiln_python__
    rules = {s["rule"] for f in report["functions"] for s in f["sites"]}
    assert {"kiln-tensorflow/leaky-relu-f32-cpu-1d", "kiln-tensorflow/leaky-relu-f32-cpu-2d"} <= rules
    x = tf.constant(salted(shape, 71))
    v = tf.constant(salted((shape[1],), 72))

    def same(name, *args):
        got, exp = getattr(mod, name)(*args).numpy(), py[name](*args).numpy()
        assert got.shape == exp.shape and (bits(got) == bits(exp)).all(), (name, args[1:], got, exp)
    same("leaky_default", x)
    same("leaky_chain_default", v)
    for a in TF_ALPHAS:
        for name, arg in [("leaky", x), ("leaky_kw_1d", v), ("leaky_chain", x)]:
            same(name, arg, a)
    for i in (0, 1, -3, 2 ** 24 + 1, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63):
        same("leaky_int", x, i)
    same("leaky_int", x, True)
    body = emitted(HERE / "tf_programs" / "tf_math.py")
    for name, steps in [("leaky_chain", 4), ("leaky_chain_default", 3)]:
        assert body(name).count("kr->tensor_ewise(") == 1 and body(name).count("{KR_OP_") == steps, name


def test_tf_relu6_rsqrt_fused(tfmod):
    """tf.nn.relu6 in a GEMM epilogue (one kernel call: min(6, TF's relu)),
    and tf.math.rsqrt in a hand-written RMS norm, against eager TF."""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        rng = np.random.default_rng(m * 10 + n)
        x = tf.constant(rng.standard_normal((m, k)).astype(np.float32) * 3)
        w = tf.constant(rng.standard_normal((k, n)).astype(np.float32))
        b = tf.constant(rng.standard_normal(n).astype(np.float32))
        np.testing.assert_allclose(mod.relu6_head(x, w, b).numpy(), py["relu6_head"](x, w, b).numpy(), rtol=2e-5,
                                   atol=2e-5)
        g = tf.constant(rng.standard_normal(k).astype(np.float32))
        np.testing.assert_allclose(mod.rms_norm(x, g).numpy(), py["rms_norm"](x, g).numpy(), rtol=1e-5, atol=1e-6)
    body = emitted(HERE / "tf_programs" / "tf_math.py")
    assert body("relu6_head").count("kr->tensor_fused(") == 1 and "KR_OP_RELU6" in body("relu6_head")
    assert "kr->tensor_op(" not in body("relu6_head") and "KR_OP_RSQRT" in body("rms_norm")


def test_tf_silu_fused_and_chain(tfmod):
    """tf.nn.silu (TF's x * sigmoid(x)) joins a GEMM's epilogue and an
    elementwise chain: one kernel call each, within 8 ulp of eager, -inf to
    the x86 default NaN as TF's -inf * 0."""
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        rng = np.random.default_rng(m * 100 + n)
        x = tf.constant(rng.standard_normal((m, k)).astype(np.float32))
        w = tf.constant(rng.standard_normal((k, n)).astype(np.float32) * 0.3)
        b = tf.constant(rng.standard_normal(n).astype(np.float32))
        np.testing.assert_allclose(mod.silu_head(x, w, b).numpy(), py["silu_head"](x, w, b).numpy(), rtol=2e-5,
                                   atol=2e-5)
        xv = tf.constant(values((m, k), 53))
        assert_close_ulps(mod.silu_chain(xv).numpy(), py["silu_chain"](xv).numpy(), 8, f"silu_chain {m}x{k}")
    edge = tf.constant(np.float32([-np.inf, np.inf, -100.0, 100.0, -0.0, 0.0, 1e-40, -1e-40, np.nan]))
    assert (bits(mod.silu_1(edge).numpy()) == bits(py["silu_1"](edge).numpy())).all()
    body = emitted(HERE / "tf_programs" / "tf_math.py")
    for name, call in [("silu_head", "kr->tensor_fused("), ("silu_chain", "kr->tensor_ewise(")]:
        assert body(name).count(call) == 1 and "kr->tensor_op(" not in body(name), name
