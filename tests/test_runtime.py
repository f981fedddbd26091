"""Tests of the kiln runtime (kiln._runtime) through its C API table.

A hand-written extension (tests/runtime_testmod/testmod.c) imports the table
with kr_import() like a generated module, plays a compiled module (exec mode
and bind mode) and exposes thin wrappers over every KrApi entry; it is built
here with the interpreter's C compiler (sysconfig) and kiln's flags.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import math
import os
import shlex
import subprocess
import sys
import sysconfig
import textwrap
import threading
import traceback

import pytest

from oracle import EAGER_ACTIVATION_INACCURATE, check_activation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTMOD_C = os.path.join(ROOT, "tests", "runtime_testmod", "testmod.c")

KR_FW_TORCH, KR_FW_TF, KR_FW_TEST = 1, 2, 3
OP_MATMUL, OP_LINEAR, OP_ADD, OP_RELU, OP_SIGMOID, OP_TANH, OP_ROWSUM, OP_ROWMEAN = range(8)

I64_MIN, I64_MAX = -(2**63), 2**63 - 1

# Must match kt_source in testmod.c (written beside the module so that
# tracebacks can show source lines).
KT_SOURCE = '''"""kiln runtime test module."""
def f(a, b, c=3, *, k, m=5):
    "doc of f"
    return ('py', a, b, c, k, m)
def q(a, b, c, *, x, y, z):
    return ('py', a, b, c, x, y, z)
def one(a):
    return ('py', a)
def g(x):
    return x + 1
def h(a, b):
    return a // b
def kwo(*, k=1):
    return ('py', k)
'''


def _runtime_available() -> bool:
    try:
        import kiln._runtime  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _runtime_available(), reason="kiln._runtime is not built")


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory):
    import kiln

    d = tmp_path_factory.mktemp("kiln_testmod")
    src_py = d / "ktest_src.py"
    src_py.write_text(KT_SOURCE)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    out = d / f"kiln_testmod{suffix}"
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    cmd = cc + [
        "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
        "-I", sysconfig.get_paths()["include"], "-I", kiln.get_include(),
        f'-DKT_FILENAME="{src_py}"', "-DKT_MODNAME=kiln_testmod",
        TESTMOD_C, "-o", str(out),
    ]
    subprocess.run(cmd, check=True)
    return d


@pytest.fixture(scope="session")
def tm(build_dir):
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    path = build_dir / f"kiln_testmod{suffix}"
    spec = importlib.util.spec_from_file_location("kiln_testmod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_py(build_dir, code, mode=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(build_dir), ROOT])
    env.pop("KILN_MODE", None)
    if mode is not None:
        env["KILN_MODE"] = mode
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True)


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001
        return ("err", type(e), str(e))


def same_float(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b)


# ---------------------------------------------------------------------------
# module setup
# ---------------------------------------------------------------------------


def test_runtime_module():
    import kiln._runtime as rt

    assert rt.isa() in ("avx512", "avx2", "reference")
    paths = rt.boundary_paths()
    assert set(paths) == {"torch", "torch_direct", "torch_reuse", "torch_no_grad", "torch_inference_mode",
                          "tensorflow", "tf_checked"}
    assert type(rt._C_API).__name__ == "PyCapsule"
    assert 'kiln._runtime._C_API' in repr(rt._C_API)


def test_module_init_exec_mode(tm, build_dir):
    assert tm.__kiln_native__ is True
    assert type(tm.f).__name__ == "builtin_function_or_method"
    assert tm.f.__doc__ == "doc of f"
    assert tm.f.__name__ == "f"
    assert tm.f.__self__ is tm
    assert set(tm.__kiln_python__) == {"f", "q", "one", "g", "h", "kwo"}
    assert type(tm.__kiln_python__["f"]).__name__ == "function"
    # auto mode: "python"-status functions stay the original
    assert tm.g is tm.__kiln_python__["g"]
    assert tm.g(1) == 2
    g_exec, g_bind = tm.globals_()
    assert g_exec is tm.__dict__
    assert "__builtins__" in tm.__dict__
    a, b, x = tm.interned()
    assert (a, b, x) == ("alpha", "beta", "x")
    assert sys.intern("alpha") is a
    assert tm.f(1, 2, k=3) == ("native", 1, 2, 3, 3, 5)


def test_kiln_mode_python(build_dir):
    r = run_py(build_dir, """
        import kiln_testmod as m
        assert type(m.f).__name__ == 'function', m.f
        assert m.f(1, 2, k=3) == ('py', 1, 2, 3, 3, 5)
        assert m.__kiln_native__ is True
        print('OK')
    """, mode="python")
    assert r.stdout.strip() == "OK", r.stderr


def test_kiln_mode_native(build_dir):
    r = run_py(build_dir, """
        import kiln_testmod as m
        assert m.f(1, 2, k=3)[0] == 'native'
        try:
            m.g(1)
        except RuntimeError as e:
            print(e)
    """, mode="native")
    assert r.stdout.strip() == (
        "kiln: function 'g' was not compiled natively: uses an unsupported construct [KILN099] (KILN_MODE=native)"
    ), r.stderr


def test_kiln_mode_invalid(build_dir):
    r = run_py(build_dir, """
        try:
            import kiln_testmod
        except ValueError as e:
            print(e)
    """, mode="bogus")
    assert "KILN_MODE" in r.stdout and "'bogus'" in r.stdout, (r.stdout, r.stderr)


def test_bind_mode(tm):
    bm = tm.bound
    assert bm.__kiln_native__ is True
    assert callable(bm._kiln_bind)
    g = {"__name__": "user"}
    exec("def bf(a, *, k=7):\n    'bf doc'\n    return ('py', a, k)\ndef bg():\n    return 'bg'\n", g)
    assert bm._kiln_bind(g) is None
    assert tm.globals_()[1] is g
    assert bm.bf(1) == ("native", 1, 7)
    assert bm.bf.__doc__ == "bf doc"
    assert bm.bg is g["bg"]
    assert bm.__kiln_python__ == {"bf": g["bf"], "bg": g["bg"]}

    def other(a, *, k=99):
        return a

    def bg2():
        return 0

    bm._kiln_bind(g, {"bf": other, "bg": bg2})
    assert bm.bf(2) == ("native", 2, 99)
    assert bm.bg is bg2
    # A function with no original yet (kiln.compile binds one function per
    # decorator call) is skipped: the earlier binding of bg stays.
    bm._kiln_bind({"bf": other})
    assert bm.bg is bg2


def test_bind_mode_kiln_mode(build_dir):
    r = run_py(build_dir, """
        import os, kiln_testmod as m
        g = {}
        exec("def bf(a, *, k=7):\\n    return ('py', a, k)\\ndef bg():\\n    return 'bg'\\n", g)
        os.environ['KILN_MODE'] = 'native'   # read when _kiln_bind runs
        m.bound._kiln_bind(g)
        try:
            m.bound.bg()
        except RuntimeError as e:
            print(e)
        os.environ['KILN_MODE'] = 'python'
        m.bound._kiln_bind(g)
        print(m.bound.bf(1))
    """)
    lines = r.stdout.splitlines()
    assert lines == [
        "kiln: function 'bg' was not compiled natively: closure [KILN042] (KILN_MODE=native)",
        "('py', 1, 7)",
    ], r.stderr


# ---------------------------------------------------------------------------
# argument binding vs CPython
# ---------------------------------------------------------------------------

CALLS = {
    "f": [
        ((), {}), ((1,), {}), ((1, 2), {}), ((1, 2), {"k": 0}), ((1, 2, 3), {"k": 0}),
        ((1, 2, 3, 4), {}), ((1, 2, 3, 4), {"k": 1}), ((1, 2, 3, 4, 5), {}), ((1,), {"k": 2}),
        ((), {"a": 1, "b": 2, "k": 3}), ((1, 2), {"a": 5, "k": 1}), ((1, 2), {"z": 1}),
        ((1, 2), {"k": 1, "m": 2, "c": 9}), ((1, 2, 3, 4), {"z": 1}), ((), {"b": 2, "k": 1}),
        ((1, 2, 3, 4), {"k": 1, "m": 1}), ((1, 2, 3, 4), {"a": 1}), ((1, 2, 3), {"k": 1, "m": 2}),
        ((), {"k": 1}), ((1, 2, 3), {}), ((1,), {"c": 1}),
    ],
    "q": [
        ((), {}), ((1,), {}), ((1, 2, 3), {}), ((1, 2, 3), {"x": 1}), ((1, 2, 3, 4), {}),
        ((), {"x": 1, "y": 2, "z": 3}), ((1, 2, 3, 4, 5), {"x": 1}), ((1, 2, 3), {"x": 1, "y": 2, "z": 3}),
        ((1, 2), {"c": 3, "x": 1, "y": 2, "z": 3}), ((1, 2, 3, 4), {"x": 1, "z": 2}),
    ],
    "one": [((), {}), ((1, 2), {}), ((1,), {}), ((), {"a": 1}), ((1,), {"a": 2}), ((), {"b": 1}),
            ((1, 2, 3), {})],
    "kwo": [((), {}), ((1,), {}), ((), {"k": 2}), ((1, 2), {}), ((), {"k": 1, "j": 2}), ((1,), {"k": 1})],
}


@pytest.mark.parametrize("name,args,kwargs", [(n, a, k) for n, calls in CALLS.items() for a, k in calls])
def test_bind_args_like_python(tm, name, args, kwargs):
    native = outcome(getattr(tm, name), *args, **kwargs)
    py = outcome(tm.__kiln_python__[name], *args, **kwargs)
    if py[0] == "ok":
        assert native[0] == "ok", native
        assert native[1][0] == "native" and native[1][1:] == py[1][1:]
    else:
        assert native == py


def test_bind_args_kwnames_not_interned(tm):
    key = "".join(["k", ""])  # a fresh, equal string
    kw = {key + "": 3}
    assert tm.f(1, 2, **kw) == ("native", 1, 2, 3, 3, 5)


# ---------------------------------------------------------------------------
# tracebacks
# ---------------------------------------------------------------------------


def test_add_traceback_points_at_py_line(tm, build_dir):
    with pytest.raises(ZeroDivisionError) as ei:
        tm.h(1, 0)
    assert str(ei.value) == "integer division or modulo by zero"
    last = traceback.extract_tb(ei.value.__traceback__)[-1]
    assert last.filename == str(build_dir / "ktest_src.py")
    assert (last.lineno, last.name) == (12, "h")
    assert last.line == "return a // b"
    assert tm.h(7, -2) == 7 // -2


def test_h_overflow_and_unbox_errors(tm, build_dir):
    with pytest.raises(OverflowError, match=r"integer overflow \(.*ktest_src\.py:12\)"):
        tm.h(I64_MIN, -1)
    with pytest.raises(TypeError, match=r"^h\(\) argument 'a' must be int, not str$"):
        tm.h("x", 1)
    with pytest.raises(OverflowError, match="'b'"):
        tm.h(1, 2**63)


def test_raise_with_tb(tm):
    with pytest.raises(ValueError) as ei:
        tm.raise_with_tb("func", "somewhere.py", 77)
    last = traceback.extract_tb(ei.value.__traceback__)[-1]
    assert (last.filename, last.lineno, last.name) == ("somewhere.py", 77, "func")


# ---------------------------------------------------------------------------
# unboxing scalars
# ---------------------------------------------------------------------------


class Idx:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_unbox_int(tm):
    for v in (0, 1, -1, I64_MIN, I64_MAX, True, False, Idx(5), Idx(I64_MIN)):
        assert tm.unbox_int(v, "f", "x") == int(v.v if isinstance(v, Idx) else v)
    for v in (I64_MAX + 1, I64_MIN - 1, 10**30, Idx(2**64)):
        with pytest.raises(OverflowError, match="f\\(\\) argument 'x'"):
            tm.unbox_int(v, "f", "x")
    for v, tn in (("s", "str"), (1.0, "float"), (None, "NoneType"), ([], "list")):
        with pytest.raises(TypeError) as ei:
            tm.unbox_int(v, "f", "x")
        assert str(ei.value) == f"f() argument 'x' must be int, not {tn}"


def test_unbox_float(tm):
    for v in (0.0, -0.0, 1.5, math.inf, -math.inf, 1, -3, True, 2**53 + 1, 2**1000, Idx(3)):
        exp = float(v.v if isinstance(v, Idx) else v)
        assert same_float(tm.unbox_float(v, "f", "y"), exp)
    assert math.isnan(tm.unbox_float(math.nan, "f", "y"))
    with pytest.raises(OverflowError, match="'y'"):
        tm.unbox_float(2**1024, "f", "y")
    with pytest.raises(TypeError) as ei:
        tm.unbox_float("1.0", "f", "y")
    assert str(ei.value) == "f() argument 'y' must be float, not str"
    np = pytest.importorskip("numpy")
    assert tm.unbox_float(np.float64(2.5), "f", "y") == 2.5


def test_unbox_bool(tm):
    assert tm.unbox_bool(True, "f", "b") is True
    assert tm.unbox_bool(False, "f", "b") is False
    for v, tn in ((1, "int"), (0, "int"), (None, "NoneType"), (1.0, "float")):
        with pytest.raises(TypeError) as ei:
            tm.unbox_bool(v, "f", "b")
        assert str(ei.value) == f"f() argument 'b' must be bool, not {tn}"


# ---------------------------------------------------------------------------
# scalar helpers vs CPython
# ---------------------------------------------------------------------------

INTS = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 2**31, -(2**31), 2**62, -(2**62), I64_MAX, I64_MIN,
        I64_MAX - 1, I64_MIN + 1, 3037000499, 3037000500, -3037000500, 2**53, 2**53 + 1, -(2**53) - 1]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0, 7.25, -7.25, 1e308, -1e308,
          1e-308, 5e-324, -5e-324, math.inf, -math.inf, math.nan, 0.1, 1e16, -1e16, 2.0**63, -(2.0**63),
          9.3e18, -9.3e18, 123456.789]


def fits(v):
    return I64_MIN <= v <= I64_MAX


def check_int_helper(native, py, ovf_line=7):
    for a in INTS:
        for b in INTS:
            got = outcome(native, a, b)
            exp = outcome(py, a, b)
            if exp[0] == "ok" and not fits(exp[1]):
                assert got == ("err", OverflowError, f"integer overflow (ovf.py:{ovf_line})"), (a, b)
            else:
                assert got == exp, (a, b)


def test_int_floordiv(tm):
    check_int_helper(tm.int_floordiv, lambda a, b: a // b)


def test_int_mod(tm):
    check_int_helper(tm.int_mod, lambda a, b: a % b)
    assert tm.int_mod(I64_MIN, -1) == 0


def test_int_pow(tm):
    cases = [(a, b) for a in INTS + [-2, 2, 10, -10, 3, 5] for b in [0, 1, 2, 3, 5, 10, 31, 32, 33, 62, 63, 64, 65,
                                                                       100, 1000, 2**40, I64_MAX]]
    for a, b in cases:
        if abs(a) > 1 and b > 200:
            exp = ("ok", 2**64)  # certainly out of range; avoid computing it
        else:
            exp = outcome(lambda: a ** b)
        got = outcome(tm.int_pow, a, b)
        if exp[0] == "ok" and not fits(exp[1]):
            assert got == ("err", OverflowError, "integer overflow (ovf.py:7)"), (a, b)
        else:
            assert got == exp, (a, b)
    assert tm.int_pow(-2, 63) == I64_MIN


def test_int_shifts(tm):
    for a in INTS:
        for b in [0, 1, 2, 31, 32, 62, 63, 64, 65, 100, 1000, I64_MAX]:
            if b <= 200:
                exp = a << b
                got = outcome(tm.int_lshift, a, b)
                if fits(exp):
                    assert got == ("ok", exp), (a, b)
                else:
                    assert got == ("err", OverflowError, "integer overflow (ovf.py:7)"), (a, b)
            assert tm.int_rshift(a, b) == a >> min(b, 200), (a, b)
    with pytest.raises(ValueError, match="^negative shift count$"):
        tm.negative_shift()


def test_int_truediv(tm):
    extra = [3, 10**15 + 1, 2**60 + 1, 2**63 - 3]
    for a in INTS + extra:
        for b in INTS + extra:
            if not (fits(a) and fits(b)):
                continue
            got = outcome(tm.int_truediv, a, b)
            exp = outcome(lambda: a / b)
            if exp[0] == "ok":
                assert got[0] == "ok" and same_float(got[1], exp[1]), (a, b, got, exp)
            else:
                assert got == exp


@pytest.mark.parametrize("name,op", [
    ("float_div", lambda a, b: a / b),
    ("float_floordiv", lambda a, b: a // b),
    ("float_mod", lambda a, b: a % b),
    ("float_pow", lambda a, b: a ** b),
])
def test_float_helpers(tm, name, op):
    native = getattr(tm, name)
    for a in FLOATS:
        for b in FLOATS:
            got = outcome(native, a, b)
            exp = outcome(op, a, b)
            if got == ("ok", "complex"):
                # "use the object path": a negative base with a fractional exponent
                assert name == "float_pow" and a < 0 and b != math.floor(b), (a, b)
                assert outcome(tm.power, a, b) == exp
            elif exp[0] == "ok" and isinstance(exp[1], complex):
                raise AssertionError((a, b, got, exp))
            elif exp[0] == "ok":
                assert got[0] == "ok" and same_float(got[1], exp[1]), (name, a, b, got, exp)
            else:
                assert got == exp, (name, a, b)


def test_float_to_int(tm):
    for x in FLOATS + [2.0**63 - 1024, -(2.0**63) - 2048, 0.999, -0.999, 1e19]:
        got = outcome(tm.float_to_int, x)
        exp = outcome(int, x)
        if exp[0] == "ok" and not fits(exp[1]):
            assert got == ("err", OverflowError, "integer overflow (ovf.py:9)"), x
        else:
            assert got == exp, x


def test_int_float_cmp(tm):
    for a in INTS:
        for b in FLOATS + [float(a), float(a) + 0.5, float(a) - 0.5, math.nextafter(float(a), math.inf),
                           math.nextafter(float(a), -math.inf)]:
            if math.isnan(b):
                assert tm.int_float_cmp(a, b) == 2
            else:
                assert tm.int_float_cmp(a, b) == (a > b) - (a < b), (a, b)


def test_raise_overflow(tm):
    with pytest.raises(OverflowError) as ei:
        tm.raise_overflow("model.py", 12)
    assert str(ei.value) == "integer overflow (model.py:12)"


# ---------------------------------------------------------------------------
# Python fallback helpers
# ---------------------------------------------------------------------------


def test_load_global(tm):
    g = {"a": 1}
    assert tm.load_global(g, "a") == 1
    assert tm.load_global(g, "len") is len
    with pytest.raises(NameError) as ei:
        tm.load_global(g, "nope")
    assert str(ei.value) == "name 'nope' is not defined"
    assert ei.value.name == "nope"


def test_unbound_local(tm):
    def py():
        if False:
            x = 1  # noqa: F841
        return x  # noqa: F821

    with pytest.raises(UnboundLocalError) as exp:
        py()
    with pytest.raises(UnboundLocalError) as got:
        tm.unbound_local("x")
    assert str(got.value) == str(exp.value)


def test_power(tm):
    assert tm.power(2, 10) == 1024
    assert tm.power(2, -1) == 0.5
    assert tm.power(-8, 1 / 3) == (-8) ** (1 / 3)
    with pytest.raises(ZeroDivisionError) as ei:
        tm.power(0.0, -1)
    assert str(ei.value) == "0.0 cannot be raised to a negative power"
    lst = [1]
    assert tm.inplace_power(3, 2) == 9

    class P:
        def __ipow__(self, o):
            return ("ipow", o)

    assert tm.inplace_power(P(), 5) == ("ipow", 5)
    assert lst == [1]


def test_unpack(tm):
    def py_unpack(seq, n):
        code = f"{', '.join('v%d' % i for i in range(n))}, = seq" if n else "[] = seq"
        ns = {"seq": seq}
        exec(code, ns)
        return tuple(ns["v%d" % i] for i in range(n))

    cases = [((1, 2), 2), ([1, 2], 2), ((1,), 2), ((1, 2, 3), 2), (iter([1, 2]), 2), ("ab", 2), ("abc", 2),
             (5, 2), (None, 3), (range(3), 3), ({1: 2}, 1), ([], 0), ([1], 0), ((x for x in range(1)), 2)]
    for seq, n in cases:
        exp = outcome(py_unpack, seq, n)
        if isinstance(seq, type(iter([]))) or hasattr(seq, "gi_frame"):
            continue  # consumed by the first call; checked below
        assert outcome(tm.unpack, seq, n) == exp, (seq, n)
    assert tm.unpack(iter([1, 2]), 2) == (1, 2)
    with pytest.raises(ValueError, match=r"^not enough values to unpack \(expected 2, got 1\)$"):
        tm.unpack((x for x in range(1)), 2)

    def bad():
        yield 1
        raise KeyError("inner")

    with pytest.raises(KeyError):
        tm.unpack(bad(), 2)
    obj = object()
    before = sys.getrefcount(obj)
    for _ in range(1000):
        tm.unpack([obj, obj], 2)
        outcome(tm.unpack, [obj, obj, obj], 2)
    assert sys.getrefcount(obj) == before


# ---------------------------------------------------------------------------
# torch boundary
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def torch():
    return pytest.importorskip("torch")


def test_torch_path(tm, torch):
    import kiln._runtime as rt

    assert rt.boundary_paths()["torch"] == "dlpack-c-exchange-api"


def test_torch_public_path(build_dir, torch):
    r = run_py(build_dir, """
        import os
        os.environ['KILN_TORCH_PUBLIC'] = '1'
        import torch, kiln._runtime as rt, kiln_testmod as m
        assert rt.boundary_paths()['torch'] == 'public', rt.boundary_paths()
        x = torch.randn(3, 4)
        assert m.roundtrip(x, 1, 2) is x
        shape, strides, ptr, src, fw = m.tensor_unbox(x.t(), 1, 2, 'x')
        assert (shape, strides, ptr) == ((4, 3), (1, 4), x.data_ptr())
        y = m.tensor_op(3, x)
        assert torch.equal(y, torch.relu(x)) and not y.requires_grad
        for bad, exc in ((torch.ones(2, dtype=torch.int64), ValueError), (torch.ones(2, 2, device='meta'), ValueError), (3, TypeError)):
            try:
                m.tensor_unbox(bad, 1, 2, 'x')
            except exc as e:
                print(e)
        m.loop(x, 1, 2, 1000)
        print('OK')
    """)
    assert r.stdout.splitlines() == [
        "kiln-torch: argument 'x': expected a float32 tensor, got torch.int64",
        "kiln-torch: argument 'x': expected a CPU tensor, got meta",
        "kiln-torch: argument 'x': expected a torch.Tensor, got int",
        "OK",
    ], r.stderr


# The direct read of plain tensors (torch_bridge.c) must agree with torch's
# exchange API on every tensor: the same facts for the ones it reads, and the
# same errors, from the exchange path, for every one it leaves alone.
DIRECT_SCRIPT = """
    import json, os, sys, torch, kiln._runtime as rt, kiln_testmod as m
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    with torch.inference_mode():
        inf = torch.ones(3, 2)
    cplx = torch.tensor([1 + 2j, 3 + 4j], dtype=torch.complex64)
    thrower = torch.zeros(2, 2)
    torch._C._set_throw_on_mutable_data_ptr(thrower)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fake = torch.zeros(2, 2)
    class Logged(torch.Tensor):  # __torch_function__ only: same TensorImpl as a plain tensor
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            print('torch_function', func)
            return super().__torch_function__(func, types, args, kwargs or {})
    class Wrapper(torch.Tensor):  # __torch_dispatch__ wrapper: Python key, no storage of its own
        @staticmethod
        def __new__(cls, inner):
            return torch.Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype)
        def __init__(self, inner):
            self.inner = inner
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise RuntimeError('dispatch ' + str(func))
    logged = torch.ones(2, 3).as_subclass(Logged)
    wrapped = Wrapper(torch.ones(2, 3))
    cases = [x, x.t(), x[1:, ::2], x[:, 1], x[2], x[::2], x.narrow(1, 2, 3), torch.ones(3).expand(2, 3),
             torch.ones(0, 3), torch.ones(3, 0), torch.zeros(0), torch.nn.Parameter(torch.ones(2, 2)),
             torch.ones(2, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True).detach(), inf, inf.t(),
             torch.empty(9, 2).as_strided((3, 2), (4, 1), 5), torch.view_as_real(cplx), cplx.conj().imag,
             cplx.imag, torch._neg_view(torch.ones(2, 2)), torch.zeros(2, 2)._lazy_clone(), thrower, fake,
             torch.from_numpy(__import__('numpy').ones((2, 3), 'float32')), torch.ones(2, 2, device='meta'),
             torch.ones(2, 2).to_sparse(), torch.ones(2, 2, dtype=torch.float64), torch.ones(2, dtype=torch.int64),
             torch.ones(2, 2, dtype=torch.bfloat16), torch.tensor(1.0), torch.ones(2, 2, 2),
             torch.ones(1, 3, 2, 2).to(memory_format=torch.channels_last), logged, wrapped, 3, [1.0]]
    out = [rt.boundary_paths()['torch_direct']]
    def unbox(t, rank):
        try:
            shape, strides, ptr, src, fw = m.tensor_unbox(t, 1, rank, 'x')
            with torch._C.DisableTorchFunctionSubclass():
                same = ptr == t.data_ptr() if t.numel() else None
            return ['ok', shape, strides, same, src, fw]
        except Exception as e:
            return ['err', type(e).__name__, str(e).splitlines()[0]]
    for t in cases:
        for rank in (1, 2):
            out.append(unbox(t, rank))
    # metadata changed in place between calls is read afresh
    y = torch.zeros(2, 3)
    out.append(unbox(y, 2))
    y.resize_(5, 4); out.append(unbox(y, 2))
    y.t_(); out.append(unbox(y, 2))
    y.set_(torch.arange(7.0)[1:]); out.append(unbox(y, 1))
    y.as_strided_((2, 2), (1, 2), 1); out.append(unbox(y, 2))
    # functorch wrappers are plain torch.Tensor objects around another TensorImpl
    try:
        torch.vmap(lambda t: m.roundtrip(t, 1, 1))(torch.ones(3, 2))
        out.append('vmap ok')
    except Exception as e:
        out.append(['vmap', type(e).__name__, str(e).splitlines()[0]])
    print(json.dumps(out))
"""


def test_torch_direct_read_matches_exchange_api(build_dir, torch):
    got = {}
    for setting in ("1", "0"):
        env_code = f"import os; os.environ['KILN_TORCH_DIRECT'] = '{setting}'\n"
        r = run_py(build_dir, env_code + textwrap.dedent(DIRECT_SCRIPT))
        assert r.returncode == 0, r.stderr[-3000:]
        got[setting] = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["1"][0] == "on"
    assert got["0"][0] == "off (KILN_TORCH_DIRECT=0)"
    assert got["1"][1:] == got["0"][1:]
    results = got["1"][1:]
    assert sum(r[0] == "ok" for r in results if isinstance(r, list)) >= 25
    assert sum(r[0] == "err" for r in results if isinstance(r, list)) >= 25
    assert results[-1][0] == "vmap"  # refused, not read through the wrapper


def test_torch_not_imported(build_dir):
    r = run_py(build_dir, """
        import sys, kiln_testmod as m
        try:
            m.tensor_unbox([1.0], 1, 1, 'x')
        except TypeError as e:
            print(e)
        assert 'torch' not in sys.modules
    """)
    assert r.stdout.strip() == "kiln-torch: argument 'x': expected a torch.Tensor, got list", r.stderr


def unbox_err(tm, o, rank=2, arg="x"):
    with pytest.raises(Exception) as ei:
        tm.tensor_unbox(o, KR_FW_TORCH, rank, arg)
    return type(ei.value), str(ei.value)


def test_torch_entry_checks(tm, torch):
    np = pytest.importorskip("numpy")
    assert unbox_err(tm, 3, arg="inp") == (TypeError, "kiln-torch: argument 'inp': expected a torch.Tensor, got int")
    assert unbox_err(tm, np.zeros((2, 2), np.float32)) == (
        TypeError, "kiln-torch: argument 'x': expected a torch.Tensor, got numpy.ndarray")
    # device is checked before dtype and rank
    assert unbox_err(tm, torch.ones(3, dtype=torch.int64, device="meta")) == (
        ValueError, "kiln-torch: argument 'x': expected a CPU tensor, got meta")
    assert unbox_err(tm, torch.ones(2, 2, device="meta")) == (
        ValueError, "kiln-torch: argument 'x': expected a CPU tensor, got meta")
    # dtype before rank
    assert unbox_err(tm, torch.ones(3, dtype=torch.int64)) == (
        ValueError, "kiln-torch: argument 'x': expected a float32 tensor, got torch.int64")
    assert unbox_err(tm, torch.ones(2, 2, dtype=torch.float64)) == (
        ValueError, "kiln-torch: argument 'x': expected a float32 tensor, got torch.float64")
    assert unbox_err(tm, torch.ones(2, 2, dtype=torch.bfloat16)) == (
        ValueError, "kiln-torch: argument 'x': expected a float32 tensor, got torch.bfloat16")
    assert unbox_err(tm, torch.ones(3)) == (ValueError, "kiln-torch: argument 'x': expected rank-2 tensor, got rank 1")
    assert unbox_err(tm, torch.ones(2, 2), rank=1) == (
        ValueError, "kiln-torch: argument 'x': expected rank-1 tensor, got rank 2")
    assert unbox_err(tm, torch.tensor(1.0), rank=1) == (
        ValueError, "kiln-torch: argument 'x': expected rank-1 tensor, got rank 0")
    t, msg = unbox_err(tm, torch.ones(2, 2).to_sparse())
    assert t is ValueError and msg.startswith("kiln-torch: argument 'x': expected a dense (strided) tensor")
    # negative-bit views would read the wrong sign: refused
    neg = torch.tensor([1 + 2j, 3 + 4j], dtype=torch.complex64).conj().imag
    assert neg.is_neg() and neg.dtype == torch.float32
    t, msg = unbox_err(tm, neg, rank=1)
    assert t is ValueError and "negative-bit" in msg


def test_torch_unbox_views(tm, torch):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    cases = [x, x.t(), x[1:, ::2], x[:, 1], torch.ones(3).expand(2, 3), torch.ones(0, 3), torch.ones(3, 0),
             torch.nn.Parameter(torch.ones(2, 2)), torch.ones(2, 2, requires_grad=True), x[::2]]
    for t in cases:
        shape, strides, ptr, src, fw = tm.tensor_unbox(t, KR_FW_TORCH, t.dim(), "x")
        assert shape == tuple(t.shape) and strides == t.stride() and src and fw == KR_FW_TORCH
        if t.numel():
            assert ptr == t.data_ptr()


def test_torch_box_identity_and_fresh(tm, torch):
    x = torch.randn(3, 4, requires_grad=True)
    assert tm.roundtrip(x, KR_FW_TORCH, 2) is x
    p = torch.nn.Parameter(torch.ones(2))
    assert tm.roundtrip(p, KR_FW_TORCH, 1) is p
    y = tm.tensor_op(OP_RELU, x)
    assert type(y) is torch.Tensor
    assert not y.requires_grad and y.dtype == torch.float32 and y.device.type == "cpu"
    assert y.is_contiguous() and y.data_ptr() % 64 == 0
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert torch.equal(y, torch.relu(x.detach()))
    # outputs outlive inputs
    del x
    gc.collect()
    assert y.shape == (3, 4) and float(y.sum()) >= 0


def test_torch_refcounts(tm, torch):
    for t in (torch.randn(3, 4), torch.randn(4, 3).t(), torch.nn.Parameter(torch.ones(2, 2)),
              torch.ones(2, 2, requires_grad=True)):
        before = sys.getrefcount(t)
        tm.loop(t, KR_FW_TORCH, 2, 10000)
        tm.loop_op(OP_RELU, t, 10000)
        for _ in range(10000):
            tm.tensor_unbox(t, KR_FW_TORCH, 2, "x")
        for _ in range(1000):
            with pytest.raises(ValueError):
                tm.tensor_unbox(t, KR_FW_TORCH, 1, "x")
        assert sys.getrefcount(t) == before
    bad = torch.ones(2, 2, device="meta")
    before = sys.getrefcount(bad)
    for _ in range(1000):
        with pytest.raises(ValueError):
            tm.tensor_unbox(bad, KR_FW_TORCH, 2, "x")
    assert sys.getrefcount(bad) == before


def test_torch_outputs_freed_in_other_thread(tm, torch):
    x = torch.randn(64, 64)
    outs = [tm.tensor_op(OP_SIGMOID, x) for _ in range(50)]

    def drop():
        outs.clear()
        gc.collect()

    th = threading.Thread(target=drop)
    th.start()
    th.join()
    assert outs == []


def test_torch_from_object(tm, torch):
    x = torch.randn(2, 3)
    assert tm.from_object(x, KR_FW_TORCH, 2) is x
    with pytest.raises(TypeError, match=r"torch\.Tensor.*got list \(fo\.py:3\)"):
        tm.from_object([1.0], KR_FW_TORCH, 2)
    with pytest.raises(ValueError, match=r"expected rank-2 tensor, got rank 1 \(fo\.py:3\)"):
        tm.from_object(torch.ones(3), KR_FW_TORCH, 2)


# ---------------------------------------------------------------------------
# tensor operations vs eager torch
# ---------------------------------------------------------------------------


def test_tensor_ops_vs_eager(tm, torch):
    torch.manual_seed(0)
    F = torch.nn.functional
    a = torch.randn(5, 7)
    w = torch.randn(3, 7)
    b = torch.randn(7, 3)
    bias = torch.randn(3)
    close = dict(rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(tm.tensor_op(OP_MATMUL, a, b), a @ b, **close)
    torch.testing.assert_close(tm.tensor_op(OP_MATMUL, a, w.t()), a @ w.t(), **close)
    torch.testing.assert_close(tm.tensor_op(OP_MATMUL, a[0], b), a[0] @ b, **close)
    torch.testing.assert_close(tm.tensor_op(OP_MATMUL, a, b[:, 0]), a @ b[:, 0], **close)
    torch.testing.assert_close(tm.tensor_op(OP_LINEAR, a, w, bias), F.linear(a, w, bias), **close)
    torch.testing.assert_close(tm.tensor_op(OP_LINEAR, a, w), F.linear(a, w), **close)
    torch.testing.assert_close(tm.tensor_op(OP_LINEAR, a[1], w, bias), F.linear(a[1], w, bias), **close)
    torch.testing.assert_close(tm.tensor_op(OP_LINEAR, a.t().contiguous().t(), w, bias), F.linear(a, w, bias),
                               **close)
    for x, y in [(a, a), (a, a[0]), (a[0], a), (a[:, :1], a[0]), (a[0], a[:, :1]), (a[:1], a),
                 (a, a[:1]), (a[:, :1], a), (torch.ones(1), a[0]), (a[0], torch.ones(1)), (a.t(), a.t()),
                 (a[:, :1], a[:1])]:
        got = tm.tensor_op(OP_ADD, x, y)
        exp = x + y
        assert got.shape == exp.shape and got.dim() == exp.dim()
        assert torch.equal(got, exp), (x.shape, y.shape)
    eager_ok = True
    for op, act in [(OP_RELU, "relu"), (OP_SIGMOID, "sigmoid"), (OP_TANH, "tanh")]:
        for x in (a, a.t(), a[0], torch.ones(0, 3)):
            got = tm.tensor_op(op, x)
            assert got.shape == x.shape
            if act == "relu":
                torch.testing.assert_close(got, torch.relu(x), **close)
            else:  # float64 truth first, eager while it is accurate (oracle.check_activation)
                eager_ok &= check_activation(got, x, act, **close)
    torch.testing.assert_close(tm.tensor_op(OP_ROWSUM, a), a.sum(dim=1), **close)
    torch.testing.assert_close(tm.tensor_op(OP_ROWMEAN, a.t()), a.t().mean(dim=1), **close)
    special = torch.tensor([[0.0, -0.0, float("nan"), float("inf"), -float("inf"), -1.0]])
    assert torch.equal(tm.tensor_op(OP_RELU, special).isnan(), torch.relu(special).isnan())
    # zero-size
    z = tm.tensor_op(OP_MATMUL, torch.ones(0, 3), torch.ones(3, 4))
    assert z.shape == (0, 4)
    z = tm.tensor_op(OP_MATMUL, torch.ones(2, 0), torch.ones(0, 4))
    assert torch.equal(z, torch.zeros(2, 4))
    # large enough to release the GIL
    big_a, big_b = torch.randn(128, 128), torch.randn(128, 128)
    torch.testing.assert_close(tm.tensor_op(OP_MATMUL, big_a, big_b), big_a @ big_b, rtol=1e-4, atol=1e-4)
    if not eager_ok:
        pytest.skip(EAGER_ACTIVATION_INACCURATE)


def test_tensor_op_shape_errors(tm, torch):
    cases = [
        (OP_MATMUL, torch.ones(2, 3), torch.ones(4, 5), None, "kiln: matmul: incompatible shapes [2, 3] and [4, 5]"),
        (OP_LINEAR, torch.ones(2, 3), torch.ones(4, 5), None, "kiln: linear: incompatible shapes [2, 3] and [4, 5]"),
        (OP_LINEAR, torch.ones(2, 3), torch.ones(4, 3), torch.ones(5), "[2, 3] and [4, 3] with bias [5]"),
        (OP_ADD, torch.ones(2, 3), torch.ones(4), None, "kiln: add: incompatible shapes [2, 3] and [4]"),
        (OP_ADD, torch.ones(2, 3), torch.ones(3, 3), None, "kiln: add: incompatible shapes [2, 3] and [3, 3]"),
        (OP_ROWSUM, torch.ones(3), None, None, "kiln: sum: unsupported shape [3]"),
    ]
    for op, a, b, c, msg in cases:
        with pytest.raises(RuntimeError) as ei:
            tm.tensor_op(op, a, b, c)
        assert msg in str(ei.value) and str(ei.value).endswith("(model.py:42)"), str(ei.value)
        if b is not None and op != OP_ROWSUM:
            with pytest.raises(RuntimeError):  # eager agrees that these are errors
                {OP_MATMUL: torch.matmul, OP_ADD: torch.add,
                 OP_LINEAR: lambda x, y: torch.nn.functional.linear(x, y, c)}[op](a, b)


def test_tensor_op_test_framework(tm):
    import array

    a = memoryview(array.array("f", [1.0, -2.0, 3.0, 4.0, 5.0, -6.0])).cast("B").cast("f", (2, 3))
    b = array.array("f", [10.0, 20.0, 30.0])
    assert tm.tensor_op(OP_ADD, a, b, fw=KR_FW_TEST) == [[11.0, 18.0, 33.0], [14.0, 25.0, 24.0]]
    assert tm.tensor_op(OP_RELU, b, fw=KR_FW_TEST) == [10.0, 20.0, 30.0]
    assert tm.tensor_op(OP_ROWSUM, a, fw=KR_FW_TEST) == [2.0, 3.0]


def test_tensor_op_mixed_frameworks(tm, torch):
    import array

    with pytest.raises(TypeError) as ei:
        tm.tensor_op(OP_ADD, torch.ones(3), array.array("f", [1.0, 2.0, 3.0]), fwb=KR_FW_TEST)
    assert str(ei.value) == "kiln: add: cannot mix torch and test tensors (model.py:42)"


def test_bench_report(tm, torch, capsys):
    x = torch.randn(8, 16)
    r = tm.bench(x, 2, 200000)
    with capsys.disabled():
        print("\nkiln runtime per-call ns:", {k: round(v, 1) for k, v in r.items()})
    # a measurement, printed: timing is for `make bench`, never asserted
    assert all(math.isfinite(v) and v > 0 for v in r.values()), r
