#!/usr/bin/env bash
# The core (compiler, runtime, scalar code, Python fallback) on the other
# CPython versions kiln supports: each gets a venv under build/pythons/ with
# pytest and NumPy only, kiln built in place for its ABI, and every test file
# that does not import torch or TensorFlow at the top. Frameworks stay 3.11-only
# (their wheels on this machine are).
#
# OTHER_PYTHONS="3.10 3.12 3.13" by default. An interpreter that is not
# installed is reported and skipped, unless KILN_REQUIRE_PYTHONS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
OTHER_PYTHONS=${OTHER_PYTHONS:-3.10 3.12 3.13}

find_python() { # newest patch release of $1 under pyenv, else on PATH
    local v=$1 root cand found=""
    root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
    for cand in "$root"/versions/"$v".*/bin/python"$v" "$(command -v python"$v" 2>/dev/null || true)"; do
        # pyenv's shims exist for every version but fail for the unselected ones
        if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c 'import sys' >/dev/null 2>&1; then found=$cand; fi
    done
    echo "$found"
}

# Test files whose module body imports no framework, by the syntax tree, not
# by line: a test's source text with `import torch` at column 0 (a module it
# builds) kept tests/test_try.py's 3,687 core tests off the other Pythons
# until 2026-12-03.
host_py=.venv/bin/python # kiln's own venv (make test builds it first), else any python3
[ -x "$host_py" ] || host_py=python3
core_tests=$("$host_py" -c '
import ast, sys
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        body = ast.parse(f.read(), path).body
    mods = [a.name for n in body if isinstance(n, ast.Import) for a in n.names]
    mods += [n.module or "" for n in body if isinstance(n, ast.ImportFrom)]
    if not any(m.split(".")[0] in ("torch", "tensorflow") for m in mods):
        print(path, end=" ")
' tests/test_*.py)
missing=()
for v in $OTHER_PYTHONS; do
    py=$(find_python "$v")
    if [ -z "$py" ]; then
        missing+=("$v")
        continue
    fi
    venv=build/pythons/$v
    stamp=$venv/.kiln-stamp
    if [ ! -f "$stamp" ] || [ setup.py -nt "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        rm -rf "$venv"
        echo "== Python $v: creating $venv with $py"
        "$py" -m venv "$venv"
        "$venv/bin/python" -m pip install -q pytest numpy setuptools wheel
        "$venv/bin/python" -m pip install -q --no-deps --no-build-isolation -e .
        touch "$stamp"
    fi
    echo "== Python $v: building kiln in place and running the core tests"
    PYTHONWARNINGS=ignore "$venv/bin/python" setup.py -q build_ext --inplace
    "$venv/bin/python" -m pytest -q -p no:cacheprovider $core_tests
done

if [ "${#missing[@]}" -gt 0 ]; then
    echo "note: Python ${missing[*]} not installed; the core tests did not run on it" >&2
    if [ "${KILN_REQUIRE_PYTHONS:-0}" = 1 ]; then exit 1; fi
fi
