"""The plugin interface through the test plugin (compiler/plugins/testplugin.c):
claimed, rejected and not-covered outcomes, lowering to a native kernel, a
conflict between two plugins (KILN040) and lowering drift (KILN041)."""
import json
import sys
from pathlib import Path

import pytest
import torch

from kiln import _build, _compiler

HERE = Path(__file__).parent / "plugin_programs"
FLAGS = _compiler.FLAG_TEST_PLUGIN


def analyze(name):
    path = HERE / name
    return _compiler.compile(path.read_bytes(), str(path), path.stem, FLAGS)


def sites(result, func):
    report = json.loads(result["report"])
    (f,) = [f for f in report["functions"] if f["name"] == func]
    return f["sites"]


def test_api_version_exposed():
    assert _compiler.PLUGIN_API_VERSION == 4


def test_three_outcomes():
    r = analyze("uses_test_plugin.py")
    assert r["ok"], r["diagnostics"]
    (s,) = sites(r, "claimed")
    assert (s["outcome"], s["plugin"], s["rule"]) == ("claimed", "test", "kiln-test/relu")
    (s,) = sites(r, "rejected")
    assert (s["outcome"], s["plugin"], s["code"]) == ("rejected", "test", "KILN-TEST-001")
    assert "warning[KILN-TEST-001]" in r["diagnostics"]
    (s,) = sites(r, "not_covered")
    assert s["outcome"] == "not-covered" and s["plugin"] is None


def test_plugin_disabled_without_flag():
    path = HERE / "uses_test_plugin.py"
    r = _compiler.compile(path.read_bytes(), str(path), path.stem, 0)
    assert {s["outcome"] for f in json.loads(r["report"])["functions"] for s in f["sites"]} == {"not-covered"}


def test_conflict_is_a_build_error():
    r = analyze("conflict.py")
    assert not r["ok"] and r["c_source"] is None
    assert "error[KILN040]" in r["diagnostics"] and "conflict.py:6:" in r["diagnostics"]


def test_lowering_drift_is_a_build_error():
    r = analyze("drift.py")
    assert not r["ok"]
    assert "error[KILN041]" in r["diagnostics"]


def test_claimed_site_runs_natively(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    r = analyze("uses_test_plugin.py")
    so = tmp_path / f"uses_test_plugin{_build._cache.ext_suffix()}"
    _build.compile_c(r["c_source"], "uses_test_plugin", so, _build.find_toolchain())
    mod = _build.import_extension("uses_test_plugin", so)
    x = torch.tensor([[-1.0, 2.0], [float("nan"), -0.0]])
    got = mod.claimed(x)
    want = torch.relu(x)
    assert torch.equal(got.isnan(), want.isnan())
    assert torch.equal(torch.nan_to_num(got), torch.nan_to_num(want))
    assert type(mod.claimed).__name__ == "builtin_function_or_method"
    torch.testing.assert_close(mod.rejected(x), x * 2, equal_nan=True)
    torch.testing.assert_close(mod.not_covered(x), x - 1, equal_nan=True)
    with pytest.raises(ValueError, match="expected rank-2 tensor, got rank 1"):
        mod.claimed(torch.ones(3))
    sys.modules.pop("uses_test_plugin", None)
