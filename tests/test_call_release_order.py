"""When a call's arguments are released, seen through __del__: CPython 3.11+
drops the callee, then the arguments in order; 3.10 pops the stack, last
argument first, the callee last. kiln does what the running version does
(emit.c call), whether the call returns or raises, for plain calls, method
calls and keywords. Until 2026-12-02 kiln used 3.11's order on 3.10 too.
Each function is compared with its Python original.

Not reproduced (strict xfail, 3.11+): a method call into a Python method
taking *args, whose frame CPython builds by taking the references over
(its *args tuple then drops them last first); kiln's call keeps its own
until the call returns.

Only kiln and the standard library are imported.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

import kiln

SRC = textwrap.dedent(r'''
    import operator

    LOG = []

    class D:
        def __init__(self, tag):
            self.tag = tag
        def __del__(self):
            LOG.append(self.tag)
        def method(self, *a, **k):
            return len(a) + len(k)
        def fixed(self, a, b):
            return 0
        def __format__(self, spec):
            return self.tag
        def __call__(self, *a, **k):
            return 0

    def take(*a, **k):
        return len(a) + len(k)

    def fail(*a, **k):
        raise ValueError("no")

    def plain():
        LOG.clear()
        take(D("a"), D("b"), D("c"))
        return LOG[:]

    def keywords():
        LOG.clear()
        take(D("a"), k=D("k"), j=D("j"))
        return LOG[:]

    def method_call():
        LOG.clear()
        D("self").method(D("a"), D("b"), k=D("k"))
        return LOG[:]

    def fixed_method(self_tag):
        LOG.clear()
        D(self_tag).fixed(D("a"), D("b"))
        return LOG[:]

    def c_method():
        LOG.clear()
        "{}{}".format(D("a"), D("b"))
        "{x}{}".format(D("c"), x=D("x"))
        return LOG[:]

    def c_function():
        LOG.clear()
        operator.eq(D("a"), D("b"))
        return LOG[:]

    def callee_made():
        LOG.clear()
        D("callee")(D("a"), D("b"))
        return LOG[:]

    def raising():
        LOG.clear()
        try:
            fail(D("a"), D("b"), k=D("k"))
        except ValueError:
            LOG.append("caught")
        return LOG[:]

    def nested():
        LOG.clear()
        take(D("a"), take(D("x"), D("y")), D("b"))
        return LOG[:]

    def mixed(n: int):
        LOG.clear()
        take(D("a"), n, D("b"), n * 2.5)
        return LOG[:]
''')

NAMES = ["plain", "keywords", "callee_made", "raising", "nested", "c_method", "c_function"]


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    d = tmp_path_factory.mktemp("callrel")
    (d / "callrel_mod.py").write_text(SRC, encoding="utf-8")
    return kiln.build(str(d / "callrel_mod.py"), out_dir=str(d))


@pytest.mark.parametrize("name", NAMES)
def test_release_order(mod, name):
    want = mod.__kiln_python__[name]()
    got = getattr(mod, name)()
    assert got == want
    assert getattr(mod, name) is not mod.__kiln_python__[name]


def test_fixed_method(mod):
    assert mod.fixed_method("s") == mod.__kiln_python__["fixed_method"]("s")


@pytest.mark.xfail(sys.version_info >= (3, 11), strict=True,
                   reason="3.11+ moves a Python method's *args references into its frame")
def test_method_varargs(mod):
    assert mod.method_call() == mod.__kiln_python__["method_call"]()


def test_release_order_with_scalars(mod):
    assert mod.mixed(3) == mod.__kiln_python__["mixed"](3)
