"""The Python API end to end: kiln.build, kiln.compile, KILN_MODE, tracebacks,
the CLI on a real file, and the compiler's own speed."""
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest
import torch

import kiln
from kiln import _compiler

HERE = Path(__file__).parent
PROG = HERE / "api_programs" / "apimod.py"
ROOT = HERE.parent
# First on a subprocess's PYTHONPATH: it imports this checkout's kiln, not an installed one.
ROOT_PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    return kiln.build(PROG, out_dir=tmp_path_factory.mktemp("api"))


def test_drop_in_module(mod):
    assert mod.OFFSET == 7
    assert mod.scaled(4) == sum(i * 3 for i in range(4)) + 7
    assert mod.scaled(4, 2, bias=5) == 12 + 5 + 7
    assert mod.scaled(n=3, k=1) == 3 + 7
    with pytest.raises(TypeError):
        mod.scaled(1, 2, 3)
    with pytest.raises(TypeError, match="'n'"):
        mod.scaled("x")
    # the function left as Python still works, and is the original object
    assert mod.with_lambda(4) == 5
    assert mod.with_lambda is mod.__kiln_python__["with_lambda"]
    assert type(mod.scaled).__name__ == "builtin_function_or_method"
    # kiln.compile inside a built module returns the function unchanged: the
    # module's own compiled version replaces it
    assert mod.decorated(21) == 42


def test_report_written(mod, tmp_path):
    out = tmp_path / "b"
    kiln.build(PROG, out_dir=out)
    report = json.loads((out / "apimod.kiln.json").read_text())
    status = {f["name"]: f for f in report["functions"]}
    assert status["scaled"]["status"] == "native"
    assert status["with_lambda"]["status"] == "python"
    assert "lambda" in status["with_lambda"]["reason"]
    assert {s["outcome"] for s in status["head"]["sites"]} == {"claimed"}
    assert (out / "apimod.kiln.html").exists()


def test_traceback_points_at_py_line(mod):
    with pytest.raises(ZeroDivisionError) as info:
        mod.boom(0)
    frames = traceback.extract_tb(info.tb)
    assert any(f.filename.endswith("apimod.py") and f.lineno == 32 for f in frames), frames


def test_tensor_function_matches_eager(mod):
    x, w, b = torch.randn(5, 6), torch.randn(4, 6), torch.randn(4)
    got = mod.head(x, w, b)
    want = mod.__kiln_python__["head"](x, w, b)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def _run(code, **env):
    full = dict(os.environ, PYTHONPATH=ROOT_PYTHONPATH, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=ROOT)


@pytest.mark.parametrize("mode", ["python", "auto", "native"])
def test_kiln_mode(tmp_path, mode):
    code = f"""
import kiln
m = kiln.build({str(PROG)!r}, out_dir={str(tmp_path)!r})
print(type(m.scaled).__name__, m.scaled(3))
try:
    m.with_lambda(1)
    print("lambda ok")
except RuntimeError as e:
    print("lambda raised", e)
"""
    r = _run(code, KILN_MODE=mode)
    assert r.returncode == 0, r.stderr
    kind, value = r.stdout.split("\n")[0].split()
    assert value == str(0 + 3 + 6 + 7)
    if mode == "python":
        assert kind == "function"
        assert "lambda ok" in r.stdout
    else:
        assert kind == "builtin_function_or_method"
    if mode == "native":
        assert "lambda raised" in r.stdout and "not compiled natively" in r.stdout
    if mode == "auto":
        assert "lambda ok" in r.stdout


def test_bad_kiln_mode(tmp_path):
    r = _run(f"import kiln; kiln.build({str(PROG)!r}, out_dir={str(tmp_path)!r})", KILN_MODE="turbo")
    assert r.returncode != 0 and "KILN_MODE" in r.stderr


def test_kiln_compile_decorator(tmp_path):
    src = tmp_path / "usecomp.py"
    src.write_text(
        "import kiln\n"
        "SCALE = 3\n"
        "@kiln.compile\n"
        "def count(n: int, step: int = 1) -> int:\n"
        "    s = 0\n"
        "    for i in range(0, n, step):\n"
        "        s += i * SCALE\n"
        "    return s\n"
        "@kiln.compile\n"
        "def other(x: float) -> float:\n"
        "    return x * SCALE\n"
        "def nested():\n"
        "    @kiln.compile\n"
        "    def inner(a: int) -> int:\n"
        "        return a\n"
        "    return inner\n"
        "print(type(count).__name__, count(10), count(10, step=3), other(1.5))\n"
        "SCALE = 4\n"
        "print(count(10), type(nested()).__name__)\n"
    )
    env = dict(KILN_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # the second run loads from the cache
        r = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, cwd=ROOT,
                           env=dict(os.environ, PYTHONPATH=ROOT_PYTHONPATH, **env))
        assert r.returncode == 0, r.stderr
        first, second = r.stdout.strip().split("\n")
        assert first == "builtin_function_or_method 135 54 4.5"
        # globals stay live: rebinding SCALE is seen, like Python
        assert second == "180 function"
    assert oct((tmp_path / "cache").stat().st_mode & 0o777) == "0o700"


def test_kiln_compile_native_mode_raises_for_uncompilable(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import kiln\n@kiln.compile\ndef f(x):\n    yield from x\n")
    r = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT_PYTHONPATH, KILN_MODE="native",
                                KILN_CACHE_DIR=str(tmp_path / "c")))
    assert r.returncode != 0 and "yield" in r.stderr


def test_cli_build_check_emit(tmp_path):
    kiln_cli = [sys.executable, "-m", "kiln"]
    r = subprocess.run(kiln_cli + ["build", str(PROG), "-o", str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert any(p.name.startswith("apimod") and p.suffix == ".so" for p in tmp_path.iterdir())
    r = subprocess.run(kiln_cli + ["emit", str(PROG)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "PyInit_apimod" in r.stdout
    r = subprocess.run(kiln_cli + ["build", str(PROG), "-o", str(tmp_path), "--deny-fallback"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1


def test_compiler_is_fast():
    """The compiler proper (analysis + C emission) on the scalar corpus and the
    API module: well under a second per file (measured: a few ms)."""
    files = sorted((HERE / "scalar").glob("*.py")) + [PROG]
    worst = 0.0
    for path in files:
        src = path.read_bytes()
        t0 = time.perf_counter()
        res = _compiler.compile(src, str(path), path.stem, 0)
        worst = max(worst, time.perf_counter() - t0)
        assert res["ok"], res["diagnostics"]
    print(f"slowest compile: {worst * 1e3:.1f} ms")  # measured, not asserted (timing is for make bench)
