"""Trees of elementwise ops as one pass (tests/torch_programs/tp_trees.py).

`0.9 * m + 0.1 * x`, `(a - b) * (a - b)`: where both operands of + - * /
are more than a local or a literal, the operand Python evaluates second
joins the chain as a pushed subtree if its ops are cheap (fuse.c, the
runtime's KR_EW_PUSH / KR_EW_POP, kk_ewise's stack). A chain whose first
value the result stretches, with a costly op, is split in two at run time
(sgate). Each function must
give eager's result: NaNs where eager's are, eager's strides, and eager's
bits elsewhere for + - * / (activations within rounding); shape errors
name the op that fails first in Python's order; a call the chain cannot
move keeps its place. Run on the best ISA here, on AVX2, and on the
reference ISA (the blocked path, with a buffer per value set aside)."""
import json
import os
import pathlib
import subprocess
import traceback
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from tests.test_elementwise import bits, build, emitted, layouts, salted  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE / "torch_programs" / "tp_trees.py"
ARITH = {"mix", "square_diff", "arith_deep", "row_first", "column_pushed", "rows", "too_deep", "too_long",
         "spine_errors"}
SHAPES = [(1, 1), (1, 7), (3, 16), (5, 33), (16, 64), (7, 129), (64, 256), (0, 5), (4, 0)]


@pytest.fixture(scope="module")
def tmod(tmp_path_factory):
    return build("tp_trees", "torch_programs", tmp_path_factory)


def operands(name, m, n, seed):
    """Salted operands of each function at [m, n] (rows [n], columns [m, 1])."""
    rank1 = {"norm": (1, 2), "row_first": (0,), "rows": (0, 1), "sgate": (0,), "sgate1": (0,)}.get(name, ())
    column = {"column_pushed": (1,), "colnorm": (1, 2), "sgate_col": (0,)}.get(name, ())
    nargs = {"norm": 3, "colnorm": 3, "arith_deep": 4, "acts_deep": 4, "lstm_cell": 4, "too_deep": 6, "spine_errors": 3}.get(name, 2)
    out = []
    for i in range(nargs):
        shape = (n,) if i in rank1 else (m, 1) if i in column else (m, n)
        out.append(salted(shape, seed + i))
    return out


def same(got, want, exact, where):
    """NaN where eager's is NaN; elsewhere eager's bits (exact) or within
    rounding; eager's strides where both dims exceed 1."""
    assert got.shape == want.shape and got.dtype == want.dtype, where
    if got.dim() == 2 and min(got.shape) > 1:
        assert got.stride() == want.stride(), (where, got.stride(), want.stride())
    g, w = got.numpy(), want.numpy()
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all(), f"{where}: NaNs differ"
    if exact:
        bad = bits(g)[~nan] != bits(w)[~nan]
        assert not bad.any(), f"{where}: {int(bad.sum())} differ: {g[~nan][bad][:4]} vs {w[~nan][bad][:4]}"
    else:
        np.testing.assert_allclose(g[~nan], w[~nan], rtol=1e-5, atol=1e-6, err_msg=where)


def check_all(mod, shapes=SHAPES, layouts_of=layouts):
    py = mod.__kiln_python__
    checked = 0
    for name in ("norm", "gate", "mix", "square_diff", "arith_deep", "acts_deep", "lstm_cell", "row_first",
                 "column_pushed", "rows", "clamped", "forwarded", "too_deep", "too_long", "spine_errors", "softmax_first", "colnorm", "sgate", "sgate1",
                 "sgate_col"):
        for m, n in shapes:
            arrs = operands(name, m, n, seed=m * 31 + n)
            # every operand in each layout in turn, the others contiguous
            for k in range(len(arrs)):
                for lay, t in layouts_of(arrs[k]):
                    args = [torch.from_numpy(a.copy()) for a in arrs]
                    args[k] = t
                    want = py[name](*[a.clone() if a.is_contiguous() else a for a in args])
                    same(getattr(mod, name)(*args), want, name in ARITH, f"{name} {m}x{n} arg{k} {lay}")
                    checked += 1
    return checked


def test_trees_are_one_pass():
    """One kr->tensor_ewise per tree and no single-op call; pushes as deep as
    the tree. A second operand with a costly op (an exp, tanh, square root)
    is not pushed: fused, it would save nothing, and a stretched one would be
    computed once per element of the result."""
    body = emitted(SRC)
    for name, pushes in [("mix", 1), ("square_diff", 1), ("arith_deep", 3), ("acts_deep", 3), ("row_first", 1),
                         ("column_pushed", 1), ("rows", 1), ("clamped", 1), ("forwarded", 1), ("softmax_first", 1)]:
        c = body(name)
        assert c.count("kr->tensor_ewise(") == 1, name
        assert c.count("kr->tensor_op(") == (name == "softmax_first") and c.count("kr->tensor_scalar_op(") == 0, name
        assert c.count("KR_EW_PUSH") == pushes and c.count("KR_EW_POP") == pushes, name
    for name in ("norm", "colnorm", "gate", "lstm_cell"):
        assert "KR_EW_PUSH" not in body(name), name
    # five deep: the outer op and (a * 2) alone, the four-deep rest one pass
    assert body("too_deep").count("kr->tensor_ewise(") == 1
    assert body("too_deep").count("KR_EW_PUSH") == 4
    # the 18-step subtree is not cut in two: it runs as its own chains
    assert body("too_long").count("KR_EW_PUSH") == 0
    # a call in the second operand, or a maybe-unbound leaf: op by op
    for name in ("opaque_second", "maybe_unbound"):
        assert "KR_EW_PUSH" not in body(name), name


def test_trees_match_eager(tmod):
    mod, report = tmod
    for f in report["functions"]:
        if f["name"] != "bump":
            assert f["status"] == "native", (f["name"], f["reason"])
    assert check_all(mod) > 1000


def test_broadcast_both_ways(tmod):
    """The pushed subtree stretches the first value's rows, and the other way."""
    mod, _ = tmod
    py = mod.__kiln_python__
    r, x, col = torch.randn(7), torch.randn(5, 7), torch.randn(5, 1)
    same(mod.row_first(r, x), py["row_first"](r, x), True, "row first")
    same(mod.column_pushed(x, col), py["column_pushed"](x, col), True, "column pushed")
    same(mod.column_pushed(x.t().contiguous().t(), col), py["column_pushed"](x.t().contiguous().t(), col), True,
         "column pushed, x transposed")
    row = torch.randn(7).expand(5, 7)  # stride 0 down
    same(mod.mix(row, x), py["mix"](row, x), True, "expanded first")
    same(mod.mix(x, row), py["mix"](x, row), True, "expanded pushed")


def test_shape_errors_in_python_order(tmod):
    """The first op that fails in Python's order raises its own error, with
    its line, whether it is on the spine or in the pushed subtree."""
    mod, _ = tmod
    py = mod.__kiln_python__
    lines = SRC.read_text().splitlines()

    def line_of(text):
        return next(i for i, t in enumerate(lines, 1) if t.strip() == text)
    a, bad = torch.ones(3, 4), torch.ones(2, 4)
    with pytest.raises(RuntimeError):
        py["spine_errors"](a, a, bad)
    with pytest.raises(RuntimeError) as e:  # b - c, in the subtree
        mod.spine_errors(a, a, bad)
    assert f"kiln: sub: incompatible shapes [3, 4] and [2, 4] ({SRC}:{line_of('- c))')})" in str(e.value)
    with pytest.raises(RuntimeError) as e:  # the + of the two, after both ran
        mod.spine_errors(bad, a, a)
    assert f"kiln: add: incompatible shapes [2, 4] and [3, 4] ({SRC}:{line_of('+ (b')})" in str(e.value)
    with pytest.raises(RuntimeError, match=r"kiln: sub: incompatible shapes \[3, 4\] and \[3, 5\]"):
        mod.square_diff(torch.ones(3, 4), torch.ones(3, 5))
    # arith_deep, (a * 2 - b) * ((c + 1) / (d * 3 + (a - c * (b + 1)))): with d
    # wrong, d * 3 runs and the + fails; with c wrong, c + 1 runs, c * (b + 1) fails
    with pytest.raises(RuntimeError, match=r"kiln: add: incompatible shapes \[2, 4\] and \[3, 4\]"):
        mod.arith_deep(a, a, a, bad)
    with pytest.raises(RuntimeError, match=r"kiln: mul: incompatible shapes \[2, 4\] and \[3, 4\]"):
        mod.arith_deep(a, a, bad, a)


def test_calls_keep_their_place(tmod):
    """opaque_first's call changes y before tanh reads it, as in Python;
    opaque_second's call must come after tanh(x) and so is not moved."""
    mod, _ = tmod
    py = mod.__kiln_python__
    for name in ("opaque_first", "opaque_second"):
        x, y = torch.randn(4, 9), torch.randn(4, 9)
        x2, y2 = x.clone(), y.clone()
        got, want = getattr(mod, name)(x, y), py[name](x2, y2)
        same(got, want, False, name)
        assert torch.equal(x, x2) and torch.equal(y, y2), name


def test_maybe_unbound_leaf(tmod):
    mod, _ = tmod
    a = torch.randn(2, 3)
    with pytest.raises(UnboundLocalError):
        mod.maybe_unbound(a, a, False)
    # b * k raises before the + of mismatched shapes runs
    with pytest.raises(UnboundLocalError):
        mod.maybe_unbound(torch.ones(2, 3), torch.ones(4, 3), False)
    with pytest.raises(RuntimeError, match="incompatible shapes"):
        mod.maybe_unbound(torch.ones(2, 3), torch.ones(4, 3), True)
    same(mod.maybe_unbound(a, a, True), mod.__kiln_python__["maybe_unbound"](a, a, True), True, "bound")


@pytest.mark.parametrize("isa", ["avx2", "reference"])
def test_other_isas(tmod, isa, tmp_path):
    """The same checks with KILN_ISA lowered: AVX2's pass, and the reference
    ISA's blocked path (each step over blocks, a block per value set aside)."""
    mod, _ = tmod
    code = (
        "import sys, importlib.util, json\n"
        f"sys.path.insert(0, {str(HERE.parent)!r})\n"
        "import kiln\n"
        "from tests import test_ewise_trees as T\n"
        f"mod = kiln.build({str(SRC)!r}, out_dir={str(tmp_path)!r})\n"
        "print(json.dumps({'checked': T.check_all(mod, shapes=[(1, 7), (3, 16), (5, 33), (64, 256), (3, 1000)])}))\n")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, KILN_ISA=isa), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1])["checked"] > 300


def test_tensorflow_trees(tmp_path_factory):
    """The same stack programs on TensorFlow tensors (TF's NaN rules, its
    subnormals flushed), against eager TF."""
    tf = pytest.importorskip("tensorflow")
    mod, report = build("tf_trees", "tf_programs", tmp_path_factory)
    assert all(f["status"] == "native" for f in report["functions"])
    body = emitted(HERE / "tf_programs" / "tf_trees.py")
    py = mod.__kiln_python__
    for name, calls, pushes in [("norm", 1, 0), ("gate", 0, 0), ("mix", 1, 1), ("arith_deep", 1, 3)]:
        assert body(name).count("kr->tensor_ewise(") == calls and body(name).count("KR_EW_PUSH") == pushes, name
        for m, n in [(1, 1), (3, 16), (5, 33), (16, 64), (64, 256), (0, 4)]:
            arrs = operands(name, m, n, seed=n)
            args = [tf.constant(a) for a in arrs]
            got, want = getattr(mod, name)(*args).numpy(), py[name](*args).numpy()
            where = f"tf {name} {m}x{n}"
            assert got.shape == want.shape, where
            nan = np.isnan(want)
            assert (np.isnan(got) == nan).all(), where
            if name in ARITH:
                assert (bits(got)[~nan] == bits(want)[~nan]).all(), where
            else:
                np.testing.assert_allclose(got[~nan], want[~nan], rtol=1e-5, atol=1e-6, err_msg=where)
    # kiln's TF shape errors are RuntimeErrors naming both shapes and the line (test_tf_plugin)
    with pytest.raises(tf.errors.InvalidArgumentError):
        py["gate"](tf.ones((3, 4)), tf.ones((3, 5)))
    with pytest.raises(RuntimeError, match=r"kiln: mul: incompatible shapes \[3, 4\] and \[3, 5\] \(.*tf_trees.py:13\)"):
        mod.gate(tf.ones((3, 4)), tf.ones((3, 5)))


@pytest.mark.parametrize("name", ["forwarded_late", "forwarded_late_costly"])
def test_forwarding_keeps_the_first_error(tmod, name):
    """Regression: a local assigned from a tensor op was moved into the next
    statement wherever it was read there, so `t = b - c` /
    `return (a - d) * 2 + t * 3` ran a - d first and, with both shapes
    wrong, raised a - d's error (its line) instead of b - c's. Now a value
    moves only to a read that nothing else that could raise precedes."""
    mod, _ = tmod
    py = mod.__kiln_python__
    lines = SRC.read_text().splitlines()
    start = next(i for i, t in enumerate(lines, 1) if t.startswith(f"def {name}("))
    t_line = next(i for i, t in enumerate(lines, 1) if i > start and t.strip() == "t = b - c")
    ok, bad = torch.ones(3, 4), torch.ones(2, 4)
    with pytest.raises(RuntimeError):
        py[name](ok, ok, bad, bad)
    with pytest.raises(RuntimeError) as e:
        getattr(mod, name)(ok, ok, bad, bad)
    assert f"kiln: sub: incompatible shapes [3, 4] and [2, 4] ({SRC}:{t_line})" in str(e.value)
    args = [torch.randn(3, 4) for _ in range(4)]
    same(getattr(mod, name)(*args), py[name](*args), name == "forwarded_late", name)


MALFORMED = {
    # a clamp pair's first step not followed by its second (a push instead)
    "clamp_pair_then_push": ("{KR_OP_CLAMP, 9, 2, KR_EW_FLOAT}, {0, 0, 0, KR_EW_PUSH},"
                             " {KR_OP_MUL, 9, 0, KR_EW_INT}, {KR_OP_ADD, 9, 1, KR_EW_POP}",
                             "{NULL, lv_2, 0}, {(KrTensor *)lv_1, 0.0, 0}, {NULL, 0.0, 3}, {NULL, 0.0, 0}"),
    "pop_swap_out_of_range": ("{0, 0, 0, KR_EW_PUSH}, {KR_OP_ADD, 9, 3, KR_EW_POP}",
                              "{(KrTensor *)lv_1, 0.0, 0}, {NULL, 0.0, 0}"),
    "tensor_swap_out_of_range": ("{KR_OP_SUB, 9, 5, KR_EW_TENSOR}, {KR_OP_RELU, 9, 0, KR_EW_ACT}",
                                 "{(KrTensor *)lv_1, 0.0, 0}, {NULL, 0.0, 0}"),
    "push_never_popped": ("{KR_OP_RELU, 9, 0, KR_EW_ACT}, {0, 0, 0, KR_EW_PUSH}",
                          "{NULL, 0.0, 0}, {(KrTensor *)lv_1, 0.0, 0}"),
    "pop_of_nothing": ("{KR_OP_RELU, 9, 0, KR_EW_ACT}, {KR_OP_ADD, 9, 0, KR_EW_POP}",
                       "{NULL, 0.0, 0}, {NULL, 0.0, 0}"),
}


def test_malformed_programs_raise(tmp_path):
    """A program the compiler would never emit (a clamp pair cut by a push, a
    swap out of range, unpaired pushes and pops) is a SystemError, with no
    read outside the runtime's stacks and no reference lost: the generated C
    of a small function with its chain replaced by each one."""
    from kiln import _build
    src = tmp_path / "mal.py"
    src.write_text("import torch\nfrom kiln.torch import TensorF32Cpu2D\n\n\n"
                   "def f(a: TensorF32Cpu2D, b: TensorF32Cpu2D, lo: float) -> TensorF32Cpu2D:\n"
                   "    return torch.clamp(a, lo, 2.0) - (b * 3).relu()\n")
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(src)], capture_output=True, text=True,
                       check=True, timeout=120).stdout
    start = c.index("{ static const KrEwise kl_ew = {")
    end = c.index("kl_file); }", start) + len("kl_file); }")
    import sysconfig
    for i, (name, (steps, args)) in enumerate(MALFORMED.items()):
        n = steps.count("KR_EW_")
        block = (f"{{ static const KrEwise kl_ew = {{{n}, {{{steps}}}}};\n"
                 f"    const KrEwArg kl_ea[{n}] = {{{args}}};\n"
                 "    t3 = (PyObject *)kr->tensor_ewise(&kl_ew, (KrTensor *)lv_0, kl_ea, kl_file); }")
        mod_name = f"mal{i}"
        body = (c[:start] + block + c[end:]).replace("PyInit_mal", f"PyInit_{mod_name}").replace(
            '"mal"', f'"{mod_name}"')
        path = tmp_path / (mod_name + sysconfig.get_config_var("EXT_SUFFIX"))
        _build.compile_c(body, mod_name, path)
        m = _build.import_extension(mod_name, path)
        a, b = torch.ones(3, 4), torch.ones(3, 4)
        before = sys.getrefcount(a), sys.getrefcount(b)
        for lo in (0.5, float("nan")):
            with pytest.raises(SystemError, match="bad elementwise chain"):
                m.f(a, b, lo)
        assert (sys.getrefcount(a), sys.getrefcount(b)) == before, name


def _raising_line(fn, args):
    """The type of what fn(*args) raises and the line of its frame in tp_trees.py."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - any error: its type is compared
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(SRC)]
        return type(exc), frames[-1].lineno
    raise AssertionError(f"{fn} did not raise")


@pytest.mark.parametrize("name, args", [
    ("clamp_across", (torch.ones(3, 4), 1e39, 2.0)),  # lo past float32: clamp's RuntimeError
    ("clamp_across", (torch.ones(3, 4), 0.0, -1e39)),
    ("hardtanh_across", (torch.ones(3, 4), 2.0, 1.0)),  # min_val > max_val: its ValueError
    ("hardtanh_across", (torch.ones(3, 4), 1e39, 2e39)),
    ("gemm_across", (torch.ones(3, 4), torch.ones(5, 4), torch.ones(4))),  # the matmul's shapes
    ("gemm_across", (torch.ones(3, 4), torch.ones(4, 4), torch.ones(3))),  # the + b's shapes
])
def test_traceback_names_the_failing_ops_line(tmod, name, args):
    """Regression: a chain forwarded across statements (one tensor_ewise or
    tensor_fused call) raised with the traceback line of its last statement;
    Python's frame names the line of the op that raised (kr->fail_line)."""
    mod, _ = tmod
    want = _raising_line(mod.__kiln_python__[name], args)
    got = _raising_line(getattr(mod, name), args)
    assert got[1] == want[1], (name, got, want)
    assert got[0] is want[0] or issubclass(got[0], want[0]), (name, got, want)
