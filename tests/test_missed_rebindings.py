"""Module names rebound where kiln's parser used to miss it, so a compiled
function kept using what the name was bound to at build time.

- A `global` statement in code kiln leaves to CPython -- a method of a
  module-level class, a class in a class, a nested def or class in a
  compiled function -- now makes the name one kiln looks up at run time, as
  a `global` in a module-level def always did. Before 2026-12-03, after
  `Switch().off()` ran `global math; math = None`, a compiled `math.sqrt(x)`
  still returned the square root (Python raises AttributeError), and a
  claimed `torch.relu(x)` kept running kiln's kernel.
- A module-level `del math` (also inside `if`, or as `del (math), x.y`)
  unbinds the name as an assignment rebinds it: the compiled `math.sqrt(x)`
  returned the square root where Python raises NameError. So does a
  module-level `with ... as (math, other):` (a parenthesised target).
- A store over a path in a function, a method or a nested def (`math.sqrt
  = g`, `torch.relu = f`; also augmented, `for`/`with` targets, annotated)
  stops kiln resolving that path, as a module-level store did; before, the
  compiled `torch.relu(x)` kept running kiln's relu after a method had
  replaced it. A store through a function's local `import math` counts
  too, and a name bound by `from math import sqrt` is not resolved when
  `math.sqrt` is stored over.

Each module is built with kiln and imported as plain Python too; the
functions are compared before and after the rebinding, and the report must
not resolve the rebound name.
"""

from __future__ import annotations

import textwrap

import pytest

MATH_USER = '''
import math

def f(x: float) -> float:
    return math.sqrt(x)
'''

# name -> (the code that rebinds math, the call that runs it)
REBINDERS = {
    "class_method": ('''
        class Switch:
            def off(self):
                global math
                math = None
        ''', "Switch().off()"),
    "class_method_global_list": ('''
        class Switch:
            def off(self):
                global other, math
                other = 1
                math = None
        ''', "Switch().off()"),
    "class_in_class": ('''
        class Outer:
            class Inner:
                @staticmethod
                def off():
                    global math
                    math = None
        ''', "Outer.Inner.off()"),
    "nested_def_in_compiled": ('''
        def off() -> None:
            def inner() -> None:
                global math
                math = None
            inner()
        ''', "off()"),
    "class_in_compiled": ('''
        def off() -> None:
            class C:
                def m(self):
                    global math
                    math = None
            C().m()
        ''', "off()"),
    "one_line_nested_def": ('''
        def off() -> None:
            def inner() -> None: global math; math = None
            inner()
        ''', "off()"),
    "def_in_if": ('''
        if True:
            def off():
                global math
                math = None
        ''', "off()"),
    "generator_left_as_python": ('''
        def off():
            global math
            math = None
            yield 1
        ''', "list(off())"),
}

# name -> (module-level code after f that unbinds or rebinds math, the
# exception f then raises in Python)
MODULE_LEVEL = {
    "del": ("del math", "NameError"),
    "del_in_if": ("if True:\n    del math", "NameError"),
    "del_parenthesised_with_others": ("other = [1, 2]\ndel other[0], (math), other", "NameError"),
    "del_after_semicolon": ("x = 1; del math", "NameError"),
    "with_tuple_target": ("import contextlib\nwith contextlib.nullcontext((None, 1)) as (math, other):\n    pass",
                          "AttributeError"),
    "with_list_target": ("import contextlib\nwith contextlib.nullcontext((1, None)) as [other, math]:\n    pass",
                         "AttributeError"),
}


@pytest.fixture
def build(build_with_twin):
    """build(stem, source) -> (kiln's module, the plain Python module, the
    report's sites per function as (target, outcome) pairs)."""

    def make(stem, src_text, plain=True):
        native, mod, fns = build_with_twin(stem, src_text, plain)
        return native, mod, {name: [(s["target"], s["outcome"]) for s in fn["sites"]] for name, fn in fns.items()}

    return make


@pytest.fixture
def restore_math():
    """The stores below replace real math attributes: put them back."""
    import math

    saved = dict(vars(math))
    yield lambda: [setattr(math, k, v) for k, v in saved.items()]
    for k, v in saved.items():
        setattr(math, k, v)


# (indented: tests/other_pythons.sh skips files with a torch import at column 0)
TORCH_USER = textwrap.dedent('''
    import torch
    from kiln.torch import TensorF32Cpu2D

    def g(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return torch.relu(x)

    def h(x: TensorF32Cpu2D) -> TensorF32Cpu2D:
        return torch.tanh(x)
''')


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as e:  # noqa: BLE001 -- the oracle compares any exception
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("case", sorted(REBINDERS))
def test_global_in_nested_code_is_seen(case, build):
    code, trigger = REBINDERS[case]
    native, plain, sites = build(f"kiln_gnest_{case}", MATH_USER + textwrap.dedent(code))
    # math may be rebound at run time: `math.sqrt` is not resolved to C
    assert ("math.sqrt", "scalar") not in sites["f"], sites
    for mod in (native, plain):
        assert _outcome(lambda: mod.f(4.0)) == ("ok", 2.0)
        exec(trigger, vars(mod))
        assert mod.math is None
    got = _outcome(lambda: native.f(4.0))
    want = _outcome(lambda: plain.f(4.0))
    assert got == want and want[0] == "AttributeError", (got, want)


def test_global_in_a_class_method_unresolves_torch(build):
    torch = pytest.importorskip("torch")
    native, _, sites = build("kiln_gnest_torch", TORCH_USER + textwrap.dedent('''
        class Switch:
            def use_abs(self):
                global torch
                import types
                torch = types.SimpleNamespace(relu=lambda x: x.abs())
    '''), plain=False)
    assert ("torch.relu", "claimed") not in sites["g"], sites
    x = torch.tensor([[-1.5, 2.0], [0.0, -0.0]])
    assert torch.equal(native.g(x), torch.relu(x))
    native.Switch().use_abs()
    assert torch.equal(native.g(x), x.abs())


@pytest.mark.parametrize("case", sorted(MODULE_LEVEL))
def test_module_level_unbinding_is_seen(case, build):
    code, exc = MODULE_LEVEL[case]
    native, plain, sites = build(f"kiln_mdel_{case}", MATH_USER + "\n" + code + "\n")
    assert ("math.sqrt", "scalar") not in sites["f"], sites
    got = _outcome(lambda: native.f(4.0))
    want = _outcome(lambda: plain.f(4.0))
    assert got == want and want[0] == exc, (got, want)


def test_module_level_del_of_a_path_is_a_store_over_it(build):
    """`del torch.relu` at module level stores over the path (report only:
    running it would delete the attribute from the real torch module)."""
    pytest.importorskip("torch")
    _, _, sites = build("kiln_mdel_attr", TORCH_USER + "\nif False:\n    del torch.relu\n", plain=False)
    assert ("torch.relu", "claimed") not in sites["g"], sites
    assert sites["h"] == [("torch.tanh", "claimed")], sites


# name -> (the function f reading a math path, the code that stores over it,
# the call that runs that code). Each store replaces a real math attribute:
# the test puts it back.
PATH_STORES = {
    "compiled_function": ("return math.sqrt(x)", '''
        def patch() -> None:
            math.sqrt = lambda v: -1.0
        ''', "patch()"),
    "class_method": ("return math.sqrt(x)", '''
        class P:
            def patch(self):
                math.sqrt = lambda v: -1.0
        ''', "P().patch()"),
    "nested_def": ("return math.sqrt(x)", '''
        def patch() -> None:
            def inner() -> None:
                math.sqrt = lambda v: -1.0
            inner()
        ''', "patch()"),
    "tuple_target": ("return math.sqrt(x)", '''
        def patch() -> None:
            a, math.sqrt = 1, (lambda v: -1.0)
        ''', "patch()"),
    "augmented": ("return math.pi * x", '''
        def patch() -> None:
            math.pi += 1.0
        ''', "patch()"),
    "for_target": ("return math.tau * x", '''
        def patch() -> None:
            for math.tau in [5.0]:
                pass
        ''', "patch()"),
    "with_target": ("return math.e * x", '''
        import contextlib
        def patch():
            with contextlib.nullcontext(7.0) as math.e:
                pass
        ''', "patch()"),
    "annotated": ("return math.inf * x", '''
        def patch():
            math.inf: float = 2.0
        ''', "patch()"),
}


def _before_and_after(mods, trigger, restore):
    """f(4.0) before and after running trigger, per module (math restored
    after each, so the next module starts from the real one)."""
    results = []
    for mod in mods:
        before = _outcome(lambda: mod.f(4.0))
        exec(trigger, vars(mod))
        results.append((before, _outcome(lambda: mod.f(4.0))))
        restore()
    return results


@pytest.mark.parametrize("case", sorted(PATH_STORES))
def test_store_over_a_path_in_any_function_is_seen(case, build, restore_math):
    body, code, trigger = PATH_STORES[case]
    src_text = f"import math\n\ndef f(x: float) -> float:\n    {body}\n" + textwrap.dedent(code)
    native, plain, _ = build(f"kiln_pstore_{case}", src_text)
    results = _before_and_after((native, plain), trigger, restore_math)
    assert results[0] == results[1], results
    assert results[1][0] != results[1][1]


def test_store_over_torch_path_in_a_method_is_seen(build):
    torch = pytest.importorskip("torch")
    native, _, sites = build("kiln_pstore_torch", TORCH_USER + textwrap.dedent('''
        class Patch:
            def apply(self, fn):
                torch.relu = fn
    '''), plain=False)
    assert ("torch.relu", "claimed") not in sites["g"], sites
    assert sites["h"] == [("torch.tanh", "claimed")], sites
    x = torch.tensor([[-1.5, 2.0], [0.0, 3.0]])
    relu = torch.relu
    try:
        assert torch.equal(native.g(x), relu(x))
        native.Patch().apply(lambda t: t * 2)
        assert torch.equal(native.g(x), x * 2)
    finally:
        torch.relu = relu


# A store through a function's local import (`import math` in its body):
# kiln resolves such locals to the import's path (2026-12-03 evening), so
# the store must reach that path too.
LOCAL_IMPORT_STORES = {
    "import_in_both": ('''
        def f(x: float) -> float:
            import math
            return math.sqrt(x)

        def patch() -> None:
            import math
            math.sqrt = lambda v: -1.0
        ''', "patch()"),
    "alias_in_patcher": ('''
        def f(x: float) -> float:
            import math
            return math.sqrt(x)

        class P:
            def patch(self):
                import math as m
                m.sqrt = lambda v: -1.0
        ''', "P().patch()"),
    "from_import_module": ('''
        def f(x: float) -> float:
            from math import sqrt
            return sqrt(x)

        def patch() -> None:
            import math
            math.sqrt = lambda v: -1.0
        ''', "patch()"),
}


@pytest.mark.parametrize("case", sorted(LOCAL_IMPORT_STORES))
def test_store_through_a_local_import_is_seen(case, build, restore_math):
    code, trigger = LOCAL_IMPORT_STORES[case]
    native, plain, _ = build(f"kiln_lstore_{case}", textwrap.dedent(code))
    results = _before_and_after((native, plain), trigger, restore_math)
    assert results[0] == results[1] == (("ok", 2.0), ("ok", -1.0)), results


def test_from_import_after_a_module_level_store_takes_the_stored_value(build, restore_math):
    """`math.sqrt = g` then `from math import sqrt`: sqrt is g, so a name
    bound by a from-import is not resolved when its path is stored over."""
    native, _, _ = build("kiln_fstore", textwrap.dedent('''
        import math
        math.sqrt = lambda v: -1.0
        from math import sqrt

        def f(x: float) -> float:
            return sqrt(x)
    '''), plain=False)
    assert native.f(4.0) == -1.0
