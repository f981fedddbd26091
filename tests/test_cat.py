"""torch.cat / tf.concat and torch.stack / tf.stack of tensors written out in the call
(tests/torch_programs/tp_cat.py, tests/tf_programs/tf_cat.py) against eager.
A join copies: every element must come out bit for bit (NaN payloads, -0.0,
subnormals), whatever the operands' layouts, in eager's row-major result,
with eager's error type where shapes disagree and eager itself where kiln
leaves a form to it."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build, layouts, salted  # noqa: E402
from tests.test_minmax import same  # noqa: E402

# (rows of a, rows of b, columns): dim 0 joins rows; dim 1 joins (cols of a, cols of b) at equal rows
PAIRS = [(1, 1, 1), (2, 3, 4), (3, 1, 7), (0, 2, 5), (2, 0, 5), (4, 4, 0), (5, 9, 33), (17, 3, 16), (1, 64, 129)]


@pytest.fixture(scope="module")
def cmod(tmp_path_factory):
    return build("tp_cat", "torch_programs", tmp_path_factory)


def eager(mod, name):
    return mod.__kiln_python__[name]


def agree(mod, name, *args, where=None):
    same(getattr(mod, name)(*args), eager(mod, name)(*args), (name, where))


def test_torch_sites(cmod):
    _, report = cmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] in ("torch.cat", "torch.concat", "torch.concatenate",
                                                           "torch.stack")]
        assert sites, f["name"]
        if f["name"] == "n_list_variable":
            assert [s["outcome"] for s in sites] == ["not-covered"]
        elif f["name"].startswith("n_"):
            assert [(s["outcome"], s["code"]) for s in sites] == [("rejected", "KILN-TORCH-007")], f["sites"]
        else:
            assert all(s["outcome"] == "claimed" for s in sites), (f["name"], sites)
            rules |= {s["rule"] for s in sites}
    assert rules == {"kiln-torch/cat-f32-cpu-1d", "kiln-torch/cat-f32-cpu-2d", "kiln-torch/stack-f32-cpu-1d"}
    # what follows a join stays native: the chain after it and the GEMM it feeds
    fns = {f["name"]: f for f in report["functions"]}
    for name in ("c_then_ops", "head", "layers"):
        assert all(s["outcome"] in ("claimed", "scalar") for s in fns[name]["sites"]), fns[name]["sites"]


@pytest.mark.parametrize("pair", PAIRS, ids=["x".join(map(str, p)) for p in PAIRS])
def test_torch_every_layout(cmod, pair):
    mod, _ = cmod
    ra, rb, n = pair
    a0, b0 = salted((ra, n), ra + 7 * n), salted((rb, n), rb + 11 * n + 1)
    for la, a in layouts(a0):
        for lb, b in layouts(b0):
            agree(mod, "c_dim0", a, b, where=(la, lb))
            agree(mod, "c_neg2", a, b, where=(la, lb))
            # dim 1: the same arrays turned on their side, rows equal
            agree(mod, "c_dim1", a.T, b.T, where=(la, lb))
            agree(mod, "c_neg1", a.T, b.T, where=(la, lb))
            agree(mod, "c_concatenate3", a, b, a, where=(la, lb))
            agree(mod, "c_concat3", a.T, b.T, b.T, where=(la, lb))


@pytest.mark.parametrize("n", [0, 1, 3, 16, 17, 1000])
def test_torch_vectors(cmod, n):
    mod, _ = cmod
    a0, b0 = salted((n,), n), salted((n + 2,), n + 1)
    for la, a in layouts(a0):
        for lb, b in layouts(b0):
            agree(mod, "v_cat", a, b, where=(la, lb))
            agree(mod, "v_cat3", b, a, b, where=(la, lb))
    agree(mod, "v_cat", torch.zeros(0), torch.zeros(0))


@pytest.mark.parametrize("n", [0, 1, 3, 16, 17, 1000])
def test_torch_stack(cmod, n):
    mod, _ = cmod
    a0, b0, c0 = salted((n,), n + 3), salted((n,), n + 4), salted((n,), n + 5)
    for la, a in layouts(a0):
        for lb, b in layouts(b0):
            agree(mod, "s_rows", a, b, where=(la, lb))
            agree(mod, "s_cols", a, b, torch.from_numpy(c0), where=(la, lb))
            agree(mod, "s_neg", a, b, where=(la, lb))
    if n:
        a = torch.from_numpy(salted((n,), 9)).clamp(-50.0, 50.0)  # softmax: rounding, not bits
        torch.testing.assert_close(mod.s_neg2(a), eager(mod, "s_neg2")(a), rtol=2e-6, atol=1e-7, equal_nan=True)


def test_torch_stack_errors_and_eager_forms(cmod):
    mod, _ = cmod
    with pytest.raises(RuntimeError):
        eager(mod, "s_cols")(torch.ones(3), torch.ones(3), torch.ones(4))
    with pytest.raises(RuntimeError, match=r"kiln: stack: sizes must match, but tensor 0 is \[3\] and tensor 2 is "
                                           r"\[4\] \(.*tp_cat.py:\d+\)"):
        mod.s_cols(torch.ones(3), torch.ones(3), torch.ones(4))
    a = torch.from_numpy(salted((3, 4), 1))
    got = mod.n_stack_matrices(a)  # a rank-3 result: eager's own stack
    assert got.shape == (2, 3, 4)
    assert (bits(got.numpy()) == bits(eager(mod, "n_stack_matrices")(a).numpy())).all()
    with pytest.raises(IndexError):
        eager(mod, "n_stack_dim_out_of_range")(torch.ones(3))
    with pytest.raises(IndexError):
        mod.n_stack_dim_out_of_range(torch.ones(3))


def test_torch_single_is_a_fresh_copy(cmod):
    mod, _ = cmod
    a = torch.from_numpy(salted((3, 5), 2))
    for _, x in layouts(a.numpy()):
        r = mod.c_single(x)
        same(r, eager(mod, "c_single")(x), "c_single")
        assert r.data_ptr() != x.data_ptr()
        before = bits(x.contiguous().numpy()).copy()
        r.fill_(7.0)
        assert (bits(x.contiguous().numpy()) == before).all()


def test_torch_sixteen_and_large(cmod):
    mod, _ = cmod
    for shape in [(1, 1), (3, 2), (64, 33)]:
        a, b = torch.from_numpy(salted(shape, 5)), torch.from_numpy(salted(shape, 6))
        agree(mod, "c_sixteen", a, b)
    a, b = torch.from_numpy(salted((700, 900), 8)), torch.from_numpy(salted((700, 300), 9))
    agree(mod, "c_dim1", a, b)
    agree(mod, "c_dim0", a.T, b.T)


def test_torch_results_stay_apart(cmod):
    """Each call's result is its own: kiln's small-result reuse never hands
    out a tensor the caller still holds."""
    mod, _ = cmod
    args = [(torch.randn(2, 3), torch.randn(2, 4)) for _ in range(6)]
    kept = [mod.c_dim1(a, b) for a, b in args]
    for (a, b), r in zip(args, kept):
        assert torch.equal(r, torch.cat([a, b], 1))


def test_torch_elements_and_chains(cmod):
    mod, _ = cmod
    for shape in [(1, 1), (3, 5), (4, 16), (7, 33), (0, 3)]:
        a, b = torch.from_numpy(salted(shape, 3)), torch.from_numpy(salted(shape, 4))
        agree(mod, "c_exprs", a, b)
        agree(mod, "c_then_ops", a, b)
        agree(mod, "c_order", a, b)


def test_torch_shape_errors(cmod):
    mod, _ = cmod
    cases = [("c_dim1", (torch.ones(3, 2), torch.ones(4, 2)), 1), ("c_dim0", (torch.ones(3, 2), torch.ones(3, 4)), 0),
             ("c_concat3", (torch.ones(2, 2), torch.ones(2, 1), torch.ones(3, 1)), 1),
             ("c_sixteen", (torch.ones(2, 2), torch.ones(1, 2)), 1)]
    for name, args, dim in cases:
        with pytest.raises(RuntimeError):
            eager(mod, name)(*args)
        with pytest.raises(RuntimeError, match=rf"kiln: cat: sizes must match except in dim {dim}, but tensor 0 is "
                                               rf"\[{args[0].shape[0]}, {args[0].shape[1]}\] and tensor \d+ is "
                                               rf"\[\d+, \d+\] \(.*tp_cat.py:\d+\)"):
            getattr(mod, name)(*args)
    # the first element's own error comes first, as in eager (a + b before the join)
    a, b = torch.ones(2, 3), torch.ones(3, 3)
    with pytest.raises(RuntimeError):
        eager(mod, "c_order")(a, b)
    with pytest.raises(RuntimeError, match=r"kiln: add: incompatible shapes \[2, 3\] and \[3, 3\]"):
        mod.c_order(a, b)


def test_torch_joined_size_past_int64(cmod):
    """Review finding: the sum of the joined sizes overflowed (a MemoryError);
    eager raises RuntimeError (a negative dimension)."""
    mod, _ = cmod
    big = torch.zeros(1).expand(2 ** 62)
    with pytest.raises(RuntimeError):
        eager(mod, "v_cat")(big, big)
    with pytest.raises(RuntimeError, match=r"kiln: cat: the joined size does not fit in int64 \(.*tp_cat.py:\d+\)"):
        mod.v_cat(big, big)
    tall = torch.zeros(1, 1).expand(2 ** 62, 1)
    with pytest.raises(RuntimeError, match=r"kiln: cat: the joined size does not fit in int64"):
        mod.c_dim0(tall, tall)


def test_torch_empty_results_have_eager_strides(cmod):
    """Review finding: a [N, 0] result of kiln's had strides (0, 1), eager's
    (1, 1) (every op's, through kr_tensor_new)."""
    mod, _ = cmod
    for a, b in [(torch.empty(3, 0), torch.empty(3, 0)), (torch.empty(0, 0), torch.empty(0, 0)),
                 (torch.empty(0, 4), torch.empty(0, 4))]:
        for name in ("c_dim1", "c_dim0", "c_exprs", "c_then_ops", "c_single"):
            args = (a,) if name == "c_single" else (a, b)
            got, want = getattr(mod, name)(*args), eager(mod, name)(*args)
            assert (got.shape, got.stride()) == (want.shape, want.stride()), (name, a.shape)


def test_torch_gemm_after_join(cmod):
    mod, _ = cmod
    g = torch.Generator().manual_seed(1)
    for m, ku, kv, n in [(1, 3, 5, 4), (4, 16, 16, 8), (9, 7, 33, 17)]:
        u, v = torch.randn(m, ku, generator=g), torch.randn(m, kv, generator=g)
        w, bias = torch.randn(n, ku + kv, generator=g), torch.randn(n, generator=g)
        torch.testing.assert_close(mod.head(u, v, w, bias), eager(mod, "head")(u, v, w, bias), rtol=1e-5, atol=1e-6)
    x, w = torch.randn(5, 8, generator=g), torch.randn(16, 8, generator=g) * 0.3
    for n in (0, 1, 4):
        torch.testing.assert_close(mod.layers(x, w, n), eager(mod, "layers")(x, w, n), rtol=1e-5, atol=1e-5)


def test_torch_forms_left_to_eager(cmod):
    mod, _ = cmod
    a = torch.from_numpy(salted((3, 4), 1))
    for d in (0, 1, -1, -2):
        agree(mod, "n_dim_variable", a, d)
    for fn, args in [("n_dim_variable", (a, 2)), ("n_dim_out_of_range", (a,)), ("n_mixed_ranks", (a, torch.ones(3)))]:
        try:
            eager(mod, fn)(*args)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e), match=None) as got:
                getattr(mod, fn)(*args)
            assert str(got.value) == str(e)
        else:
            raise AssertionError(f"eager accepted {fn}")
    # eager's legacy rule: a 1-D empty tensor is skipped beside any rank
    agree(mod, "n_mixed_ranks", a, torch.zeros(0))
    agree(mod, "n_seventeen", torch.from_numpy(salted((5,), 2)))
    agree(mod, "n_list_variable", a)
    agree(mod, "n_keyword", a)
    o = torch.empty(6, 4)
    r = mod.n_out(a, o)
    assert r is o
    same(o, torch.cat([a, a], 0), "n_out")


# ---------------------------------------------------------------- TensorFlow


@pytest.fixture(scope="module")
def tfmod(tmp_path_factory):
    pytest.importorskip("tensorflow")
    return build("tf_cat", "tf_programs", tmp_path_factory)


def tf_agree(mod, name, *args, where=None):
    got, want = getattr(mod, name)(*args), eager(mod, name)(*args)
    g, w = np.asarray(got), np.asarray(want)
    assert type(got) is type(want), (name, type(got))
    assert g.shape == w.shape, (name, where, g.shape, w.shape)
    bad = bits(g) != bits(w)
    assert not bad.any(), (name, where, int(bad.sum()))


def test_tf_sites(tfmod):
    _, report = tfmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] in ("tensorflow.concat", "tensorflow.stack")]
        assert sites, f["name"]
        if f["name"].startswith("n_"):
            assert [(s["outcome"], s["code"]) for s in sites] == [("rejected", "KILN-TF-007")], f["sites"]
        else:
            assert all(s["outcome"] == "claimed" for s in sites), (f["name"], sites)
            rules |= {s["rule"] for s in sites}
    assert rules == {"kiln-tensorflow/concat-f32-cpu-1d", "kiln-tensorflow/concat-f32-cpu-2d",
                     "kiln-tensorflow/stack-f32-cpu-1d"}


@pytest.mark.parametrize("pair", PAIRS, ids=["x".join(map(str, p)) for p in PAIRS])
def test_tf_bit_for_bit(tfmod, pair):
    """Subnormals too: eager's concat copies them (no flush)."""
    import tensorflow as tf
    mod, _ = tfmod
    ra, rb, n = pair
    a0, b0 = salted((ra, n), ra + 3 * n), salted((rb, n), rb + 5 * n + 2)
    a, b = tf.constant(a0), tf.constant(b0)
    at, bt = tf.constant(np.ascontiguousarray(a0.T)), tf.constant(np.ascontiguousarray(b0.T))
    tf_agree(mod, "c_axis0", a, b)
    tf_agree(mod, "c_neg2", a, b)
    tf_agree(mod, "c_axis1", at, bt)
    tf_agree(mod, "c_neg1", at, bt)
    tf_agree(mod, "c_three", at, bt, at)
    tf_agree(mod, "c_single", a)
    if ra == rb:
        tf_agree(mod, "c_exprs", a, b)
    for k in (ra, n):
        v, w = tf.constant(salted((k,), k)), tf.constant(salted((k + 1,), k + 1))
        tf_agree(mod, "v_concat", v, w)
        tf_agree(mod, "v_concat3", w, v, w)


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 1000])
def test_tf_stack(tfmod, n):
    import tensorflow as tf
    mod, _ = tfmod
    a, b, c = (tf.constant(salted((n,), n + k)) for k in (1, 2, 3))
    tf_agree(mod, "s_rows", a, b)
    tf_agree(mod, "s_cols", a, b, c)
    tf_agree(mod, "s_neg", a, b)
    with pytest.raises(tf.errors.InvalidArgumentError):
        eager(mod, "s_rows")(a, tf.ones([n + 1]))
    with pytest.raises(RuntimeError, match=rf"kiln: stack: sizes must match, but tensor 0 is \[{n}\] and tensor 1 "
                                           rf"is \[{n + 1}\]"):
        mod.s_rows(a, tf.ones([n + 1]))


def test_tf_errors_and_eager_forms(tfmod):
    import tensorflow as tf
    mod, _ = tfmod
    a, b = tf.ones([3, 2]), tf.ones([4, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        eager(mod, "c_axis1")(a, b)
    with pytest.raises(RuntimeError, match=r"kiln: concat: sizes must match except in dim 1, but tensor 0 is "
                                           r"\[3, 2\] and tensor 1 is \[4, 2\] \(.*tf_cat.py:\d+\)"):
        mod.c_axis1(a, b)
    x = tf.constant(salted((3, 4), 3))
    for d in (0, 1, -1):
        tf_agree(mod, "n_axis_variable", x, d)
    tf_agree(mod, "n_name", x)
    tf_agree(mod, "n_keyword", x)
    for fn, args in [("n_no_axis", (x,)), ("n_mixed_ranks", (x, tf.ones([4])))]:
        try:
            eager(mod, fn)(*args)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                getattr(mod, fn)(*args)
        else:
            raise AssertionError(f"eager accepted {fn}")


def test_tf_gemm_after_join(tfmod):
    import tensorflow as tf
    mod, _ = tfmod
    rng = np.random.default_rng(4)
    for m, ku, kv, n in [(1, 3, 5, 4), (4, 16, 16, 8), (9, 7, 33, 17)]:
        u, v = (tf.constant(rng.standard_normal((m, k)).astype(np.float32)) for k in (ku, kv))
        w = tf.constant(rng.standard_normal((ku + kv, n)).astype(np.float32))
        bias = tf.constant(rng.standard_normal(n).astype(np.float32))
        np.testing.assert_allclose(mod.head(u, v, w, bias), eager(mod, "head")(u, v, w, bias), rtol=1e-5, atol=1e-6)

