"""A module-level name a `def` made and later statements rebind keeps the
value Python gives it (the import used to fail with "'str' object has no
attribute '__defaults__'", or kiln installed the compiled def over a newer
value). Each case builds a module with kiln and imports the same source as
plain Python, and compares every name, its calls from compiled functions,
and which functions are compiled."""

from __future__ import annotations

import functools
import importlib.util
import sys
import textwrap

import pytest

try:
    import kiln._compiler  # noqa: F401  (the C compiler extension)
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

import kiln

SOURCES = {
    "to_str": """
        def helper(x):
            return x + 1
        helper = "text"
        def use(x):
            return helper
    """,
    "to_other_function": """
        def other(x):
            return ("other", x)
        def helper(x):
            return ("helper", x)
        helper = other
        def use(x):
            return helper(x)
    """,
    "to_lambda": """
        def helper(x):
            return x + 1
        helper = lambda x: x * 10
        def use(x):
            return helper(x)
    """,
    "wrapped_by_hand": """
        import functools
        def helper(x, k=2):
            return x * k
        helper = functools.partial(helper, k=5)
        def use(x):
            return helper(x)
    """,
    "redefined_in_if": """
        def helper(x):
            return "first"
        if True:
            def helper(x):
                return "second"
        def use(x):
            return helper(x)
    """,
    "match_capture": """
        import sys
        def helper(x):
            return "def"
        match sys.version_info[:1]:
            case (3,) as helper:
                pass
        def use(x):
            return helper
    """,
    "deleted": """
        def helper(x):
            return x
        del helper
        def use(x):
            return "helper" in globals()
    """,
    "rebound_then_restored": """
        def helper(x):
            return x + 1
        saved = helper
        helper = None
        helper = saved
        def use(x):
            return helper(x)
    """,
}


def _plain_import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _describe(mod, name):
    """What a module name holds, the same for kiln's module and Python's: a
    def's function (compiled or not) by the line of its def."""
    v = getattr(mod, name)
    if callable(v) and not hasattr(v, "__code__") and name in getattr(mod, "__kiln_python__", {}):
        v = mod.__kiln_python__[name]  # the compiled function stands for this def
    if hasattr(v, "__code__"):
        return ("function", v.__code__.co_name, v.__code__.co_firstlineno)
    if isinstance(v, functools.partial):
        return ("partial", v.func.__code__.co_firstlineno, v.args, v.keywords)
    return repr(v)


@pytest.mark.parametrize("case", sorted(SOURCES))
def test_rebound_def_name_keeps_its_value(case, tmp_path):
    stem = f"kiln_rebind_{case}"
    src = tmp_path / f"{stem}.py"
    src.write_text(textwrap.dedent(SOURCES[case]))
    py = _plain_import(src, stem + "_py")
    built = kiln.build(src, out_dir=tmp_path / "out")
    try:
        for name in ("helper", "saved"):
            assert hasattr(built, name) == hasattr(py, name), name
            if hasattr(py, name):
                assert _describe(built, name) == _describe(py, name), name
        assert built.use(3) == py.use(3)
        assert not hasattr(built.use, "__code__")  # compiled
    finally:
        sys.modules.pop(stem, None)
