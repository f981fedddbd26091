"""Shared pytest setup.

KILN_TEST_TIMEOUT_SCALE (set by `make test-lsan`, where every process runs
10-30x slower: ASan, CPython's allocations all tracked, each with its full
allocation stack) multiplies the timeouts tests pass to subprocess.run, so a
slow subprocess is not mistaken for a hung one. Unset (`make test`), nothing
changes."""

from __future__ import annotations

import os
import subprocess

_SCALE = float(os.environ.get("KILN_TEST_TIMEOUT_SCALE") or 1)

if _SCALE != 1:
    _run = subprocess.run

    def _run_scaled(*args, timeout=None, **kwargs):  # type: ignore[no-untyped-def]
        return _run(*args, timeout=None if timeout is None else timeout * _SCALE, **kwargs)

    subprocess.run = _run_scaled  # type: ignore[assignment]
