"""The classifier of `make test-lsan` (tests/lsan/lsan_check.py) on synthetic
LeakSanitizer logs: a leak is third-party only when every frame of its
allocation stack is in a listed third-party library, so a kiln frame between
libpython frames is never hidden, and anything it cannot read fails closed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUPP = ROOT / "tests" / "lsan" / "lsan.supp"

_spec = importlib.util.spec_from_file_location("lsan_check", ROOT / "tests" / "lsan" / "lsan_check.py")
assert _spec and _spec.loader
lsan_check = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("lsan_check", lsan_check)  # dataclasses look their module up
_spec.loader.exec_module(lsan_check)

ASAN = "/usr/lib/gcc/x86_64-linux-gnu/12/libasan.so"
PY = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"
TORCH = "/work/main/.venv/lib/python3.11/site-packages/torch/lib/libtorch_python.so"
RUNTIME = "/work/main/build/lsan-tree/kiln/_runtime.cpython-311-x86_64-linux-gnu.so"
GENERATED = "/tmp/pytest-of-root/pytest-3/api0/apimod.cpython-311-x86_64-linux-gnu.so"


def frame(n: int, func: str, module: str, loc: str = "x.c:1") -> str:
    return f"    #{n} 0x7f00000{n:04x} in {func} {loc} {{{module}+0x{n:x}0}}"


def report(kind: str, frames: list[str], nbytes: int = 24) -> str:
    return "\n".join([f"{kind} leak of {nbytes} byte(s) in 1 object(s) allocated from:",
                      frame(0, "__interceptor_malloc", ASAN), *frames, ""])


def log(*reports: str) -> str:
    return ("\n=================================================================\n"
            "==python==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
            + "\n".join(reports)
            + "\nSUMMARY: AddressSanitizer: 48 byte(s) leaked in 2 allocation(s).\n")


def run(tmp_path: Path, text: str, *extra: str, supp: Path = SUPP) -> tuple[int, dict]:
    d = tmp_path / "logs"
    d.mkdir(exist_ok=True)
    (d / "lsan.python.1").write_text(text)
    out = tmp_path / "fig.json"
    rc = lsan_check.main(["--supp", str(supp), "--json", str(out), *extra, str(d)])
    return rc, json.loads(out.read_text())


THIRD_PARTY = report("Direct", [frame(1, "PyFloat_FromDouble", PY),
                                 frame(2, "THPVariable_pynew", TORCH),
                                 frame(3, "_PyEval_EvalFrameDefault", PY)])


def test_third_party_only_stack_passes(tmp_path: Path) -> None:
    rc, fig = run(tmp_path, log(THIRD_PARTY))
    assert rc == 0
    assert fig["reports"] == 1 and fig["third_party"] == 1 and fig["kiln_attributed"] == 0


@pytest.mark.parametrize("module", [RUNTIME, GENERATED, "/work/main/build/lsan-tree/kilnc",
                                    "/opt/unknown/libmystery.so"])
def test_a_kiln_or_unknown_frame_between_libpython_frames_fails(tmp_path: Path, module: str,
                                                                 capsys) -> None:
    leak = report("Direct", [frame(1, "PyList_New", PY), frame(2, "kr_something", module),
                               frame(3, "_PyEval_EvalFrameDefault", PY)])
    rc, fig = run(tmp_path, log(THIRD_PARTY, leak))
    assert rc == 1
    assert fig["third_party"] == 1 and fig["kiln_attributed"] == 1
    assert "kr_something" in capsys.readouterr().err


def test_frame_without_module_fails_closed(tmp_path: Path) -> None:
    leak = report("Direct", [frame(1, "PyList_New", PY),
                             "    #2 0x7f0000001234  {<unknown module>}",
                             frame(3, "_PyEval_EvalFrameDefault", PY)])
    assert run(tmp_path, log(leak))[0] == 1


def test_unparsable_frame_fails_closed(tmp_path: Path) -> None:
    leak = report("Direct", [frame(1, "PyList_New", PY), "    #2 something unexpected",
                             frame(3, "_PyEval_EvalFrameDefault", PY)])
    assert run(tmp_path, log(leak))[0] == 1


def test_stack_of_only_the_sanitizer_runtime_fails_closed(tmp_path: Path) -> None:
    assert run(tmp_path, log(report("Direct", [])))[0] == 1


def test_unsymbolized_system_program_is_third_party(tmp_path: Path) -> None:
    leak = "\n".join(["Direct leak of 1 byte(s) in 1 object(s) allocated from:",
                      frame(0, "__interceptor_malloc", ASAN),
                      "    #1 0x565232c07223  (/usr/bin/sed+0x16223) {/usr/bin/sed+0x16223}",
                      "    #2 0x7f15ce045249 in __libc_start_call_main ../sysdeps/nptl/x.h:58 "
                      "{/lib/x86_64-linux-gnu/libc.so.6+0x27249}", ""])
    rc, fig = run(tmp_path, log(leak))
    assert rc == 0 and fig["third_party"] == 1


def test_other_sanitizer_errors_fail(tmp_path: Path) -> None:
    text = "==python==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n"
    rc, fig = run(tmp_path, text)
    assert rc == 1 and fig["sanitizer_errors"] == 1


def test_kiln_singleton_is_exact_and_only_for_its_function(tmp_path: Path) -> None:
    supp = tmp_path / "s.supp"
    supp.write_text(SUPP.read_text() + "\n# [kiln-singletons]\nleak:kr_lifetime_table\n")
    ok = report("Direct", [frame(1, "PyDict_New", PY), frame(2, "kr_lifetime_table", RUNTIME),
                           frame(3, "_PyEval_EvalFrameDefault", PY)])
    rc, fig = run(tmp_path, log(ok), supp=supp)
    assert rc == 0 and fig["kiln_singleton"] == 1
    other = report("Direct", [frame(1, "PyDict_New", PY), frame(2, "kr_lifetime_table_2", RUNTIME)])
    assert run(tmp_path, log(other), supp=supp)[0] == 1


def test_canary_mode(tmp_path: Path) -> None:
    leak = report("Direct", [frame(1, "PyFloat_FromDouble", PY),
                             frame(2, "canary_leak_float", "/x/kiln_lsan_canary.so")])
    assert run(tmp_path, log(leak), "--expect-kiln", "canary_leak_float")[0] == 0
    assert run(tmp_path, log(THIRD_PARTY), "--expect-kiln", "canary_leak_float")[0] == 1


def test_suppressions_file_entries_never_match_kiln_paths() -> None:
    supp = lsan_check.Suppressions.load(str(SUPP))
    assert supp.third_party, "no third-party libraries listed"
    kiln_paths = [RUNTIME, GENERATED, "/work/main/kiln/_compiler.cpython-311-x86_64-linux-gnu.so",
                  "/work/main/build/lsan-tree/kilnc", "/work/main/build/test_kernels",
                  "/tmp/kiln-cache/5ff264eb.cpython-311-x86_64-linux-gnu.so",
                  "/tmp/pytest-of-root/pytest-1/kk0/libkiln_kernels.so"]
    for t in supp.third_party:
        assert "/" in t, f"third-party entries are library paths, not functions: {t!r}"
        for p in kiln_paths:
            assert not lsan_check.template_match(t, p), (t, p)
    for t in (PY, TORCH, "/lib/x86_64-linux-gnu/libc.so.6"):
        assert any(lsan_check.template_match(e, t) for e in supp.third_party), t


def test_template_matching_is_lsans() -> None:
    m = lsan_check.template_match
    assert m("libpython3.11.so", PY)
    assert m("^/lib/x86_64-linux-gnu/", "/lib/x86_64-linux-gnu/libc.so.6")
    assert not m("^/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/libc.so.6")
    assert m("/bin/python3.11$", "/root/.pyenv/versions/3.11.7/bin/python3.11")
    assert not m("/bin/python3.11$", "/root/.pyenv/versions/3.11.7/bin/python3.11-x")
    assert m("/site-packages/*/lib/", TORCH)


def test_allocation_inside_an_import_belongs_to_that_import(tmp_path: Path) -> None:
    # a generated module runs the original source at import: its `import torch`
    # runs all of torch's import below kiln's frames
    leak = report("Direct", [frame(1, "PyFunction_NewWithQualName", PY),
                             frame(2, "_PyEval_EvalFrameDefault", PY),
                             frame(3, "import_find_and_load", PY),
                             frame(4, "_PyEval_EvalFrameDefault", PY),
                             frame(5, "kr_module_init", RUNTIME),
                             frame(6, "PyInit_apimod", GENERATED)])
    rc, fig = run(tmp_path, log(leak))
    assert rc == 0 and fig["third_party"] == 1
    assert fig["third_party_stack_cut_at_depth_limit"] == 0  # the import ends what matters


def test_kiln_frame_inside_an_import_is_still_kiln(tmp_path: Path) -> None:
    # kiln code run while some module is being imported, leaking what it made
    leak = report("Direct", [frame(1, "PyFloat_FromDouble", PY), frame(2, "kf_0", GENERATED),
                             frame(3, "_PyEval_EvalFrameDefault", PY),
                             frame(4, "PyImport_ImportModuleLevelObject", PY)])
    assert run(tmp_path, log(leak))[0] == 1


def test_stacks_cut_at_the_depth_limit_are_counted(tmp_path: Path) -> None:
    rc, fig = run(tmp_path, log(THIRD_PARTY))
    assert fig["third_party_stack_cut_at_depth_limit"] == 1
    whole = report("Direct", [frame(1, "PyFloat_FromDouble", PY),
                              frame(2, "start_thread", "/lib/x86_64-linux-gnu/libc.so.6")])
    rc, fig = run(tmp_path, log(whole))
    assert fig["third_party_stack_cut_at_depth_limit"] == 0


TFPYWRAP = "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/_pywrap_tfe.so"
CTX_OPTIONS = ("pybind11::detail::argument_loader<TFE_ContextOptions const*>::call<pybind11::object, "
               "pybind11::detail::void_type, pybind11_init__pywrap_tfe(pybind11::module_&)::$_8&>")


def kiln_leak(kind: str, func: str = "kr_something") -> str:
    return report(kind, [frame(1, "PyTuple_New", PY), frame(2, "_PyEval_EvalFrameDefault", PY),
                         frame(3, func, GENERATED), frame(4, "_PyEval_EvalFrameDefault", PY)])


def test_indirect_leak_held_only_by_third_party_leaks_passes(tmp_path: Path) -> None:
    # TensorFlow caches a TensorShape on an input tensor inside kiln's call;
    # the tensor itself leaks at exit from third-party code
    rc, fig = run(tmp_path, log(THIRD_PARTY, kiln_leak("Indirect")))
    assert rc == 0
    assert fig["held_by_third_party"] == 1 and fig["kiln_attributed"] == 0


def test_indirect_leak_in_a_process_with_a_kiln_direct_leak_fails(tmp_path: Path) -> None:
    rc, fig = run(tmp_path, log(kiln_leak("Direct", "kf_0"), kiln_leak("Indirect")))
    assert rc == 1
    assert fig["kiln_attributed"] == 2 and fig["held_by_third_party"] == 0


def test_held_by_third_party_is_judged_per_process(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "lsan.python.1").write_text(log(kiln_leak("Direct", "kf_0")))
    (d / "lsan.python.2").write_text(log(kiln_leak("Indirect")))
    out = tmp_path / "fig.json"
    assert lsan_check.main(["--supp", str(SUPP), "--json", str(out), str(d)]) == 1
    fig = json.loads(out.read_text())
    assert fig["kiln_attributed"] == 1 and fig["held_by_third_party"] == 1


def test_listed_third_party_setup_is_a_boundary(tmp_path: Path) -> None:
    # TF's first eager context, triggered by the TF bridge's self-test
    leak = report("Direct", [frame(1, "_PyObject_New", PY), frame(2, "PyCapsule_New", PY),
                             frame(3, CTX_OPTIONS, TFPYWRAP),
                             frame(4, "_PyEval_EvalFrameDefault", PY),
                             frame(5, "init_fast", RUNTIME), frame(6, "kr_tf_path", RUNTIME)])
    rc, fig = run(tmp_path, log(leak))
    assert rc == 0 and fig["third_party"] == 1


def test_kiln_frame_inside_a_setup_boundary_is_still_kiln(tmp_path: Path) -> None:
    leak = report("Direct", [frame(1, "PyFloat_FromDouble", PY), frame(2, "kf_0", GENERATED),
                             frame(3, CTX_OPTIONS, TFPYWRAP)])
    assert run(tmp_path, log(leak))[0] == 1


def test_setup_name_outside_third_party_code_is_no_boundary(tmp_path: Path) -> None:
    leak = report("Direct", [frame(1, "PyFloat_FromDouble", PY),
                             frame(2, CTX_OPTIONS, GENERATED),
                             frame(3, "_PyEval_EvalFrameDefault", PY)])
    assert run(tmp_path, log(leak))[0] == 1
