#!/usr/bin/env bash
# `make test-lsan`: the whole test suite under LeakSanitizer, leak detection on
# (docs/reliability.md, "Leak check under LeakSanitizer").
#
# Run from the root of a tree whose kiln._compiler, kiln._runtime and kilnc
# are built with ASan+UBSan (the Makefile builds build/lsan-tree); PY is the
# interpreter. Steps: build the exit hook (gc_unlink.c) and the canary; check
# that a leak planted in the canary is found and attributed to kiln; the C
# tests (kernel sweep, kilnc goldens) instrumented; pytest over LSAN_TESTS
# (default: all of tests/); then lsan_check.py over every process's log.
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:?set PY to the Python interpreter}
CC=${CC:-cc}
LSAN_TESTS=${LSAN_TESTS:-tests}
OUT=$PWD/build/lsan
rm -rf "$OUT" && mkdir -p "$OUT/logs" "$OUT/canary-logs" "$OUT/bin" "$OUT/canary"
start=$(date +%s)

INC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SUFFIX=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
set -e
"$CC" -shared -fPIC -O1 -g -Wall -Wextra -Werror -I"$INC" tests/lsan/gc_unlink.c -o "$OUT/gc_unlink.so" -ldl
"$CC" -shared -fPIC -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -Wall -Wextra -Werror \
  -I"$INC" tests/lsan/canary.c -o "$OUT/canary/kiln_lsan_canary$SUFFIX"
set +e

# The compilers and the browser the tests start run without the sanitizer
# runtime (they are not what is checked, and their exit-time "leaks" are noise).
for tool in cc gcc "$CC" chromium chromium-browser; do
  real=$(PATH=${PATH} command -v "$tool") || continue
  printf '#!/bin/sh\nunset LD_PRELOAD\nexec %q "$@"\n' "$real" > "$OUT/bin/$(basename "$tool")"
  chmod +x "$OUT/bin/$(basename "$tool")"
done

PRELOAD="$("$CC" -print-file-name=libasan.so) $("$CC" -print-file-name=libubsan.so) $OUT/gc_unlink.so"
# exitcode=0: a leak does not change a process's exit status (tests check
# those of their subprocesses); lsan_check.py judges the logs. ASan errors
# still abort (abort_on_error). Slow unwinding: CPython is built without frame
# pointers, so the fast unwinder would stop at the first libpython frame and
# lose the kiln frames above it. 100 frames: every stack of the suite then
# reaches an import or its thread's entry (lsan_check.py counts those that do
# not); deep torch dispatch and CPython's parser need up to ~85.
asan_options() {
  printf '%s' "detect_leaks=1:leak_check_at_exit=1:exitcode=0:abort_on_error=1"
  printf '%s' ":detect_stack_use_after_return=0:fast_unwind_on_malloc=0:malloc_context_size=${LSAN_STACK_DEPTH:-100}"
  printf '%s' ":log_path=$1/lsan:log_exe_name=1"
  printf '%s' ':stack_trace_format="    #%n %p %F %L {%m+%o}"'
}
lsan_env() {
  env KILN_SANITIZE=1 PYTHONMALLOC=malloc PATH="$OUT/bin:$PATH" LD_PRELOAD="$PRELOAD" \
    KILN_TEST_TIMEOUT_SCALE=${KILN_TEST_TIMEOUT_SCALE:-10} \
    ASAN_OPTIONS="$(asan_options "$1")" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "${@:2}"
}
supp=tests/lsan/lsan.supp
status=0

echo "== canary: a planted leak must be found and attributed to kiln"
lsan_env "$OUT/canary-logs" "$PY" -c "import sys; sys.path.insert(0, '$OUT/canary'); import kiln_lsan_canary as c; c.leak()"
"$PY" tests/lsan/lsan_check.py --supp "$supp" \
  --expect-kiln canary_leak_float,canary_leak_list,canary_leak_buffer "$OUT/canary-logs" || exit 1

lsan_env "$OUT/logs" "$PY" -c "import kiln, sys; assert kiln.__file__.startswith('$PWD/'), kiln.__file__" || exit 1

if [ "${LSAN_SKIP_C:-0}" != 1 ]; then
  echo "== C tests (kernel sweep, kilnc goldens), instrumented"
  lsan_env "$OUT/logs" SANITIZE_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g" \
    bash tests/c/run.sh || status=1
fi

echo "== pytest $LSAN_TESTS"
t0=$(date +%s)
lsan_env "$OUT/logs" "$PY" -m pytest -q -p no:cacheprovider -rs --durations=25 $LSAN_TESTS || status=1
echo "pytest: $(( $(date +%s) - t0 )) s"

echo "== leak reports"
"$PY" tests/lsan/lsan_check.py --supp "$supp" --json "$OUT/figures.json" "$OUT/logs" || status=1
echo "test-lsan: $(( $(date +%s) - start )) s in all; logs in $OUT/logs; exit $status"
exit $status
