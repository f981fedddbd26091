"""Conditional imports and aliases of paths.

A module name bound by an import and otherwise only
in `except` handlers of module-level code (`try: import torch` / `except
ImportError: torch = None`) resolves as an import, under a guard.

Before 2026-12-03 any such name was dynamic: `torch.relu(x)` through it ran
on the Python fallback and `math.sqrt(x)` through the interpreter. Now kiln
resolves the name to its import's path, and for every function that acts on
that path (a claimed or scalar call, a grad guard) the runtime checks, once
the module has run, that the global is the object at the path; if it is not
(the handler ran), that function is installed as its Python original, so
what it computes is what Python computes either way. A binding anywhere
else (the `try` body, `else`, `finally`, another statement, a function's
`global`) keeps the name dynamic, as does kiln.compile, which binds while
the module is still running.

A module-level alias of a path, the name's only binding (`F =
torch.nn.functional`, `relu = torch.relu`, `sqrt = math.sqrt`, `m = math`),
resolves to the path under the same guard; before, calls through it ran on
the Python fallback.

Each module is built with kiln and imported as plain Python too; the
functions are compared on several inputs, and the report says what was
resolved and under which guard.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

MATH_F = '''
def f(x: float) -> float:
    return math.sqrt(x) + 1.0
'''

# name -> module source (before f) under which `math` resolves, guarded, and is the real module
GUARD_HOLDS = {
    "import_except_none": '''
        try:
            import math
        except ImportError:
            math = None
        ''',
    "one_line_handler": '''
        try:
            import math
        except ImportError: math = None
        ''',
    "handler_with_as_and_more": '''
        try:
            import math
            HAVE_MATH = True
        except (ImportError, OSError) as err:
            math = None
            HAVE_MATH = False
            if err:
                other = 1
        ''',
    "nested_try_in_handler": '''
        try:
            import math
        except ImportError:
            try:
                import cmath
            except ImportError:
                cmath = None
            math = None
        ''',
    "handler_only_pass": '''
        try:
            import math
        except ImportError:
            pass
        ''',
    "inside_if": '''
        if True:
            try:
                import math
            except ImportError:
                math = None
        ''',
    "second_handler": '''
        try:
            import math
        except ImportError:
            math = None
        except Exception:
            math = False
        ''',
}

# name -> module source (before f) under which kiln resolves `math` guarded
# but the handler binds something else: f must run as Python
GUARD_FAILS = {
    "handler_ran": '''
        try:
            raise ImportError("simulated")
            import math
        except ImportError:
            class math:
                sqrt = staticmethod(lambda x: -1.0)
        ''',
    "missing_module": '''
        try:
            import math
            import kiln_test_no_such_module
        except ImportError:
            import types
            math = types.SimpleNamespace(sqrt=lambda x: -2.0)
        ''',
    "handler_unbinds": '''
        try:
            import math
            raise ImportError("simulated")
        except ImportError:
            del math
        ''',
}

# name -> module source (before f) under which `math` stays dynamic
STAYS_DYNAMIC = {
    "bound_in_try_body": '''
        class Fake:
            sqrt = staticmethod(lambda x: -1.0)
        try:
            import math
            math = Fake()
        except ImportError:
            pass
        ''',
    "bound_in_else": '''
        class Fake:
            sqrt = staticmethod(lambda x: -1.0)
        try:
            import math
        except ImportError:
            math = None
        else:
            math = Fake()
        ''',
    "bound_in_finally": '''
        class Fake:
            sqrt = staticmethod(lambda x: -1.0)
        try:
            import math
        except ImportError:
            math = None
        finally:
            math = Fake()
        ''',
    "bound_by_another_statement": '''
        class Fake:
            sqrt = staticmethod(lambda x: -1.0)
        try:
            import math
        except ImportError:
            math = None
        math = Fake()
        ''',
    "two_paths": '''
        try:
            import cmath as math
        except ImportError:
            import math
        ''',
}


@pytest.fixture
def build(build_with_twin):
    """build(stem, source) -> (kiln's module, the plain Python module, the
    report's functions by name)."""
    return build_with_twin


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as e:  # noqa: BLE001 -- the oracle compares any exception
        return (type(e).__name__, str(e))


def _sites(fn):
    return [(s["target"], s["outcome"]) for s in fn["sites"]]


def _is_compiled(mod, name):
    return getattr(mod, name) is not mod.__kiln_python__[name]


INPUTS = (4.0, 0.0, 2.25, 1e300, float("inf"), -1.0, float("nan"))


def _same_results(native, plain, name="f"):
    for x in INPUTS:
        got, want = _outcome(lambda: getattr(native, name)(x)), _outcome(lambda: getattr(plain, name)(x))
        assert repr(got) == repr(want), (x, got, want)


@pytest.mark.parametrize("case", sorted(GUARD_HOLDS))
def test_guard_holds_native(case, build):
    native, plain, fns = build(f"kiln_guard_ok_{case}", textwrap.dedent(GUARD_HOLDS[case]) + MATH_F)
    assert ("math.sqrt", "scalar") in _sites(fns["f"])
    assert fns["f"]["import_guards"] == [{"name": "math", "path": "math"}]
    assert _is_compiled(native, "f")
    _same_results(native, plain)


@pytest.mark.parametrize("case", sorted(GUARD_FAILS))
def test_guard_fails_runs_python(case, build):
    native, plain, fns = build(f"kiln_guard_bad_{case}", textwrap.dedent(GUARD_FAILS[case]) + MATH_F)
    assert ("math.sqrt", "scalar") in _sites(fns["f"])
    assert fns["f"]["import_guards"] and fns["f"]["import_guards"][0]["name"] == "math"
    assert not _is_compiled(native, "f")
    _same_results(native, plain)


@pytest.mark.parametrize("case", sorted(STAYS_DYNAMIC))
def test_other_bindings_stay_dynamic(case, build):
    native, plain, fns = build(f"kiln_guard_dyn_{case}", textwrap.dedent(STAYS_DYNAMIC[case]) + MATH_F)
    assert ("math.sqrt", "scalar") not in _sites(fns["f"])
    assert fns["f"]["import_guards"] == []
    assert _is_compiled(native, "f")  # native, looking math up as Python does
    _same_results(native, plain)


def test_global_in_a_function_keeps_it_dynamic(build):
    src = textwrap.dedent(GUARD_HOLDS["import_except_none"]) + MATH_F + textwrap.dedent('''
        def off():
            global math
            math = None
        ''')
    native, plain, fns = build("kiln_guard_global", src)
    assert ("math.sqrt", "scalar") not in _sites(fns["f"]) and fns["f"]["import_guards"] == []
    _same_results(native, plain)
    native.off()
    plain.off()
    _same_results(native, plain)
    assert _outcome(lambda: native.f(4.0))[0] == "AttributeError"


def test_from_import_and_alias(build):
    src = textwrap.dedent('''
        try:
            from math import sqrt
            import math as m
        except ImportError:
            sqrt = m = None

        def f(x: float) -> float:
            return sqrt(x) + m.fabs(x)

        def g(x: float) -> float:
            return x * 2.0
        ''')
    native, plain, fns = build("kiln_guard_from", src)
    assert ("math.sqrt", "scalar") in _sites(fns["f"]) and ("math.fabs", "scalar") in _sites(fns["f"])
    assert sorted(g["name"] for g in fns["f"]["import_guards"]) == ["m", "sqrt"]
    assert fns["g"]["import_guards"] == []
    assert _is_compiled(native, "f") and _is_compiled(native, "g")
    _same_results(native, plain)
    _same_results(native, plain, "g")


def test_only_functions_acting_on_the_path_are_guarded(build):
    """A failed guard costs only the functions that resolved through it:
    one that merely reads the name looks it up as Python does."""
    src = textwrap.dedent(GUARD_FAILS["handler_ran"]) + MATH_F + textwrap.dedent('''
        def g(x: float) -> float:
            total = 0.0
            for i in range(3):
                if math is not None:
                    total += x + i
            return total
        ''')
    native, plain, fns = build("kiln_guard_partial", src)
    assert fns["g"]["import_guards"] == []
    assert not _is_compiled(native, "f") and _is_compiled(native, "g")
    _same_results(native, plain)
    _same_results(native, plain, "g")


def test_failed_guard_under_kiln_mode_native_says_why(build, monkeypatch):
    monkeypatch.setenv("KILN_MODE", "native")
    native, _, _ = build("kiln_guard_mode_native", textwrap.dedent(GUARD_FAILS["handler_ran"]) + MATH_F)
    with pytest.raises(RuntimeError, match=r"resolved the global 'math' to math ahead of time, but once the "
                                           r"module ran it was not that object"):
        native.f(4.0)


def test_kiln_compile_leaves_it_dynamic(tmp_path):
    """kiln.compile binds at decoration, while the module still runs: a
    handler that runs later must still be seen."""
    src = tmp_path / "kiln_guard_compile.py"
    src.write_text(textwrap.dedent('''
        import kiln
        try:
            import math
        except ImportError:
            math = None

        @kiln.compile
        def f(x: float) -> float:
            return math.sqrt(x) + 1.0

        try:
            raise ImportError("simulated")
        except ImportError:
            class math:
                sqrt = staticmethod(lambda x: -1.0)
        '''), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("kiln_guard_compile", src)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        assert type(mod.f).__name__ == "builtin_function_or_method"
        assert mod.f(4.0) == 0.0
    finally:
        sys.modules.pop(spec.name, None)


# (indented: tests/other_pythons.sh reads module-level imports only)
TORCH_GUARDED = textwrap.dedent('''
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        torch = F = None
    from kiln.torch import TensorF32Cpu2D, TensorF32Cpu1D

    def relu2(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return torch.relu(x) * 2.0

    def head(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu1D:
        with torch.no_grad():
            return F.linear(x, w, b).relu().mean(dim=1)
''')


def test_torch_guarded_claims(build):
    torch = pytest.importorskip("torch")
    native, plain, fns = build("kiln_guard_torch", TORCH_GUARDED)
    assert ("torch.relu", "claimed") in _sites(fns["relu2"])
    assert ("torch.nn.functional.linear", "claimed") in _sites(fns["head"])
    assert fns["relu2"]["import_guards"] == [{"name": "torch", "path": "torch"}]
    assert sorted(g["name"] for g in fns["head"]["import_guards"]) == ["F", "torch"]
    assert _is_compiled(native, "relu2") and _is_compiled(native, "head")
    gen = torch.Generator().manual_seed(7)
    for rows, cols in ((1, 1), (3, 5), (16, 33)):
        x = torch.randn(rows, cols, generator=gen)
        x[0, 0] = float("nan")
        assert torch.equal(native.relu2(x).nan_to_num(-7.0), plain.relu2(x).nan_to_num(-7.0))
        w, b = torch.randn(4, cols, generator=gen), torch.randn(4, generator=gen)
        x = torch.randn(rows, cols, generator=gen)
        torch.testing.assert_close(native.head(x, w, b), plain.head(x, w, b), rtol=1e-5, atol=1e-5)


def test_torch_guard_fails_runs_eager(build):
    torch = pytest.importorskip("torch")
    src = TORCH_GUARDED.replace("    import torch.nn.functional as F\n",
                                "    import torch.nn.functional as F\n"
                                "    raise ImportError('simulated')\n", 1).replace(
        "    torch = F = None\n",
        "    import types\n"
        "    torch = types.SimpleNamespace(relu=lambda x: x.abs(), no_grad=torch.no_grad)\n", 1)
    assert "simulated" in src and "SimpleNamespace" in src
    native, plain, fns = build("kiln_guard_torch_bad", src)
    assert ("torch.relu", "claimed") in _sites(fns["relu2"])
    assert not _is_compiled(native, "relu2")
    x = torch.tensor([[-1.0, 2.0, -3.0]])
    assert torch.equal(native.relu2(x), plain.relu2(x)) and torch.equal(native.relu2(x), x.abs() * 2.0)


def test_html_report_names_the_guard(build, tmp_path):
    native, plain, fns = build("kiln_guard_html", textwrap.dedent(GUARD_HOLDS["import_except_none"]) + MATH_F)
    html = (tmp_path / "out" / "kiln_guard_html.kiln.html").read_text(encoding="utf-8")
    assert "function f resolved math (math) ahead of time (a conditional import or an alias)" in html
    assert fns["f"]["import_guards"] == [{"name": "math", "path": "math"}]


TF_GUARDED = textwrap.dedent('''
    try:
        import tensorflow as tf
    except ImportError:
        tf = None
    from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D

    def chain(x: TensorF32Cpu2D, weight: TensorF32Cpu2D, bias: TensorF32Cpu1D) -> TensorF32Cpu1D:
        h = tf.nn.relu(tf.matmul(x, weight)) + bias
        return tf.reduce_mean(h, axis=1)
''')


def test_tensorflow_guarded_claims(build):
    tf = pytest.importorskip("tensorflow")
    import numpy as np

    native, plain, fns = build("kiln_guard_tf", TF_GUARDED)
    sites = _sites(fns["chain"])
    assert ("tensorflow.matmul", "claimed") in sites and ("tensorflow.nn.relu", "claimed") in sites, sites
    assert fns["chain"]["import_guards"] == [{"name": "tf", "path": "tensorflow"}]
    assert _is_compiled(native, "chain")
    rng = np.random.default_rng(3)
    for batch, n_in, n_out in ((1, 1, 1), (3, 7, 5), (16, 128, 64)):
        x = tf.constant(rng.standard_normal((batch, n_in)), dtype=tf.float32)
        w = tf.constant(rng.standard_normal((n_in, n_out)), dtype=tf.float32)
        b = tf.constant(rng.standard_normal(n_out), dtype=tf.float32)
        np.testing.assert_allclose(native.chain(x, w, b).numpy(), plain.chain(x, w, b).numpy(),
                                   rtol=1e-5, atol=1e-5)


ALIASES = textwrap.dedent('''
    import math
    sqrt = math.sqrt
    m = math

    def f(x: float) -> float:
        return sqrt(x) + m.fabs(x)

    def g(x: float) -> float:
        return x + 1.0
    ''')


def test_alias_of_a_path_resolves_guarded(build):
    native, plain, fns = build("kiln_alias_math", ALIASES)
    assert ("math.sqrt", "scalar") in _sites(fns["f"]) and ("math.fabs", "scalar") in _sites(fns["f"])
    assert sorted((g["name"], g["path"]) for g in fns["f"]["import_guards"]) == [("m", "math"), ("sqrt", "math.sqrt")]
    assert fns["g"]["import_guards"] == []
    assert _is_compiled(native, "f")
    _same_results(native, plain)


@pytest.fixture
def restore_sqrt():
    import math

    saved = math.sqrt
    yield
    math.sqrt = saved


def test_alias_guard_fails_when_the_path_moved(build, restore_sqrt):
    """`setattr` is not seen by the parser: the path no longer holds the
    object the alias took, so f runs as Python (its sqrt is the original)."""
    native, plain, fns = build("kiln_alias_moved", ALIASES + textwrap.dedent('''
        import math as _m
        setattr(_m, "sqrt", lambda x: -1.0)
        '''))
    assert ("math.sqrt", "scalar") in _sites(fns["f"])
    assert not _is_compiled(native, "f") and _is_compiled(native, "g")
    # (the plain module ran after the native one's setattr: its sqrt is the lambda)
    assert native.f(4.0) == 6.0 and native.f(2.25) == 3.75 and plain.f(4.0) == 3.0


# name -> module code under which `sqrt = math.sqrt` is not an alias kiln resolves
ALIAS_NOT_RESOLVED = {
    "rebound_later": "sqrt = abs\n",
    "deleted_later": "del sqrt\nsqrt = abs\n",
    "global_in_function": "def rebind():\n    global sqrt\n    sqrt = abs\n",
    "path_stored_over": "def patch():\n    math.sqrt = abs\n",
}


@pytest.mark.parametrize("case", sorted(ALIAS_NOT_RESOLVED))
def test_alias_with_other_bindings_stays_dynamic(case, build, restore_sqrt):
    native, plain, fns = build(f"kiln_alias_dyn_{case}", ALIASES + ALIAS_NOT_RESOLVED[case])
    assert ("math.sqrt", "scalar") not in _sites(fns["f"])
    assert "sqrt" not in [g["name"] for g in fns["f"]["import_guards"]]
    _same_results(native, plain)
    for trigger in ("rebind", "patch"):
        if hasattr(native, trigger):
            getattr(native, trigger)()
            getattr(plain, trigger)()
            _same_results(native, plain)


TORCH_ALIASES = textwrap.dedent('''
    import torch
    F = torch.nn.functional
    relu = torch.relu
    from kiln.torch import TensorF32Cpu2D

    def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return F.relu(x) * 2.0

    def g(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return relu(x) + 1.0
''')


def test_torch_aliases_claim(build):
    torch = pytest.importorskip("torch")
    native, plain, fns = build("kiln_alias_torch", TORCH_ALIASES)
    assert ("torch.nn.functional.relu", "claimed") in _sites(fns["f"])
    assert ("torch.relu", "claimed") in _sites(fns["g"])
    assert fns["f"]["import_guards"] == [{"name": "F", "path": "torch.nn.functional"}]
    assert _is_compiled(native, "f") and _is_compiled(native, "g")
    x = torch.tensor([[-1.0, 0.0, -0.0, 2.5, float("inf"), float("-inf")]])
    for fn in ("f", "g"):
        assert torch.equal(getattr(native, fn)(x), getattr(plain, fn)(x))
