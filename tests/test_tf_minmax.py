"""tf.maximum / tf.minimum (tests/tf_programs/tf_minmax.py) against eager
TensorFlow bit for bit. Eager's vector loop gives A where A is NaN, else B
where B is NaN (NaNs as they are), else the larger (smaller) with
subnormals read as zeros of their sign, and of two zeros B; its scalar tail,
the last n % 8 elements of the result, the same but of two zeros A. So
every shape around multiples of 8, every broadcast (a row, a column, one
element, a Python number on either side) and dense NaNs, zeros of both
signs and subnormals are compared."""
import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
from tests.test_elementwise import bits, salted  # noqa: E402
from tests.test_tf_plugin import build  # noqa: E402

SHAPES = [(1, 1), (1, 7), (1, 8), (3, 5), (4, 16), (2, 17), (3, 21), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]
POOL = np.array([0x00000000, 0x80000000, 0x7FC00001, 0xFFC00002, 0x7F800001, 0x00000123, 0x80000456,
                 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000], dtype=np.uint32).view(np.float32)
SCALARS = [0.0, -0.0, 1.0, -1.0, 2.5, float("nan"), float("inf"), -float("inf"), 1e-40, -1e-40, 1e40, 0.1 + 2 ** -40]


@pytest.fixture(scope="module")
def mmod(tmp_path_factory):
    return build("tf_minmax", tmp_path_factory)


def operands(shape, seed):
    """salted arrays with most pairs NaNs, zeros of either sign or subnormals."""
    rng = np.random.default_rng(seed)
    a, b = salted(shape, seed), salted(shape, seed + 1)
    mask = rng.random(shape) < 0.6
    a[mask] = rng.choice(POOL, int(mask.sum()))
    b[mask] = rng.choice(POOL, int(mask.sum()))
    return a, b


def same(got, want, where):
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, (where, g.shape, w.shape)
    bad = bits(g) != bits(w)
    assert not bad.any(), (f"{where}: {int(bad.sum())} of {g.size} differ; first at {np.argwhere(bad)[0].tolist()}: "
                           f"{bits(g)[bad][:4]} vs {bits(w)[bad][:4]}")


def eager_zero(v):
    """A float zero as a tensor for eager: eager TF caches the tensors it makes
    of Python numbers by value, where 0.0 == -0.0, so after any use of one
    zero it computes with that one (README, limitations); kiln with the zero
    it is given, and so does eager with a tensor."""
    return tf.constant(np.float32(v)) if isinstance(v, float) and v == 0 else v


def agree(mod, name, *args, where=None):
    same(getattr(mod, name)(*args), mod.__kiln_python__[name](*map(eager_zero, args)), (name, where))


def test_sites_claimed(mmod):
    _, report = mmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if any(w in str(s["target"]) for w in ("maximum", "minimum", "clip_by_value"))]
        assert sites, f["name"]
        want = "rejected" if f["name"].startswith("n_") else "claimed"
        assert all(s["outcome"] == want for s in sites), (f["name"], f["sites"])
        rules |= {s["rule"] for s in sites if s["outcome"] == "claimed"}
    assert rules == {"kiln-tensorflow/maximum-f32-cpu", "kiln-tensorflow/minimum-f32-cpu",
                     "kiln-tensorflow/maximum-scalar-f32-cpu", "kiln-tensorflow/minimum-scalar-f32-cpu",
                     "kiln-tensorflow/clip-by-value-f32-cpu-1d", "kiln-tensorflow/clip-by-value-f32-cpu-2d"}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_tensors_bit_for_bit(mmod, shape):
    mod, _ = mmod
    a_arr, b_arr = operands(shape, sum(shape) + 3)
    a, b = tf.constant(a_arr), tf.constant(b_arr)
    for name in ("mx_22", "mn_22"):
        agree(mod, name, a, b, where=shape)
        agree(mod, name, b, a, where=(shape, "swapped"))
    if shape[0]:
        for name in ("mx_22", "mn_22"):
            agree(mod, name, a, tf.constant(b_arr[:, :1]), where=(shape, "column"))
            agree(mod, name, tf.constant(a_arr[:1]), b, where=(shape, "row down"))
            agree(mod, name, a, tf.constant(b_arr[:1, :1]), where=(shape, "one element"))
        agree(mod, "mx_21", a, tf.constant(b_arr[0]), where=(shape, "row"))
        agree(mod, "mx_21", a, tf.constant(b_arr[0, :1]), where=(shape, "one-element row"))
        agree(mod, "mn_12", tf.constant(a_arr[-1]), b, where=(shape, "row first"))
        agree(mod, "mx_11", tf.constant(a_arr[0]), tf.constant(b_arr[0]), where=(shape, "1-D"))
        agree(mod, "mn_11", tf.constant(a_arr[0]), tf.constant(b_arr[-1]), where=(shape, "1-D"))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_numbers_bit_for_bit(mmod, shape):
    mod, _ = mmod
    a_arr, _ = operands(shape, sum(shape) + 5)
    a = tf.constant(a_arr)
    for s in SCALARS:
        for name in ("mx_s", "mn_s", "mx_s_left"):
            agree(mod, name, a, s, where=(shape, s))
        if shape[0]:
            agree(mod, "mn_s_left_1d", tf.constant(a_arr[0]), s, where=(shape, s))
    for i in (0, 1, -3, 2 ** 24 + 1, 2 ** 40 + 1):
        agree(mod, "mx_int", a, i, where=(shape, i))
    for f in (True, False):
        agree(mod, "mn_bool", a, f, where=(shape, f))
    same(mod.mx_zero(a), mod.__kiln_python__["mx_s"](a, eager_zero(0.0)), ("mx_zero", shape))


def ties(shape, seed):
    """-0.0 against +0.0 at most places (each loop's tail then shows: it keeps
    the first), the rest drawn from POOL."""
    rng = np.random.default_rng(seed)
    a, b = np.full(shape, -0.0, np.float32), np.zeros(shape, np.float32)
    mask = rng.random(shape) < 0.1
    a[mask] = rng.choice(POOL, int(mask.sum()))
    return a, b


@pytest.mark.parametrize("shape", [(333, 101), (1, 40001), (257, 129), (2048, 37), (20000, 3), (700, 13),
                                   (60, 997), (14, 1001), (3, 13913), (4, 13914), (3, 20000), (2, 30001)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_large(mmod, shape):
    """Sizes eager splits: a loop over the whole result (its last n % 8
    elements the scalar tail), but where a row or a column is stretched, one
    loop per block of about 13913 elements, whole rows or a long row's
    pieces, each with its tail."""
    mod, _ = mmod
    for a_arr, b_arr in (operands(shape, shape[1]), ties(shape, shape[0])):
        a, b = tf.constant(a_arr), tf.constant(b_arr)
        agree(mod, "mx_22", a, b, where=shape)
        agree(mod, "mn_22", b, a, where=shape)
        agree(mod, "mx_s", a, 0.0, where=(shape, "number"))
        agree(mod, "mn_s_left", a, 0.0, where=(shape, "number left"))
        for name in ("mx_22", "mn_22"):
            agree(mod, name, a, tf.constant(b_arr[:, :1]), where=(shape, name, "column"))
            agree(mod, name, a, tf.constant(b_arr[-1:]), where=(shape, name, "row down"))
            agree(mod, name, tf.constant(a_arr[:, :1]), tf.constant(b_arr[-1:]), where=(shape, name, "column x row"))
        agree(mod, "mx_21", a, tf.constant(b_arr[-1]), where=(shape, "row"))
        agree(mod, "mn_12", tf.constant(b_arr[0]), a, where=(shape, "row first"))


BOUNDS = [(-1.0, 1.0), (0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (2.0, -1.0), (float("nan"), 1.0),
          (-1.0, float("nan")), (-float("inf"), float("inf")), (1e-40, 1e40), (-1e40, -1e-40), (0.1 + 2 ** -40, 0.5)]


@pytest.mark.parametrize("shape", SHAPES + [(2048, 37), (1, 40001)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_clip_by_value(mmod, shape):
    """tf.clip_by_value(x, lo, hi) is TF's maximum(minimum(x, hi), lo): each
    with its NaN, zero and tail rules (lo > hi gives lo; a NaN bound NaN)."""
    mod, _ = mmod
    for a_arr, _b in (operands(shape, sum(shape) + 7), ties(shape, 3)):
        x = tf.constant(a_arr)
        for lo, hi in BOUNDS:
            agree(mod, "clip", x, lo, hi, where=(shape, lo, hi))
            if shape[0]:
                agree(mod, "clip_1d", tf.constant(a_arr[-1]), lo, hi, where=(shape, lo, hi, "1-D"))
        agree(mod, "clip_lit", x, where=shape)
        for i, f in [(0, True), (-3, False), (2 ** 24 + 1, True)]:
            agree(mod, "clip_int_bool", x, i, f, where=(shape, i, f))


def test_chains_and_head(mmod):
    mod, _ = mmod
    py = mod.__kiln_python__
    rng = np.random.default_rng(4)
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        x, w = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
        floor = rng.standard_normal(n, dtype=np.float32)
        got = mod.floor_head(tf.constant(x), tf.constant(w), tf.constant(floor))
        want = py["floor_head"](tf.constant(x), tf.constant(w), tf.constant(floor))
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    for shape in SHAPES:
        x_arr, lo_arr = operands(shape, 9)
        x, lo = tf.constant(x_arr), tf.constant(lo_arr[0] if shape[0] else np.zeros(shape[1], np.float32))
        for hi in (1.0, float("nan"), 0.0, -0.0):
            g, e = np.asarray(mod.clip_between(x, lo, hi)), np.asarray(py["clip_between"](x, lo, eager_zero(hi)))
            both_nan = np.isnan(g) & np.isnan(e)  # NaN payloads through * and -: their own rules
            assert (both_nan | (bits(g) == bits(e))).all(), (shape, hi)


def test_rejected_form_runs_on_eager(mmod):
    mod, report = mmod
    a, b = operands((3, 9), 1)
    same(mod.n_name(tf.constant(a), tf.constant(b)), mod.__kiln_python__["n_name"](tf.constant(a), tf.constant(b)),
         "n_name")
    f = next(f for f in report["functions"] if f["name"] == "n_name")
    assert any(s["outcome"] == "rejected" and s["code"] == "KILN-TF-003" for s in f["sites"])
    lo, hi = tf.constant(np.full(9, -0.5, np.float32)), tf.constant(np.linspace(0, 1, 9, dtype=np.float32))
    same(mod.n_clip_tensor(tf.constant(a), lo, hi), mod.__kiln_python__["n_clip_tensor"](tf.constant(a), lo, hi), "clip")
    f = next(f for f in report["functions"] if f["name"] == "n_clip_tensor")
    assert any(s["outcome"] == "rejected" and s["code"] == "KILN-TF-003" for s in f["sites"])
    for s_, u in [(1.5, -2.0), (float("nan"), 1.0), (3.0, 1e40)]:
        same(mod.n_numbers(tf.constant(a), s_, u), mod.__kiln_python__["n_numbers"](tf.constant(a), s_, u), "n_numbers")
    f = next(f for f in report["functions"] if f["name"] == "n_numbers")
    assert any(s["outcome"] == "rejected" and s["code"] == "KILN-TF-010" for s in f["sites"])
