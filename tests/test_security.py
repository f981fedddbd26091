"""Security properties.

1. No source text can inject C into the generated module: hostile
   identifiers (unicode, NFKC-equivalent spellings), strings with quotes,
   backslashes, `*/`, `??/` trigraphs, newlines, CR, NULs, line/paragraph
   separators, comments that end in a backslash or a trigraph, and file
   names with quotes, spaces and `*/`. The hostile modules must build with
   the system cc (trigraphs are on under -std=c11), behave exactly like the
   Python source, and the hostile text may appear in the C only escaped.
2. The cache never loads a file it did not write for this user: wrong mode
   bits, a hash mismatch, a symlink swap, a symlinked cache directory.
   (tests/test_package.py covers lookup() itself; these go end to end
   through kiln.compile in a fresh process.)
3. `kiln build`, `kiln check` and `kiln emit` never execute user code.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap
import unicodedata

import pytest

try:
    import kiln._compiler  # noqa: F401
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

import kiln

ROOT = pathlib.Path(__file__).resolve().parent.parent
# First on a subprocess's PYTHONPATH: it imports this checkout's kiln, not an installed one.
ROOT_PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

# Every payload, if it ever reached the C unescaped, would break the build
# or change behaviour; KILN_PWNED must never appear in the C as code.
HOSTILE = textwrap.dedent(r'''
    """Docstring */ #include <stdlib.h>
    static int KILN_PWNED_doc = 1; /* ??/
    \
    """
    # comment */ int KILN_PWNED_c1 = 1; /*
    # comment ends in a backslash \
    # comment ends in a trigraph ??/
    # comment with a NUL-looking \0 and ??= ??( ??) ??< ??> ??! ??' ??-


    def quotes(x: int) -> str:
        s = "a\"b'c\\d*/e/*f??/g??=h\n\r\t\x00\x01\x7f\u2028\u2029\U0001f600"  # */ ??/
        t = 'KILN_PWNED"); abort(); ("'
        u = """multi
    line */ KILN_PWNED_m(); /* ??/
    """
        if x > 0:  # ??/
            return s + t
        return u


    def backslash_line(x: int) -> int:
        y = x + \
            1  # the continuation above must not splice a C comment
        return y * 2 # ??/


    def ñame_λ(x: int, 名前: int) -> int:
        値 = x + 名前  # already NFKC: compiled
        return 値 * 3


    def bytes_lit(x: int) -> bytes:
        b = b"\x00*/\\??/\"\n"
        return b * x


    def raises_hostile(x: int) -> int:
        if x:
            raise ValueError("*/ KILN_PWNED(); /* ??/ \\ \" \n")
        return x


    def kiln_emitted_names(_kiln_tmp: int, PyObject: int, goto: int, error: int, NULL: int,
                           int64_t: int, self: int, args: int, main: int, __kiln: int) -> int:
        _kiln_tmp0 = _kiln_tmp + PyObject + goto + error + NULL
        return _kiln_tmp0 + int64_t + self + args + main + __kiln
''')

CASES = {
    "quotes": [(1,), (0,)],
    "backslash_line": [(4,)],
    "ñame_λ": [(2, 3)],
    "bytes_lit": [(2,)],
    "raises_hostile": [(0,), (1,)],
    "kiln_emitted_names": [tuple(range(10))],
}


def _outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001
        return ("exc", type(e), str(e))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    # directory names with quotes, spaces, a backslash; the full path holds
    # a comment end "*/" and a trigraph "??/"
    d = tmp_path_factory.mktemp("sec") / 'a "q" \'s\' \\ *' / 'b ??'
    d.mkdir(parents=True)
    assert "*/" in str(d) and "??/" in str(d / "x")
    src = d / "khostile.py"
    src.write_text(HOSTILE, encoding="utf-8")
    c = subprocess.run([sys.executable, "-m", "kiln", "emit", str(src)], capture_output=True,
                       cwd=str(d), env=dict(os.environ, PYTHONPATH=ROOT_PYTHONPATH))
    assert c.returncode == 0, c.stderr.decode()
    mod = kiln.build(str(src), out_dir=str(d))
    report = json.loads((d / "khostile.kiln.json").read_text())
    return mod, c.stdout.decode("utf-8"), report, src


def test_hostile_module_builds_and_behaves(hostile):
    mod, _, report, _ = hostile
    status = {f["name"]: f["status"] for f in report["functions"]}
    for name, cases in CASES.items():
        nfkc = unicodedata.normalize("NFKC", name)  # the name Python binds
        native = getattr(mod, nfkc)
        py = mod.__kiln_python__.get(nfkc) or mod.__kiln_python__[name]
        for args in cases:
            assert _outcome(native, args) == _outcome(py, args), (name, args)
    # the interesting ones really are native
    assert status.get("quotes") == "native" and status.get("backslash_line") == "native"


NFKC_SRC = textwrap.dedent('''
    def plain(x: int) -> int:
        return x + 1


    def body_only(x: int) -> int:
        ｘｘ = x + 1  # fullwidth: Python reads "xx"
        return xx * 3


    def ligature(x: int) -> int:
        ﬁ = x + 1  # U+FB01: Python reads "fi"
        return fi
''')


def test_nfkc_identifiers(tmp_path):
    """Python normalizes identifiers (NFKC, PEP 3131): kiln does not, so a
    function using a name NFKC would change stays Python, with the reason;
    a module-scope one (a def name, a global) leaves every function Python."""
    (tmp_path / "knfkc.py").write_text(NFKC_SRC, encoding="utf-8")
    mod = kiln.build(str(tmp_path / "knfkc.py"), out_dir=str(tmp_path))
    report = json.loads((tmp_path / "knfkc.kiln.json").read_text())
    status = {f["name"]: f for f in report["functions"]}
    assert status["plain"]["status"] == "native"
    for name in ("body_only", "ligature"):
        assert status[name]["status"] == "python" and "NFKC" in status[name]["reason"], status[name]
    assert mod.body_only(2) == 9 and mod.ligature(5) == 6
    src2 = NFKC_SRC + "\n\ndef ﬁle(x: int) -> int:\n    return x\n"
    (tmp_path / "knfkc2.py").write_text(src2, encoding="utf-8")
    mod2 = kiln.build(str(tmp_path / "knfkc2.py"), out_dir=str(tmp_path))
    report2 = json.loads((tmp_path / "knfkc2.kiln.json").read_text())
    assert all(f["status"] == "python" for f in report2["functions"])
    assert mod2.file(4) == 4 and mod2.plain(1) == 2


def _code_only(c: str) -> str:
    """The C with string literals and comments removed (a tiny C lexer)."""
    out, i, n = [], 0, len(c)
    while i < n:
        if c.startswith("//", i):
            j = c.find("\n", i)
            i = n if j < 0 else j
        elif c.startswith("/*", i):
            j = c.find("*/", i + 2)
            assert j >= 0, "unterminated comment"
            i = j + 2
        elif c[i] in "\"'":
            q, j = c[i], i + 1
            while c[j] != q:
                assert c[j] != "\n", "newline in a C literal"
                j += 2 if c[j] == "\\" else 1
            out.append(q + q)
            i = j + 1
        else:
            out.append(c[i])
            i += 1
    return "".join(out)


def test_hostile_text_only_escaped_in_c(hostile):
    _, c, _, _ = hostile
    # no trigraph survives anywhere (they are replaced even inside literals and comments)
    assert not re.search(r"\?\?[=/'()!<>\-]", c), "a trigraph reached the C"
    # no backslash-newline line splice anywhere
    assert "\\\n" not in c and "\\\r" not in c
    # no raw control characters or separators
    assert not re.search("[\x00\x01\x7f\r\u2028\u2029]", c)
    code = _code_only(c)
    assert "KILN_PWNED" not in code, "hostile text escaped its literal/comment"
    assert "abort()" not in code and "#include <stdlib.h>" not in c.replace("#include <stdlib.h>\n", "", 1)


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="no C compiler")
def test_hostile_c_compiles_warning_free_with_trigraphs(hostile, tmp_path):
    import sysconfig
    _, c, _, _ = hostile
    f = tmp_path / "h.c"
    f.write_text(c, encoding="utf-8")
    proc = subprocess.run([os.environ.get("CC", "cc"), "-fsyntax-only", "-std=c11", "-trigraphs", "-Wall",
                           "-Wextra", "-Werror", "-Wtrigraphs", "-Wcomment",
                           f"-I{sysconfig.get_paths()['include']}", f"-I{kiln.get_include()}", str(f)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:3000]


def test_hostile_filename_in_tracebacks(hostile):
    mod, _, _, src = hostile
    with pytest.raises(ValueError) as info:
        mod.raises_hostile(1)
    import traceback
    files = [f.filename for f in traceback.extract_tb(info.value.__traceback__)]
    assert str(src) in files, files


# ---- the cache ---------------------------------------------------------------

CACHE_PROG = textwrap.dedent('''\
    import os, sys, json
    sys.path.insert(0, sys.argv[1])
    import kiln
    import {mod} as m
    f = kiln.compile(m.f)
    print(json.dumps({{"native": type(f).__name__ != "function", "value": f(20)}}))
''')


def _run_cache(tmp: pathlib.Path, cache: pathlib.Path, mod: str, expect_ok: bool = True):
    env = dict(os.environ, KILN_CACHE_DIR=str(cache), KILN_MODE="auto", PYTHONPATH=ROOT_PYTHONPATH)
    proc = subprocess.run([sys.executable, "-c", CACHE_PROG.format(mod=mod), str(tmp)],
                          capture_output=True, text=True, env=env, timeout=300)
    if expect_ok:
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])
    return proc


def _entries(cache: pathlib.Path):
    from kiln import _cache
    return sorted(p for p in cache.iterdir() if p.name.endswith(_cache.ext_suffix()))


@pytest.fixture(scope="module")
def cache_setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cachesec")
    (tmp / "kgood.py").write_text("def f(x: int) -> int:\n    return x + 1\n")
    (tmp / "kevil.py").write_text("def f(x: int) -> int:\n    return x * 1000\n")
    cache = tmp / "cache"
    assert _run_cache(tmp, cache, "kgood") == {"native": True, "value": 21}
    assert _run_cache(tmp, cache, "kevil") == {"native": True, "value": 20000}
    good, evil = None, None
    for so in _entries(cache):
        meta = json.loads(so.with_name(so.name.split(".")[0] + ".json").read_text())
        if meta["source"].endswith("kgood.py"):
            good = so
        else:
            evil = so
    assert good and evil
    return tmp, cache, good, evil


def _fresh(cache_setup, tmp_path):
    tmp, cache, good, evil = cache_setup
    c = tmp_path / "cache"
    shutil.copytree(cache, c, symlinks=True)
    os.chmod(c, 0o700)
    return tmp, c, c / good.name, c / evil.name


def test_cache_hit_is_loaded(cache_setup, tmp_path):
    tmp, c, good, _ = _fresh(cache_setup, tmp_path)
    before = good.stat().st_mtime_ns
    assert _run_cache(tmp, c, "kgood") == {"native": True, "value": 21}
    assert good.stat().st_mtime_ns == before  # not rebuilt


def test_cache_hash_mismatch_is_rebuilt(cache_setup, tmp_path):
    tmp, c, good, evil = _fresh(cache_setup, tmp_path)
    shutil.copyfile(evil, good)  # a real, loadable module: the wrong one
    os.chmod(good, 0o700)
    assert _run_cache(tmp, c, "kgood") == {"native": True, "value": 21}


def test_cache_group_writable_is_rebuilt(cache_setup, tmp_path):
    tmp, c, good, evil = _fresh(cache_setup, tmp_path)
    meta = good.with_name(good.name.split(".")[0] + ".json")
    m = json.loads(meta.read_text())
    shutil.copyfile(evil, good)
    m["sha256"] = __import__("hashlib").sha256(good.read_bytes()).hexdigest()  # hash fixed up too
    meta.write_text(json.dumps(m))
    os.chmod(good, 0o720)
    assert _run_cache(tmp, c, "kgood") == {"native": True, "value": 21}
    # world-writable sidecar: same
    tmp, c, good, evil = _fresh(cache_setup, tmp_path / "2")
    os.chmod(good.with_name(good.name.split(".")[0] + ".json"), 0o606)
    shutil.copyfile(evil, good)
    assert _run_cache(tmp, c, "kgood") == {"native": True, "value": 21}


def test_cache_symlink_swap_is_rebuilt(cache_setup, tmp_path):
    tmp, c, good, evil = _fresh(cache_setup, tmp_path)
    outside = tmp_path / "outside.so"
    shutil.copyfile(evil, outside)
    meta = good.with_name(good.name.split(".")[0] + ".json")
    m = json.loads(meta.read_text())
    m["sha256"] = __import__("hashlib").sha256(outside.read_bytes()).hexdigest()
    meta.write_text(json.dumps(m))
    good.unlink()
    good.symlink_to(outside)
    assert _run_cache(tmp, c, "kgood") == {"native": True, "value": 21}
    assert not good.is_symlink()  # replaced by a fresh build


def test_cache_directory_symlink_is_refused(cache_setup, tmp_path):
    tmp, c, _, _ = _fresh(cache_setup, tmp_path)
    link = tmp_path / "link"
    link.symlink_to(c)
    r = _run_cache(tmp, link, "kgood")
    # refused: the function stays Python (auto mode) and still computes the right value
    assert r == {"native": False, "value": 21}


def test_cache_directory_is_private(cache_setup, tmp_path):
    tmp, c, _, _ = _fresh(cache_setup, tmp_path)
    os.chmod(c, 0o777)
    assert _run_cache(tmp, c, "kgood")["value"] == 21
    assert c.stat().st_mode & 0o777 == 0o700
    for p in c.iterdir():
        assert not p.stat().st_mode & 0o022, p


# ---- build / check / emit never execute user code ---------------------------

def test_cli_never_executes_user_code(tmp_path):
    marker = tmp_path / "MARKER"
    src = tmp_path / "kmarker.py"
    src.write_text(textwrap.dedent(f'''\
        import pathlib
        pathlib.Path({str(marker)!r}).write_text("ran")
        open({str(marker)!r} + ".2", "w").close()
        raise SystemExit("user code ran")


        def f(x: int) -> int:
            return x + 1
    '''))
    env = dict(os.environ, PYTHONPATH=ROOT_PYTHONPATH)
    for cmd in (["check", str(src)], ["emit", str(src)], ["build", str(src), "-o", str(tmp_path)],
                ["check", "--json", str(src)] if False else ["check", str(src)]):
        proc = subprocess.run([sys.executable, "-m", "kiln", *cmd], capture_output=True, text=True, env=env,
                              timeout=300)
        assert proc.returncode == 0, (cmd, proc.stderr[-2000:])
        assert not marker.exists() and not pathlib.Path(str(marker) + ".2").exists(), cmd
    # the built module exists; importing it *is* running user code (the drop-in contract)
    assert list(tmp_path.glob("kmarker*.so"))


def test_build_api_import_is_the_only_execution(tmp_path):
    """kiln.build returns the module, so it imports it: the top level runs
    exactly once, then (not during analysis or C compilation)."""
    marker = tmp_path / "count"
    src = tmp_path / "kcount.py"
    src.write_text(f"with open({str(marker)!r}, 'a') as fh:\n    fh.write('x')\n\n\n"
                   "def f(x: int) -> int:\n    return x\n")
    mod = kiln.build(str(src), out_dir=str(tmp_path))
    assert mod.f(3) == 3
    assert marker.read_text() == "x"
