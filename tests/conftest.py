"""Shared pytest setup.

KILN_TEST_TIMEOUT_SCALE (set by `make test-lsan`, where every process runs
10-30x slower: ASan, CPython's allocations all tracked, each with its full
allocation stack) multiplies the timeouts tests pass to subprocess.run, so a
slow subprocess is not mistaken for a hung one. Unset (`make test`), nothing
changes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

_SCALE = float(os.environ.get("KILN_TEST_TIMEOUT_SCALE") or 1)

if _SCALE != 1:
    _run = subprocess.run

    def _run_scaled(*args, timeout=None, **kwargs):  # type: ignore[no-untyped-def]
        return _run(*args, timeout=None if timeout is None else timeout * _SCALE, **kwargs)

    subprocess.run = _run_scaled  # type: ignore[assignment]


@pytest.fixture
def build_with_twin(tmp_path):
    """build_with_twin(stem, source, plain=True) -> (the module kiln.build
    makes, the same source imported as plain Python (None if not plain), the
    JSON report's functions by name). Removes the plain modules from
    sys.modules afterwards."""
    import kiln

    loaded = []

    def make(stem, src_text, plain=True):
        src = tmp_path / f"{stem}.py"
        src.write_text(src_text, encoding="utf-8")
        native = kiln.build(str(src), out_dir=str(tmp_path / "out"))
        report = json.loads((tmp_path / "out" / f"{stem}.kiln.json").read_text())
        fns = {fn["name"]: fn for fn in report["functions"]}
        if not plain:
            return native, None, fns
        py = tmp_path / "py" / f"{stem}_py.py"
        py.parent.mkdir(exist_ok=True)
        py.write_text(src_text, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"{stem}_py", py)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        loaded.append(spec.name)
        spec.loader.exec_module(mod)
        return native, mod, fns

    yield make
    for name in loaded:
        sys.modules.pop(name, None)
