"""F.leaky_relu with a scalar slope on kiln's kernels
(tests/torch_programs/tp_leaky_relu.py), against eager torch bit for bit:
eager computes x > 0 ? x : x * slope, so a NaN element comes out quieted with
its payload (with a NaN slope too: which of the two NaNs eager keeps there
depends on the element's position) and -0.0 times the slope keeps its sign rules; the slope is
converted as eager converts a Scalar to float (an int or bool cast, a float
rounded, a finite float past float32's range eager's RuntimeError, a NaN
slope NaN for every element not above 0); absent, it is 0.01."""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import HERE, bits, build, emitted, layouts, salted  # noqa: E402

SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]
NAN = float("nan")
NAN_PAYLOAD = float(np.array([0xFFC00123], dtype=np.uint32).view(np.float32)[0])
SLOPES = [0.01, 0.2, -0.5, 0.0, -0.0, 1.0, 2.5, float("inf"), -float("inf"), NAN, NAN_PAYLOAD, 1e-40, 3.4e38,
          -3.4028234663852886e38, 0.1 + 2 ** -40]
INTS = [0, 1, -3, 7, 2 ** 24 + 1, 2 ** 40 + 1, 2 ** 63 - 1, -2 ** 63]
OVERFLOWING = [1e40, -1e39, 3.4028235677973366e38, -1e300]


@pytest.fixture(scope="module")
def lmod(tmp_path_factory):
    return build("tp_leaky_relu", "torch_programs", tmp_path_factory)


def same(got, exp, where, loose=None):
    """Bit for bit, but where loose (a NaN element meeting a NaN slope) both
    only have to be NaN: eager's own result there depends on the element's
    position (its unrolled vector loop multiplies in both operand orders,
    x86 keeping the first operand's NaN) and on the layout."""
    g, e = got.numpy(), exp.numpy()
    ok = bits(g) == bits(e)
    if loose is not None:
        ok |= np.broadcast_to(loose, g.shape) & np.isnan(g) & np.isnan(e)
    assert g.shape == e.shape and ok.all(), (where, g, e)


def agree(mod, name, *args, where=None):
    """The compiled function gives eager's result bit for bit, or raises its
    exception with its message."""
    py = mod.__kiln_python__
    x, s = args[0], args[1] if len(args) > 1 else None
    loose = np.isnan(x.numpy()) if isinstance(s, float) and s != s else None
    try:
        want = py[name](*args)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            getattr(mod, name)(*args)
        assert str(got.value) == str(e), (name, where)
        return
    same(getattr(mod, name)(*args), want, (name, where), loose)


def test_sites_claimed(lmod):
    _, report = lmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] == "torch.nn.functional.leaky_relu"]
        assert sites, f["name"]
        want = "not-covered" if f["name"].startswith("n_") else "claimed"
        assert all(s["outcome"] == want for s in sites), (f["name"], f["sites"])
        rules |= {s["rule"] for s in sites if s["outcome"] == "claimed"}
    assert rules == {"kiln-torch/function-leaky-relu-f32-cpu-1d", "kiln-torch/function-leaky-relu-f32-cpu-2d"}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_values_bit_for_bit(lmod, shape):
    mod, _ = lmod
    for layout, x in layouts(salted(shape, 5)):
        v = x[0] if shape[0] else x.reshape(-1)[:0]
        for name in ("lr_default", "lr_lit"):
            agree(mod, name, x, where=layout)
        agree(mod, "lr_inplace_kw", v, where=layout)
        agree(mod, "lr_chain_default", v, where=layout)
        for s in SLOPES + OVERFLOWING:
            for name, args in [("lr_pos", (x, s)), ("lr_kw_1d", (v, s)), ("lr_chain", (x, s)),
                               ("lr_chain_two", (x, s))]:
                agree(mod, name, *args, where=(layout, s))
        for i in INTS:
            agree(mod, "lr_int", x, i, where=(layout, i))
            agree(mod, "lr_across", x, x, i, where=(layout, i))
        for b in (True, False):
            agree(mod, "lr_bool", x, b, where=(layout, b))


def test_slope_conversion_edges(lmod):
    """The slope as eager rounds it: a float between two float32s, an int
    past 2**24, NaN, and overflow's message, alone and in chains."""
    mod, _ = lmod
    x = torch.tensor([[-1.0, -3.0, 0.0, -0.0, 2.0, NAN, -float("inf"), float("inf"), -1e-40]])
    for s in [0.1 + 2 ** -40, 1 / 3, NAN, -float("inf"), 1e-45, -1e-46]:
        for name in ("lr_pos", "lr_chain", "lr_chain_two"):
            agree(mod, name, x, s, where=s)
    for s in OVERFLOWING:
        with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
            mod.lr_pos(x, s)
        with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
            mod.lr_chain(x, s)
    for i in (2 ** 24 + 1, -(2 ** 53) - 1):
        agree(mod, "lr_int", x, i, where=i)
    # a NaN slope: NaN wherever x is not above 0 (eager's x * NaN)
    got = mod.lr_pos(x, NAN).numpy()[0]
    assert np.isnan(got[[0, 1, 2, 3, 5, 6, 8]]).all() and got[4] == 2.0 and got[7] == float("inf")


def test_fused_head(lmod):
    mod, _ = lmod
    py = mod.__kiln_python__
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        g = torch.Generator().manual_seed(m * 100 + n)
        x, w, b = torch.randn(m, k, generator=g) * 3, torch.randn(k, n, generator=g), torch.randn(n, generator=g)
        torch.testing.assert_close(mod.lr_mlp(x, w, b), py["lr_mlp"](x, w, b), rtol=1e-5, atol=1e-4)


def test_chains_are_one_pass():
    body = emitted(HERE / "torch_programs" / "tp_leaky_relu.py")
    for name, steps in [("lr_chain", 4), ("lr_chain_default", 3), ("lr_chain_two", 4), ("lr_across", 4)]:
        b = body(name)
        assert b.count("kr->tensor_ewise(") == 1 and "KR_OP_LEAKY_RELU, (KrTensor" not in b, name
        assert b.count("{KR_OP_") == steps, (name, b)
        assert re.search(r"\{KR_OP_LEAKY_RELU, \d+, 0, KR_EW_(FLOAT|INT|ACT)\}", b), name
    assert re.search(r"\{KR_OP_LEAKY_RELU, \d+, 0, KR_EW_ACT\}", body("lr_chain_default"))  # the default slope
    assert body("lr_default").count("kr->tensor_scalar_op(KR_OP_LEAKY_RELU, (KrTensor *)lv_0, 0.0, 0, -1, 0,") == 1
    assert "kr->tensor_scalar_op(KR_OP_LEAKY_RELU" in body("lr_mlp")


@pytest.mark.parametrize("name", ["n_inplace", "n_none", "n_tensor_slope", "n_twice", "n_inplace_dynamic"])
def test_left_to_eager(lmod, name):
    mod, _ = lmod
    py = mod.__kiln_python__
    x = torch.from_numpy(salted((3, 4), 1))
    extra = {"n_tensor_slope": (torch.zeros(3, 4),), "n_inplace_dynamic": (True,)}.get(name, ())
    x_eager, x_kiln = x.clone(), x.clone()
    try:
        want = py[name](x_eager, *extra)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            getattr(mod, name)(x_kiln, *extra)
        assert str(got.value) == str(e)
        return
    same(getattr(mod, name)(x_kiln, *extra), want, name)
    same(x_kiln, x_eager, name)  # inplace=True mutates the argument, as eager's does
