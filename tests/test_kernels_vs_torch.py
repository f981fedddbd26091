"""runtime/kernels.c against eager torch and eager tensorflow.

Builds runtime/kernels.c into a shared library (gcc -O2 -std=c11 -fPIC -shared)
in a tmp dir, loads it with ctypes and runs every ISA variant the CPU supports.

Contract checked here:
  * copy / relu / add (+relu): bit-identical to eager torch, including NaN
    payloads, +-inf, signed zeros and denormals.
  * KK_ACT_RELU_TF: bit-identical to tf.nn.relu's vectorised path (tensor
    sizes that are a multiple of 8); see test_tf_relu_tail_differs.
  * sigmoid / tanh: rtol 1e-5, atol 1e-6 of torch, and a max ulp distance.
    Measured worst case over the ~2.2M-input sweep below (dense in [-30, 30],
    [-1, 1], log-spaced magnitudes down to 1e-30, specials), identical on
    avx512, avx2 and reference, torch 2.13.0 on x86-64 AVX-512:
        sigmoid: 4 ulp vs torch, 2 ulp vs float64 truth (torch itself: 2 ulp)
        tanh:    1 ulp vs torch, 1 ulp vs float64 truth (torch itself: 1 ulp)
    (avx512 and avx2 measure 3 ulp for sigmoid, the reference 4.) Outputs that
    are denormal, i.e. sigmoid(x < -87.3), are left to rtol/atol there and
    checked by test_sigmoid_underflow_is_torchs: zero exactly where torch's is,
    and within the same ulp bound.
    The assertions use exactly these numbers.
  * GEMM: rtol 1e-5, atol 1e-5*sqrt(K); row sums / means: rtol 1e-5, atol 1e-6.
"""

import ctypes
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from oracle import EAGER_ACTIVATION_INACCURATE, check_activation

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "runtime", "kernels.c")

SIGMOID_MAX_ULP = 4  # vs torch (measured)
TANH_MAX_ULP = 1
SIGMOID_MAX_ULP_F64 = 2  # vs float64 truth (measured)
TANH_MAX_ULP_F64 = 1

NONE, RELU, SIGMOID, TANH, RELU_TF = 0, 1, 2, 3, 4
TORCH_ACT = {
    NONE: lambda x: x,
    RELU: torch.relu,
    SIGMOID: torch.sigmoid,
    TANH: torch.tanh,
}
TF_ACT = {
    NONE: lambda x: x,
    RELU: tf.nn.relu,
    SIGMOID: tf.math.sigmoid,
    TANH: tf.math.tanh,
}

SPECIAL_BITS = np.array(
    [0x80000000, 0x00000000, 0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x7FC12345,
     0xFFA00001, 0x7F800001, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x80800000,
     0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x41A00000, 0xC1A00000, 0x42C80000,
     0xC2C80000],
    dtype=np.uint32)
SPECIALS = SPECIAL_BITS.view(np.float32)


# --------------------------------------------------------------------------- build

@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    out = tmp_path_factory.mktemp("kk") / "libkiln_kernels.so"
    subprocess.run(["gcc", "-O2", "-std=c11", "-fPIC", "-shared", SRC, "-o", str(out), "-lpthread"],
                   check=True)
    L = ctypes.CDLL(str(out))
    i64, p = ctypes.c_int64, ctypes.c_void_p
    L.kk_init.restype = None
    L.kk_isa_name.restype = ctypes.c_char_p
    L.kk_force_isa.argtypes = [ctypes.c_char_p]
    L.kk_force_isa.restype = ctypes.c_int
    L.kk_gemm.argtypes = [i64, i64, i64, p, i64, i64, p, i64, i64, p, i64, ctypes.c_int, p]
    L.kk_gemm.restype = None
    L.kk_gemm_rowreduce.argtypes = [i64, i64, i64, p, i64, i64, p, i64, i64, p, i64, ctypes.c_int,
                                    ctypes.c_int, p]
    L.kk_gemm_rowreduce.restype = None
    L.kk_unary.argtypes = [ctypes.c_int, i64, i64, p, i64, i64, p]
    L.kk_unary.restype = None
    L.kk_add.argtypes = [i64, i64, p, i64, i64, p, i64, i64, ctypes.c_int, p]
    L.kk_add.restype = None
    L.kk_rowsum.argtypes = [i64, i64, p, i64, i64, ctypes.c_int, p]
    L.kk_rowsum.restype = None
    L.kk_set_num_threads.argtypes = [ctypes.c_int]
    L.kk_set_num_threads.restype = None
    L.kk_get_num_threads.restype = ctypes.c_int
    L.kk_set_gemm_thread_min.argtypes = [i64]
    L.kk_set_gemm_thread_min.restype = None
    L.kk_init()
    return L


def _supported(lib_):
    return [n for n in ("reference", "avx2", "avx512") if lib_.kk_force_isa(n.encode()) == 0]


@pytest.fixture(params=["reference", "avx2", "avx512"])
def kk(request, lib):
    if lib.kk_force_isa(request.param.encode()) != 0:
        pytest.skip(f"{request.param} not supported on this CPU")
    yield lib
    lib.kk_force_isa(_supported(lib)[-1].encode())


# --------------------------------------------------------------------------- wrappers

def _ptr(t):
    return t.data_ptr() if t.numel() else None


def _2d(t):
    """View any tensor as 2-D [M, N] with element strides (0-d/1-d -> one row)."""
    if t.dim() == 0:
        t = t.reshape(1, 1)
    if t.dim() == 1:
        t = t.unsqueeze(0)
    assert t.dim() == 2
    return t


def k_unary(L, act, x):
    x = _2d(x)
    y = torch.empty(x.shape, dtype=torch.float32)
    L.kk_unary(act, x.shape[0], x.shape[1], _ptr(x), x.stride(0), x.stride(1), _ptr(y))
    return y


def k_add(L, a, b, act=NONE):
    a, b = _2d(a), _2d(b)
    M, N = torch.broadcast_shapes(a.shape, b.shape)
    a, b = a.expand(M, N), b.expand(M, N)  # expand = stride 0 broadcasting
    y = torch.empty((M, N), dtype=torch.float32)
    L.kk_add(M, N, _ptr(a), a.stride(0), a.stride(1), _ptr(b), b.stride(0), b.stride(1), act, _ptr(y))
    return y


def k_rowsum(L, x, mean=0):
    out = torch.empty(x.shape[0], dtype=torch.float32)
    L.kk_rowsum(x.shape[0], x.shape[1], _ptr(x), x.stride(0), x.stride(1), mean, _ptr(out))
    return out


def k_gemm(L, a, b, bias=None, act=NONE):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32)
    L.kk_gemm(M, N, K, _ptr(a), a.stride(0), a.stride(1), _ptr(b), b.stride(0), b.stride(1),
              _ptr(bias) if bias is not None else None, bias.stride(0) if bias is not None else 0,
              act, _ptr(c))
    return c


def k_rowreduce(L, a, b, bias=None, act=NONE, mean=0):
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty(M, dtype=torch.float32)
    L.kk_gemm_rowreduce(M, N, K, _ptr(a), a.stride(0), a.stride(1), _ptr(b), b.stride(0),
                        b.stride(1), _ptr(bias) if bias is not None else None,
                        bias.stride(0) if bias is not None else 0, act, mean, _ptr(out))
    return out


def bits(t):
    return t.contiguous().numpy().view(np.uint32)


def assert_bits_equal(got, want):
    g, w = bits(got), bits(want)
    bad = np.nonzero(g.ravel() != w.ravel())[0]
    assert bad.size == 0, [(hex(g.ravel()[i]), hex(w.ravel()[i])) for i in bad[:10]]


def ulp_dist(a, b):
    """Distance in representable floats (NaN vs NaN = 0, NaN vs number = huge)."""
    ia = a.astype(np.float32).view(np.int32).astype(np.int64)
    ib = b.astype(np.float32).view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    d = np.abs(ia - ib)
    na, nb = np.isnan(a), np.isnan(b)
    return np.where(na & nb, 0, np.where(na | nb, 2**40, d))


def rnd(*shape, scale=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g) * scale


def with_specials(n, seed=0, scale=5.0):
    x = rnd(n, scale=scale, seed=seed).numpy()
    idx = np.random.default_rng(seed).integers(0, n, size=max(1, n // 3)) if n else []
    x[idx] = np.random.default_rng(seed + 1).choice(SPECIALS, size=len(idx))
    return torch.from_numpy(x.copy())


def layouts(M, N, seed=0):
    """(name, tensor [M, N]) in several memory layouts with identical values."""
    base = with_specials(M * N, seed=seed).reshape(M, N)
    yield "dense", base
    yield "transposed", base.t().contiguous().t()
    wide = torch.zeros(M, 2 * N + 1)
    wide[:, 1::2][:, :N] = base
    yield "strided", wide[:, 1::2][:, :N]
    if M:
        yield "bcast_row", base[:1].expand(M, N)
    if N:
        yield "bcast_col", base[:, :1].expand(M, N)


SHAPES = [(0, 0), (0, 5), (5, 0), (1, 1), (1, 7), (1, 8), (1, 16), (1, 17), (3, 33), (7, 100),
          (16, 64), (13, 257), (2, 1000), (1, 4099)]


# --------------------------------------------------------------------------- relu / copy

def test_torch_relu_semantics_probe():
    """What eager torch does (documented in kernels.h): -0 stays -0, NaN bits pass."""
    x = torch.from_numpy(SPECIALS.copy())
    y = bits(torch.relu(x))
    assert y[0] == 0x80000000  # relu(-0.0) = -0.0
    assert y[6] == 0x7FC12345 and y[7] == 0xFFA00001 and y[8] == 0x7F800001  # NaN payload/sign kept
    assert y[10] == 0  # negative denormal -> +0
    assert y[9] == 1  # positive denormal kept (torch does not flush)


@pytest.mark.parametrize("M,N", SHAPES)
@pytest.mark.parametrize("act", [NONE, RELU])
def test_unary_bit_exact_vs_torch(kk, M, N, act):
    for name, x in layouts(M, N, seed=M * 131 + N):
        assert_bits_equal(k_unary(kk, act, x), TORCH_ACT[act](x).contiguous())


def test_relu_tf_matches_tf_vector_path(kk):
    # 64 elements (a multiple of Eigen's 8-wide packet), every special + randoms
    x = np.resize(SPECIALS, 8 * 40).astype(np.float32)
    x[len(SPECIALS) * 2:] = rnd(len(x) - 2 * len(SPECIALS), seed=3).numpy()
    want = torch.from_numpy(tf.nn.relu(tf.constant(x)).numpy())
    assert_bits_equal(k_unary(kk, RELU_TF, torch.from_numpy(x)), want)
    assert bits(want)[0] == 0  # TF: relu(-0.0) = +0.0 (torch gives -0.0)
    assert bits(want)[9] == 0  # TF flushes denormals (FTZ/DAZ); torch keeps 0x00000001


def test_tf_relu_tail_differs():
    """TF's scalar tail (last n % 8 elements) keeps -0.0; recorded so a TF upgrade
    that changes it is noticed. KK_ACT_RELU_TF follows the vector path."""
    y = tf.nn.relu(tf.constant(np.full(9, -0.0, np.float32))).numpy()
    assert list(np.signbit(y)) == [False] * 8 + [True]
    nan = np.array([np.nan] * 8 + [np.nan], np.float32)
    assert np.isnan(tf.nn.relu(tf.constant(nan)).numpy()).all()


# --------------------------------------------------------------------------- add

def test_add_nan_payload_rule_probe():
    """torch.add on x86 returns b's NaN (quietened) when both are NaN."""
    a = torch.tensor(np.array([0x7FC12345], np.uint32).view(np.float32))
    b = torch.tensor(np.array([0xFFA00001], np.uint32).view(np.float32))
    assert bits(torch.add(a, b))[0] == 0xFFE00001


@pytest.mark.parametrize("act", [NONE, RELU])
def test_add_bit_exact_all_special_pairs(kk, act):
    a = torch.from_numpy(np.repeat(SPECIALS, len(SPECIALS)).copy())
    b = torch.from_numpy(np.tile(SPECIALS, len(SPECIALS)).copy())
    want = TORCH_ACT[act](torch.add(a, b))
    assert_bits_equal(k_add(kk, a, b, act), want)
    # matrix form with a broadcast bias row (bs0 = 0), transposed A
    A = a.reshape(len(SPECIALS), -1).t()
    assert_bits_equal(k_add(kk, A, SPECIALS_T(), act), TORCH_ACT[act](torch.add(A, SPECIALS_T())))


def SPECIALS_T():
    return torch.from_numpy(SPECIALS.copy())


@pytest.mark.parametrize("M,N", SHAPES)
def test_add_bit_exact_layouts(kk, M, N):
    for (na, a), (nb, b) in zip(layouts(M, N, seed=1), list(layouts(M, N, seed=2))[::-1]):
        for act in (NONE, RELU):
            assert_bits_equal(k_add(kk, a, b, act), TORCH_ACT[act](torch.add(a, b)))
    if N:
        a = with_specials(M * N, seed=4).reshape(M, N)
        bias = with_specials(N, seed=5)
        assert_bits_equal(k_add(kk, a, bias), torch.add(a, bias))  # 1-D bias row: bs0 = 0


def test_add_vs_tf(kk):
    x = with_specials(4099, seed=7)
    y = with_specials(4099, seed=8)
    got = k_add(kk, x, y).numpy().ravel()
    want = tf.add(tf.constant(x.numpy()), tf.constant(y.numpy())).numpy()
    # TF differs from torch only in (a) FTZ/DAZ and (b) which NaN payload wins
    normal = np.isfinite(want) & ((np.abs(want) >= np.finfo(np.float32).tiny) | (want == 0))
    tiny_in = (np.abs(x.numpy()) < np.finfo(np.float32).tiny) | (np.abs(y.numpy()) < np.finfo(np.float32).tiny)
    sel = normal & ~tiny_in
    assert (got[sel].view(np.uint32) == want[sel].view(np.uint32)).all()
    assert (np.isnan(got) == np.isnan(want)).all()


# --------------------------------------------------------------------------- sigmoid / tanh

def _dense_sweep():
    g = np.random.default_rng(0)
    parts = [
        np.linspace(-30, 30, 1_000_001, dtype=np.float32),
        np.linspace(-1, 1, 600_001, dtype=np.float32),
        (g.standard_normal(400_000) * 4).astype(np.float32),
        (10.0 ** g.uniform(-30, 1.5, 200_000)).astype(np.float32) * g.choice([-1, 1], 200_000).astype(np.float32),
        SPECIALS,
        np.array([0.625, -0.625, 0.62499994, 9.0, 9.02, 88.7, -88.7, -104, -110, 1e-20, -1e-20], np.float32),
    ]
    return np.concatenate(parts)


@pytest.fixture(scope="module")
def sweep():
    return torch.from_numpy(_dense_sweep())


@pytest.mark.parametrize("act,max_ulp,max_ulp_f64", [(SIGMOID, SIGMOID_MAX_ULP, SIGMOID_MAX_ULP_F64),
                                                     (TANH, TANH_MAX_ULP, TANH_MAX_ULP_F64)])
def test_sigmoid_tanh_vs_torch(kk, sweep, act, max_ulp, max_ulp_f64):
    got = k_unary(kk, act, sweep).numpy().ravel()
    want = TORCH_ACT[act](sweep).numpy()
    # Float64 truth computed by NumPy, independent of torch's process state.
    x64 = sweep.numpy().astype(np.float64)
    exact = (np.tanh(x64) if act == TANH else 1.0 / (1.0 + np.exp(-x64))).astype(np.float32)
    torch.testing.assert_close(torch.from_numpy(got), torch.from_numpy(exact), rtol=1e-5, atol=1e-6,
                               equal_nan=True)
    # torch's own float32 result was seen (once, in a full suite run) to lose
    # ~1e-4 relative accuracy after other libraries loaded in the process; the
    # comparison with eager is only meaningful while torch itself is accurate.
    if not np.allclose(want, exact, rtol=2e-6, atol=1e-7, equal_nan=True):
        pytest.skip("torch's own float32 result is not accurate in this process state")
    torch.testing.assert_close(torch.from_numpy(got), torch.from_numpy(want), rtol=1e-5, atol=1e-6,
                               equal_nan=True)
    # ulp metric on outputs that are normal floats (denormal outputs only occur
    # for sigmoid(x < -87) where both are within 1e-38 of each other)
    sel = ~(np.abs(want) < np.finfo(np.float32).tiny)
    d = ulp_dist(got[sel], want[sel])
    worst = int(d.max())
    truth = TORCH_ACT[act](sweep.double()).float().numpy()
    worst_f64 = int(ulp_dist(got[sel], truth[sel]).max())
    print(f"\n{kk.kk_isa_name().decode()} act={act}: max ulp vs torch = {worst}, vs f64 = {worst_f64}")
    assert worst <= max_ulp
    assert worst_f64 <= max_ulp_f64


def test_sigmoid_tanh_edges(kk):
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 100.0, -100.0, 1e-30, -1e-30,
                      3.4e38, -3.4e38])
    s = k_unary(kk, SIGMOID, x).numpy().ravel()
    t = k_unary(kk, TANH, x).numpy().ravel()
    assert s[0] == 0.5 and s[1] == 0.5 and s[2] == 1.0 and s[3] == 0.0 and np.isnan(s[4])
    assert s[5] == 1.0 and s[6] < 1e-40 and s[9] == 1.0 and s[10] == 0.0
    assert bits(torch.from_numpy(t))[1] == 0x80000000  # tanh(-0.0) = -0.0
    assert bits(torch.from_numpy(t))[0] == 0
    assert t[2] == 1.0 and t[3] == -1.0 and np.isnan(t[4]) and t[5] == 1.0 and t[6] == -1.0
    assert t[7] == np.float32(1e-30) and t[8] == np.float32(-1e-30)
    assert t[9] == 1.0 and t[10] == -1.0
    assert_bits_equal(torch.from_numpy(t), torch.tanh(x))


def test_sigmoid_underflow_is_torchs(kk):
    # kiln computes torch's form, 1 / (1 + e^-x): below x = -88.72 e^-x is inf
    # and the result +0, as torch's; above it the denormal results come from
    # one correctly rounded division of nearly the same e^-x. (The form
    # e^x / (1 + e^x) that kiln used before gave denormals down to -103.)
    x = torch.cat([torch.linspace(-120, -86, 340_001), torch.tensor([-88.72284, -88.72283, -88.7228, -1e30])])
    got = k_unary(kk, SIGMOID, x).numpy().ravel()
    want = torch.sigmoid(x).numpy()
    assert ((got == 0) == (want == 0)).all()
    assert (np.signbit(got) == np.signbit(want)).all()
    assert int(ulp_dist(got, want).max()) <= SIGMOID_MAX_ULP
    assert (got[x.numpy() < -88.8] == 0).all()


@pytest.mark.parametrize("act", [SIGMOID, TANH])
def test_sigmoid_tanh_vs_tf(kk, sweep, act):
    x = sweep[~torch.isnan(sweep)]
    x = x[(x.abs() >= np.finfo(np.float32).tiny) | (x == 0)]  # TF flushes denormal inputs
    got = k_unary(kk, act, x).numpy().ravel()
    want = TF_ACT[act](tf.constant(x.numpy())).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("M,N", SHAPES)
@pytest.mark.parametrize("act", [SIGMOID, TANH])
def test_sigmoid_tanh_layouts(kk, M, N, act):
    # test_sigmoid_tanh_vs_torch's contract: float64 truth first, eager while it is accurate
    eager_ok = True
    for name, x in layouts(M, N, seed=N):
        eager_ok &= check_activation(k_unary(kk, act, x), x, "sigmoid" if act == SIGMOID else "tanh",
                                     rtol=1e-5, atol=1e-6)
    if not eager_ok:
        pytest.skip(EAGER_ACTIVATION_INACCURATE)


# --------------------------------------------------------------------------- row sums

@pytest.mark.parametrize("M,N", SHAPES + [(3, 100_003), (64, 3)])
def test_rowsum_vs_torch(kk, M, N):
    base = rnd(M, N, seed=N) + 0.25
    variants = [base, base.t().contiguous().t()]
    wide = torch.zeros(M, 3 * N + 2)
    wide[:, ::3][:, :N] = base
    variants.append(wide[:, ::3][:, :N])
    for x in variants:
        for mean in (0, 1):
            got = k_rowsum(kk, x, mean)
            want = x.mean(1) if mean else x.sum(1)
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    if M:
        tfw = tf.reduce_sum(tf.constant(base.numpy()), axis=1).numpy()
        np.testing.assert_allclose(k_rowsum(kk, base).numpy(), tfw, rtol=1e-5, atol=1e-6)


def test_rowsum_specials(kk):
    x = torch.tensor([[1.0, math.inf, 2.0], [math.inf, -math.inf, 0.0], [math.nan, 1.0, 1.0],
                      [-0.0, -0.0, -0.0]])
    got = k_rowsum(kk, x)
    want = x.sum(1)
    torch.testing.assert_close(got, want, equal_nan=True)
    empty = torch.empty(3, 0)
    assert torch.isnan(k_rowsum(kk, empty, 1)).all()  # mean of nothing = NaN like torch
    assert (k_rowsum(kk, empty, 0) == 0).all()
    assert torch.isnan(empty.mean(1)).all()


# --------------------------------------------------------------------------- GEMM

GEMM_SHAPES = [(1, 32, 32), (1, 1, 1), (1, 7, 3), (2, 33, 17), (3, 100, 64), (5, 17, 300),
               (12, 32, 32), (13, 31, 65), (16, 64, 128), (17, 40, 9), (31, 70, 257),
               (64, 64, 64), (100, 129, 511), (150, 33, 600), (0, 5, 5), (5, 0, 5), (5, 5, 0),
               (0, 0, 0), (200, 1030, 30),
               # the k-quad transposed kernel (linear layout, M 2..16) with each row
               # group count (M 3-4, 5-8, 9-12, 13-16): partial last column
               # tiles, N below one tile, K with a partial quad, K over several
               # 256-k accumulation blocks
               (14, 100, 90), (9, 130, 300), (15, 9, 4000), (11, 3, 1027), (2, 5, 31),
               (8, 64, 64), (6, 100, 90), (7, 9, 33), (6, 40, 513), (3, 70, 65),
               # 17..64 rows: row blocks of it (a partial last block, K over 256)
               (50, 21, 300), (64, 128, 64), (37, 64, 17)]


def gemm_tol(K):
    return dict(rtol=1e-5, atol=1e-5 * math.sqrt(max(K, 1)))


def _operands(M, N, K, seed):
    x = rnd(M, K, seed=seed)
    w = rnd(N, K, seed=seed + 1) / math.sqrt(max(K, 1)) * 2
    b = rnd(N, seed=seed + 2)
    return x, w, b


@pytest.mark.parametrize("M,N,K", GEMM_SHAPES)
@pytest.mark.parametrize("act", [NONE, RELU, SIGMOID, TANH])
def test_gemm_linear_vs_torch(kk, M, N, K, act):
    x, w, b = _operands(M, N, K, seed=M + N + K)
    want = TORCH_ACT[act](torch.nn.functional.linear(x, w, b))
    # torch linear layout: B = w.T (bs0 = 1, bs1 = K)
    torch.testing.assert_close(k_gemm(kk, x, w.t(), b, act), want, **gemm_tol(K))
    # pre-transposed weights (bs1 == 1): the streaming path
    torch.testing.assert_close(k_gemm(kk, x, w.t().contiguous(), b, act), want, **gemm_tol(K))
    # no bias, strided / transposed A, strided bias
    want_nb = TORCH_ACT[act](x @ w.t())
    xt = x.t().contiguous().t()
    torch.testing.assert_close(k_gemm(kk, xt, w.t(), None, act), want_nb, **gemm_tol(K))
    xw = torch.zeros(M, 2 * K + 1)
    xw[:, 1::2][:, :K] = x
    bw = torch.zeros(2 * N + 1)
    bw[::2][:N] = b
    torch.testing.assert_close(k_gemm(kk, xw[:, 1::2][:, :K], w.t(), bw[::2][:N], act), want,
                               **gemm_tol(K))


@pytest.mark.parametrize("M,N,K", GEMM_SHAPES)
@pytest.mark.parametrize("act", [NONE, RELU, SIGMOID, TANH])
def test_gemm_rowreduce_vs_torch(kk, M, N, K, act):
    x, w, b = _operands(M, N, K, seed=7 * M + N + K)
    y = TORCH_ACT[act](torch.nn.functional.linear(x, w, b))
    tol = 1e-5 * math.sqrt(max(K, 1))
    for mean in (0, 1):
        want = y.mean(1) if mean else y.sum(1)
        got = k_rowreduce(kk, x, w.t(), b, act, mean)
        scale = y.abs().mean(1) if mean else y.abs().sum(1)
        if M:
            if N == 0 and mean:
                assert torch.isnan(got).all() and torch.isnan(want).all()
                continue
            err = (got - want).abs()
            bound = 1e-5 * scale + tol * (1 if mean else math.sqrt(max(N, 1)))
            assert (err <= bound).all(), (err - bound).max()


# x @ W with W (K x N) row-major and larger than L2, M <= 8: B streamed row by
# row into L1 accumulators (column chunks per M, K tails of the 8-row blocks)
@pytest.mark.parametrize("M,N,K", [(1, 1100, 480), (3, 1500, 353), (8, 600, 900), (5, 4100, 131)])
@pytest.mark.parametrize("act", [NONE, RELU, SIGMOID, TANH])
def test_gemm_streamed_rows_vs_torch(kk, M, N, K, act):
    x = rnd(M, K, seed=K)
    w = rnd(K, N, seed=N) / math.sqrt(K) * 2
    b = rnd(N, seed=M)
    want = TORCH_ACT[act](x @ w + b)
    torch.testing.assert_close(k_gemm(kk, x, w, b, act), want, **gemm_tol(K))
    got_mean = k_rowreduce(kk, x, w, b, act, mean=1)
    torch.testing.assert_close(got_mean, want.mean(1), rtol=1e-5, atol=1e-5 * math.sqrt(K))
    strided_bias = rnd(2 * N, seed=7)[::2]
    torch.testing.assert_close(k_gemm(kk, x, w, strided_bias, act), TORCH_ACT[act](x @ w + strided_bias),
                               **gemm_tol(K))


# x @ W (W row-major) in K blocks of 128 with partial sums in C: 9-16 rows
# over a W of more than 1 MiB (the 64-wide tiles from K = 1024 / 2048, the
# micro-kernel's passes over a W spanning that much, here rows of a wider
# tensor), and 17-64 rows over a W past 128 KiB
@pytest.mark.parametrize("M,N,K,ld", [(13, 300, 1030, 300), (16, 1024, 1024, 1024), (9, 128, 2100, 128),
                                      (14, 45, 1030, 4096), (16, 100, 2600, 100), (40, 130, 257, 130),
                                      (64, 256, 1030, 256), (33, 1100, 129, 1100), (20, 70, 700, 2048)])
@pytest.mark.parametrize("act", [NONE, RELU, SIGMOID, TANH])
def test_gemm_k_blocks_vs_torch(kk, M, N, K, ld, act):
    x = rnd(M, K, seed=K + 1)
    w = (rnd(K, ld, seed=N + 2) / math.sqrt(K) * 2)[:, :N]
    b = rnd(N, seed=M + 3)
    want = TORCH_ACT[act](x @ w + b)
    torch.testing.assert_close(k_gemm(kk, x, w, b, act), want, **gemm_tol(K))
    torch.testing.assert_close(k_gemm(kk, x, w, None, act), TORCH_ACT[act](x @ w), **gemm_tol(K))
    got_mean = k_rowreduce(kk, x, w, b, act, mean=1)
    torch.testing.assert_close(got_mean, want.mean(1), rtol=1e-5, atol=1e-5 * math.sqrt(K))


# Long sums (KK_SUM_KB in kernels.c): over K in the thousands kiln's error against the
# float64 product is no worse than eager torch's own (root mean square over the outputs;
# tests/c/test_kernels.c checks that the row reductions sum the same blocked C). One
# k-ordered float chain per output was up to 17x further off than torch (max error,
# K = 20,000, x @ W on 4-12 rows, AMD EPYC).
@pytest.mark.parametrize("M,N,K", [(1, 64, 20000), (2, 100, 9000), (4, 64, 20000), (6, 100, 12000),
                                   (8, 64, 20000), (12, 100, 8000), (16, 64, 8000), (40, 64, 8000),
                                   (100, 3, 20000), (100, 80, 3000)])
@pytest.mark.parametrize("linear", [False, True], ids=["x@W", "linear"])
def test_gemm_long_sums_vs_torch(kk, M, N, K, linear):
    x = rnd(M, K, seed=M + K)
    w = rnd(N, K, seed=N + 7).t() if linear else rnd(K, N, seed=N + 7)
    exact = x.double() @ w.double()

    def rms(got, want):
        return (got.double() - want).pow(2).mean().sqrt().item()

    assert rms(k_gemm(kk, x, w), exact) <= 2 * rms(x @ w, exact)


@pytest.mark.parametrize("M,N,K", [(1, 32, 32), (4, 50, 70), (40, 65, 300)])
@pytest.mark.parametrize("act", [NONE, RELU, SIGMOID, TANH])
def test_gemm_vs_tf(kk, M, N, K, act):
    x, w, b = _operands(M, N, K, seed=3)
    want = TF_ACT[act](tf.matmul(tf.constant(x.numpy()), tf.constant(w.t().contiguous().numpy()))
                       + tf.constant(b.numpy())).numpy()
    got = k_gemm(kk, x, w.t(), b, act).numpy()
    np.testing.assert_allclose(got, want, **gemm_tol(K))


def test_gemm_relu_tf_vs_tf(kk):
    x, w, b = _operands(9, 40, 20, seed=11)
    want = tf.nn.relu(tf.matmul(x.numpy(), w.t().contiguous().numpy()) + b.numpy()).numpy()
    got = k_gemm(kk, x, w.t(), b, RELU_TF).numpy()
    np.testing.assert_allclose(got, want, **gemm_tol(20))
    assert not np.signbit(got).any()


def test_gemm_special_values(kk):
    x = torch.tensor([[1.0, 2.0], [math.inf, 1.0], [math.nan, 0.0], [-0.0, -0.0]])
    w = torch.tensor([[1.0, -1.0], [0.5, 0.25], [-0.0, 0.0]])
    for act in (NONE, RELU, SIGMOID, TANH):
        want = TORCH_ACT[act](x @ w.t())
        torch.testing.assert_close(k_gemm(kk, x, w.t(), None, act), want, equal_nan=True)


def test_gemm_k0_is_act_bias(kk):
    x = torch.empty(3, 0)
    w = torch.empty(0, 5)
    b = torch.tensor([-1.0, 0.0, 2.0, -0.0, 3.0])
    for act in (NONE, RELU, SIGMOID, TANH):
        want = TORCH_ACT[act](torch.addmm(b, x, w))
        torch.testing.assert_close(k_gemm(kk, x, w, b, act), want)
        torch.testing.assert_close(k_rowreduce(kk, x, w, b, act, 0), want.sum(1))
    torch.testing.assert_close(k_gemm(kk, x, w, None, NONE), torch.zeros(3, 5))


def test_default_isa_env(lib, tmp_path):
    """KILN_ISA may only lower the ISA; kk_init honours it once per process."""
    code = ("import ctypes,sys; L=ctypes.CDLL(sys.argv[1]); L.kk_isa_name.restype=ctypes.c_char_p;"
            "L.kk_init(); print(L.kk_isa_name().decode())")
    so = lib._name
    env = dict(os.environ, KILN_ISA="reference")
    out = subprocess.run([sys.executable, "-c", code, so], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "reference"


# --------------------------------------------------------------------------- threading

@pytest.fixture
def threaded(kk):
    """The pool forced on for every size (budget 2, no M*N*K threshold)."""
    kk.kk_set_num_threads(2)
    kk.kk_set_gemm_thread_min(1)
    yield kk
    kk.kk_set_num_threads(1)
    kk.kk_set_gemm_thread_min(-1)


THREADED_SHAPES = [(1, 100, 64), (7, 300, 33), (16, 129, 100), (64, 32, 32), (100, 129, 511),
                   (200, 1030, 30), (513, 70, 300), (13, 1100, 260)]


@pytest.mark.parametrize("M,N,K", THREADED_SHAPES)
@pytest.mark.parametrize("act", [NONE, RELU, SIGMOID, TANH])
def test_gemm_threaded_vs_torch(threaded, M, N, K, act):
    kk = threaded
    x, w, b = _operands(M, N, K, seed=5 * M + N + K)
    want = TORCH_ACT[act](torch.nn.functional.linear(x, w, b))
    torch.testing.assert_close(k_gemm(kk, x, w.t(), b, act), want, **gemm_tol(K))
    torch.testing.assert_close(k_gemm(kk, x, w.t().contiguous(), b, act), want, **gemm_tol(K))
    torch.testing.assert_close(k_gemm(kk, x.t().contiguous().t(), w.t(), b, act), want, **gemm_tol(K))
    for mean in (0, 1):
        got = k_rowreduce(kk, x, w.t(), b, act, mean)
        ref = want.mean(1) if mean else want.sum(1)
        scale = want.abs().mean(1) if mean else want.abs().sum(1)
        bound = 1e-5 * scale + 1e-5 * math.sqrt(K) * (1 if mean else math.sqrt(N))
        assert ((got - ref).abs() <= bound).all()


def test_gemm_concurrent_python_threads(threaded):
    """ctypes releases the GIL: several Python threads run kk_gemm at once while
    the pool is enabled; only one may use it, the others run single-threaded."""
    from concurrent.futures import ThreadPoolExecutor
    kk = threaded
    cases = [_operands(150 + 10 * i, 130, 200, seed=i) for i in range(6)]
    wants = [torch.relu(torch.nn.functional.linear(x, w, b)) for x, w, b in cases]

    def run(i):
        x, w, b = cases[i]
        return [k_gemm(kk, x, w.t(), b, RELU) for _ in range(10)]

    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(run, range(len(cases))))
    for outs, want in zip(results, wants):
        for got in outs:
            torch.testing.assert_close(got, want, **gemm_tol(200))


def test_num_threads_api_and_env(lib):
    assert lib.kk_get_num_threads() >= 1
    lib.kk_set_num_threads(0)
    assert lib.kk_get_num_threads() == 1  # n <= 1: single-threaded
    lib.kk_set_num_threads(3)
    assert lib.kk_get_num_threads() == 3
    lib.kk_set_num_threads(1)
    code = ("import ctypes,sys; L=ctypes.CDLL(sys.argv[1]); L.kk_init(); print(L.kk_get_num_threads())")
    for env_val, want in (("2", "2"), ("junk", "1"), (None, "1")):
        env = dict(os.environ)
        env.pop("KILN_NUM_THREADS", None)
        if env_val is not None:
            env["KILN_NUM_THREADS"] = env_val
        out = subprocess.run([sys.executable, "-c", code, lib._name], env=env, capture_output=True,
                             text=True)
        assert out.stdout.strip() == want, (env_val, out.stdout, out.stderr)


# The start of a script run in a subprocess with the kernel library's path as
# argv[1]: L is the library, kk_gemm and kk_gemm_rowreduce are typed.
SUBPROCESS_PRELUDE = textwrap.dedent("""
    import ctypes, sys, torch
    L = ctypes.CDLL(sys.argv[1])
    i64, p = ctypes.c_int64, ctypes.c_void_p
    L.kk_gemm.argtypes = [i64, i64, i64, p, i64, i64, p, i64, i64, p, i64, ctypes.c_int, p]
    L.kk_gemm_rowreduce.argtypes = [i64, i64, i64, p, i64, i64, p, i64, i64, p, i64,
                                    ctypes.c_int, ctypes.c_int, p]
""")


def test_pool_polling_set_by_env(lib):
    """KILN_POOL_SPIN_US sets how long pool threads poll before sleeping (0:
    never, so every job wakes a sleeping worker). With 2 threads and no size
    threshold, back-to-back threaded GEMMs and row reductions of several
    shapes give torch's answers with polling off, short, default and for an
    unparsable value (the default)."""
    code = SUBPROCESS_PRELUDE + textwrap.dedent("""
        L.kk_set_gemm_thread_min.argtypes = [i64]
        L.kk_init()
        L.kk_set_num_threads(2)
        L.kk_set_gemm_thread_min(1)
        torch.manual_seed(0)
        for M, K, N in ((300, 200, 150), (40, 64, 130), (5, 300, 700), (256, 256, 128)):
            for rep in range(3):
                a, b = torch.randn(M, K), torch.randn(K, N) / K ** 0.5
                c, r = torch.empty(M, N), torch.empty(M)
                L.kk_gemm(M, N, K, a.data_ptr(), K, 1, b.data_ptr(), N, 1, None, 0, 0, c.data_ptr())
                L.kk_gemm_rowreduce(M, N, K, a.data_ptr(), K, 1, b.data_ptr(), N, 1, None, 0, 1, 0,
                                    r.data_ptr())
                want = a @ b
                torch.testing.assert_close(c, want, rtol=1e-5, atol=1e-4)
                torch.testing.assert_close(r, torch.relu(want).sum(1), rtol=1e-5, atol=1e-3)
        print("ok")
    """)
    for val in ("0", "50", "1000", "junk"):
        env = dict(os.environ, KILN_POOL_SPIN_US=val)
        out = subprocess.run([sys.executable, "-c", code, lib._name], env=env, capture_output=True, text=True)
        assert out.stdout.strip() == "ok", (val, out.stderr[-2000:])


def test_small_m_kernel_forced_by_env(lib):
    """KILN_GEMM_SMALLM=tile|dot|lt forces one small-M kernel (benchmark A/B
    runs); each gives torch's linear (+ row mean) on batch-16 and batch-7
    linear-layout problems, as does an unknown value (the shape-based choice)."""
    code = SUBPROCESS_PRELUDE + textwrap.dedent("""
        L.kk_init()
        torch.manual_seed(0)
        for M in (16, 7):
            x, w, b = torch.randn(M, 130), torch.randn(70, 130) / 12, torch.randn(70)
            c, r = torch.empty(M, 70), torch.empty(M)
            L.kk_gemm(M, 70, 130, x.data_ptr(), 130, 1, w.data_ptr(), 1, 130, b.data_ptr(), 1, 1, c.data_ptr())
            L.kk_gemm_rowreduce(M, 70, 130, x.data_ptr(), 130, 1, w.data_ptr(), 1, 130, b.data_ptr(), 1, 1, 1,
                                r.data_ptr())
            want = torch.relu(torch.nn.functional.linear(x, w, b))
            torch.testing.assert_close(c, want, rtol=1e-5, atol=1e-4)
            torch.testing.assert_close(r, want.mean(1), rtol=1e-5, atol=1e-5)
        print("ok")
    """)
    for val in ("tile", "dot", "lt", "junk"):
        env = dict(os.environ, KILN_GEMM_SMALLM=val)
        out = subprocess.run([sys.executable, "-c", code, lib._name], env=env, capture_output=True, text=True)
        assert out.stdout.strip() == "ok", (val, out.stderr[-2000:])
