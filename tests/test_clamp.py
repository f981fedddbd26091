"""torch.clamp, torch.clip, clamp_min and clamp_max with scalar bounds on
kiln's kernels (tests/torch_programs/tp_clamp.py), against eager torch bit
for bit: eager computes min(hi, max(lo, x)) in x86's maxps / minps, so a NaN
element and -0.0 pass as themselves; a NaN bound makes every element
0x7fc00000; a finite float bound past float32's range raises eager's
RuntimeError; an int bound is cast to float32 (a bool is 0 or 1)."""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build, layouts, salted  # noqa: E402

SHAPES = [(1, 1), (3, 5), (4, 16), (2, 17), (5, 33), (16, 64), (7, 129), (0, 4), (4, 0)]
NAN = float("nan")
# (lo, hi): ordinary, zero-signed, crossed (lo > hi: hi everywhere), infinite, huge, subnormal
BOUNDS = [(0.0, 1.0), (-0.0, 0.0), (0.0, -0.0), (2.0, 1.0), (-float("inf"), float("inf")), (-3e38, 3e38),
          (1e-40, 2e-40), (-1.5, 0.25), (float("inf"), float("inf"))]


@pytest.fixture(scope="module")
def cmod(tmp_path_factory):
    return build("tp_clamp", "torch_programs", tmp_path_factory)


def test_sites_claimed(cmod):
    _, report = cmod
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        outcomes = [s["outcome"] for s in f["sites"] if s["target"] in
                    ("torch.clamp", "clamp", "clamp_min", "torch.clamp_min", "torch.clamp_max", "torch.clip", "clip",
                     "torch.nn.functional.hardtanh")]
        assert outcomes, f["name"]
        assert all(o == ("not-covered" if f["name"].startswith("n_") else "claimed") for o in outcomes), (f["name"], f["sites"])


def same(got, exp, where):
    g, e = got.numpy(), exp.numpy()
    assert g.shape == e.shape and (bits(g) == bits(e)).all(), (where, g, e)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_values_bit_for_bit(cmod, shape):
    mod, _ = cmod
    py = mod.__kiln_python__
    for layout, x in layouts(salted(shape, 7)):
        v = x[0] if shape[0] else x.reshape(-1)[:0]
        same(mod.clamp_lit(x), py["clamp_lit"](x), (layout, "clamp_lit"))
        same(mod.clip_fn(x), py["clip_fn"](x), (layout, "clip_fn"))
        for lo, hi in BOUNDS:
            for name, args in [("clamp_kw", (x, lo, hi)), ("clamp_pos", (x, lo, hi)), ("clamp_1d", (v, lo, hi)),
                               ("clamp_lo", (x, lo)), ("clamp_hi", (x, hi)), ("clamp_min_fn", (x, lo)),
                               ("clamp_max_fn", (x, hi)), ("clamp_chain", (x, hi))]:
                same(getattr(mod, name)(*args), py[name](*args), (layout, name, lo, hi))
        for i in (0, -3, 2, 2 ** 40 + 1, 2 ** 63 - 1, -2 ** 63):
            same(mod.clamp_min_m(v, i), py["clamp_min_m"](v, i), (layout, "clamp_min_m", i))
            same(mod.clip_m(x, i), py["clip_m"](x, i), (layout, "clip_m", i))
        for b in (True, False):
            same(mod.clamp_bool(x, b), py["clamp_bool"](x, b), (layout, "clamp_bool", b))


def test_nan_bound_fills_nan(cmod):
    """Any NaN bound: every element eager's quiet NaN, 0x7fc00000, before
    any conversion (so even beside a bound that would overflow)."""
    mod, _ = cmod
    py = mod.__kiln_python__
    x = torch.from_numpy(salted((5, 33), 3))
    nan_payload = np.array([0xFFC00123], dtype=np.uint32).view(np.float32)[0]
    for lo, hi in [(NAN, 1.0), (0.0, NAN), (NAN, NAN), (float(nan_payload), 1.0), (1e40, NAN), (NAN, -1e39)]:
        got = mod.clamp_kw(x, lo, hi)
        same(got, py["clamp_kw"](x, lo, hi), (lo, hi))
        assert (bits(got.numpy()) == 0x7FC00000).all()
    for name, args in [("clamp_lo", (x, NAN)), ("clamp_hi", (x, NAN)), ("clamp_max_fn", (x, NAN))]:
        same(getattr(mod, name)(*args), py[name](*args), name)


def test_overflowing_bound_raises_as_eager(cmod):
    mod, _ = cmod
    py = mod.__kiln_python__
    x = torch.ones(2, 3)
    for name, args in [("clamp_kw", (x, 1e40, 1.0)), ("clamp_kw", (x, 0.0, -3.4028236e38)), ("clamp_lo", (x, 1e39)),
                       ("clamp_hi", (x, -1e300)), ("clamp_pos", (x, 3.4028235677973366e38, 1.0))]:
        with pytest.raises(RuntimeError) as want:
            py[name](*args)
        with pytest.raises(RuntimeError) as got:
            getattr(mod, name)(*args)
        assert str(got.value) == str(want.value), (name, args)
    # float32's largest value and inf are fine
    same(mod.clamp_kw(x, -3.4028234663852886e38, float("inf")), py["clamp_kw"](x, -3.4028234663852886e38, float("inf")), "max")


def test_fused_head(cmod):
    mod, _ = cmod
    py = mod.__kiln_python__
    for m, k, n in [(1, 4, 3), (8, 64, 64), (3, 17, 70), (0, 5, 4)]:
        g = torch.Generator().manual_seed(m * 100 + n)
        x, w, b = torch.randn(m, k, generator=g) * 3, torch.randn(k, n, generator=g), torch.randn(n, generator=g)
        torch.testing.assert_close(mod.clamp_mlp(x, w, b), py["clamp_mlp"](x, w, b), rtol=1e-5, atol=1e-4)


CHAIN_BOUNDS = BOUNDS + [(NAN, 1.0), (0.0, NAN), (1e40, NAN), (NAN, 1e40), (1e40, 1.0), (0.0, -1e39)]


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (2, 17), (7, 129), (0, 4)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_chains(cmod, shape):
    """A clamp inside an elementwise chain is one or two steps of its one
    pass; with a NaN bound or one past float32's range the chain runs op by
    op, giving eager's NaNs and errors in eager's order (a NaN bound of a
    clamp before the other bound's overflow; of two clamp sites, the first
    one's first)."""
    mod, _ = cmod
    py = mod.__kiln_python__
    for layout, x in layouts(salted(shape, 11)):
        v = x[0] if shape[0] else x.reshape(-1)[:0]
        for lo, hi in CHAIN_BOUNDS:
            for name in ("chain_both", "chain_two_sites"):
                try:
                    want = py[name](x, lo, hi)
                except RuntimeError as e:
                    with pytest.raises(RuntimeError) as got:
                        getattr(mod, name)(x, lo, hi)
                    assert str(got.value) == str(e), (name, lo, hi)
                    continue
                same(getattr(mod, name)(x, lo, hi), want, (layout, name, lo, hi))
        for i in (0, -1, 3, 2 ** 62):
            same(mod.chain_min_only(v, i), py["chain_min_only"](v, i), (layout, "chain_min_only", i))


def test_chains_are_one_pass():
    from tests.test_elementwise import HERE, emitted
    body = emitted(HERE / "torch_programs" / "tp_clamp.py")
    for name, steps in [("chain_both", 5), ("chain_two_sites", 3), ("chain_min_only", 3), ("clamp_chain", 5),
                        ("hardtanh_chain", 4)]:
        b = body(name)
        assert b.count("kr->tensor_ewise(") == 1 and "kr->tensor_clamp(" not in b, name
        assert b.count("{KR_OP_") == steps, (name, b)
    # one clamp's two bounds are paired (swap 2, then 1); two clamp sites are not (0, then 1)
    assert re.search(r"\{KR_OP_CLAMP, \d+, 2, KR_EW_FLOAT\},\s*\{KR_OP_CLAMP, \d+, 1, KR_EW_FLOAT\}", body("chain_both"))
    assert re.search(r"\{KR_OP_CLAMP, \d+, 0, KR_EW_FLOAT\},\s*\{KR_OP_CLAMP, \d+, 1, KR_EW_FLOAT\}", body("chain_two_sites"))
    assert re.search(r"\{KR_OP_CLAMP_ORDERED, \d+, 3, KR_EW_FLOAT\},\s*\{KR_OP_CLAMP_ORDERED, \d+, 1, KR_EW_FLOAT\}",
                     body("hardtanh_chain"))
    assert body("clamp_kw").count("kr->tensor_clamp(") == 1  # a lone clamp: one call
    assert body("hardtanh_b").count("kr->tensor_clamp((KrTensor *)lv_0, 1, ") == 1  # ordered


def test_hardtanh_with_bounds(cmod):
    """F.hardtanh(x, min_val, max_val) is clamp after F.hardtanh's own check:
    min_val > max_val (as Python compares them) raises its ValueError first,
    alone or in a chain; a NaN bound passes that check and fills NaN."""
    mod, report = cmod
    py = mod.__kiln_python__
    rules = {s["rule"] for f in report["functions"] for s in f["sites"]}
    assert {"kiln-torch/function-hardtanh-bounds-f32-cpu-1d", "kiln-torch/function-hardtanh-bounds-f32-cpu-2d"} <= rules
    for shape in [(1, 1), (3, 5), (7, 129), (0, 4)]:
        for layout, x in layouts(salted(shape, 13)):
            v = x[0] if shape[0] else x.reshape(-1)[:0]
            for lo, hi in CHAIN_BOUNDS + [(1.0, 1.0), (2.0, -2.0), (0.5, 0)]:
                for name, args in [("hardtanh_b", (x, lo, hi)), ("hardtanh_chain", (x, lo, hi)),
                                   ("hardtanh_kw", (v, lo, int(hi) if hi == hi and abs(hi) < 1e18 else 3))]:
                    try:
                        want = py[name](*args)
                    except (ValueError, RuntimeError) as e:
                        with pytest.raises(type(e)) as got:
                            getattr(mod, name)(*args)
                        assert str(got.value) == str(e), (name, args[1:])
                        continue
                    same(getattr(mod, name)(*args), want, (layout, name, args[1:]))
    # int against float exactly, as Python: 2**53 + 1 > 2.0**53
    v = torch.ones(3)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        py["hardtanh_kw"](v, 2.0 ** 53 + 2, 2 ** 53 + 1)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        mod.hardtanh_kw(v, 2.0 ** 53 + 2, 2 ** 53 + 1)
    same(mod.hardtanh_kw(v, 2.0 ** 53, 2 ** 53 + 1), py["hardtanh_kw"](v, 2.0 ** 53, 2 ** 53 + 1), "int vs float")


@pytest.mark.parametrize("name", ["n_no_bounds", "n_none_bounds", "n_tensor_bound", "n_out", "n_twice"])
def test_left_to_eager(cmod, name):
    mod, _ = cmod
    py = mod.__kiln_python__
    x = torch.from_numpy(salted((3, 4), 1))
    args = {"n_tensor_bound": (x, torch.zeros(3, 4)), "n_out": (x, torch.empty(3, 4))}.get(name, (x,))
    try:
        want = py[name](*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            getattr(mod, name)(*args)
        assert str(got.value) == str(e)
        return
    out = getattr(mod, name)(*args)
    same(out, want, name)
    if name == "n_out":
        assert out is args[1]
