"""The TensorFlow plugin end to end: claims, fallback, boundary, numerics.

Every program under tests/tf_programs/ is built once per module with
kiln.build; each compiled function is compared with its original Python
(``mod.__kiln_python__[name]``), i.e. eager TensorFlow, on many shapes
(including batch 0 and zero-size inner dimensions), NaN, ±inf and -0.0.

Tolerances: relu exact (up to TensorFlow's denormal flushing, below);
everything else rtol 1e-5 / atol 1e-6, matmul's atol scaled by sqrt(K).
NaN positions must agree everywhere.

Subnormals: TF runs ops with flush-to-zero and denormals-are-zero, and so
do kiln's TF ops (test_subnormals_flushed_like_eager).

Known differences from eager, documented rather than hidden:
- eager relu flushes subnormals on its vectorised path but may keep them in
  its scalar tail (which position is flushed depends on TF's packet/tail
  split, so TF is not even self-consistent); kiln flushes them everywhere.
  Compared with a FLT_MIN tolerance.
- relu(-0.0): kiln gives -0.0; eager gives +0.0 on its vectorised body and
  -0.0 in its scalar tail (position-dependent). xfail strict on a full-vector
  shape (test_relu_negative_zero_sign), documented in
  test_relu_negative_zero_documented.

The boundary tests (class TestBoundary) and everything else run in this
process on whichever TF boundary path kiln picked (the TFE C API one here),
and again in a subprocess with KILN_TF_PUBLIC=1 (the public fallback path).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

tf = pytest.importorskip("tensorflow")
np = pytest.importorskip("numpy")

import kiln  # noqa: E402
import kiln._runtime  # noqa: E402

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "tf_programs"
PUBLIC = os.environ.get("KILN_TF_PUBLIC") == "1"
FLT_MIN = float(np.finfo(np.float32).tiny)

# The reference README's fixture.
REF_X = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2]]
REF_W = [[0.2, -0.3], [0.4, 0.5], [-0.1, 0.6]]
REF_B = [0.05, -0.05]


# --------------------------------------------------------------------------
# helpers


def t(a, dtype=np.float32):
    return tf.constant(np.asarray(a, dtype=dtype))


def rnd(shape, seed, special=False):
    """Random float32 data; with special=True some NaN, ±inf and ±0.0."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    if special and a.size:
        flat = a.reshape(-1)
        idx = rng.permutation(flat.size)
        for i, v in zip(idx, [np.nan, np.inf, -np.inf, -0.0, 0.0]):
            flat[i] = v
    return a


def outputs(r):
    return list(r) if isinstance(r, tuple) else [r]


def assert_tensor_close(got, exp, op="other", k=1, where=""):
    """got (kiln) vs exp (eager): type, dtype, device, shape, NaN positions, values."""
    if not isinstance(exp, tf.Tensor):
        assert got == exp, where
        return
    assert type(got) is type(exp), f"{where}: {type(got)} vs {type(exp)}"
    assert got.dtype == exp.dtype == tf.float32, where
    assert got.shape == exp.shape, f"{where}: shape {got.shape} vs {exp.shape}"
    assert got.device.endswith("CPU:0"), got.device
    g, e = got.numpy(), exp.numpy()
    np.testing.assert_array_equal(np.isnan(g), np.isnan(e), err_msg=f"{where}: NaN positions")
    if op == "relu":
        # exact, except that eager may flush a subnormal to zero
        mask = ~((e == 0) & (np.abs(g) < FLT_MIN))
        np.testing.assert_array_equal(g[mask], e[mask], err_msg=where)
        np.testing.assert_allclose(g, e, rtol=0, atol=FLT_MIN, equal_nan=True, err_msg=where)
    else:
        atol = 1e-6 * (math.sqrt(k) if op == "matmul" and k > 1 else 1.0)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=atol, equal_nan=True, err_msg=where)


def same_as_eager(mod, name, *args, op="other", k=1):
    """Call the compiled and the original function; same result or same exception."""
    native = getattr(mod, name)
    py = mod.__kiln_python__[name]
    before = [a.numpy().copy() if isinstance(a, (tf.Tensor, tf.Variable)) else None for a in args]
    try:
        exp = py(*args)
    except Exception as ex:  # noqa: BLE001 - the oracle decides
        with pytest.raises(type(ex)) as info:
            native(*args)
        assert str(info.value) == str(ex)
        return None
    got = native(*args)
    for a, b in zip(args, before):  # inputs never mutated
        if b is not None:
            np.testing.assert_array_equal(a.numpy(), b)
    gs, es = outputs(got), outputs(exp)
    assert len(gs) == len(es)
    for i, (g, e) in enumerate(zip(gs, es)):
        assert_tensor_close(g, e, op=op, k=k, where=f"{name} output {i}")
    return got


def build(name, tmp_path_factory):
    out = tmp_path_factory.mktemp(name)
    mod = kiln.build(PROGRAMS / f"{name}.py", out_dir=out)
    report = json.loads((out / f"{name}.kiln.json").read_text())
    return mod, report


def sites(report, fn):
    for f in report["functions"]:
        if f["name"] == fn:
            assert f["status"] == "native", f
            return f["sites"]
    raise KeyError(fn)


def tf_sites(report, fn):
    return [s for s in sites(report, fn) if s["kind"] in ("call", "method") or s["plugin"] == "tensorflow"
            or s["outcome"] in ("claimed", "rejected", "not-covered")]


# --------------------------------------------------------------------------
# built modules (one build per module)


@pytest.fixture(scope="module")
def acc(tmp_path_factory):
    return build("tf_accepted", tmp_path_factory)


@pytest.fixture(scope="module")
def acc_full(tmp_path_factory):
    return build("tf_accepted_full", tmp_path_factory)


@pytest.fixture(scope="module")
def rej(tmp_path_factory):
    return build("tf_rejected", tmp_path_factory)


@pytest.fixture(scope="module")
def arith(tmp_path_factory):
    """+ - * / forms (compared with eager in test_elementwise.py)."""
    return build("tf_arith", tmp_path_factory)


@pytest.fixture(scope="module")
def math_fns(tmp_path_factory):
    """tf.abs / sqrt / square / exp (compared with eager in test_math_ops.py)."""
    return build("tf_math", tmp_path_factory)


@pytest.fixture(scope="module")
def gelu_fns(tmp_path_factory):
    """tf.nn.gelu, both forms (compared with eager in test_gelu.py)."""
    return build("tf_gelu", tmp_path_factory)


@pytest.fixture(scope="module")
def softmax_fns(tmp_path_factory):
    """tf.nn.softmax / log_softmax (compared with eager in test_tf_softmax.py)."""
    return build("tf_softmax", tmp_path_factory)


@pytest.fixture(scope="module")
def minmax_fns(tmp_path_factory):
    """tf.maximum / tf.minimum (compared with eager in test_tf_minmax.py)."""
    return build("tf_minmax", tmp_path_factory)


@pytest.fixture(scope="module")
def concat_fns(tmp_path_factory):
    """tf.concat (compared with eager in test_cat.py)."""
    return build("tf_cat", tmp_path_factory)


@pytest.fixture(scope="module")
def reshape_fns(tmp_path_factory):
    """tf.reshape / squeeze / expand_dims (compared with eager in test_reshape.py)."""
    return build("tf_reshape", tmp_path_factory)


@pytest.fixture(scope="module")
def index_fns(tmp_path_factory):
    """x[i], x[a:b, j] (compared with eager in test_index.py)."""
    return build("tf_index", tmp_path_factory)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return build("tf_mixed", tmp_path_factory)


@pytest.fixture(scope="module")
def errs(tmp_path_factory):
    return build("tf_errors", tmp_path_factory)


@pytest.fixture(params=["tf", "tensorflow"])
def accm(request, acc, acc_full):
    """The accepted module in both spellings."""
    return acc if request.param == "tf" else acc_full


# --------------------------------------------------------------------------
# claims


def full_spelling(src):
    src = src.replace("import tensorflow as tf\n", "import tensorflow\n")
    src = re.sub(r"\btf\.", "tensorflow.", src)
    src = src.replace("spelled through `import tensorflow as tf`",
                      "spelled through `import tensorflow` (`tensorflow.*`)")
    src = src.replace("; tf_accepted_full.py is the", "; generated from tf_accepted.py (the")
    src = src.replace("same file spelled `tensorflow.*` (kept in sync by test_tf_plugin.py).",
                      "same functions, `tensorflow.*` spelling; kept in sync by test_tf_plugin.py).")
    return src


def test_full_spelling_program_in_sync():
    assert (PROGRAMS / "tf_accepted_full.py").read_text() == full_spelling(
        (PROGRAMS / "tf_accepted.py").read_text())


EXPECTED_CLAIMS = {
    "inference": ["matmul-f32-cpu-2d", "relu-f32-cpu-2d", "add-binop-f32-cpu", "reduce-mean-axis1-f32-cpu-2d"],
    "inference_sigmoid": ["matmul-f32-cpu-2d", "relu-f32-cpu-2d", "sigmoid-f32-cpu-2d", "add-call-f32-cpu",
                          "reduce-mean-axis1-f32-cpu-2d"],
    "mm": ["matmul-f32-cpu-2d"], "mm_linalg": ["matmul-f32-cpu-2d"], "mm_at": ["matmul-binop-f32-cpu-2d"],
    "relu2": ["relu-f32-cpu-2d"], "relu1": ["relu-f32-cpu-1d"],
    "sigmoid2": ["sigmoid-f32-cpu-2d"], "sigmoid1": ["sigmoid-f32-cpu-1d"],
    "sigmoid_top": ["sigmoid-f32-cpu-2d"], "sigmoid_math": ["sigmoid-f32-cpu-1d"],
    **{f"{p}_{r}": ["add-call-f32-cpu"] for p in ("add", "math_add") for r in ("22", "11", "21", "12")},
    **{f"plus_{r}": ["add-binop-f32-cpu"] for r in ("22", "11", "21", "12")},
    **{n: ["reduce-mean-axis1-f32-cpu-2d"] for n in ("mean_kw", "mean_pos", "mean_keep_false",
                                                     "mean_pos_keep_false", "math_mean",
                                                     "math_mean_keep_false", "mean_neg1")},
    **{n: ["reduce-sum-axis1-f32-cpu-2d"] for n in ("sum_kw", "math_sum_pos_keep_false", "sum_neg1")},
    "mm_tb": ["matmul-transpose-b-f32-cpu-2d"], "mm_linalg_tb": ["matmul-transpose-b-f32-cpu-2d"],
    "mm_tb_false": ["matmul-f32-cpu-2d"],
    "chain_tb": ["relu-f32-cpu-2d", "add-binop-f32-cpu", "matmul-transpose-b-f32-cpu-2d",
                 "reduce-sum-axis1-f32-cpu-2d"],
}


@pytest.mark.parametrize("prog", ["tf_accepted", "tf_accepted_full"])
def test_accepted_forms_are_claimed(prog, acc, acc_full):
    mod, report = acc if prog == "tf_accepted" else acc_full
    names = {f["name"] for f in report["functions"]}
    assert names == set(EXPECTED_CLAIMS)
    for fn, rules in EXPECTED_CLAIMS.items():
        tfs = [s for s in sites(report, fn) if s["outcome"] != "scalar"]
        assert [s["rule"] for s in tfs] == [f"kiln-tensorflow/{r}" for r in rules], (fn, tfs)
        for s in tfs:
            assert s["outcome"] == "claimed" and s["plugin"] == "tensorflow" and s["code"] is None
            if s["kind"] == "call":
                assert s["target"].startswith("tensorflow."), s


# (outcome, code) per function of tf_rejected.py
EXPECTED_REJECTED = {
    "mm_rank1": ("rejected", "KILN-TF-001"),
    "mm_rank21": ("rejected", "KILN-TF-001"),
    "mm_transpose_a": ("rejected", "KILN-TF-001"),
    "mm_at_rank1": ("rejected", "KILN-TF-001"),
    "relu_kw": ("rejected", "KILN-TF-002"),
    "sigmoid_kw": ("rejected", "KILN-TF-005"),
    "add_kw": ("rejected", "KILN-TF-003"),
    "mean_noaxis": ("rejected", "KILN-TF-004"),
    "mean_axis0": ("rejected", "KILN-TF-004"),
    "mean_keepdims_int": ("rejected", "KILN-TF-004"),
    "mean_rank1": ("rejected", "KILN-TF-004"),
    "mean_dynamic_axis": ("rejected", "KILN-TF-004"),
    "mean_dynamic_keepdims": ("rejected", "KILN-TF-004"),
    "bias_add_kw": ("rejected", "KILN-TF-003"),
    "leaky_relu_name": ("rejected", "KILN-TF-002"),
    "gelu_name": ("rejected", "KILN-TF-005"),
    "gelu_dynamic": ("rejected", "KILN-TF-005"),
    "softmax_axis0": ("rejected", "KILN-TF-005"),
    "softmax_name": ("rejected", "KILN-TF-005"),
    "add_scalar": ("rejected", "KILN-TF-010"),
    "relu_scalar": ("rejected", "KILN-TF-010"),
    "relu_positional_name": ("rejected", "KILN-TF-002"),  # the extra argument, not a bad operand
    "cos": ("not-covered", None),
    "transpose": ("not-covered", None),
    "method_receiver": ("not-covered", None),
    "method_dunder": ("not-covered", None),
    "untyped": ("not-covered", None),
}

# Reference static precondition 3: keyword operands on covered calls are Rejected.
KW_OPERANDS = ["mm_kw_operands", "relu_kw_operand", "mean_kw_operand"]


@pytest.mark.parametrize("fn", sorted(EXPECTED_REJECTED))
def test_rejected_and_not_covered_outcomes(rej, fn):
    _, report = rej
    outcome, code = EXPECTED_REJECTED[fn]
    ss = [s for s in sites(report, fn) if s["outcome"] != "scalar"]
    assert len(ss) == 1, ss
    s = ss[0]
    assert (s["outcome"], s["code"]) == (outcome, code), s
    assert s["rule"] is None
    if outcome == "rejected":
        assert s["plugin"] == "tensorflow" and s["message"]
    else:
        assert s["plugin"] is None


# Operands passed by keyword (tf.matmul(a=x, b=w)) are rejected like other keywords.
@pytest.mark.parametrize("fn", KW_OPERANDS)
def test_keyword_operands_rejected(rej, fn):
    _, report = rej
    expected = {"mm_kw_operands": "KILN-TF-001", "relu_kw_operand": "KILN-TF-002",
                "mean_kw_operand": "KILN-TF-004"}[fn]
    (s,) = [s for s in sites(report, fn) if s["outcome"] != "scalar"]
    assert (s["outcome"], s["code"]) == ("rejected", expected), s


def test_rejected_diagnostic_has_explain_text():
    from kiln import _compiler
    if not hasattr(_compiler, "explain"):
        pytest.skip("no kiln._compiler.explain")
    for code in ("KILN-TF-001", "KILN-TF-002", "KILN-TF-003", "KILN-TF-004", "KILN-TF-005", "KILN-TF-010"):
        assert _compiler.explain(code), code


# --------------------------------------------------------------------------
# accepted forms vs eager


def test_reference_fixture(accm):
    mod, _ = accm
    x, w, b = t(REF_X), t(REF_W), t(REF_B)
    for fn in ("inference", "inference_sigmoid"):
        got = same_as_eager(mod, fn, x, w, b, op="matmul", k=3)
        assert got.shape == (4,)
    # the intermediate steps one by one
    h = same_as_eager(mod, "mm", x, w, op="matmul", k=3)
    h = same_as_eager(mod, "relu2", h, op="relu")
    same_as_eager(mod, "sigmoid2", h)
    h = same_as_eager(mod, "plus_21", h, b)
    same_as_eager(mod, "mean_kw", h)


MM_SHAPES = [(4, 3, 2), (0, 3, 2), (1, 1, 1), (3, 0, 2), (2, 3, 0), (0, 0, 0), (7, 17, 5), (33, 65, 31),
             (64, 256, 10), (1, 1000, 3), (16, 8, 64), (200, 300, 150)]


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
@pytest.mark.parametrize("m,k,n", MM_SHAPES)
def test_matmul_forms(accm, m, k, n, special):
    mod, _ = accm
    a, b = t(rnd((m, k), 1, special)), t(rnd((k, n), 2, special))
    for fn in ("mm", "mm_linalg", "mm_at"):
        same_as_eager(mod, fn, a, b, op="matmul", k=k)


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
@pytest.mark.parametrize("m,k,n", MM_SHAPES)
def test_matmul_transpose_b(accm, m, k, n, special):
    """tf.matmul(a, b, transpose_b=True): b is [n, k], read in place (a
    linear without a bias); with a row added and a row sum, one fused call."""
    mod, _ = accm
    a, b, bt = t(rnd((m, k), 1, special)), t(rnd((n, k), 2, special)), t(rnd((k, n), 3, special))
    for fn in ("mm_tb", "mm_linalg_tb"):
        same_as_eager(mod, fn, a, b, op="matmul", k=k)
    same_as_eager(mod, "mm_tb_false", a, bt, op="matmul", k=k)
    same_as_eager(mod, "chain_tb", a, t(rnd((n, k), 4)), t(rnd((n,), 5, special)), op="matmul", k=k * max(n, 1))


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
@pytest.mark.parametrize("m,k,n", MM_SHAPES)
def test_reference_chain_shapes(accm, m, k, n, special):
    mod, _ = accm
    x, w, b = t(rnd((m, k), 3, special)), t(rnd((k, n), 4)), t(rnd((n,), 5, special))
    for fn in ("inference", "inference_sigmoid"):
        same_as_eager(mod, fn, x, w, b, op="matmul", k=k)


UNARY_SHAPES = [(0, 5), (5, 0), (1, 1), (3, 7), (17, 33), (64, 129), (2, 1000)]


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
@pytest.mark.parametrize("shape", UNARY_SHAPES)
def test_unary_and_mean_rank2(accm, shape, special):
    mod, _ = accm
    x = t(rnd(shape, 6, special) * 4)
    same_as_eager(mod, "relu2", x, op="relu")
    for fn in ("sigmoid2", "sigmoid_top", "mean_kw", "mean_pos", "mean_keep_false", "mean_pos_keep_false",
               "math_mean", "math_mean_keep_false", "mean_neg1", "sum_kw", "math_sum_pos_keep_false", "sum_neg1"):
        same_as_eager(mod, fn, x)


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
@pytest.mark.parametrize("n", [0, 1, 7, 33, 1000])
def test_unary_rank1(accm, n, special):
    mod, _ = accm
    x = t(rnd((n,), 7, special) * 4)
    same_as_eager(mod, "relu1", x, op="relu")
    same_as_eager(mod, "sigmoid1", x)
    same_as_eager(mod, "sigmoid_math", x)


# (left shape, right shape, function suffix) incl. TF broadcasting of size-1 dims
ADD_CASES = [
    ((4, 3), (4, 3), "22"), ((0, 3), (0, 3), "22"), ((4, 3), (1, 3), "22"), ((4, 1), (1, 3), "22"),
    ((1, 3), (4, 3), "22"), ((4, 1), (4, 3), "22"), ((5, 0), (5, 0), "22"),
    ((7,), (7,), "11"), ((0,), (0,), "11"), ((1,), (7,), "11"), ((7,), (1,), "11"),
    ((4, 3), (3,), "21"), ((0, 3), (3,), "21"), ((4, 1), (3,), "21"), ((4, 3), (1,), "21"),
    ((3,), (4, 3), "12"), ((3,), (0, 3), "12"), ((1,), (4, 3), "12"), ((3,), (4, 1), "12"),
    ((65, 129), (129,), "21"),
]


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
@pytest.mark.parametrize("sa,sb,suffix", ADD_CASES)
def test_add_forms(accm, sa, sb, suffix, special):
    mod, _ = accm
    a, b = t(rnd(sa, 8, special)), t(rnd(sb, 9, special))
    for prefix in ("add", "math_add", "plus"):
        same_as_eager(mod, f"{prefix}_{suffix}", a, b)


def test_negative_zero_add_mean_matmul(accm):
    mod, _ = accm
    nz = t([[-0.0, -0.0], [-0.0, 0.0]])
    for fn, args in [("plus_22", (nz, nz)), ("add_11", (t([-0.0]), t([-0.0]))), ("mean_kw", (nz,)),
                     ("sigmoid2", (nz,))]:
        got = getattr(mod, fn)(*args).numpy()
        exp = mod.__kiln_python__[fn](*args).numpy()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(exp), err_msg=fn)
    got = mod.mm(nz, t([[1.0], [1.0]])).numpy()
    exp = mod.__kiln_python__["mm"](nz, t([[1.0], [1.0]])).numpy()
    np.testing.assert_array_equal(got, exp)


# kiln's TF relu gives +0.0 for -0.0, as eager's vectorised path does (whole blocks of 8).
@pytest.mark.parametrize("fn,shape", [("relu1", (16,)), ("relu2", (2, 8))])
def test_relu_negative_zero_sign(acc, fn, shape):
    mod, _ = acc
    x = t(np.full(shape, -0.0))
    got = getattr(mod, fn)(x).numpy()
    exp = mod.__kiln_python__[fn](x).numpy()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(exp))


def test_relu_negative_zero_tail(acc):
    """Eager's sign of relu(-0.0) depends on the element's position (vector body +0.0,
    scalar tail, the last n % 8 elements, -0.0); kiln's follows it (test_math_ops.py
    test_tf_relu_scalar_tail has the chains)."""
    mod, _ = acc
    for n in (9, 15, 16, 1, 3):
        x = t(np.full((n,), -0.0))
        got, exp = mod.relu1(x).numpy(), mod.__kiln_python__["relu1"](x).numpy()
        assert np.signbit(exp).tolist() == [False] * (n - n % 8) + [True] * (n % 8), np.signbit(exp)
        assert np.signbit(got).tolist() == np.signbit(exp).tolist(), n


def test_relu_denormals_documented(acc):
    """Eager relu flushes subnormals to zero except in its scalar tail; kiln flushes them
    everywhere. Within FLT_MIN, and exact from FLT_MIN up."""
    mod, _ = acc
    x = t([1e-40, -1e-40, 1e-39, 1e-38, 2e-38, 0.5] * 3)
    got, exp = mod.relu1(x).numpy(), mod.__kiln_python__["relu1"](x).numpy()
    np.testing.assert_allclose(got, exp, rtol=0, atol=FLT_MIN)
    assert (got[np.asarray(x) >= FLT_MIN] == np.asarray(x)[np.asarray(x) >= FLT_MIN]).all()


def subnormal_data(shape, seed, tiny=1e-40):
    """float32 data where about a third of the values are subnormal (±tiny·k),
    a sixth ±FLT_MIN·k, the rest ordinary."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    pick = rng.integers(0, 6, size=shape)
    a = np.where(pick < 2, np.float32(tiny) * rng.integers(-3, 4, size=shape), a)
    a = np.where(pick == 2, np.float32(FLT_MIN) * rng.integers(-1, 2, size=shape), a)
    return a.astype(np.float32)


def assert_flushed_like_eager(got, exp, where, bitwise=False):
    """TF runs ops with subnormals flushed to zero and read as zero (FTZ +
    DAZ): no kiln result may be subnormal, a zero is a zero on both sides, and
    elementwise ops agree bit for bit."""
    g, e = got.numpy(), exp.numpy()
    assert not ((g != 0) & (np.abs(g) < FLT_MIN)).any(), f"{where}: kiln kept a subnormal: {g}"
    assert not ((e != 0) & (np.abs(e) < FLT_MIN)).any(), f"{where}: eager kept a subnormal"
    np.testing.assert_array_equal(g == 0, e == 0, err_msg=f"{where}: zeros")
    if bitwise:
        np.testing.assert_array_equal(g.view(np.uint32), e.view(np.uint32), err_msg=where)
    else:
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=0, err_msg=where)


@pytest.mark.parametrize("shape", [(1, 5), (3, 17), (4, 64), (16, 128)])
def test_subnormals_flushed_like_eager(acc, shape):
    """Subnormal inputs and results, as eager TF computes them: add (every
    form), mean, matmul (products of 1e-20s), sigmoid down to exp underflow,
    and the fused reference chain. Regression: kiln used to keep them."""
    mod, _ = acc
    py = mod.__kiln_python__
    a, b = t(subnormal_data(shape, 1)), t(subnormal_data(shape, 2))
    row = t(subnormal_data(shape[1:], 3))
    for fn, args in [("plus_22", (a, b)), ("add_21", (a, row)), ("math_add_12", (row, a)),
                     ("plus_11", (row, row))]:  # relu: see test_relu_denormals_documented
        assert_flushed_like_eager(getattr(mod, fn)(*args), py[fn](*args), fn, bitwise=True)
    assert_flushed_like_eager(mod.mean_kw(a), py["mean_kw"](a), "mean_kw")
    # sigmoid(-88.5) is subnormal in exact arithmetic
    z = t(np.linspace(-95.0, -80.0, num=int(np.prod(shape)), dtype=np.float32).reshape(shape))
    assert_flushed_like_eager(mod.sigmoid2(z), py["sigmoid2"](z), "sigmoid2")
    # products of two ±k·1e-20 are subnormal (flushed one by one, so a sum of
    # them is zero); with ordinary values mixed in, the rest is ordinary
    rng = np.random.default_rng(7)

    def tiny(sh):
        return (np.float32(1e-20) * rng.integers(-3, 4, size=sh)).astype(np.float32)

    def mixed(sh):
        return np.where(rng.integers(0, 3, size=sh) == 0, rng.standard_normal(sh), tiny(sh)).astype(np.float32)

    xt, wt, bias = t(tiny(shape)), t(tiny((shape[1], 64))), t(subnormal_data((64,), 6))
    assert_flushed_like_eager(mod.mm(xt, wt), py["mm"](xt, wt), "mm tiny")
    assert_flushed_like_eager(mod.inference(xt, wt, bias), py["inference"](xt, wt, bias), "inference tiny")
    x, w = t(mixed(shape)), t(mixed((shape[1], 64)))
    same_as_eager(mod, "mm", x, w, op="matmul", k=shape[1])
    same_as_eager(mod, "inference", x, w, bias, k=shape[1])


# --------------------------------------------------------------------------
# rejected / not-covered forms vs eager (the Python fallback)


def rejected_args(fn):
    x, w, b = t(REF_X), t(REF_W), t(REF_B)
    v3 = t([0.3, -0.2, 0.1])
    return {
        "mm_rank1": (v3, w),  # eager raises (rank-1 matmul)
        "mm_rank21": (x, v3),
        "mm_transpose_a": (t(rnd((3, 4), 1)), t(rnd((3, 5), 2))),
        "mm_at_rank1": (v3, w),
        "relu_kw": (x,), "sigmoid_kw": (x,), "add_kw": (x, t([1.0, 2.0, 3.0])),
        "mean_noaxis": (x,), "mean_axis0": (x,), "mean_keepdims_int": (x,), "mean_rank1": (v3,),
        "mean_dynamic_axis": (x, 1), "mean_dynamic_keepdims": (x, True),
        "add_scalar": (x, 2.5), "relu_scalar": (-1.5,), "relu_positional_name": (x,),
        "cos": (x,), "transpose": (x,), "method_receiver": (x,), "method_dunder": (x, x),
        "untyped": (x, w), "mm_kw_operands": (x, w), "relu_kw_operand": (x,), "mean_kw_operand": (x,),
        "bias_add_kw": (x, t([0.5] * x.shape[1])), "leaky_relu_name": (x,), "gelu_name": (x,),
        "gelu_dynamic": (x, True), "softmax_axis0": (x,), "softmax_name": (x,),
    }[fn]


@pytest.mark.parametrize("fn", sorted(EXPECTED_REJECTED) + KW_OPERANDS)
def test_rejected_matches_eager(rej, fn):
    mod, _ = rej
    same_as_eager(mod, fn, *rejected_args(fn))


def test_rejected_more_inputs(rej):
    mod, _ = rej
    for shape in [(0, 3), (5, 0), (6, 4)]:
        x = t(rnd(shape, 11, True))
        for fn in ("relu_kw", "sigmoid_kw", "mean_noaxis", "mean_axis0", "mean_keepdims_int", "cos",
                   "transpose", "method_receiver"):
            same_as_eager(mod, fn, x)
        same_as_eager(mod, "mean_dynamic_axis", x, 0)
        same_as_eager(mod, "mean_dynamic_axis", x, -1)
        same_as_eager(mod, "mean_dynamic_keepdims", x, False)
        same_as_eager(mod, "add_scalar", x, -1.0)
    # untyped: any objects, including a NumPy array and a Variable
    same_as_eager(mod, "untyped", np.ones((2, 3), np.float32), t(REF_W))
    same_as_eager(mod, "untyped", tf.Variable(t(REF_X)), t(REF_W))
    same_as_eager(mod, "mm_rank21", t(rnd((4, 5), 3)), t(rnd((4,), 4)))  # eager raises


def test_rejected_mm_rank1_is_eager_error(rej):
    mod, _ = rej
    with pytest.raises(tf.errors.InvalidArgumentError):
        mod.mm_rank1(t([0.3, -0.2, 0.1]), t(REF_W))


# --------------------------------------------------------------------------
# mixed covered / uncovered / scalar control flow


@pytest.mark.parametrize("depth,mode", [(0, 0), (1, 0), (3, 1), (4, 2), (5, 3), (6, 1), (2, 5)])
def test_mixed_function(mixed, depth, mode):
    mod, report = mixed
    outs = {s["outcome"] for s in sites(report, "mixed")}
    assert outs == {"claimed", "not-covered", "scalar"}
    targets = {s["target"] for s in sites(report, "mixed") if s["outcome"] == "not-covered"}
    assert {"tensorflow.cos", "tensorflow.transpose", "tensorflow.reduce_sum"} <= targets
    for m, k, n in [(4, 3, 2), (0, 3, 2), (9, 5, 5)]:
        x, w, b = t(rnd((m, k), 12, depth == 3)), t(rnd((k, n), 13)), t(rnd((n,), 14))
        res = same_as_eager(mod, "mixed", x, w, b, depth, mode, op="matmul", k=k)
        assert isinstance(res[2], int)
        same_as_eager(mod, "native_after_fallback", x, w, depth, op="matmul", k=k)
    x, w, b = t(REF_X), t(REF_W), t(REF_B)
    same_as_eager(mod, "mixed", x, w, b, depth, mode, op="matmul", k=3)


# --------------------------------------------------------------------------
# shape errors


@pytest.mark.parametrize("fn,sa,sb,line", [
    ("mm", (4, 3), (2, 2), 9), ("mm", (0, 3), (4, 1), 9), ("add_21", (4, 3), (2,), 13),
    ("plus_22", (4, 3), (2, 3), 17), ("plus_22", (4, 3), (4, 2), 17),
])
def test_incompatible_shapes(errs, fn, sa, sb, line):
    mod, _ = errs
    a, b = t(np.ones(sa)), t(np.ones(sb))
    with pytest.raises(tf.errors.InvalidArgumentError):
        mod.__kiln_python__[fn](a, b)
    with pytest.raises(RuntimeError) as info:
        getattr(mod, fn)(a, b)
    msg = str(info.value)
    fmt = lambda s: "[" + ", ".join(map(str, s)) + "]"  # noqa: E731
    assert fmt(sa) in msg and fmt(sb) in msg, msg
    assert f"tf_errors.py:{line}" in msg, msg


def test_incompatible_shapes_in_chain(errs):
    mod, _ = errs
    with pytest.raises(RuntimeError) as info:
        mod.chain(t(REF_X), t(REF_W), t([1.0, 2.0, 3.0]))
    msg = str(info.value)
    assert "[4, 2]" in msg and "[3]" in msg and "tf_errors.py:22" in msg, msg
    with pytest.raises(RuntimeError) as info:
        mod.chain(t(REF_X), t(REF_X), t(REF_B))
    msg = str(info.value)
    assert "[4, 3]" in msg and "tf_errors.py:21" in msg, msg


# --------------------------------------------------------------------------
# boundary (also run on the public path in a subprocess)


class TestBoundary:
    def test_path(self):
        tf.constant(1.0)
        path = kiln._runtime.boundary_paths()["tensorflow"]
        assert path == ("public" if PUBLIC else "tfe-c-api"), path

    def test_float64(self, acc):
        mod, _ = acc
        with pytest.raises(ValueError) as info:
            mod.inference(t(REF_X, np.float64), t(REF_W), t(REF_B))
        msg = str(info.value)
        assert "kiln-tensorflow" in msg and "'x'" in msg and "expected a float32 tensor" in msg, msg
        assert "float64" in msg, msg
        with pytest.raises(ValueError, match="expected a float32 tensor"):
            mod.relu1(tf.constant([1, 2], dtype=tf.int32))
        with pytest.raises(ValueError, match="bias.*expected a float32 tensor"):
            mod.inference(t(REF_X), t(REF_W), t(REF_B, np.float16))

    def test_rank1_for_rank2(self, acc):
        mod, _ = acc
        with pytest.raises(ValueError) as info:
            mod.inference(t(REF_X), t(REF_B), t(REF_B))
        msg = str(info.value)
        assert "weight" in msg and "expected rank-2 tensor, got rank 1" in msg, msg
        with pytest.raises(ValueError, match="expected rank-1 tensor, got rank 2"):
            mod.inference(t(REF_X), t(REF_W), t(REF_W))
        with pytest.raises(ValueError, match="expected rank-2 tensor, got rank 0"):
            mod.relu2(tf.constant(1.0))
        with pytest.raises(ValueError, match="expected rank-2 tensor, got rank 3"):
            mod.relu2(tf.zeros((1, 2, 3)))

    def test_remembered_weights_and_fresh_inputs(self, acc):
        """Weights passed on every call are remembered after their first check
        (fast path: tf_checked "on"); fresh inputs, many of them new tensors
        at freed ones' addresses, are checked afresh, so shapes, values and
        errors follow the tensor actually passed."""
        mod, _ = acc
        assert kiln._runtime.boundary_paths()["tf_checked"] == ("off (public path)" if PUBLIC else "on")
        w, b = t(REF_W), t(REF_B)
        rng = np.random.default_rng(11)
        for i in range(300):
            x = t(rnd((int(rng.integers(0, 9)), 3), 100 + i, special=i % 5 == 0))
            for fn in ("inference", "inference_sigmoid"):
                same_as_eager(mod, fn, x, w, b, op="matmul", k=3)
            if i % 25 == 0:
                with pytest.raises(ValueError, match="'weight': expected rank-2 tensor, got rank 1"):
                    mod.inference(x, b, b)
                with pytest.raises(ValueError, match="'x': expected a float32 tensor"):
                    mod.inference(t(x.numpy(), np.float64), w, b)
                with pytest.raises(RuntimeError, match=r"incompatible shapes \[2, 4\] and \[3, 2\]"):
                    mod.inference(t(rnd((2, 4), i)), w, b)

    def test_numpy_array(self, acc):
        mod, _ = acc
        for bad in (np.asarray(REF_X, np.float32), REF_X, 1.0, None):
            with pytest.raises(TypeError) as info:
                mod.inference(bad, t(REF_W), t(REF_B))
            msg = str(info.value)
            assert "kiln-tensorflow:" in msg and "'x'" in msg and "expected a TensorFlow EagerTensor" in msg, msg

    def test_variable(self, acc):
        mod, _ = acc
        xv, wv, bv = tf.Variable(t(REF_X)), tf.Variable(t(REF_W)), tf.Variable(t(REF_B))
        for fn in ("inference", "inference_sigmoid"):
            same_as_eager(mod, fn, xv, wv, bv, op="matmul", k=3)
            same_as_eager(mod, fn, xv, t(REF_W), bv, op="matmul", k=3)
        # kiln reads the value at call time, like eager
        xv.assign(t(rnd((4, 3), 21)))
        same_as_eager(mod, "inference", xv, wv, bv, op="matmul", k=3)
        same_as_eager(mod, "relu2", xv, op="relu")
        same_as_eager(mod, "relu2", tf.Variable(t(rnd((0, 3), 1))), op="relu")
        same_as_eager(mod, "plus_12", bv, tf.Variable(t(rnd((5, 2), 2))))
        # an argument returned unchanged: eager's value
        with pytest.raises(ValueError, match="expected a float32 tensor"):
            mod.relu2(tf.Variable(t(REF_X, np.float64)))
        with pytest.raises(ValueError, match="expected rank-2 tensor, got rank 1"):
            mod.relu2(bv)

    def test_outputs_are_new_eager_tensors(self, acc):
        mod, _ = acc
        x = t(REF_X)
        y = mod.relu2(x)
        assert y is not x and type(y) is type(x) and y.dtype == tf.float32
        assert y.device.endswith("CPU:0")
        # results feed eager TF and other compiled functions
        z = tf.matmul(y, t(REF_W))
        np.testing.assert_allclose(mod.mm(y, t(REF_W)).numpy(), z.numpy(), rtol=1e-5, atol=1e-6)
        assert mod.mean_kw(mod.relu2(x)).shape == (4,)

    def test_refcounts_10000_calls(self, acc):
        mod, _ = acc
        x, w, b = t(REF_X), t(REF_W), t(REF_B)
        xv = tf.Variable(t(REF_X))
        objs = (x, w, b, xv, mod.inference, mod.relu2)
        for _ in range(10):  # warm up caches
            mod.inference(x, w, b)
            mod.inference(xv, w, b)
        before = [sys.getrefcount(o) for o in objs]
        last = None
        for _ in range(10_000):
            last = mod.inference(x, w, b)
            mod.inference(xv, w, b)
            mod.relu2(x)
        after = [sys.getrefcount(o) for o in objs]
        assert before == after
        assert sys.getrefcount(last) == 2
        assert_tensor_close(last, mod.__kiln_python__["inference"](x, w, b), op="matmul", k=3)
        # failing calls release what they took, too
        bad = t(REF_X, np.float64)
        before = [sys.getrefcount(o) for o in (x, w, b, bad)]
        for _ in range(2_000):
            with pytest.raises(ValueError):
                mod.inference(x, w, bad)
            with pytest.raises(ValueError):
                mod.inference(bad, w, b)
        assert before == [sys.getrefcount(o) for o in (x, w, b, bad)]


    def test_memory_stable(self, acc):
        """Intermediates of 64 KiB each: a leak of one per call would be 128 MiB."""
        mod, _ = acc
        x, w, b = t(rnd((64, 256), 1)), t(rnd((256, 256), 2)), t(rnd((256,), 3))

        def rss():
            return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

        for _ in range(200):
            mod.inference(x, w, b)
        before = rss()
        for _ in range(2_000):
            mod.inference(x, w, b)
            mod.relu2(x)
        assert rss() - before < 32 << 20

    def test_threads(self, acc):
        import threading
        mod, _ = acc
        x, w, b = t(rnd((64, 128), 1)), t(rnd((128, 32), 2)), t(rnd((32,), 3))
        exp = mod.__kiln_python__["inference"](x, w, b).numpy()
        errors = []

        def work():
            try:
                for _ in range(300):
                    got = mod.inference(x, w, b).numpy()
                    np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-5)
            except Exception as ex:  # noqa: BLE001
                errors.append(ex)

        ths = [threading.Thread(target=work) for _ in range(4)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        assert not errors, errors[0]

    def test_refcounts_with_fallback_sites(self, mixed, rej):
        mod, _ = mixed
        x, w, b = t(REF_X), t(REF_W), t(REF_B)
        for _ in range(5):
            mod.mixed(x, w, b, 4, 2)
        before = [sys.getrefcount(o) for o in (x, w, b, mod.mixed)]
        for _ in range(2_000):
            mod.mixed(x, w, b, 4, 2)
            mod.native_after_fallback(x, w, 2)
        assert before == [sys.getrefcount(o) for o in (x, w, b, mod.mixed)]
        rmod, _ = rej
        before = [sys.getrefcount(o) for o in (x, w)]
        for _ in range(2_000):
            rmod.mm_transpose_a(x, x)
            rmod.cos(x)
            with pytest.raises(tf.errors.InvalidArgumentError):
                rmod.mm_rank1(b, w)
        assert before == [sys.getrefcount(o) for o in (x, w)]


@pytest.mark.skipif(PUBLIC, reason="already on the public path")
def test_boundary_on_public_path_in_subprocess():
    env = {**os.environ, "KILN_TF_PUBLIC": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(Path(__file__))],
                       capture_output=True, text=True, env=env, cwd=HERE.parent, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert re.search(r"\d+ passed", r.stdout) and not re.search(r"\d+ failed", r.stdout), r.stdout[-2000:]


# --------------------------------------------------------------------------
# every verified tensorflow rule is exercised here


def test_verified_rules_exercised(acc, acc_full, rej, mixed, errs, arith, math_fns, gelu_fns, softmax_fns, minmax_fns,
                                  concat_fns, reshape_fns, index_fns):
    from kiln import _compiler
    reports = [m[1] for m in (acc, acc_full, rej, mixed, errs, arith, math_fns, gelu_fns, softmax_fns, minmax_fns,
                              concat_fns, reshape_fns, index_fns)]
    all_sites = [s for r in reports for f in r["functions"] for s in f["sites"]]
    missing = []
    for rule in _compiler.rules():
        if rule["plugin"] != "tensorflow" or not rule["verified"]:
            continue
        if rule["outcome"] == "claimed":
            hit = any(s["rule"] == rule["id"] for s in all_sites)
        elif rule["outcome"] == "rejected":
            hit = any(s["outcome"] == "rejected" and s["code"] == rule["code"] for s in all_sites)
        else:
            hit = any(s["outcome"] == "not-covered" and (s["target"] or "").startswith("tensorflow.")
                      for s in all_sites)
        if not hit:
            missing.append(rule["id"])
    assert not missing, f"verified rules without a test: {missing}"
