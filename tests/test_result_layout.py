"""Results in eager torch's memory order (tests/torch_programs/tp_layout.py).

Eager torch allocates an elementwise op's result in its operands' order
(TensorIterator): a transposed operand gives a column-major result. kiln's
results take the same layout, so their strides are eager's, and so is every
later choice eager makes by layout: F.gelu's erf form runs in oneDNN only for
a row-major contiguous tensor, where +inf gives a NaN instead of inf. Each
function runs on operands in five layouts (contiguous, transposed, strided,
transposed and strided, expanded) with infinities and NaNs among the values;
the result must have eager's strides (where both dims exceed 1: for a dim of
size 1, eager's stride is cosmetic and varies by op), eager's bits on every
non-finite element and eager's finite values within rounding."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build  # noqa: E402

SHAPES = [(3, 5), (5, 3), (4, 4), (2, 2), (1, 6), (6, 1), (16, 33)]
LAYOUTS = ["contiguous", "transposed", "strided", "transposed-strided", "expanded"]
ONE = ["relu", "sigmoid", "neg", "gelu", "scalar_left", "scalar_div", "clamp", "leaky", "hardtanh", "normalize",
       "relu_then_gelu", "gelu_of_kept"]
TWO = ["add", "gelu_after_swap", "gelu_after_add"]
ROW = ["mul_row", "gelu_after_row", "gelu_chain_of_row"]
WITH_BOUND = ["clamp_nan", "gelu_after_nan_clamp"]


@pytest.fixture(scope="module")
def tmod(tmp_path_factory):
    return build("tp_layout", "torch_programs", tmp_path_factory)


def values(shape, seed, nans=True):
    """Normal values with infinities and (nans) NaNs of both signs. A second
    operand has no NaN: where both operands are NaN, whose NaN eager's
    arithmetic gives depends on its loop (tests/test_elementwise.py)."""
    g = np.random.default_rng(seed)
    a = (g.standard_normal(shape) * 3).astype(np.float32)
    flat = a.reshape(-1)
    for i, v in enumerate([np.inf, -np.inf, np.nan, -np.nan, np.inf] if nans else [np.inf, -np.inf]):
        flat[(i * 7 + seed) % flat.size] = v
    return a


def laid_out(arr, layout):
    """arr's values as a torch tensor in the given layout."""
    m, n = arr.shape
    if layout == "contiguous":
        return torch.from_numpy(arr.copy())
    if layout == "transposed":
        return torch.from_numpy(arr.T.copy()).t()
    if layout == "strided":
        wide = torch.zeros(m, 2 * n + 1)
        wide[:, 1::2] = torch.from_numpy(arr)
        return wide[:, 1::2]
    if layout == "transposed-strided":
        wide = torch.zeros(n, 2 * m + 1)
        wide[:, 1::2] = torch.from_numpy(arr.T.copy())
        return wide[:, 1::2].t()
    # expanded: a row (or, for one row, a column) stretched, stride 0
    if m > 1:
        return torch.from_numpy(arr[:1].copy()).expand(m, n)
    return torch.from_numpy(arr[:, :1].copy()).expand(m, n)


def check(got, want, where):
    """normalize's NaN bits are its norm's (a reduction whose NaN order kiln
    does not follow: tests/test_normalize.py), so only NaN-ness there."""
    assert got.shape == want.shape, where
    m, n = got.shape if got.dim() == 2 else (1, got.shape[0])
    if m > 1 and n > 1:
        assert got.stride() == want.stride(), (where, got.stride(), want.stride())
    else:
        assert got.is_contiguous() == want.is_contiguous(), where
    g, w = got.numpy(), want.numpy()
    special = ~np.isfinite(w) | ~np.isfinite(g)
    if where[0] == "normalize":
        assert (np.isnan(g) == np.isnan(w)).all() and (g[np.isinf(w)] == w[np.isinf(w)]).all(), where
        special &= ~np.isnan(w)
    assert (bits(g[special]) == bits(w[special])).all(), (where, g[special], w[special])
    np.testing.assert_allclose(g[~special], w[~special], rtol=1e-5, atol=1e-5, err_msg=str(where))


def test_all_native(tmod):
    _, report = tmod
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        assert all(s["outcome"] == "claimed" for s in f["sites"] if s["target"].startswith("torch")), f["name"]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_one_operand(tmod, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    for seed in (1, 2):
        arr = values(shape, seed)
        for layout in LAYOUTS:
            x = laid_out(arr, layout)
            for name in ONE:
                check(getattr(mod, name)(x), py[name](x), (name, layout, seed))
            for lo in (0.5, float("nan")):
                for name in WITH_BOUND:
                    check(getattr(mod, name)(x, lo), py[name](x, lo), (name, layout, seed, lo))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_two_operands(tmod, shape):
    mod, _ = tmod
    py = mod.__kiln_python__
    a, b = values(shape, 3), values(shape, 4, nans=False)
    row = torch.from_numpy(values((1, shape[1]), 5, nans=False)[0])
    for lx in LAYOUTS:
        x = laid_out(a, lx)
        for name in ROW:
            check(getattr(mod, name)(row, x), py[name](row, x), (name, lx))
        for ly in LAYOUTS:
            y = laid_out(b, ly)
            for name in TWO:
                check(getattr(mod, name)(x, y), py[name](x, y), (name, lx, ly))


def test_result_feeds_the_next_call(tmod):
    """A kiln result handed to another compiled function is read in the
    layout eager would have given it: gelu(relu(x)) over two calls."""
    mod, _ = tmod
    arr = values((4, 6), 7)
    for layout in LAYOUTS:
        x = laid_out(arr, layout)
        y = mod.relu(x)
        want_y = torch.relu(x)
        check(y, want_y, ("relu", layout))
        check(mod.gelu(y), torch.nn.functional.gelu(want_y), ("gelu of relu", layout))


def test_column_major_gelu_keeps_inf(tmod):
    """The review's case: a chain from a column-major tensor; eager's
    intermediate is column-major, so gelu runs eager's own loop (inf stays
    inf), where a row-major intermediate would give oneDNN's NaN."""
    mod, _ = tmod
    x = torch.tensor([[float("inf"), 1.0, 2.0], [-1.0, float("-inf"), 3.0]]).t().contiguous().t()
    got = mod.relu_then_gelu(x)
    assert got.stride() == (1, 2)
    assert got[0, 0].item() == float("inf")
    assert bits(got.numpy()).tolist() == bits(mod.__kiln_python__["relu_then_gelu"](x).numpy()).tolist()
