"""Lone surrogates in str literals (`"\\ud800"`, `"\\U0000dc80"`): valid
Python (a str may hold them; only encoding it strictly fails), so kiln
compiles them. Until 2026-12-02 they failed the whole build with KILN001.
kiln keeps a literal's text as UTF-8 with each surrogate encoded as if it
were a character, and the module decodes its strings with "surrogatepass".
Every function is compared with its Python original on the running version
and must be reported native.

Only kiln and the standard library are imported.
"""

from __future__ import annotations

import json
import pathlib
import textwrap

import pytest

import kiln

SRC = textwrap.dedent(r'''
    def lone():
        return "\ud800", "a\udc80b", "\U0000dfff", "\udbff\udfff"

    def adjacent():
        s = "\ud83d" "\ude00"          # two surrogates, not one character
        return s, len(s), [hex(ord(c)) for c in s]

    def measured():
        return len("x\ud800y"), "\ud800" in "ab\ud800", "\ud800".isprintable()

    def compared(s: str):
        return s == "\ud800", s == "\udc80"

    def encoded(s: str):
        try:
            return s.encode("utf-8")
        except UnicodeEncodeError as e:
            return type(e).__name__, e.reason, e.start, e.end

    def passed(s: str):
        return (s + "\udc80").encode("utf-8", "surrogatepass")

    def formatted(x: int):
        return f"\ud800{x}\udfff", f"{x!r:\ud800>5}"

    def keyed(k):
        return {"\ud800": 1, "\udc00": 2}.get(k, 0)

    def matched(s):
        match s:
            case "\ud800":
                return 1
            case "\udc80" | "\udcff":
                return 2
            case _:
                return 3

    def raw_and_bytes():
        return r"\ud800", "\\ud800", rb"\ud800"

    def constant_tuple():
        return ("\ud800", "\udc80", 1)
''')

NAMES = ["lone", "adjacent", "measured", "compared", "encoded", "passed", "formatted", "keyed",
         "matched", "raw_and_bytes", "constant_tuple"]


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    d = tmp_path_factory.mktemp("surrogates")
    (d / "surrogate_mod.py").write_text(SRC, encoding="utf-8")
    return kiln.build(str(d / "surrogate_mod.py"), out_dir=str(d))


ARGS = {
    "compared": [("\ud800",), ("\udc80",), ("x",), ("",)],
    "encoded": [("\ud800",), ("ok",), ("a\udfffb",)],
    "passed": [("\ud800",), ("",)],
    "formatted": [(0,), (-12,)],
    "keyed": [("\ud800",), ("\udc00",), ("\ud801",), (None,)],
    "matched": [("\ud800",), ("\udcff",), ("\udc80",), ("x",), (1,)],
}


@pytest.mark.parametrize("name,args", [pytest.param(n, a, id=f"{n}-{i}")
                                       for n in NAMES for i, a in enumerate(ARGS.get(n, [()]))])
def test_same_as_python(mod, name, args):
    want = mod.__kiln_python__[name](*args)
    got = getattr(mod, name)(*args)
    assert type(got) is type(want) and got == want, (got, want)


def test_all_native(mod):
    report = json.loads(pathlib.Path(mod.__file__).with_name("surrogate_mod.kiln.json")
                        .read_text(encoding="utf-8"))
    status = {f["name"]: f["status"] for f in report["functions"]}
    for name in NAMES:
        assert status[name] == "native", (name, status)
        assert getattr(mod, name) is not mod.__kiln_python__[name], name
