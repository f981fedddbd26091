"""The arithmetic operators + - * / that kiln runs in its own kernels:
between two tensors (ranks 2/2, 2/1, 1/2, 1/1, size-1 dimensions stretched)
and between a tensor and an int, float or bool on either side, for torch
(tests/torch_programs/tp_arith.py) and TensorFlow (tests/tf_programs/
tf_arith.py), against each framework's eager result bit for bit.

The one freedom: where both operands of an element are NaN, which NaN's
payload survives. Eager torch's answer depends on the element's position
(its vectorised loop gives one operand's, the scalar tail of a row the
other's), so those elements only have to be NaN; test_nan_payloads pins
kiln's choice where eager's is consistent (whole vectors).
"""
import json
import math
import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
import kiln  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OPS = ("add", "sub", "mul", "div")
TENSOR_FORMS = ("22", "21", "12", "11")
SCALAR_FORMS = ("tf", "ft", "ti", "it", "tb", "bt", "1f", "f1")
SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]


def emitted(src):
    """`kiln emit` of a program: a function giving one def's C (its block from
    its `/* def NAME ` comment to the next)."""
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(src)], capture_output=True, text=True,
                       check=True, timeout=120).stdout

    def body(name):
        i = c.index(f"/* def {name} ")
        return c[i:c.find("/* def ", i + 10)]
    return body


def same_result_or_error(compiled, eager, args, compare):
    """compiled(*args) gives eager(*args)'s result (compare(got, want)) or
    raises its exception with its message; eager runs on clones of tensor
    arguments, so an in-place eager op cannot change compiled's inputs."""
    try:
        want = eager(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            compiled(*args)
        assert str(got.value) == str(e), args
        return
    compare(compiled(*args), want)


def nan_with(payload: int) -> float:
    """A Python float whose float32 rounding is the NaN 0x7fc00000 | payload."""
    return struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000000 | (payload << 29)))[0]


FLOATS = [0.0, -0.0, 1.5, -3.25, 0.1, 1e-40, -1e-42, 1e-310, 3.4028235e38, 1e40, -1e40,
          math.inf, -math.inf, math.nan, nan_with(5), 2.0 ** -149, 16777217.0]
INTS = [0, 1, -7, 3, 2 ** 24 + 1, 2 ** 60 + 2 ** 36 + 1, -(2 ** 63), 2 ** 63 - 1]
BOOLS = [True, False]
SCALARS = {"f": FLOATS, "i": INTS, "b": BOOLS}


def salted(shape, seed):
    """float32 normal values salted with every special value: NaNs with two
    payloads, +-inf, +-0, huge, subnormal, values whose quotients overflow."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    flat = a.reshape(-1)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-40, -1e-40, 1e-30,
                         1e30, 7.0], dtype=np.float32)
    specials_bits = specials.view(np.uint32).copy()
    specials_bits[0] = 0x7FC00000 | (seed + 1)
    specials = specials_bits.view(np.float32)
    for i in range(min(flat.size, 3 * len(specials))):
        flat[(i * 7919 + seed) % flat.size] = specials[(i + seed) % len(specials)]
    return a


def layouts(arr):
    """The same values contiguous, through a transposed copy, and as every
    other column of a wider array (strided)."""
    base = torch.from_numpy(arr.copy())
    yield "contiguous", base
    if arr.ndim == 2:
        yield "transposed", torch.from_numpy(arr.T.copy()).t()
        wide = torch.zeros(arr.shape[0], 2 * arr.shape[1] + 1)
        wide[:, 1::2] = base
        yield "strided", wide[:, 1::2]
    else:
        wide = torch.zeros(2 * arr.shape[0] + 1)
        wide[1::2] = base
        yield "strided", wide[1::2]


def bits(x):
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32)).view(np.uint32)


def assert_bits(got, exp, both_nan, where):
    """got and exp bit for bit, except that where both_nan (both operands NaN)
    each only has to be a NaN."""
    g, e = np.asarray(got, dtype=np.float32), np.asarray(exp, dtype=np.float32)
    assert g.shape == e.shape, (where, g.shape, e.shape)
    differ = bits(g) != bits(e)
    excused = np.broadcast_to(both_nan, g.shape) & np.isnan(g) & np.isnan(e)
    bad = differ & ~excused
    assert not bad.any(), (f"{where}: {int(bad.sum())} of {g.size} differ; first at "
                           f"{np.argwhere(bad)[0].tolist()}: {g[bad][:4]} vs {e[bad][:4]}")


def build(stem, folder, tmp_path_factory):
    out = tmp_path_factory.mktemp(stem)
    mod = kiln.build(str(HERE / folder / f"{stem}.py"), out_dir=str(out))
    report = json.loads((out / f"{stem}.kiln.json").read_text())
    return mod, report


@pytest.fixture(scope="module")
def tmod(tmp_path_factory):
    return build("tp_arith", "torch_programs", tmp_path_factory)


@pytest.fixture(scope="module")
def tfmod(tmp_path_factory):
    pytest.importorskip("tensorflow")
    return build("tf_arith", "tf_programs", tmp_path_factory)


def tensor_operands(form, shape, seed):
    """The two operands of NAME_<form> (2: shape, 1: its last dimension) and
    where both are NaN."""
    a = salted(shape if form[0] == "2" else (shape[1],), seed)
    b = salted(shape if form[1] == "2" else (shape[1],), seed + 1)
    return a, b, np.isnan(a) & np.isnan(b)


def scalar_cases(form, shape, seed):
    """(tensor operand, scalar, both NaN) for NAME_<form>: every scalar of
    the form's kind against one salted tensor."""
    kind = form.replace("t", "").replace("1", "")
    arr = salted((shape[1],) if "1" in form else shape, seed=seed)
    for s in SCALARS[kind]:
        yield arr, s, np.isnan(arr) & (isinstance(s, float) and math.isnan(s))


# ==========================================================================
# the report: every site claimed, by the rule of its form


def test_chains_fuse(tmod, tmp_path):
    """The chains run as one pass (kr->tensor_ewise; a 22-op chain as two),
    but not one reading a variable that may be unbound (the ops before it
    must raise first) or a single op."""
    body = emitted(HERE / "torch_programs" / "tp_arith.py")
    for name, calls in [("chain_lines", 1), ("chain_stretched", 1), ("chain_scalar_left", 1), ("chain_acts", 1),
                        ("chain_long", 2), ("chain_after_gemm", 1), ("standardize", 1), ("gated", 1),
                        ("chain_maybe_unbound", 0), ("mul_tf", 0), ("add_22", 0)]:
        assert body(name).count("kr->tensor_ewise(") == calls, name
    assert "kr->tensor_fused(" in body("chain_after_gemm")  # linear + relu stay one GEMM
    for name in ("bias_xw", "bias_xw_left", "bias_linear_relu", "bias_xw_relu_mean", "bias_post", "bias_post_left"):
        assert body(name).count("kr->tensor_fused(") == 1, name  # test_*_bias_nan_payloads test fused adds


def test_every_site_claimed(tmod):
    _, report = tmod
    seen = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        for s in f["sites"]:
            if f["name"] == "augmented" and s["line"] != min(x["line"] for x in f["sites"]):
                # x op= y on a tensor is Python's in-place operator, and says so
                assert s["outcome"] == "not-covered" and s["rule"] is None, s
                continue
            if f["name"] in ("sub_tb", "sub_bt"):
                # eager torch refuses `-` with a bool: its error is eager's own
                assert s["outcome"] == "not-covered", s
                continue
            assert s["outcome"] in ("claimed", "scalar"), (f["name"], s)
            if s["outcome"] == "claimed":
                seen.add(s["rule"])
    for op in OPS:
        assert f"kiln-torch/tensor-{op}-scalar-f32-cpu" in seen
        if op != "add":
            assert f"kiln-torch/tensor-{op}-f32-cpu" in seen


def test_every_site_claimed_tf(tfmod):
    _, report = tfmod
    seen = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        for s in f["sites"]:
            if s["outcome"] == "claimed":
                seen.add(s["rule"])
            elif f["name"] in ("multiply_kw", "tanh_kw", "neg_kw"):
                assert (s["outcome"], s["code"]) == (
                    "rejected", "KILN-TF-003" if f["name"] == "multiply_kw" else "KILN-TF-005"), s
            elif f["name"] != "augmented":
                assert s["outcome"] == "scalar", (f["name"], s)
    for op in OPS:
        assert f"kiln-tensorflow/{op}-scalar-binop-f32-cpu" in seen
        assert f"kiln-tensorflow/{op}-binop-f32-cpu" in seen


# ==========================================================================
# torch


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("op", OPS)
def test_torch_tensor_tensor(tmod, op, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    for form in TENSOR_FORMS:
        name = f"{op}_{form}"
        a, b, both = tensor_operands(form, shape, seed=shape[0])
        for la, ta in layouts(a):
            for lb, tb in layouts(b):
                got, exp = getattr(mod, name)(ta, tb), py[name](ta, tb)
                assert got.requires_grad is False and got.dtype == torch.float32
                assert_bits(got, exp, both, f"{name} {shape} {la}/{lb}")


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (2, 17), (16, 64), (0, 3)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("op", OPS)
def test_torch_tensor_scalar(tmod, op, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    for form in SCALAR_FORMS:
        name = f"{op}_{form}"
        for arr, s, both in scalar_cases(form, shape, seed=shape[1]):
            for layout, t in layouts(arr):
                args = (t, s) if form[0] in "t1" else (s, t)
                if op == "sub" and isinstance(s, bool):
                    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
                        getattr(mod, name)(*args)
                    continue
                got, exp = getattr(mod, name)(*args), py[name](*args)
                assert_bits(got, exp, both, f"{name}({s!r}) {shape} {layout}")


def test_torch_literals_and_chains(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    for op in OPS:
        for shape in [(1, 1), (4, 16), (3, 33)]:
            a = torch.from_numpy(salted(shape, 11))
            assert_bits(getattr(mod, f"{op}_lit")(a), py[f"{op}_lit"](a), False, f"{op}_lit {shape}")
    for m, n in [(1, 8), (4, 16), (16, 64), (3, 33)]:
        x = torch.randn(m, n)
        mu, sd, g, b = torch.randn(n), torch.rand(n) + 0.5, torch.randn(n), torch.randn(n)
        assert_bits(mod.standardize(x, mu, sd, g, b), py["standardize"](x, mu, sd, g, b), False, "standardize")
        w = torch.randn(n, n) / n ** 0.5
        torch.testing.assert_close(mod.gated(x, w, b, 0.7), py["gated"](x, w, b, 0.7), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(mod.scaled_loop(x, w, 5, 0.9), py["scaled_loop"](x, w, 5, 0.9),
                                   rtol=1e-5, atol=1e-6)
        for s, k in [(0.5, 3), (-0.0, 0), (math.inf, -2)]:
            assert_bits(mod.augmented(x, s, k), py["augmented"](x, s, k), False, "augmented")


def test_torch_nan_payloads(tmod):
    """Both operands NaN, whole vectors (64 contiguous floats, where eager's
    choice does not depend on the position): the payload eager keeps."""
    mod, _ = tmod
    py = mod.__kiln_python__
    a = torch.from_numpy(np.full((2, 64), 0x7FC00001, dtype=np.uint32).view(np.float32))
    b = torch.from_numpy(np.full((2, 64), 0x7FC00002, dtype=np.uint32).view(np.float32))
    for op in OPS:
        name = f"{op}_22"
        np.testing.assert_array_equal(bits(getattr(mod, name)(a, b)), bits(py[name](a, b)), err_msg=name)
        for form in ("tf", "ft"):
            name = f"{op}_{form}"
            args = (a, nan_with(3)) if form == "tf" else (nan_with(3), a)
            np.testing.assert_array_equal(bits(getattr(mod, name)(*args)), bits(py[name](*args)), err_msg=name)


@pytest.mark.parametrize("op,form,sa,sb", [
    ("sub", "22", (3, 4), (4, 3)), ("mul", "21", (3, 4), (5,)), ("div", "12", (5,), (3, 4)),
    ("add", "11", (3,), (4,)), ("div", "22", (2, 3), (3, 3))])
def test_torch_incompatible_shapes(tmod, op, form, sa, sb):
    mod, _ = tmod
    name = f"{op}_{form}"
    a, b = torch.ones(*sa), torch.ones(*sb)
    with pytest.raises(RuntimeError):
        mod.__kiln_python__[name](a, b)
    with pytest.raises(RuntimeError) as e:
        getattr(mod, name)(a, b)
    msg = str(e.value)
    assert f"kiln: {op}: incompatible shapes {list(sa)} and {list(sb)}" in msg, msg
    line = next(i for i, t in enumerate((HERE / "torch_programs" / "tp_arith.py").read_text().splitlines(), 1)
                if t.startswith(f"def {name}(")) + 1
    assert f"tp_arith.py:{line})" in msg, msg


def test_torch_size_one_dimensions_stretch(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    cases = [((3, 1), (3, 5)), ((1, 5), (3, 5)), ((3, 5), (1, 1)), ((1,), (3, 5)), ((3, 5), (1,)),
             ((1, 4), (4,)), ((1,), (6,))]
    for sa, sb in cases:
        a, b = torch.from_numpy(salted(sa, 1)), torch.from_numpy(salted(sb, 2))
        form = f"{len(sa)}{len(sb)}"
        both = np.isnan(a.numpy()) & np.isnan(b.numpy())
        for op in OPS:
            name = f"{op}_{form}"
            got, exp = getattr(mod, name)(a, b), py[name](a, b)
            assert_bits(got, exp, both, f"{name} {sa} {sb}")


def test_torch_inputs_untouched_and_grad_free(tmod):
    mod, _ = tmod
    a = torch.randn(4, 8, requires_grad=True)
    b = torch.nn.Parameter(torch.randn(8))
    before = (a.detach().clone(), b.detach().clone())
    for op in OPS:
        r = getattr(mod, f"{op}_21")(a, b)
        assert r.requires_grad is False
        r2 = getattr(mod, f"{op}_ft")(2.0, a)
        assert r2.requires_grad is False
    assert torch.equal(a.detach(), before[0]) and torch.equal(b.detach(), before[1])


# ==========================================================================
# TensorFlow: subnormals flushed (FTZ + DAZ) on both sides


def tf_tensor(arr):
    import tensorflow as tf
    return tf.constant(arr)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (2, 17), (16, 64), (7, 129), (0, 3)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("op", OPS)
def test_tf_tensor_tensor(tfmod, op, shape):
    mod, _ = tfmod
    py = mod.__kiln_python__
    for form in TENSOR_FORMS:
        name = f"{op}_{form}"
        a, b, both = tensor_operands(form, shape, seed=5)
        got, exp = getattr(mod, name)(tf_tensor(a), tf_tensor(b)), py[name](tf_tensor(a), tf_tensor(b))
        assert_bits(got.numpy(), exp.numpy(), both, f"{name} {shape}")


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (2, 17), (16, 64)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("op", OPS)
def test_tf_tensor_scalar(tfmod, op, shape):
    mod, _ = tfmod
    py = mod.__kiln_python__
    for form in SCALAR_FORMS:
        name = f"{op}_{form}"
        for arr, s, both in scalar_cases(form, shape, seed=shape[0]):
            t = tf_tensor(arr)
            args = (t, s) if form[0] in "t1" else (s, t)
            # eager TF keeps the tensors it makes of Python scalars in a cache
            # keyed by value, where 0.0 == -0.0: after `x * 0.0`, `x * -0.0`
            # multiplies by +0.0 (test_tf_signed_zero_scalar). kiln uses the
            # zero it is given: eager gets that zero as a tensor
            z = tf_tensor(np.float32(s)) if isinstance(s, float) and s == 0 else s
            eager_args = (t, z) if form[0] in "t1" else (z, t)
            got, exp = getattr(mod, name)(*args), py[name](*eager_args)
            assert_bits(got.numpy(), exp.numpy(), both, f"{name}({s!r}) {shape}")


def test_tf_nan_payloads_and_chains(tfmod):
    mod, _ = tfmod
    py = mod.__kiln_python__
    a = tf_tensor(np.full((2, 64), 0x7FC00001, dtype=np.uint32).view(np.float32))
    b = tf_tensor(np.full((2, 64), 0x7FC00002, dtype=np.uint32).view(np.float32))
    for op in OPS:
        name = f"{op}_22"
        np.testing.assert_array_equal(bits(getattr(mod, name)(a, b)), bits(py[name](a, b)), err_msg=name)
        for form in ("tf", "ft"):
            name = f"{op}_{form}"
            args = (a, nan_with(3)) if form == "tf" else (nan_with(3), a)
            np.testing.assert_array_equal(bits(getattr(mod, name)(*args)), bits(py[name](*args)), err_msg=name)
    rng = np.random.default_rng(3)
    for m, n in [(1, 8), (4, 16), (3, 33)]:
        x = tf_tensor(rng.standard_normal((m, n)).astype(np.float32))
        mu, g, b = (tf_tensor(rng.standard_normal(n).astype(np.float32)) for _ in range(3))
        sd = tf_tensor((rng.random(n) + 0.5).astype(np.float32))
        assert_bits(mod.standardize(x, mu, sd, g, b).numpy(), py["standardize"](x, mu, sd, g, b).numpy(),
                    False, "standardize")
        w = tf_tensor((rng.standard_normal((n, n)) / n ** 0.5).astype(np.float32))
        np.testing.assert_allclose(mod.gated(x, w, b, 0.7).numpy(), py["gated"](x, w, b, 0.7).numpy(),
                                   rtol=1e-5, atol=1e-6)
        for s, k in [(0.5, 3), (-0.0, 0), (math.inf, -2)]:
            assert_bits(mod.augmented(x, s, k).numpy(), py["augmented"](x, s, k).numpy(), False, "augmented")


def test_tf_incompatible_shapes(tfmod):
    mod, _ = tfmod
    a, b = tf_tensor(np.ones((3, 4), np.float32)), tf_tensor(np.ones((4, 3), np.float32))
    for op in OPS:
        with pytest.raises(RuntimeError, match=rf"kiln: {op}: incompatible shapes \[3, 4\] and \[4, 3\]"):
            getattr(mod, f"{op}_22")(a, b)


def test_tf_signed_zero_scalar(tfmod):
    """kiln computes with the zero it is given, as IEEE (NumPy here) does;
    eager TF with whichever of 0.0 and -0.0 its scalar cache met first
    (documented in the README)."""
    mod, _ = tfmod
    xs = np.array([[-0.0, 0.0, 2.0, -3.0]], dtype=np.float32)
    x = tf_tensor(xs)
    for s in (0.0, -0.0, 0.0, -0.0):
        z = np.float32(s)
        with np.errstate(divide="ignore", invalid="ignore"):
            cases = (("mul_tf", xs * z), ("add_ft", z + xs), ("sub_tf", xs - z), ("div_ft", z / xs))
        for name, exp in cases:
            args = (x, s) if name.endswith("tf") else (s, x)
            np.testing.assert_array_equal(bits(getattr(mod, name)(*args)), bits(exp), err_msg=f"{name}({s!r})")


# ==========================================================================
# fused chains: the ops one by one, bit for bit


def test_torch_chains(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    # (64, 256) and (2, 1000): whole 64-wide register tiles, dense chains as one row
    for m, n in [(1, 1), (1, 7), (3, 16), (5, 33), (16, 64), (9, 300), (0, 5), (3, 0), (64, 256), (2, 1000)]:
        x = torch.from_numpy(salted((m, n), 1))
        mu, sd, r = (torch.from_numpy(salted((n,), k)) for k in (2, 3, 4))
        col = torch.from_numpy(salted((m, 1), 5))
        for k in (0.5, -0.0, math.inf):
            assert_bits(mod.chain_lines(x, mu, sd, k), py["chain_lines"](x, mu, sd, k), False, "chain_lines")
        # the first operand (a row) stretched over x's rows, a column over its columns
        assert_bits(mod.chain_stretched(mu, x, col), py["chain_stretched"](mu, x, col), False, "stretched")
        for nn, s in [(3, 0.5), (0, -2.0), (2 ** 40 + 1, 1e-3)]:
            assert_bits(mod.chain_scalar_left(x, nn, s), py["chain_scalar_left"](x, nn, s), False, "scalar_left")
        assert_bits(mod.chain_long(x, r), py["chain_long"](x, r), False, "chain_long")
        torch.testing.assert_close(mod.chain_acts(x, r), py["chain_acts"](x, r), rtol=1e-5, atol=1e-6,
                                   equal_nan=True)
        for layout, xt in layouts(salted((m, n), 6)):
            assert_bits(mod.chain_lines(xt, mu, sd, 2.0), py["chain_lines"](xt, mu, sd, 2.0), False, layout)
        w = torch.randn(n, n) / max(n, 1) ** 0.5
        b = torch.randn(n)
        xr = torch.randn(m, n)
        torch.testing.assert_close(mod.chain_after_gemm(xr, w, b, 0.3), py["chain_after_gemm"](xr, w, b, 0.3),
                                   rtol=1e-5, atol=1e-5)


def test_torch_chain_errors_name_the_failing_op(tmod):
    """A shape error in the middle of a chain is the unfused op's error: its
    op, both shapes and its own line; the ops before it ran, those after did
    not."""
    mod, _ = tmod
    path = HERE / "torch_programs" / "tp_arith.py"
    lines = path.read_text().splitlines()

    def at(text):
        return f"({path}:{next(i for i, t in enumerate(lines, 1) if t.strip() == text)})"
    x, mu, sd = torch.ones(3, 4), torch.ones(4), torch.ones(5)
    with pytest.raises(RuntimeError) as e:
        mod.chain_lines(x, mu, sd, 1.0)
    assert f"kiln: div: incompatible shapes [3, 4] and [5] {at('scaled = centred / sd')}" in str(e.value)
    with pytest.raises(RuntimeError):
        mod.__kiln_python__["chain_lines"](x, mu, sd, 1.0)
    with pytest.raises(RuntimeError) as e:
        mod.chain_lines(x, torch.ones(2), mu, 1.0)
    assert f"kiln: sub: incompatible shapes [3, 4] and [2] {at('centred = x - mu')}" in str(e.value)
    # a row of 4 against x's 3 x 5: the first op of chain_stretched fails
    with pytest.raises(RuntimeError, match=r"kiln: sub: incompatible shapes \[4\] and \[3, 5\]"):
        mod.chain_stretched(torch.ones(4), torch.ones(3, 5), torch.ones(3, 1))
    with pytest.raises(RuntimeError, match=r"kiln: div: incompatible shapes \[3, 5\] and \[2, 1\]"):
        mod.chain_stretched(torch.ones(5), torch.ones(3, 5), torch.ones(2, 1))


def test_torch_chain_unbound_operand_after_shape_error(tmod):
    """`(x - mu) * k + mu` with k unbound: Python's x - mu runs first, so a
    shape error there wins over the UnboundLocalError; with good shapes the
    UnboundLocalError. (kiln does not fuse a chain over a maybe-unbound name.)"""
    mod, _ = tmod
    py = mod.__kiln_python__
    with pytest.raises(RuntimeError):
        py["chain_maybe_unbound"](torch.ones(2, 3), torch.ones(4), False)
    with pytest.raises(RuntimeError, match="incompatible shapes"):
        mod.chain_maybe_unbound(torch.ones(2, 3), torch.ones(4), False)
    with pytest.raises(UnboundLocalError):
        mod.chain_maybe_unbound(torch.ones(2, 3), torch.ones(3), False)
    x, mu = torch.from_numpy(salted((4, 9), 1)), torch.from_numpy(salted((9,), 2))
    assert_bits(mod.chain_maybe_unbound(x, mu, True), py["chain_maybe_unbound"](x, mu, True), False, "bound")


def test_gemm_chain_unbound_bias_after_shape_error(tmod):
    """Regression: `(x @ w + b).relu()` with b unbound raised UnboundLocalError
    where Python's x @ w raises its shape error first (the fused GEMM read
    every operand before any op ran)."""
    mod, _ = tmod
    py = mod.__kiln_python__
    args = (torch.ones(2, 3), torch.ones(4, 5), torch.ones(5), False)
    with pytest.raises(RuntimeError):
        py["gemm_maybe_unbound"](*args)
    with pytest.raises(RuntimeError, match=r"kiln: matmul: incompatible shapes \[2, 3\] and \[4, 5\]"):
        mod.gemm_maybe_unbound(*args)
    with pytest.raises(UnboundLocalError):
        mod.gemm_maybe_unbound(torch.ones(2, 4), torch.ones(4, 5), torch.ones(5), False)
    x, w, r = torch.randn(3, 4), torch.randn(4, 5), torch.randn(5)
    torch.testing.assert_close(mod.gemm_maybe_unbound(x, w, r, True), py["gemm_maybe_unbound"](x, w, r, True))


def test_tf_chains(tfmod):
    mod, _ = tfmod
    py = mod.__kiln_python__
    for m, n in [(1, 1), (3, 16), (5, 33), (16, 64), (0, 5), (64, 256), (2, 1000)]:
        x = tf_tensor(salted((m, n), 1))
        mu, sd = tf_tensor(salted((n,), 2)), tf_tensor(salted((n,), 3))
        col = tf_tensor(salted((m, 1), 5))
        for k in (0.5, math.inf):
            assert_bits(mod.chain_lines(x, mu, sd, k).numpy(), py["chain_lines"](x, mu, sd, k).numpy(), False,
                        "chain_lines")
        assert_bits(mod.chain_stretched(mu, x, col).numpy(), py["chain_stretched"](mu, x, col).numpy(), False,
                    "stretched")
        for nn, s in [(3, 0.5), (2 ** 40 + 1, 1e-3)]:
            assert_bits(mod.chain_scalar_left(x, nn, s).numpy(), py["chain_scalar_left"](x, nn, s).numpy(), False,
                        "scalar_left")


def test_tf_call_forms_and_tanh(tfmod):
    """tf.subtract / tf.multiply / tf.divide / tf.truediv bit for bit, tf.nn.tanh
    within the activations' tolerance with subnormals flushed, and the forms
    with keywords on eager TensorFlow."""
    mod, _ = tfmod
    py = mod.__kiln_python__
    for m, n in [(1, 1), (3, 16), (5, 33), (16, 64), (0, 4)]:
        a2, b2 = salted((m, n), 1), salted((m, n), 2)
        a1, b1 = salted((n,), 3), salted((n,), 4)
        for name, args, both in [("subtract_call", (a2, b1), np.isnan(a2) & np.isnan(b1)[None, :]),
                                 ("multiply_call", (a1, b2), np.isnan(a1)[None, :] & np.isnan(b2)),
                                 ("divide_call", (a2, b2), np.isnan(a2) & np.isnan(b2)),
                                 ("truediv_call", (a1, b1), np.isnan(a1) & np.isnan(b1))]:
            ts = [tf_tensor(v) for v in args]
            assert_bits(getattr(mod, name)(*ts).numpy(), py[name](*ts).numpy(), both, f"{name} {m}x{n}")
        x = tf_tensor((np.random.default_rng(n).standard_normal((m, n)) * 4).astype(np.float32))
        for name, arg in [("tanh_2", x), ("tanh_math", x), ("tanh_1", tf_tensor(a1)), ("tanh_2", tf_tensor(a2))]:
            got, exp = getattr(mod, name)(arg).numpy(), py[name](arg).numpy()
            np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-6, err_msg=name)
            assert not ((got != 0) & (np.abs(got) < np.finfo(np.float32).tiny)).any(), name
        mu, sd = tf_tensor(salted((n,), 5)), tf_tensor((np.random.default_rng(1).random(n) + 0.5).astype(np.float32))
        np.testing.assert_allclose(mod.chain_calls(x, mu, sd).numpy(), py["chain_calls"](x, mu, sd).numpy(),
                                   rtol=1e-5, atol=1e-6, err_msg="chain_calls")
        y = tf_tensor(a2)
        assert_bits(mod.multiply_kw(y, y).numpy(), py["multiply_kw"](y, y).numpy(), False, "multiply_kw")
        np.testing.assert_array_equal(mod.tanh_kw(x).numpy(), py["tanh_kw"](x).numpy())


# ==========================================================================
# softmax: within float32 rounding of eager's exp, eager's NaN rows


SOFTMAX_SHAPES = [(1, 1), (1, 7), (3, 16), (5, 33), (16, 64), (4, 1000), (0, 5), (3, 0)]


def assert_softmax_like(got, exp, where):
    assert got.shape == exp.shape and got.dtype == exp.dtype and not got.requires_grad, where
    torch.testing.assert_close(got, exp, rtol=1e-5, atol=1e-7, equal_nan=True, msg=lambda m: f"{where}: {m}")
    assert torch.equal(got.isnan(), exp.isnan()), where


@pytest.mark.parametrize("name", ["softmax_fn", "softmax_f", "softmax_method"])
def test_torch_softmax(tmod, name):
    mod, _ = tmod
    py = mod.__kiln_python__
    g = torch.Generator().manual_seed(5)
    for m, n in SOFTMAX_SHAPES:
        for scale in (1.0, 30.0):
            x = torch.randn(m, n, generator=g) * scale
            for layout, xt in layouts(x.numpy()):
                assert_softmax_like(getattr(mod, name)(xt), py[name](xt), f"{name} {m}x{n} *{scale} {layout}")
    # rows with NaN, +-inf, all -inf, huge spreads, subnormals: eager's NaN rows and zeros
    rows = torch.tensor([[1.0, float("nan"), 2.0, 0.0], [float("-inf")] * 4, [float("inf"), 1.0, 2.0, 0.0],
                         [float("inf")] * 2 + [0.0, 1.0], [-1e30, 0.0, 1e30, 5.0], [1.0, float("-inf"), 2.0, 3.0],
                         [1e-40, -1e-40, 0.0, -0.0], [88.0, -88.0, 0.0, 100.0], [-200.0, 0.0, -103.0, -87.0]])
    assert_softmax_like(getattr(mod, name)(rows), py[name](rows), f"{name} special rows")


def test_torch_softmax_1d_and_head(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    for n in (1, 5, 16, 17, 300):
        v = torch.randn(n) * 5
        assert_softmax_like(mod.softmax_1d(v), py["softmax_1d"](v), f"softmax_1d {n}")
    x, w, b = torch.randn(8, 32), torch.randn(10, 32) / 32 ** 0.5, torch.randn(10)
    torch.testing.assert_close(mod.softmax_head(x, w, b, 0.5), py["softmax_head"](x, w, b, 0.5), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(RuntimeError, match=r"kiln: linear: incompatible shapes"):
        mod.softmax_head(torch.ones(2, 3), w, b, 1.0)


# ==========================================================================
# unary minus: bit for bit (a NaN's sign flips too, -0.0 <-> 0.0)


def test_torch_neg(tmod):
    mod, _ = tmod
    py = mod.__kiln_python__
    for m, n in [(1, 1), (3, 16), (5, 33), (0, 4)]:
        x, r = salted((m, n), 1), salted((n,), 2)
        for layout, xt in layouts(x):
            for name in ("neg_2", "neg_method"):
                assert_bits(getattr(mod, name)(xt), py[name](xt), False, f"{name} {m}x{n} {layout}")
            rt = torch.from_numpy(r)
            assert_bits(mod.neg_chain(xt, rt), py["neg_chain"](xt, rt), False, f"neg_chain {m}x{n} {layout}")
        v = torch.from_numpy(r)
        assert_bits(mod.neg_fn(v), py["neg_fn"](v), False, f"neg_fn {n}")


def test_tf_neg(tfmod):
    mod, _ = tfmod
    py = mod.__kiln_python__
    for m, n in [(1, 1), (3, 16), (5, 33), (0, 4)]:
        x, r = tf_tensor(salted((m, n), 1)), tf_tensor(salted((n,), 2))
        for name in ("neg_2", "neg_call"):
            assert_bits(getattr(mod, name)(x).numpy(), py[name](x).numpy(), False, f"{name} {m}x{n}")
        assert_bits(mod.neg_math(r).numpy(), py["neg_math"](r).numpy(), False, f"neg_math {n}")
        assert_bits(mod.neg_chain(x, r).numpy(), py["neg_chain"](x, r).numpy(), False, f"neg_chain {m}x{n}")
        assert_bits(mod.neg_kw(x).numpy(), py["neg_kw"](x).numpy(), False, "neg_kw")


# ==========================================================================
# sigmoid of a NaN: eager torch computes 1 / (1 + exp(-x)), and its negation
# flips the NaN's sign; eager TF keeps it. Payloads pass through, quietened.

NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFA00001, 0x7F800001]


def nan_salted(shape, seed):
    a = salted(shape, seed)
    flat = a.reshape(-1).view(np.uint32)
    for i, u in enumerate(NAN_BITS):
        if flat.size:
            flat[(i * 31 + seed) % flat.size] = u
    return a


def one_nan_a_row(m, seed):
    a = np.random.default_rng(seed).standard_normal((m, 16)).astype(np.float32)
    u = a.view(np.uint32)
    for i in range(m):
        u[i, (i * 5 + seed) % 16] = NAN_BITS[i % len(NAN_BITS)]
    return a


def assert_nan_bits_exact(got, exp, where, rtol=1e-5, atol=1e-5):
    """NaN lanes bit for bit (sign and payload); the rest within rtol/atol."""
    g, e = np.asarray(got, dtype=np.float32), np.asarray(exp, dtype=np.float32)
    assert g.shape == e.shape, (where, g.shape, e.shape)
    nan = np.isnan(e)
    assert (np.isnan(g) == nan).all(), f"{where}: NaN positions differ"
    np.testing.assert_array_equal(bits(g[nan]), bits(e[nan]), err_msg=f"{where}: NaN bits")
    np.testing.assert_allclose(g[~nan], e[~nan], rtol=rtol, atol=atol, err_msg=where)


def assert_sigmoid_like(got, exp, where):
    """NaN lanes bit for bit; the rest within float32 ulps."""
    assert_nan_bits_exact(got, exp, where, rtol=2e-6, atol=2e-7)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (2, 17), (16, 64), (7, 129)],
                         ids=lambda s: "x".join(map(str, s)))
def test_torch_sigmoid_nan_sign(tmod, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    m, n = shape
    x, r = nan_salted(shape, 3), salted((n,), 4)
    for layout, xt in layouts(x):
        assert_sigmoid_like(mod.sigmoid_fn(xt), py["sigmoid_fn"](xt), f"sigmoid_fn {layout}")
        rt = torch.from_numpy(r)
        assert_sigmoid_like(mod.sigmoid_chain(xt, rt), py["sigmoid_chain"](xt, rt), f"sigmoid_chain {layout}")
    # through the GEMM epilogue: one NaN a row (with no inf, which would make
    # new NaNs of the BLAS's choosing) reaches the whole output row
    xg = torch.from_numpy(one_nan_a_row(m, 5))
    eye, zero = torch.eye(16), torch.zeros(16)
    for name in ("sigmoid_linear", "sigmoid_xw"):
        assert_sigmoid_like(getattr(mod, name)(xg, eye, zero), py[name](xg, eye, zero), name)
    out = np.asarray(mod.sigmoid_fn(torch.from_numpy(x)))
    src = x.view(np.uint32)
    flipped = ((src | 0x00400000) ^ 0x80000000).view(np.float32)
    nan = np.isnan(x)
    np.testing.assert_array_equal(bits(out[nan]), bits(flipped[nan]))


def test_tf_sigmoid_nan_sign(tfmod):
    mod, _ = tfmod
    py = mod.__kiln_python__
    for shape in [(1, 1), (3, 5), (16, 64), (7, 129)]:
        m, n = shape
        x, r = tf_tensor(nan_salted(shape, 6)), tf_tensor(salted((n,), 7))
        assert_sigmoid_like(mod.sigmoid_fn(x).numpy(), py["sigmoid_fn"](x).numpy(), f"sigmoid_fn {shape}")
        assert_sigmoid_like(mod.sigmoid_chain(x, r).numpy(), py["sigmoid_chain"](x, r).numpy(),
                            f"sigmoid_chain {shape}")
        xg = tf_tensor(one_nan_a_row(m, 8))
        eye, zero = tf_tensor(np.eye(16, dtype=np.float32)), tf_tensor(np.zeros(16, dtype=np.float32))
        assert_sigmoid_like(mod.sigmoid_xw(xg, eye, zero).numpy(), py["sigmoid_xw"](xg, eye, zero).numpy(),
                            f"sigmoid_xw {shape}")
        src = x.numpy()
        out = mod.sigmoid_fn(x).numpy()
        nan = np.isnan(src)
        np.testing.assert_array_equal(bits(out[nan]), bits((src.view(np.uint32) | 0x00400000).view(np.float32)[nan]))


# ==========================================================================
# a bias (or a row) added to a GEMM's result where both it and the product
# are NaN: eager's + gives the right operand's NaN in torch and the left
# one's in TF. kiln fuses these adds into the GEMM; the payload must still
# be the framework's, the same in every column. F.linear has no + of its
# own: eager's payload there depends on MKL's kernel (the product's at most
# shapes, the bias's at some small ones), and kiln's is always the product's.

BIAS_SHAPES = [(1, 1, 1), (1, 8, 8), (2, 5, 7), (3, 16, 17), (5, 33, 64), (8, 64, 64), (16, 128, 64),
               (17, 16, 65), (4, 128, 130), (64, 128, 64)]


def product_nan_rows(m, k, seed):
    """x [m, k]: every third row holds one NaN (so its product row is NaN),
    payloads and signs varied; no inf, which would make NaNs of its own."""
    x = np.random.default_rng(seed).standard_normal((m, k)).astype(np.float32)
    u = x.view(np.uint32)
    for i in range(0, m, 3):
        u[i, (i * 7 + seed) % k] = NAN_BITS[(i // 3) % len(NAN_BITS)] ^ 0x00000100
    return x


def bias_with_nans(n, seed):
    b = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    u = b.view(np.uint32)
    for j in range(seed % 2, n, 2):
        u[j] = NAN_BITS[(j + seed) % len(NAN_BITS)] ^ 0x00000200
    return b


def bias_cases(m, k, n, seed):
    """(x, b) pairs: NaN rows in x against NaN columns in b; an all-NaN b
    (every element of a row NaN, so a row mean keeps one payload); a
    one-element NaN b broadcast over the columns."""
    x = product_nan_rows(m, k, seed)
    yield "columns", x, bias_with_nans(n, seed + 1)
    yield "all", x, np.full(n, nan_with(0x1234), dtype=np.float32)
    yield "broadcast", x, np.array([nan_with(0x777)], dtype=np.float32)


@pytest.mark.parametrize("mkn", BIAS_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_torch_bias_nan_payloads(tmod, mkn):
    mod, _ = tmod
    py = mod.__kiln_python__
    m, k, n = mkn
    w = torch.from_numpy(np.random.default_rng(m + k + n).standard_normal((k, n)).astype(np.float32))
    wl = w.t().contiguous()  # F.linear's [n, k]
    for case, x, b in bias_cases(m, k, n, 11):
        xt, bt = torch.from_numpy(x), torch.from_numpy(b)
        for name in ("bias_xw", "bias_xw_left", "bias_post", "bias_post_left"):
            assert_nan_bits_exact(getattr(mod, name)(xt, w, bt), py[name](xt, w, bt), f"{name} {mkn} {case}")
        if case != "columns":
            assert_nan_bits_exact(mod.bias_xw_relu_mean(xt, w, bt), py["bias_xw_relu_mean"](xt, w, bt),
                                  f"bias_xw_relu_mean {mkn} {case}")
        if case != "broadcast":  # F.linear wants a bias of n
            product_first = bt + F.linear(xt, wl)
            assert_nan_bits_exact(mod.bias_linear(xt, wl, bt), product_first, f"bias_linear {mkn} {case}")
            assert_nan_bits_exact(mod.bias_linear_relu(xt, wl, bt), product_first.relu(),
                                  f"bias_linear_relu {mkn} {case}")


@pytest.mark.parametrize("mkn", BIAS_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_tf_bias_nan_payloads(tfmod, mkn):
    import tensorflow as tf
    mod, _ = tfmod
    py = mod.__kiln_python__
    m, k, n = mkn
    w = tf_tensor(np.random.default_rng(m + k + n).standard_normal((k, n)).astype(np.float32))
    for case, x, b in bias_cases(m, k, n, 12):
        xt, bt = tf_tensor(x), tf_tensor(b)
        for name in ("bias_xw", "bias_xw_left", "bias_post", "bias_post_left"):
            # (a one-element operand: eager's scalar tail's NaNs too, test_tf_one_element_operand_nans)
            exp = py[name](xt, w, bt).numpy()
            assert_nan_bits_exact(getattr(mod, name)(xt, w, bt).numpy(), exp, f"{name} {mkn} {case}")
        if case == "all" and b.size > 1:  # one payload a row, so the mean keeps it
            assert_nan_bits_exact(mod.bias_xw_relu_mean(xt, w, bt).numpy(),
                                  py["bias_xw_relu_mean"](xt, w, bt).numpy(), f"bias_xw_relu_mean {mkn} {case}")


def test_tf_one_element_tensor_nan_is_a_scalars(tfmod):
    """x op t with t of one element: eager TF runs it as x op scalar, so where
    both are NaN its vectorised loop gives t's NaN for + and *, x's for - and
    /, and its scalar tail (the last size % 8 elements, none here) x's
    (test_math_ops.py test_tf_one_element_operand_nans)."""
    mod, _ = tfmod
    for size in (8, 16, 64):
        x = np.full((2, size // 2), nan_with(0xAAA), dtype=np.float32)
        t = np.array([nan_with(0xBBB)], dtype=np.float32)
        for op in OPS:
            got = getattr(mod, f"{op}_21")(tf_tensor(x), tf_tensor(t)).numpy()
            exp = mod.__kiln_python__[f"{op}_21"](tf_tensor(x), tf_tensor(t)).numpy()
            # size is a multiple of 8: eager's vectorised loop covers every element
            np.testing.assert_array_equal(bits(got), bits(exp), err_msg=f"{op} {size}")
            want = t if op in ("add", "mul") else x[0, :1]
            assert (bits(got) == bits(want)[0]).all(), (op, size)
