"""view / reshape / flatten / squeeze / unsqueeze (tests/torch_programs/tp_reshape.py)
and tf.reshape / tf.squeeze / tf.expand_dims (tests/tf_programs/tf_reshape.py)
against eager. A shape op copies x's elements into a new tensor (kiln's
tensors are values): every element bit for bit, eager's shape, eager's strides
(a copy where a dense tensor can have them; otherwise, where eager's view has
gaps or overlaps, eager's own view, sharing x's memory as eager's does),
eager's error type where eager refuses the sizes (a view also where x's
strides admit no view), and eager itself where kiln leaves a form to it.
Where kiln cannot follow eager (a squeezed dim not of size 1 keeps eager's
rank 2), it raises instead."""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build, layouts, salted  # noqa: E402

SHAPES = [(1, 1), (3, 4), (4, 3), (1, 7), (7, 1), (0, 5), (5, 0), (0, 0), (2, 64), (33, 17)]


@pytest.fixture(scope="module")
def rmod(tmp_path_factory):
    return build("tp_reshape", "torch_programs", tmp_path_factory)


def eager(mod, name):
    return mod.__kiln_python__[name]


def sizes_for(m, n):
    """Sizes to ask of an [m, n] tensor: valid ones, inferred ones and every
    kind eager refuses."""
    k = m * n
    return [(m, n), (n, m), (-1, n), (m, -1), (1, -1), (-1, 1), (k, 1), (1, k), (2, -1), (-1, 2), (-1, -1),
            (-2, k), (0, -1), (-1, 0), (k + 1, 1), (2 ** 62, 4), (2 ** 62, -1), (-1, 2 ** 62), (3, 5), (0, 0)]


def outcome(f, *args):
    try:
        return f(*args), None
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return None, e


def dense(t):
    """Row-major or column-major, each element once (a size-1 dim aside)."""
    st = [s for s, d in zip(t.stride(), t.shape) if d > 1]
    sh = [d for d in t.shape if d > 1]
    return t.numel() == 0 or st == [int(torch.tensor(sh[i + 1:]).prod()) for i in range(len(sh))] or \
        st == [int(torch.tensor(sh[:i]).prod()) for i in range(len(sh))]


def big_strides(t):
    return [s for s, d in zip(t.stride(), t.shape) if d > 1]


def alike(got, want, where):
    """kiln's result has eager's strides wherever a dim is longer than 1: a
    copy where a dense tensor can have them, else eager's own view."""
    assert big_strides(got) == big_strides(want), (where, got.stride(), want.stride())


def agree(mod, name, *args, where=None):
    """kiln's result is eager's bit for bit, or both raise the same type;
    with eager's strides (alike)."""
    want, werr = outcome(eager(mod, name), *args)
    got, gerr = outcome(getattr(mod, name), *args)
    if werr is not None:
        assert gerr is not None and type(gerr) is type(werr), (name, where, werr, gerr)
        assert "tp_reshape.py:" in str(gerr), gerr
        return None
    assert gerr is None, (name, where, gerr)
    assert got.shape == want.shape, (name, where, got.shape, want.shape)
    if want.numel() == 0:  # numpy refuses a [2**62, 0] array
        return got
    assert (bits(got.contiguous().numpy()) == bits(want.contiguous().numpy())).all(), (name, where)
    if want.numel():
        alike(got, want, (name, where))
    return got


def test_torch_sites(rmod):
    _, report = rmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] in ("view", "reshape", "flatten", "squeeze", "unsqueeze",
                                                           "torch.reshape", "torch.flatten", "torch.squeeze",
                                                           "torch.unsqueeze", "contiguous", "clone", "detach",
                                                           "float", "cpu")]
        assert sites, f["name"]
        if f["name"].startswith("n_"):
            assert [(s["outcome"], s["code"]) for s in sites] == [("rejected", "KILN-TORCH-008")], f["sites"]
        elif f["name"].startswith("t_"):  # of `w.T`: no kiln value, so not kiln's
            assert [s["outcome"] for s in sites] == ["not-covered"], f["sites"]
        else:
            assert all(s["outcome"] == "claimed" for s in sites), (f["name"], sites)
            rules |= {s["rule"] for s in sites}
            if f["name"] != "mutate_after":  # what follows a shape op stays native
                assert all(s["outcome"] in ("claimed", "scalar") for s in f["sites"]), (f["name"], f["sites"])
    assert rules == {f"kiln-torch/tensor-{op}-f32-cpu-{r}d" for op in ("view", "reshape") for r in (1, 2)} | {
        "kiln-torch/tensor-flatten-f32-cpu-2d", "kiln-torch/tensor-flatten-same-f32-cpu",
        "kiln-torch/tensor-squeeze-f32-cpu-2d", "kiln-torch/tensor-unsqueeze-f32-cpu-1d",
        "kiln-torch/tensor-contiguous-f32-cpu", "kiln-torch/tensor-clone-f32-cpu", "kiln-torch/tensor-detach-f32-cpu",
        "kiln-torch/tensor-same-f32-cpu"}


@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_torch_matrix_forms(rmod, shape):
    mod, _ = rmod
    m, n = shape
    x0 = salted(shape, m + 5 * n + 1)
    for lay, x in layouts(x0):
        for name in ("view_flat", "reshape_flat", "reshape_fn_flat", "flatten", "flatten_fn", "flatten_kw",
                     "reshape_exprs", "view_after_reshape", "view_after_view"):
            agree(mod, name, x, where=lay)
        agree(mod, "view_n", x, m * n, where=lay)
        agree(mod, "view_n", x, -1, where=lay)
        agree(mod, "view_n", x, m * n + 1, where=lay)
        for a, b in sizes_for(m, n):
            for name in ("view_2", "view_tuple", "reshape_2", "reshape_fn", "reshape_fn_kw"):
                agree(mod, name, x, a, b, where=(lay, a, b))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 1000])
def test_torch_vector_forms(rmod, n):
    mod, _ = rmod
    v0 = salted((n,), n + 3)
    for lay, v in layouts(v0):
        agree(mod, "view_flat_v", v, where=lay)
        for name in ("unsqueeze_0", "unsqueeze_1", "unsqueeze_neg", "unsqueeze_neg2"):
            agree(mod, name, v, where=lay)
        for a in (1, 2, n, -1, 0, n + 1, -3):
            agree(mod, "view_v2", v, a, where=(lay, a))
            agree(mod, "reshape_v2", v, a, where=(lay, a))


def test_torch_random_layouts(rmod):
    """Views and reshapes, and chains of them, of matrices with random
    strides: slices with steps, transposes, stretched (stride-0) dims and
    offsets, against eager's results, errors and layouts."""
    mod, _ = rmod
    rng = np.random.default_rng(21)
    for _ in range(300):
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        base = torch.from_numpy(salted((3 * m + 2, 3 * n + 2), int(rng.integers(1000))))
        r0, c0, rs, cs = (int(v) for v in (rng.integers(0, 2), rng.integers(0, 2), rng.integers(1, 3), rng.integers(1, 3)))
        x = base[r0:r0 + rs * m:rs, c0:c0 + cs * n:cs]
        kind = int(rng.integers(0, 4))
        if kind == 1:
            x = x.t()
        elif kind == 2:
            x = x[:1].expand(m, x.shape[1])
        elif kind == 3:
            x = x[:, :1].expand(x.shape[0], n)
        k = x.numel()
        for a, b in [(x.shape[0], x.shape[1]), (x.shape[1], x.shape[0]), (1, k), (k, 1), (-1, 1), (2, -1)]:
            for name in ("view_2", "reshape_2"):
                agree(mod, name, x, a, b, where=(tuple(x.shape), x.stride(), a, b))
        for name in ("view_flat", "reshape_flat", "flatten", "view_after_reshape", "view_after_view", "chain"):
            agree(mod, name, x, where=(tuple(x.shape), x.stride()))


def test_torch_view_refuses_strides_like_eager(rmod):
    """x.view(-1) of a transposed or column-sliced matrix: no view exists,
    eager raises and so does kiln; x.reshape copies in both."""
    mod, _ = rmod
    x = torch.from_numpy(salted((3, 4), 2))
    for bad in (x.T, x[:, ::3], x[:, 1:3]):
        with pytest.raises(RuntimeError):
            eager(mod, "view_flat")(bad)
        with pytest.raises(RuntimeError, match=r"kiln: view: view size is not compatible with input tensor's size "
                                               r"and stride .*\(.*tp_reshape.py:\d+\)"):
            mod.view_flat(bad)
        agree(mod, "reshape_flat", bad)
    # views that do exist over such strides: rows of a wider matrix, a strided vector
    agree(mod, "view_2", x[:, 1:3], 3, 2)  # eager refuses: rows are not adjacent
    agree(mod, "view_2", x[1:3], 4, 2)
    agree(mod, "view_v2", torch.arange(12.0)[::2], 2)
    agree(mod, "view_flat", x[:, ::2])  # rows 4 apart, columns 2: one stride of 2
    agree(mod, "view_2", x.T, 4, 3)  # same shape: a view exists


def test_torch_error_messages(rmod):
    mod, _ = rmod
    x = torch.ones(3, 4)
    cases = [((3, 5), r"shape '\[3, 5\]' is invalid for input of size 12"),
             ((-1, -1), r"only one dimension can be inferred"),
             ((-2, 6), r"invalid shape dimension -2 at index 0 of shape \[-2, 6\]"),
             ((2 ** 62, 4), r"shape '\[4611686018427387904, 4\]' is invalid for input of size 12")]
    for (a, b), msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            eager(mod, "reshape_2")(x, a, b)
        with pytest.raises(RuntimeError, match=r"kiln: reshape: " + msg + r" \(.*tp_reshape.py:\d+\)"):
            mod.reshape_2(x, a, b)
    with pytest.raises(RuntimeError, match=r"kiln: view: cannot reshape tensor of 0 elements into shape \[0, -1\] "
                                           r"because the unspecified dimension size -1 can be any value"):
        mod.view_2(torch.ones(0, 5), 0, -1)
    with pytest.raises(RuntimeError, match="ambiguous"):
        eager(mod, "view_2")(torch.ones(0, 5), 0, -1)


@pytest.mark.parametrize("shape", [(5, 1), (1, 5), (1, 1), (0, 1), (1, 0)])
def test_torch_squeeze(rmod, shape):
    mod, _ = rmod
    x0 = salted(shape, 7)
    for lay, x in layouts(x0):
        names = ("squeeze_1", "squeeze_neg1") if shape[1] == 1 else ()
        names += ("squeeze_0", "squeeze_kw") if shape[0] == 1 else ()
        for name in names:
            agree(mod, name, x, where=lay)


def test_torch_view_after_a_native_view(rmod):
    """Review of 2026-12-05: kiln's reshape of a transposed x was row-major,
    so a view of it succeeded where eager's (a view with x's strides) raises."""
    mod, _ = rmod
    x = torch.arange(6.0).reshape(3, 2).t()
    for name in ("view_after_reshape", "view_after_view"):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            eager(mod, name)(x)
        with pytest.raises(RuntimeError, match=r"kiln: view: view size is not compatible .*tp_reshape.py:\d+"):
            getattr(mod, name)(x)
        agree(mod, name, x.contiguous())
    r = mod.reshape_2(x, 3, 2)  # no view exists: a row-major copy, as eager's
    assert r.stride() == eager(mod, "reshape_2")(x, 3, 2).stride() == (2, 1)
    v = mod.view_2(x, 2, 3)
    assert v.stride() == eager(mod, "view_2")(x, 2, 3).stride() == (1, 2)  # eager's strides, over a copy
    assert v.data_ptr() != x.data_ptr()


def test_torch_shape_ops_of_a_transposed_operand_stay_eager(rmod):
    """Review of 2026-12-05: `torch.flatten(w.T)` was claimed as a flatten of
    w (offered again with w.T read as w, which only matmul may do) and the
    build failed; it is eager's."""
    mod, _ = rmod
    w = torch.from_numpy(salted((3, 4), 12))
    for name in ("t_flatten_T", "t_reshape_t"):
        got, want = getattr(mod, name)(w), eager(mod, name)(w)
        assert got.shape == want.shape and (bits(got.numpy()) == bits(want.numpy())).all()
    w1 = torch.from_numpy(salted((3, 1), 13))
    assert mod.t_squeeze_T(w1).shape == eager(mod, "t_squeeze_T")(w1).shape == (3,)


def test_torch_copies(rmod):
    """x.contiguous() is x when x is row-major (eager returns x), else a
    row-major copy; x.clone() keeps a dense x's strides; x.detach() has
    eager's strides (a copy, or of a strided x eager's own view); x.float() /
    x.cpu() are x."""
    mod, _ = rmod
    x0 = salted((5, 3), 31)
    for lay, x in layouts(x0):
        for name in ("contiguous", "clone", "detach", "same_float"):
            got = agree(mod, name, x, where=lay)
            want = eager(mod, name)(x)
            assert (got is x) == (want is x), (name, lay)
            if got is not x and (lay != "strided" or name != "detach"):
                assert got.data_ptr() != x.data_ptr()  # a copy (eager's detach of a strided x: its view)
        if lay != "strided":  # eager's clone / contiguous strides exactly
            assert mod.clone(x).stride() == eager(mod, "clone")(x).stride()
            assert mod.contiguous(x).stride() == eager(mod, "contiguous")(x).stride()
    v = torch.randn(4)
    assert mod.same_cpu(v) is v and eager(mod, "same_cpu")(v) is v
    for e in (torch.empty(3, 0), torch.empty(0, 4).t()):  # an empty tensor is contiguous: eager returns it
        assert mod.contiguous(e) is e and eager(mod, "contiguous")(e) is e
    b = torch.arange(100.0)
    for x in (torch.arange(24.0).reshape(4, 6).t()[::2], torch.as_strided(b, (3, 4), (1, 1)),
              torch.as_strided(b, (4, 3), (2, 2)), torch.as_strided(b, (3, 4), (0, 1)), torch.as_strided(b, (3, 4), (6, 2))):
        for name in ("clone", "clone_view", "clone_add", "detach"):
            agree(mod, name, x, where=(tuple(x.shape), x.stride()))
    for n in (0, 1, 7):
        x, w = torch.randn(n, 4), torch.randn(4, 6)
        torch.testing.assert_close(mod.noise(x, w), eager(mod, "noise")(x, w), rtol=1e-5, atol=1e-6)
    x = torch.randn(3, 4).t()
    for name in ("n_contiguous_format", "n_clone_format"):
        got, want = getattr(mod, name)(x), eager(mod, name)(x)
        assert got.stride() == want.stride() and torch.equal(got, want)


def test_torch_squeeze_of_a_longer_dim_raises(rmod):
    """Eager's x.squeeze(1) of a [4, 3] tensor is that tensor; kiln compiled
    a rank-1 result, so it raises (kiln rules says so) rather than go on."""
    mod, _ = rmod
    x = torch.ones(4, 3)
    assert eager(mod, "squeeze_1")(x).shape == (4, 3)
    with pytest.raises(RuntimeError, match=r"kiln-torch: squeeze\(1\) of a \[4, 3\] tensor: dim 1 is not of size 1, "
                                           r"so the result would keep rank 2 where kiln compiled a rank-1 tensor "
                                           r"\(.*tp_reshape.py:\d+\)"):
        mod.squeeze_1(x)
    with pytest.raises(RuntimeError, match=r"squeeze\(0\) of a \[4, 3\] tensor"):
        mod.squeeze_kw(x)


def test_torch_flatten_of_nothing_is_the_tensor(rmod):
    """Eager returns x itself from a flatten that merges no dims."""
    mod, _ = rmod
    v, x = torch.randn(5), torch.randn(3, 4)
    assert eager(mod, "flatten_same_v")(v) is v and mod.flatten_same_v(v) is v
    assert eager(mod, "flatten_same_2")(x) is x and mod.flatten_same_2(x) is x
    t = x.T
    assert mod.flatten_same_2(t) is t


def test_torch_results_are_new_tensors(rmod):
    """A shape op's result never shares x's memory (kiln's tensors are
    values; DESIGN.md: outputs are new tensors): changing it in place
    leaves x alone, where eager's view would change x too."""
    mod, _ = rmod
    x = torch.from_numpy(salted((3, 4), 4))
    for name in ("view_flat", "reshape_flat", "flatten"):
        r = getattr(mod, name)(x)
        assert r.data_ptr() != x.data_ptr()
    x = torch.randn(3, 4)
    before = x.clone()
    got = mod.mutate_after(x)
    assert torch.equal(got, before.view(4, 3) + 1.0)
    assert torch.equal(x, before)  # eager's view would have changed x
    y = before.clone()
    eager(mod, "mutate_after")(y)
    assert torch.equal(y, before + 1.0)


def test_torch_in_context(rmod):
    mod, _ = rmod
    g = torch.Generator().manual_seed(3)
    for batch in (1, 4, 16):
        x, w, b = torch.randn(batch, 8, generator=g), torch.randn(16, 8, generator=g), torch.randn(16, generator=g)
        w2, b2 = torch.randn(1, 16, generator=g), torch.randn(1, generator=g)
        got, want = mod.score_head(x, w, b, w2, b2), eager(mod, "score_head")(x, w, b, w2, b2)
        assert got.shape == want.shape == (batch,)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        v = torch.randn(8, generator=g)
        torch.testing.assert_close(mod.one_sample(v, w, b), eager(mod, "one_sample")(v, w, b), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="squeeze"):
        mod.score_head(x, w, b, torch.randn(2, 16), torch.randn(2))
    for shape in SHAPES:
        x = torch.from_numpy(salted(shape, 11))
        for lay, t in layouts(x.numpy()):
            agree(mod, "chain", t, where=lay)
            agree(mod, "in_loop", t, 3, where=lay)


def test_torch_error_order(rmod):
    """x.view(-1) is evaluated (and fails) before y.squeeze(1), as in eager."""
    mod, _ = rmod
    with pytest.raises(RuntimeError, match="view"):
        mod.order(torch.ones(3, 4).T, torch.ones(2, 3))
    with pytest.raises(RuntimeError, match="squeeze"):
        mod.order(torch.ones(3, 4), torch.ones(2, 3))
    with pytest.raises(RuntimeError, match="add: incompatible shapes"):
        mod.order(torch.ones(3, 4), torch.ones(2, 1))
    agree(mod, "order", torch.ones(3, 4), torch.ones(12, 1))


def test_torch_eager_forms(rmod):
    """The forms left to eager give eager's results and errors."""
    mod, _ = rmod
    x = torch.from_numpy(salted((3, 1), 5))
    for name, args in [("n_squeeze_all", (x,)), ("n_rank3", (x,)), ("n_dtype", (x,)), ("n_dim_var", (x, 1)),
                       ("n_unsqueeze_2d", (x,)), ("n_squeeze_1d", (x[:, 0].contiguous(),)),
                       ("n_shape_object", (x, (1, 3))), ("n_float_size", (x, 3.0)), ("n_flatten_backwards", (x,))]:
        want, werr = outcome(eager(mod, name), *args)
        got, gerr = outcome(getattr(mod, name), *args)
        if werr is not None:
            assert type(gerr) is type(werr) and str(gerr) == str(werr), (name, werr, gerr)
        else:
            assert gerr is None and got.shape == want.shape and got.dtype == want.dtype, (name, gerr)
            assert (got.contiguous().view(torch.int32) == want.contiguous().view(torch.int32)).all(), name


# --------------------------------------------------------------------------- TensorFlow


@pytest.fixture(scope="module")
def tfmod(tmp_path_factory):
    pytest.importorskip("tensorflow")
    return build("tf_reshape", "tf_programs", tmp_path_factory)


def tf_agree(mod, name, *args, where=None, raises=RuntimeError):
    """kiln's result is eager TF's bit for bit; where TF raises
    InvalidArgumentError, kiln raises `raises` (RuntimeError for shapes in an
    op, IndexError for an index) in TF's words, naming the .py line."""
    import tensorflow as tf
    want, werr = outcome(eager(mod, name), *args)
    got, gerr = outcome(getattr(mod, name), *args)
    if werr is not None:
        assert isinstance(werr, tf.errors.InvalidArgumentError), (name, where, werr)
        assert isinstance(gerr, raises) and re.search(r"\.py:\d+\)", str(gerr)), (name, where, gerr)
        first = re.sub(r"^.*\}\} ", "", str(werr)).split(" [Op:")[0]
        assert first in str(gerr), (name, where, first, gerr)
        return
    assert gerr is None, (name, where, gerr)
    assert isinstance(got, tf.Tensor) and tuple(got.shape) == tuple(want.shape), (name, where, got.shape, want.shape)
    if 0 not in tuple(want.shape):  # numpy refuses a [2**62, 0] array
        assert (bits(got.numpy()) == bits(want.numpy())).all(), (name, where)


def test_tf_sites(tfmod):
    _, report = tfmod
    rules = set()
    for f in report["functions"]:
        assert f["status"] == "native", (f["name"], f["reason"])
        sites = [s for s in f["sites"] if s["target"] in ("tensorflow.reshape", "tensorflow.squeeze",
                                                           "tensorflow.expand_dims")]
        assert sites, f["name"]
        if f["name"].startswith("n_"):
            assert [(s["outcome"], s["code"]) for s in sites] == [("rejected", "KILN-TF-008")], f["sites"]
        else:
            assert all(s["outcome"] in ("claimed", "scalar") for s in f["sites"]), (f["name"], f["sites"])
            rules |= {s["rule"] for s in sites}
    assert rules == {"kiln-tensorflow/reshape-f32-cpu-1d", "kiln-tensorflow/reshape-f32-cpu-2d",
                     "kiln-tensorflow/squeeze-f32-cpu-2d", "kiln-tensorflow/expand-dims-f32-cpu-1d"}


@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_tf_forms(tfmod, shape):
    import tensorflow as tf
    mod, _ = tfmod
    m, n = shape
    x = tf.constant(salted(shape, m + 3 * n))
    tf_agree(mod, "r_flat", x)
    for a, b in sizes_for(m, n):
        tf_agree(mod, "r_2", x, a, b, where=(a, b))
        tf_agree(mod, "r_kw", x, a, where=a)
    v = tf.constant(salted((m * n,), m))
    for a, b in sizes_for(m, n):
        tf_agree(mod, "r_v2", v, a, b, where=(a, b))
    for k in (m * n, -1, m * n + 1, -2):
        tf_agree(mod, "r_n", v, k, where=k)
    for name in ("ex_0", "ex_kw"):
        tf_agree(mod, name, v)
    for name in ("sq_1", "sq_kw"):  # TF raises where the dim is not of size 1: so does kiln
        tf_agree(mod, name, x)


def test_tf_in_context(tfmod):
    import tensorflow as tf
    mod, _ = tfmod
    rng = np.random.default_rng(5)
    for batch in (1, 4, 16):
        x, w = tf.constant(rng.standard_normal((batch, 8), dtype=np.float32)), tf.constant(
            rng.standard_normal((8, 16), dtype=np.float32))
        b, w2 = tf.constant(rng.standard_normal(16, dtype=np.float32)), tf.constant(
            rng.standard_normal((16, 1), dtype=np.float32))
        got, want = mod.head(x, w, b, w2), eager(mod, "head")(x, w, b, w2)
        assert tuple(got.shape) == tuple(want.shape) == (batch,)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
        v = tf.constant(rng.standard_normal(8, dtype=np.float32))
        np.testing.assert_allclose(mod.one_sample(v, w).numpy(), eager(mod, "one_sample")(v, w).numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_tf_eager_forms(tfmod):
    import tensorflow as tf
    mod, _ = tfmod
    x = tf.constant(salted((3, 1), 5))
    for name, args in [("n_squeeze_all", (x,)), ("n_axis_list", (x,)), ("n_rank3", (x,)),
                       ("n_shape_object", (x, [1, 3])), ("n_named", (x,))]:
        got, want = getattr(mod, name)(*args), eager(mod, name)(*args)
        assert tuple(got.shape) == tuple(want.shape) and (bits(got.numpy()) == bits(want.numpy())).all(), name
