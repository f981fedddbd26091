"""torch.maximum / torch.minimum of two tensors (tests/torch_programs/tp_minmax.py)
against eager torch bit for bit. Eager's vector loop gives the all-ones NaN
0xffffffff where either operand is NaN and, of two zeros, the second
operand; its scalar code gives 0x7fc00000 and the first. Which elements the
scalar code computes depends on the loops TensorIterator makes (each loop's
last n % 16 elements, every element of a loop over a strided operand) and on
how eager splits a large op between threads: so every layout, broadcast and
thread count is compared, with NaNs and zeros of both signs meeting in both
orders."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import HERE, bits, build, emitted, layouts, salted  # noqa: E402

SHAPES = [(1, 1), (1, 7), (3, 5), (4, 16), (2, 17), (3, 21), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]
NAMES = {"22": ("mx_22", "mn_22", "mx_method_max"), "21": ("mx_21", "mn_method_min"), "12": ("mn_12",),
         "11": ("mx_11", "mn_11")}


@pytest.fixture(scope="module")
def mmod(tmp_path_factory):
    return build("tp_minmax", "torch_programs", tmp_path_factory)


def operands(shape, seed):
    """Two salted arrays of a shape where many elements meet their negation
    (zeros of both signs, a NaN and its negation) or themselves."""
    a = salted(shape, seed)
    b = salted(shape, seed + 1).reshape(-1)
    flat = a.reshape(-1)
    b[0::5] = -flat[0::5]
    b[3::7] = flat[3::7]
    b[1::9] = np.where(np.arange(b[1::9].size) % 2, 0.0, -0.0)
    flat[1::9] = np.where(np.arange(flat[1::9].size) % 2, -0.0, 0.0)
    return a, b.reshape(shape)


def dense_specials(shape, seed):
    """Two arrays in which most pairs of elements are NaNs or zeros of
    either sign: any element computed by the other loop shows."""
    rng = np.random.default_rng(seed)
    pool = np.array([0x00000000, 0x80000000, 0x7FC00001, 0xFFC00002, 0x7F800001, 0x3F800000],
                    dtype=np.uint32).view(np.float32)
    return rng.choice(pool, shape), rng.choice(pool, shape)


def same(got, want, where):
    assert got.shape == want.shape, (where, got.shape, want.shape)
    def strides(t):  # a size-1 dim's stride means nothing
        return [st for st, n in zip(t.stride(), t.shape) if n > 1]
    assert got.numel() == 0 or strides(got) == strides(want), (where, got.stride(), want.stride())
    g, w = bits(got.contiguous().numpy()), bits(want.contiguous().numpy())
    bad = g != w
    assert not bad.any(), (f"{where}: {int(bad.sum())} of {g.size} differ; first at {np.argwhere(bad)[0].tolist()}: "
                           f"{g[bad][:4]} vs {w[bad][:4]}")


def agree(mod, name, *args, where=None):
    same(getattr(mod, name)(*args), mod.__kiln_python__[name](*args), (name, where))


def test_sites_claimed(mmod):
    _, report = mmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] in ("torch.maximum", "torch.minimum", "torch.max", "torch.min",
                                                           "maximum", "minimum", "max", "min")]
        assert sites, f["name"]
        want = "not-covered" if f["name"].startswith("n_") else "claimed"
        assert all(s["outcome"] == want for s in sites), (f["name"], f["sites"])
        rules |= {s["rule"] for s in sites if s["outcome"] == "claimed"}
    assert rules == {"kiln-torch/tensor-maximum-f32-cpu", "kiln-torch/tensor-minimum-f32-cpu"}


def forms(a, b):
    """(form, left, right) for every claimed pairing of ranks built from a, b."""
    yield "22", a, b
    if a.dim() == 2 and a.shape[0]:
        yield "21", a, b[0]
        yield "12", a[0], b
        yield "11", a[0], b[0]
        yield "21", a, b[0, :1]  # one element stretched across every row
        yield "22", a, b[:, :1]  # a column stretched across
        yield "22", a[:1], b  # a row stretched down


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_values_bit_for_bit(mmod, shape):
    mod, _ = mmod
    a_arr, b_arr = operands(shape, 7)
    for la, a in layouts(a_arr):
        for lb, b in layouts(b_arr):
            for form, x, y in forms(a, b):
                for name in NAMES[form]:
                    agree(mod, name, x, y, where=(la, lb, form))
                    if form == "22":
                        agree(mod, name, y, x, where=(lb, la, "22 swapped"))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threaded_sizes(mmod, threads):
    """From 32768 elements eager splits the loops between its threads: the
    chunks' ends are loop ends too, mid-row where rows do not divide them."""
    mod, _ = mmod
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for shape in [(333, 101), (128, 256), (1, 40000), (40000, 1), (257, 129), (200, 300)]:
            a_arr, b_arr = dense_specials(shape, shape[0])
            for la, a in layouts(a_arr):
                b = torch.from_numpy(b_arr)
                for name in ("mx_22", "mn_22"):
                    agree(mod, name, a, b, where=(threads, shape, la))
                    agree(mod, name, b, a, where=(threads, shape, la, "swapped"))
                    agree(mod, name, a, b.t().contiguous().t(), where=(threads, shape, la, "b column-major"))
                agree(mod, "mx_21", a, b[-1], where=(threads, shape, la, "row"))
                agree(mod, "mx_22", a, b[:, :1], where=(threads, shape, la, "column"))
    finally:
        torch.set_num_threads(before)


def test_shape_errors(mmod):
    mod, _ = mmod
    a, b = torch.zeros(3, 4), torch.zeros(2, 4)
    for name in ("mx_22", "mn_22"):
        with pytest.raises(RuntimeError):
            mod.__kiln_python__[name](a, b)
        with pytest.raises(RuntimeError, match="incompatible shapes"):
            getattr(mod, name)(a, b)
    with pytest.raises(RuntimeError, match="incompatible shapes"):
        mod.mx_21(a, torch.zeros(5))


def test_chains_and_head(mmod):
    mod, _ = mmod
    py = mod.__kiln_python__
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        g = torch.Generator().manual_seed(m * 100 + n)
        x, w, bias = torch.randn(m, k, generator=g), torch.randn(n, k, generator=g), torch.randn(n, generator=g)
        floor = torch.randn(n, generator=g)
        torch.testing.assert_close(mod.floor_head(x, w, bias, floor), py["floor_head"](x, w, bias, floor),
                                   rtol=1e-5, atol=1e-5, equal_nan=True)
    for shape in SHAPES:
        x_arr, lo_arr = operands(shape, 3)
        hi = torch.from_numpy(salted(shape, 11))
        for lx, x in layouts(x_arr):
            lo = torch.from_numpy(lo_arr)
            got, want = mod.clip_between(x, lo, hi), py["clip_between"](x, lo, hi)
            g, e = got.numpy(), want.numpy()
            both_nan = np.isnan(g) & np.isnan(e)  # NaN payloads through * and -: their own rules
            assert (both_nan | (bits(g) == bits(e))).all(), (shape, lx)


def test_one_call_each():
    body = emitted(HERE / "torch_programs" / "tp_minmax.py")
    for name, op in [("mx_22", "MAXIMUM"), ("mn_22", "MINIMUM"), ("mx_21", "MAXIMUM"), ("mn_12", "MINIMUM"),
                     ("mx_11", "MAXIMUM"), ("mn_11", "MINIMUM"), ("mx_method_max", "MAXIMUM"),
                     ("mn_method_min", "MINIMUM")]:
        assert body(name).count(f"kr->tensor_op(KR_OP_{op}, ") == 1, name


@pytest.mark.parametrize("name", ["n_reduce", "n_scalar", "n_out", "n_keyword", "n_transposed", "n_transposed_method",
                                  "n_transposed_first"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 4)])
def test_left_to_eager(mmod, name, shape):
    """Forms kiln leaves to eager, among them an operand written `b.T`
    (once claimed with b read untransposed: a wrong result for a square b,
    a shape error where eager's broadcast works)."""
    mod, _ = mmod
    py = mod.__kiln_python__
    a, b = torch.from_numpy(salted(shape, 1)), torch.from_numpy(salted(shape, 2))
    args = {"n_reduce": (a,), "n_scalar": (a,), "n_out": (a, b, torch.empty(*shape))}.get(name, (a, b))
    if name.startswith("n_transposed") and shape[0] != shape[1]:
        args = (a, b.t().contiguous())  # eager's shapes line up only transposed
    try:
        want = py[name](*[t.clone() for t in args])
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            getattr(mod, name)(*args)
        assert str(got.value) == str(e)
        return
    got = getattr(mod, name)(*args)
    if name == "n_reduce":
        same(got.values, want.values, name)
        assert torch.equal(got.indices, want.indices)
    else:
        same(got, want, name)
