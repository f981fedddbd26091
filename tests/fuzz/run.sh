#!/bin/bash
# tests/fuzz/run.sh BINARY SECONDS — runs the libFuzzer compiler target.
#  * seed corpus: every test and example .py, plus the ```python blocks of the
#    reference READMEs (build/fuzz/seed); the grown corpus persists in
#    build/fuzz/corpus between runs;
#  * a crash (or hang: -timeout) is copied to tests/fuzz/regressions/, where
#    tests/test_fuzz_regressions.py replays it with kilnc on every `make test`;
#  * afterwards a sample of the C emitted for inputs that compiled must pass
#    `cc -fsyntax-only -Wall -Wextra -Werror -std=c11`.
set -u
cd "$(dirname "$0")/../.."
BIN=$1
SECONDS_TO_RUN=${2:-60}
PY=${PYTHON:-.venv/bin/python}
W=build/fuzz
rm -rf "$W/seed" "$W/artifacts" "$W/c"
mkdir -p "$W/seed" "$W/corpus" "$W/artifacts" "$W/c"

n=0
for f in tests/scalar/*.py tests/api_programs/*.py tests/tf_programs/*.py tests/torch_programs/*.py \
         tests/golden/*/*.py tests/fuzz/regressions/* examples/*.py; do
  [ -f "$f" ] || continue
  cp "$f" "$W/seed/$(echo "$f" | tr / _)"
  n=$((n + 1))
done
for r in /work/shared/reference/*.txt reference/*.txt; do
  [ -f "$r" ] || continue
  awk -v out="$W/seed/$(basename "$r" .txt)" '
    /^```python/ {k++; f = out "_" k ".py"; on = 1; next}
    /^```/ {on = 0; next}
    on {print > f}' "$r"
done
echo "fuzz: $(ls "$W/seed" | wc -l) seed files, ${SECONDS_TO_RUN}s"

KILN_FUZZ_C_DIR="$W/c" "$BIN" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -max_len=16384 -rss_limit_mb=4096 \
  -dict=tests/fuzz/python.dict -artifact_prefix="$W/artifacts/" -print_final_stats=1 \
  "$W/corpus" "$W/seed" 2>&1 | tee "$W/log" | grep -E "^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|stat::" 
status=${PIPESTATUS[0]}

found=0
for a in "$W"/artifacts/*; do
  [ -f "$a" ] || continue
  name=$(basename "$a")
  cp "$a" "tests/fuzz/regressions/$name.py"
  echo "fuzz: NEW REGRESSION tests/fuzz/regressions/$name.py"
  found=$((found + 1))
done

# Emitted C of inputs that compiled: a sample, checked with the system cc.
INC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
checked=0 failed=0
for c in $(ls "$W/c" | head -200); do
  checked=$((checked + 1))
  if ! ${CC:-cc} -fsyntax-only -Wall -Wextra -Werror -std=c11 -I"$INC" -Ikiln/include "$W/c/$c" 2>"$W/c/$c.err"; then
    failed=$((failed + 1))
    echo "fuzz: emitted C does not compile: $W/c/$c"; head -5 "$W/c/$c.err"
  fi
done
echo "fuzz: emitted C checked: $checked, failed: $failed; crashes: $found; libFuzzer status: $status"
[ "$status" -eq 0 ] && [ "$found" -eq 0 ] && [ "$failed" -eq 0 ]
