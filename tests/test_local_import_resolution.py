"""A framework imported inside the compiled function (`import torch` in its
body, not at module level): the sites through that local resolve as through
a module-level import, so kiln claims them (before 2026-12-03 every such
site ran on the Python fallback: `torch.relu(x)` was a method call on an
object).

A local qualifies where every binding of it is an import of one path and
no path reaches the load unbound (resolve.c, mark_static_path_targets and
resolve_static_paths). Everything else keeps Python's semantics: an import
in one branch (UnboundLocalError on the other), a rebinding that reaches
the use, `del`, a parameter of that name, a lambda reading it, `try: import
... except ImportError: name = None`, a module-level store over the path.
A path assigned to a variable (`F = torch.nn.functional`, in the function
or at module level) stays a receiver, not-covered, as the reference plugins
have it (tests/tf_programs/tf_rejected.py: method_receiver).

Each function is compared with its Python original (tests/oracle.py) on
several shapes and edge values; the report must show which sites are
claimed.
"""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys
import textwrap

import pytest

import kiln

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from oracle import check_equivalent  # noqa: E402

SCALAR_SRC = textwrap.dedent('''
    def local_math(x: float) -> float:
        import math
        from math import floor
        return math.sqrt(x) + floor(x)

    def local_math_alias(x: float, n: int) -> float:
        t = 0.0
        for i in range(n):
            import math as M
            t += M.fabs(x - i)
        return t

    def math_one_branch(x: float, flag: bool) -> float:
        if flag:
            import math
        return math.sqrt(x)
''')


@pytest.fixture(scope="module")
def scalar_built(tmp_path_factory):
    """Scalar code needs no framework: this part runs on every Python."""
    d = tmp_path_factory.mktemp("localimp_scalar")
    src = d / "localimp_scalar_mod.py"
    src.write_text(SCALAR_SRC, encoding="utf-8")
    mod = kiln.build(str(src), out_dir=str(d))
    report = json.loads((d / "localimp_scalar_mod.kiln.json").read_text())
    return mod, {f["name"]: f for f in report["functions"]}


def test_scalar_sites_through_a_local_import(scalar_built):
    f = scalar_built[1]
    outcome = lambda name: sorted((s["target"], s["outcome"]) for s in f[name]["sites"])
    assert outcome("local_math") == [("+", "scalar"), ("math.floor", "scalar"), ("math.sqrt", "scalar")]
    assert ("math.fabs", "scalar") in outcome("local_math_alias")
    assert outcome("math_one_branch") == [("sqrt", "not-covered")]


@pytest.mark.parametrize("x", [4.0, 2.5, 0.0, -0.0, -1.0, 1e15, float("inf"), float("nan")])
def test_scalar_same_as_python(scalar_built, x):
    mod = scalar_built[0]
    check_equivalent(mod, "local_math", x)  # -1.0: ValueError; inf: OverflowError (floor)
    for n in (0, 1, 5):
        check_equivalent(mod, "local_math_alias", x, n)
    for flag in (False, True):
        check_equivalent(mod, "math_one_branch", x, flag)  # False: UnboundLocalError


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")

SRC = textwrap.dedent('''
    from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D

    def bare(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
        import torch
        return torch.relu(x @ w)

    def alias(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
        import torch as T
        return T.sigmoid(T.nn.functional.linear(x, w, b))

    def from_names(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        from torch import relu, tanh as th
        return relu(x) + th(x)

    def submodule_as(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> TensorF32Cpu2D:
        import torch.nn.functional as F
        return F.relu(F.linear(x, w, b))

    def from_submodule(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        from torch.nn import functional as F
        return F.relu(x) * 2.0

    def dotted_import(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        import torch.nn
        return torch.nn.functional.relu(x)

    def twice(x: TensorF32Cpu2D, n: int) -> TensorF32Cpu2D:
        import torch
        y = x
        for _ in range(n):
            import torch
            y = torch.relu(y) + 1.0
        return torch.tanh(y)

    def guarded(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        import torch
        with torch.no_grad():
            y = torch.relu(x)
        return y

    import torch as _torch_mod

    def in_comprehension(x: TensorF32Cpu2D, n: int) -> object:
        import torch
        return [torch.relu(x) * float(i) for i in range(n)]

    # ---- not resolved: Python's semantics decide ----

    def assigned_alias(x: TensorF32Cpu2D, w: TensorF32Cpu2D, b: TensorF32Cpu1D) -> object:
        F = _torch_mod.nn.functional
        return F.relu(x)

    def assigned_in_one_branch(x: TensorF32Cpu2D, flag: bool) -> object:
        if flag:
            F = _torch_mod.nn.functional
        else:
            F = Fake
        return F.relu(x)

    def assigned_builtin(x: TensorF32Cpu2D) -> object:
        f = abs
        return f(x)

    def one_branch(x: TensorF32Cpu2D, flag: bool) -> TensorF32Cpu2D:
        if flag:
            import torch
        return torch.relu(x)

    class Fake:
        @staticmethod
        def relu(x):
            return x * 3.0

    def rebound(x: TensorF32Cpu2D, flag: bool) -> object:
        import torch
        if flag:
            torch = Fake()
        return torch.relu(x)

    def deleted(x: TensorF32Cpu2D) -> object:
        import torch
        y = torch.relu(x)
        del torch
        return torch.relu(y)

    def param_named(x: TensorF32Cpu2D, torch: object = None) -> object:
        if torch is None:
            import torch
        return torch.relu(x)

    def in_lambda(x: TensorF32Cpu2D) -> object:
        import torch
        f = lambda v: torch.relu(v)
        return f(x)

    def try_import(x: TensorF32Cpu2D) -> object:
        try:
            import torch
        except ImportError:
            torch = None
        return torch.relu(x)

    def rebinds_after(x: TensorF32Cpu2D) -> object:
        import torch
        y = torch.relu(x)
        torch = Fake()
        return y, torch.relu(x)
''')

RESOLVED = ["bare", "alias", "from_names", "submodule_as", "from_submodule", "dotted_import", "twice",
            "guarded", "in_comprehension"]
# name -> number of sites through the local that must stay unclaimed
UNRESOLVED = {"one_branch": 1, "rebound": 1, "param_named": 1, "try_import": 1, "assigned_in_one_branch": 1,
              "assigned_alias": 1}


@pytest.fixture(scope="module")
def built(tmp_path_factory, torch):
    d = tmp_path_factory.mktemp("localimp")
    src = d / "localimp_mod.py"
    src.write_text(SRC, encoding="utf-8")
    mod = kiln.build(str(src), out_dir=str(d))
    report = json.loads((d / "localimp_mod.kiln.json").read_text())
    return mod, {f["name"]: f for f in report["functions"]}, d


def edge_inputs(m, k):
    import torch
    g = torch.Generator().manual_seed(m * 131 + k)
    x = torch.randn(m, k, generator=g)
    if x.numel() >= 4:
        flat = x.view(-1)
        flat[0], flat[1], flat[2], flat[3] = float("nan"), float("inf"), -0.0, float("-inf")
    return x


SHAPES = [(1, 1), (3, 5), (8, 64), (17, 33), (0, 4)]


@pytest.mark.parametrize("name", RESOLVED)
def test_resolved_sites_are_claimed(built, name):
    f = built[1][name]
    assert f["status"] == "native"
    assert f["sites"], f
    unclaimed = [s for s in f["sites"] if s["outcome"] not in ("claimed", "scalar")]
    assert not unclaimed, unclaimed
    assert any(s["target"].startswith("torch.") for s in f["sites"]), f["sites"]


@pytest.mark.parametrize("name,count", sorted(UNRESOLVED.items()))
def test_unresolved_stay_python_calls(built, name, count):
    f = built[1][name]
    assert f["status"] == "native"
    relu = [s for s in f["sites"] if s["target"] in ("relu", "torch.relu")]
    assert len(relu) == count, f["sites"]
    assert all(s["outcome"] != "claimed" and s["target"] == "relu" for s in relu), relu


@pytest.mark.parametrize("name", ["rebinds_after", "deleted"])
def test_a_use_before_a_rebinding_is_resolved(built, name):
    """`y = torch.relu(x); torch = Fake()` (or `del torch`): the first use
    sees only the import, the second is Python's."""
    sites = [s for s in built[1][name]["sites"] if s["target"] in ("relu", "torch.relu")]
    assert [(s["target"], s["outcome"] == "claimed") for s in sites] == [("torch.relu", True), ("relu", False)]


def test_guard_is_native(built):
    """`with torch.no_grad():` over a local import is applied by the compiled
    function itself, as over a module-level import (no call of no_grad)."""
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(built[2] / "localimp_mod.py")],
                       capture_output=True, text=True, check=True).stdout
    # guarded's is the module's only `with`: over __enter__/__exit__ it would have none
    assert c.count("grad_guard_enter") == 1


@pytest.mark.parametrize("m,k", SHAPES)
def test_same_as_python(built, torch, m, k):
    mod = built[0]
    x = edge_inputs(m, k)
    g = torch.Generator().manual_seed(7)
    n = 6
    w = torch.randn(k, n, generator=g)
    wt = torch.randn(n, k, generator=g)
    b = torch.randn(n, generator=g)
    atol = 1e-5 * max(1.0, math.sqrt(k))
    check_equivalent(mod, "bare", x, w, atol=atol)
    check_equivalent(mod, "alias", x, wt, b, atol=atol)
    check_equivalent(mod, "submodule_as", x, wt, b, atol=atol)
    check_equivalent(mod, "assigned_alias", x, wt, b)
    check_equivalent(mod, "assigned_builtin", x)
    for name in ("from_names", "from_submodule", "dotted_import", "guarded", "in_lambda", "deleted",
                 "try_import"):
        check_equivalent(mod, name, x)
    for steps in (0, 1, 3):
        check_equivalent(mod, "twice", x, steps)
        check_equivalent(mod, "in_comprehension", x, steps)
    for flag in (False, True):
        check_equivalent(mod, "assigned_in_one_branch", x, flag)
        check_equivalent(mod, "one_branch", x, flag)  # False: UnboundLocalError, as Python
        check_equivalent(mod, "rebound", x, flag)
    check_equivalent(mod, "param_named", x)
    check_equivalent(mod, "param_named", x, kwargs={"torch": mod.Fake})  # the class: deepcopy keeps it
    out = check_equivalent(mod, "rebinds_after", x)
    assert out.native_exc is None


def test_module_level_store_over_the_path_is_respected(tmp_path, torch):
    """A module-level `torch.relu = ...` makes torch.relu dynamic for the
    local import too (kiln check only: nothing runs)."""
    src = tmp_path / "storeover_mod.py"
    src.write_text(textwrap.dedent('''
        import torch
        from kiln.torch import TensorF32Cpu2D
        torch.relu = torch.relu

        def f(x: TensorF32Cpu2D) -> object:
            import torch
            return torch.relu(x) + torch.tanh(x)
    '''), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "kiln", "check", str(src)], check=True, capture_output=True)
    (f,) = json.loads((tmp_path / "storeover_mod.kiln.json").read_text())["functions"]
    by_target = {s["target"]: s["outcome"] == "claimed" for s in f["sites"] if s["kind"] != "binop"}
    assert by_target == {"relu": False, "torch.tanh": True}, f["sites"]


def test_tensorflow_local_import(tmp_path):
    tf = pytest.importorskip("tensorflow")
    src = tmp_path / "tflocal_mod.py"
    src.write_text(textwrap.dedent('''
        from kiln.tensorflow import TensorF32Cpu2D

        def f(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:
            import tensorflow as tf
            return tf.nn.relu(tf.matmul(x, w))
    '''), encoding="utf-8")
    mod = kiln.build(str(src), out_dir=str(tmp_path))
    (f,) = json.loads((tmp_path / "tflocal_mod.kiln.json").read_text())["functions"]
    assert f["sites"] and all(s["outcome"] == "claimed" for s in f["sites"]), f["sites"]
    x = tf.constant([[1.0, -2.0, 0.5], [float("nan"), 3.0, -0.0]])
    w = tf.constant([[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5]])
    got, want = mod.f(x, w).numpy(), mod.__kiln_python__["f"](x, w).numpy()
    assert got.shape == want.shape
    import numpy as np
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)


MODULE_ALIAS = textwrap.dedent('''
    import torch
    from kiln.torch import TensorF32Cpu2D

    F = torch.nn.functional

    def through_alias(x: TensorF32Cpu2D) -> object:
        return F.relu(x)
''')


def test_module_level_alias_is_claimed_under_a_guard(tmp_path, torch):
    """`F = torch.nn.functional` at module level, F's only binding: F.relu is
    claimed as torch.nn.functional.relu (until 2026-12-03 a receiver call,
    not-covered, as in the reference plugins), guarded by F being that
    module once the module has run (tests/test_guarded_imports.py); the
    result is eager's."""
    src = tmp_path / "modalias_mod.py"
    src.write_text(MODULE_ALIAS, encoding="utf-8")
    mod = kiln.build(str(src), out_dir=str(tmp_path))
    (f,) = json.loads((tmp_path / "modalias_mod.kiln.json").read_text())["functions"]
    assert [(s["target"], s["outcome"]) for s in f["sites"]] == [("torch.nn.functional.relu", "claimed")]
    assert f["import_guards"] == [{"name": "F", "path": "torch.nn.functional"}]
    assert mod.through_alias is not mod.__kiln_python__["through_alias"]
    for m, k in SHAPES:
        check_equivalent(mod, "through_alias", edge_inputs(m, k))


def test_the_import_still_runs(built, torch):
    """Claimed sites do not read the local, but the import statement runs as
    in Python: a replaced builtins.__import__ sees what it sees under the
    Python original (the statement's call, once per call)."""
    import builtins
    mod = built[0]
    real = builtins.__import__

    def imports(fns):
        seen = []

        def logging_import(name, globals=None, locals=None, fromlist=(), level=0):
            if globals is not None and globals.get("__name__") == mod.__name__:
                seen.append((name, tuple(fromlist or ())))
            return real(name, globals, locals, fromlist, level)

        x, w = torch.ones(2, 3), torch.ones(3, 4)
        builtins.__import__ = logging_import
        try:
            fns["bare"](x, w)
            fns["bare"](x, w)
            fns["guarded"](x)
            fns["from_names"](x)
        finally:
            builtins.__import__ = real
        return seen

    native = imports({n: getattr(mod, n) for n in ("bare", "guarded", "from_names")})
    assert native == imports(mod.__kiln_python__)
    assert native == [("torch", ()), ("torch", ()), ("torch", ()), ("torch", ("relu", "tanh"))]
