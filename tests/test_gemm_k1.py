"""The sign of a zero product at K == 1 (tests/torch_programs/tp_k1.py),
against eager torch bit for bit.

Eager torch's MKL computes a GEMM with one multiply-add per output as the
outer product of a's column and b's row (F.linear with its own bias: that
product plus the bias), so 0.0 * -1.0 comes out -0.0; a matrix-vector
product (one row or one column, no bias) sums from +0.0, as TensorFlow and
NumPy do at every K. kiln's kernels sum from +0.0; the runtime asks torch
once which its BLAS does (kr_torch_k1_outer) and, for MKL's, takes torch's
K == 1 products through an outer product (kr_gemm_outer), so these tests
hold for either. Values otherwise are one rounding of a * b (+ bias) in
both, so every bit is compared except NaN payloads (positions only)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build, layouts  # noqa: E402

ROWS = [1, 2, 3, 7, 16, 65]
COLS = [1, 2, 5, 16, 64, 130]
# a column / a row holding zeros of both signs and the values that make them;
# no product underflows (a sum of one fused multiply-add from +0.0 keeps an
# underflowed product's -0.0 where MKL's separate multiply and add do not: a
# rounding difference, as any ulp of a longer sum)
X_VALS = [0.0, -0.0, 1.0, -2.5, 1e-30, -1e-30, float("inf"), float("nan"), 3e38]
W_VALS = [-1.0, 0.0, -0.0, 0.5, 1e-3, -float("inf"), 7.0, -3e38, float("nan")]


@pytest.fixture(scope="module")
def kmod(tmp_path_factory):
    return build("tp_k1", "torch_programs", tmp_path_factory)


def column(n, vals, shift):
    return np.array([vals[(i + shift) % len(vals)] for i in range(n)], dtype=np.float32)


def same(got, exp, where):
    g, e = np.asarray(got.numpy()), np.asarray(exp.numpy())
    assert g.shape == e.shape, (where, g.shape, e.shape)
    gn, en = np.isnan(g), np.isnan(e)
    assert (gn == en).all(), (where, g, e)
    assert (bits(g)[~gn] == bits(e)[~en]).all(), (where, g, e)


def test_all_sites_native(kmod):
    _, report = kmod
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])


@pytest.mark.parametrize("M", ROWS)
@pytest.mark.parametrize("N", COLS)
def test_k1_bit_for_bit(kmod, M, N):
    mod, _ = kmod
    py = mod.__kiln_python__
    for shift in range(3):
        xa = column(M, X_VALS, shift).reshape(M, 1)
        wa = column(N, W_VALS, 2 * shift).reshape(1, N)
        ba = column(N, [-0.0, 0.0, -0.0, 1.0, float("nan"), -4.0], shift)
        b = torch.from_numpy(ba)
        for xl, x in layouts(xa):
            for wl, w in layouts(wa):
                where = (M, N, shift, xl, wl)
                for name in ("mm", "mm_fn", "mm_bias_relu", "bias_mm", "mm_tanh_post", "recip"):
                    args = (x, w, b) if name not in ("mm", "mm_fn", "recip") else (x, w) if name != "recip" else (x, w, 0.5)
                    same(getattr(mod, name)(*args), py[name](*args), where + (name,))
                wt = w.t()  # the weight [N, 1] of F.linear
                for name, args in [("lin", (x, wt)), ("linb", (x, wt, b)), ("linb_relu", (x, wt, b))]:
                    same(getattr(mod, name)(*args), py[name](*args), where + (name,))
                v = x[0]
                same(mod.lin_1d(v, wt, b), py["lin_1d"](v, wt, b), where + ("lin_1d",))
                same(mod.lin_1d_nobias(v, wt), py["lin_1d_nobias"](v, wt), where + ("lin_1d_nobias",))
                same(mod.vm(v, w), py["vm"](v, w), where + ("vm",))
                same(mod.mv(x, w[:, 0]), py["mv"](x, w[:, 0]), where + ("mv",))


@pytest.mark.parametrize("M", ROWS)
@pytest.mark.parametrize("N", COLS)
def test_k1_fused_row_mean(kmod, M, N):
    """A K == 1 chain ending in a row mean (op by op): within the mean's
    rounding of eager's, NaN rows alike."""
    mod, _ = kmod
    py = mod.__kiln_python__
    for shift in range(3):
        x = torch.from_numpy(column(M, X_VALS, shift).reshape(M, 1))
        w = torch.from_numpy(column(N, W_VALS, 2 * shift).reshape(N, 1))
        b = torch.from_numpy(column(N, [-0.0, 0.0, 1.0, -4.0], shift))
        got, exp = mod.linb_tanh_mean(x, w, b), py["linb_tanh_mean"](x, w, b)
        assert torch.allclose(got, exp, rtol=1e-5, atol=1e-6, equal_nan=True), (M, N, shift, got, exp)


@pytest.mark.parametrize("K", [2, 3, 17])
def test_zero_sums_past_k1(kmod, K):
    """From K = 2 eager sums from +0.0 as kiln's kernels do (no bias)."""
    mod, _ = kmod
    py = mod.__kiln_python__
    for M, N in [(1, 4), (4, 1), (4, 4), (16, 64), (65, 130)]:
        x = torch.zeros(M, K)
        x[::2] = -0.0
        w = -torch.ones(K, N)
        for name, args in [("mm", (x, w)), ("lin", (x, w.t().contiguous())), ("recip", (x, w, 0.5))]:
            same(getattr(mod, name)(*args), py[name](*args), (M, N, K, name))


FIRST_PRODUCT_LARGE = r"""
import sys, threading
import torch, kiln
mod = kiln.build(sys.argv[1], out_dir=sys.argv[2])
py = mod.__kiln_python__
# the process's first K == 1 product is past the size whose kernel runs
# without the GIL: torch is asked before the GIL goes; two threads at once
x = torch.zeros(1500, 1)
x[::3] = -0.0
w = -torch.ones(1, 1200)
b = -torch.zeros(1200)
out = {}
def run(i):
    out[i] = (mod.mm(x, w), mod.linb(x, w.t(), b), mod.mm_bias_relu(x, w, b))
ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
for t in ts: t.start()
for t in ts: t.join()
exp = (py["mm"](x, w), py["linb"](x, w.t(), b), py["mm_bias_relu"](x, w, b))
for i in range(2):
    for g, e in zip(out[i], exp):
        assert torch.equal(torch.signbit(g), torch.signbit(e)) and torch.equal(g, e)
print("ok", int(torch.signbit(exp[0]).sum()))
"""


def run_fresh(tmp_path, code):
    """code in a fresh interpreter (this checkout's kiln first on the path)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parent
    script = tmp_path / "first.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(here.parent), os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, str(script), str(here / "torch_programs" / "tp_k1.py"), str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("ok "), r.stdout


def test_first_product_large_and_threaded(tmp_path):
    run_fresh(tmp_path, FIRST_PRODUCT_LARGE)


def test_probe_under_float64_default(tmp_path):
    """The probe asks float32's product whatever torch's default dtype."""
    code = FIRST_PRODUCT_LARGE.replace("import torch, kiln", "import torch, kiln\ntorch.set_default_dtype(torch.float64)")
    for old in ("torch.zeros(1500, 1)", "torch.ones(1, 1200)", "torch.zeros(1200)"):
        assert old in code
        code = code.replace(old, old[:-1] + ", dtype=torch.float32)")
    run_fresh(tmp_path, code)


def test_probe_inside_a_device_context(tmp_path):
    """The probe makes its tensors on the CPU inside `with torch.device(...)`."""
    run_fresh(tmp_path, r"""
import sys
import torch, kiln
mod = kiln.build(sys.argv[1], out_dir=sys.argv[2])
x, w = torch.zeros(4, 1), -torch.ones(1, 4)
with torch.device("meta"):
    got = mod.mm(x, w)
assert got.device.type == "cpu" and torch.signbit(got).all() == torch.signbit(x @ w).all(), got
print("ok", int(torch.signbit(got).sum()))
""")


def test_tensorflow_sums_from_plus_zero(tmp_path_factory):
    """TensorFlow's matmul sums a K == 1 product from +0.0 (0.0 * -1.0 gives
    +0.0): kiln's TF path keeps its kernels' rule, the torch probe aside."""
    tf = pytest.importorskip("tensorflow")
    mod, _ = build("tf_accepted", "tf_programs", tmp_path_factory)
    py = mod.__kiln_python__
    for M, N in [(1, 1), (2, 2), (4, 16), (16, 1), (65, 130)]:
        x = tf.constant(column(M, X_VALS, 1).reshape(M, 1))
        w = tf.constant(column(N, W_VALS, 0).reshape(1, N))
        for name in ("mm", "mm_linalg", "mm_at"):
            got, exp = getattr(mod, name)(x, w).numpy(), py[name](x, w).numpy()
            gn, en = np.isnan(got), np.isnan(exp)
            assert (gn == en).all() and (bits(got)[~gn] == bits(exp)[~en]).all(), (M, N, name, got, exp)
        zeros = tf.zeros((M, 1))
        assert not np.signbit(mod.mm(zeros, -tf.ones((1, N))).numpy()).any(), (M, N)
