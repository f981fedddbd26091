"""t.shape[k] and t.size(k), t a native tensor and k an int literal naming
one of its dims, len(t), t.ndim, t.dim() and t.numel() are read from kiln's tensor (an int64, no Python call, no
boxing); an index out of range, a variable index or the whole shape stay
Python's."""
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import HERE, build, emitted  # noqa: E402


@pytest.fixture(scope="module")
def smod(tmp_path_factory):
    return build("tp_shape", "torch_programs", tmp_path_factory)


def test_values_as_python(smod):
    mod, _ = smod
    py = mod.__kiln_python__
    torch.manual_seed(11)
    for m, n in [(1, 1), (3, 5), (0, 4), (4, 0), (17, 2)]:
        for x in (torch.randn(m, n), torch.randn(n, m).t(), torch.randn(m, 2 * n)[:, ::2]):
            assert mod.dims(x) == py["dims"](x)
            w = torch.randn(n, 3)
            assert mod.loop_rows(x, w) == py["loop_rows"](x, w)
            assert mod.of_result(x, w) == py["of_result"](x, w)
            assert mod.after_mutation(x.clone()) == py["after_mutation"](x.clone())
            assert mod.size_after_mutation(x.clone()) == py["size_after_mutation"](x.clone())
            assert mod.sizes(x) == py["sizes"](x)
            assert mod.batch_loop(x, w) == py["batch_loop"](x, w)
            assert mod.counts(x, torch.randn(m)) == py["counts"](x, torch.randn(m))
            assert mod.ndims(x, torch.randn(m)) == py["ndims"](x, torch.randn(m)) == 221
            if m and n:
                wb = torch.randn(n)
                # layer_norm's own bound (tests/test_layer_norm.py): with w == b an output near 0
                # cancels, and a row whose variance is near eps moves with its rounding
                torch.testing.assert_close(mod.norm_width(x, wb, wb), py["norm_width"](x, wb, wb), rtol=1e-5,
                                           atol=2e-5)
        v = torch.randn(m)
        assert mod.dim_1d(v) == py["dim_1d"](v)
        assert mod.size_1d(v) == py["size_1d"](v)
        assert mod.p_size_variable(torch.randn(m, n), -1) == n
        assert mod.p_size_whole(torch.randn(m, n)) == torch.Size([m, n])
        assert mod.length(torch.randn(m, n), torch.randn(n)) == py["length"](torch.randn(m, n), torch.randn(n))
        assert mod.p_variable(torch.randn(m, n), 1) == n
        assert mod.p_whole(torch.randn(m, n)) == torch.Size([m, n])
    with pytest.raises(IndexError):
        mod.p_out_of_range(torch.randn(3))
    with pytest.raises(IndexError):
        mod.p_variable(torch.randn(3, 4), 2)
    for name, k in [("p_size_out_of_range", ()), ("p_size_variable", (-3,))]:
        with pytest.raises(IndexError) as got:
            getattr(mod, name)(torch.randn(3, 4), *k)
        with pytest.raises(IndexError) as want:
            mod.__kiln_python__[name](torch.randn(3, 4), *k)
        assert str(got.value) == str(want.value)


def test_read_natively():
    body = emitted(HERE / "torch_programs" / "tp_shape.py")
    for name in ("dims", "dim_1d", "loop_rows", "of_result", "norm_width", "length", "sizes", "size_1d", "counts",
                 "batch_loop"):
        b = body(name)
        assert "->shape[" in b and "PyObject_GetAttr" not in b and "PyObject_GetItem" not in b, (name, b)
    assert body("dims").count("->shape[1]") == 2  # x.shape[-1] is dim 1
    for name in ("p_out_of_range", "p_variable", "p_whole", "p_size_out_of_range", "p_size_variable", "p_size_whole"):
        assert "->shape[" not in body(name), name
    assert "PyObject_VectorcallMethod" not in body("counts") and body("sizes").count("->shape[1]") == 3
    assert "PyObject_GetAttr" not in body("ndims")  # t.ndim: the rank the type proves
    assert "PyObject_VectorcallMethod" in body("after_mutation")  # x.t_() itself is Python's


def test_tensorflow(tmp_path_factory):
    tf = pytest.importorskip("tensorflow")
    mod, _ = build("tf_shape", "tf_programs", tmp_path_factory)
    py = mod.__kiln_python__
    for m, n in [(1, 1), (3, 5), (0, 4)]:
        x, w = tf.zeros((m, n)), tf.zeros((n, 7))
        assert mod.dims(x) == py["dims"](x)
        assert mod.of_result(x, w) == py["of_result"](x, w) == 7
        assert mod.dim_1d(tf.zeros((n,))) == n
        assert mod.length(x, tf.zeros((n,))) == py["length"](x, tf.zeros((n,))) == m * 100 + n
        assert mod.ndims(x, tf.zeros((n,))) == py["ndims"](x, tf.zeros((n,))) == 221
    b = emitted(HERE / "tf_programs" / "tf_shape.py")
    assert "PyObject_GetAttr" not in b("ndims")
    for name in ("dims", "length"):
        assert "->shape[" in b(name) and "PyObject_GetAttr" not in b(name) and "PyObject_Length" not in b(name)
