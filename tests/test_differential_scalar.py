"""The differential tester's scalar programs (tests/difftest/) on every
CPython kiln supports: tests/other_pythons.sh runs this file on 3.10, 3.12
and 3.13 too, where torch is not installed; the worker then gives the
programs' `import torch` a stand-in (tests/difftest/no_torch) that they
never call. A fixed seed; bigger runs on another Python:
``<its python> -m tests.difftest.run --tensor-frac 0 --seed S --programs N``.
"""

from __future__ import annotations

import pytest

try:
    import kiln._compiler  # noqa: F401
except ImportError as exc:  # pragma: no cover
    pytest.skip(f"kiln._compiler cannot be imported ({exc})", allow_module_level=True)

from tests.difftest import harness  # noqa: E402
from tests.difftest.run import assert_clean_batch, run_batch  # noqa: E402

SEED = 31
FUNCS = 40
CASES = 6


@pytest.fixture(scope="module")
def worker():
    w = harness.Worker(idle_timeout=30.0)
    yield w
    w.close()


def test_fixed_seed_scalar_batch(worker):
    stats, mismatches, mod = run_batch(worker, SEED, 0, FUNCS, CASES, 0.0, log=lambda *a: None)
    assert not any(i.tensor for i in mod.funcs) and "import torch" in mod.source
    assert_clean_batch(stats, mismatches, SEED, FUNCS, CASES, " --tensor-frac 0")
