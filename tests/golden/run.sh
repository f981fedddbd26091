#!/bin/sh
# Golden tests for the kilnc debug commands.
#
#   tests/golden/lex/NAME.py     `kilnc tokens` -> NAME.tokens (stdout, exit 0)
#                                              or NAME.err    (first stderr line, exit != 0)
#   tests/golden/parse/NAME.py   `kilnc ast`    -> NAME.ast    (stdout, exit 0)
#                                              or NAME.err    (first stderr line, exit != 0)
#   tests/golden/diag/NAME.py    `kilnc check`  -> NAME.err    (whole stderr, any exit status)
#
# A first line `# kilnc-flags: FLAGS` in NAME.py adds FLAGS to the kilnc
# command line (e.g. `# kilnc-flags: --test-plugin`).
#
# Files are passed as paths relative to the repository root
# (tests/golden/lex/x.py), so expected diagnostics start with that path.
#
# Usage: tests/golden/run.sh [--update]
#   --update   rewrite the expected files from the current output
# The compiler is $KILNC, default ./kilnc (relative to the repository root).
# Prints each failure, then "N passed, N failed"; exits 1 on any failure.

update=0
for arg in "$@"; do
  case "$arg" in
  --update) update=1 ;;
  *) echo "usage: $0 [--update]" >&2; exit 2 ;;
  esac
done

kilnc=${KILNC:-./kilnc}
# Resolve a relative $KILNC before changing directory.
case "$kilnc" in
/*) ;;
*/*) [ -e "$kilnc" ] && kilnc="$(cd "$(dirname "$kilnc")" && pwd)/$(basename "$kilnc")" ;;
esac
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root" || exit 2
if [ ! -x "$kilnc" ]; then
  echo "kilnc not found at $kilnc (build it or set KILNC)" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0

fail() {
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  if [ -n "$3" ] && [ -n "$4" ]; then
    diff -u "$3" "$4" | head -n 40
  fi
}

# run_dir DIR COMMAND OKEXT ERRMODE   (ERRMODE: first | all)
run_dir() {
  dir=$1 cmd=$2 okext=$3 errmode=$4
  [ -d "$dir" ] || return 0
  for py in "$dir"/*.py; do
    [ -e "$py" ] || continue
    base="${py%.py}"
    flags=$(head -n 1 "$py" | sed -n 's/^# kilnc-flags: *//p')
    # shellcheck disable=SC2086  # FLAGS are words
    "$kilnc" "$cmd" "$py" $flags >"$tmp/out" 2>"$tmp/errfull"
    status=$?
    if [ "$errmode" = first ]; then
      head -n 1 "$tmp/errfull" >"$tmp/err"
    else
      cp "$tmp/errfull" "$tmp/err"
    fi
    if [ $update = 1 ]; then
      if [ "$errmode" = all ]; then
        cp "$tmp/err" "$base.err"
      elif [ $status = 0 ]; then
        cp "$tmp/out" "$base.$okext"
        rm -f "$base.err"
      else
        cp "$tmp/err" "$base.err"
        rm -f "$base.$okext"
      fi
      passed=$((passed + 1))
      continue
    fi
    if [ "$errmode" = all ]; then
      if [ ! -e "$base.err" ]; then
        fail "$py" "missing expected file $base.err"
      elif cmp -s "$tmp/err" "$base.err"; then
        passed=$((passed + 1))
      else
        fail "$py" "stderr differs" "$base.err" "$tmp/err"
      fi
    elif [ -e "$base.err" ]; then
      if [ $status = 0 ]; then
        fail "$py" "expected an error, kilnc $cmd succeeded"
      elif cmp -s "$tmp/err" "$base.err"; then
        passed=$((passed + 1))
      else
        fail "$py" "error differs" "$base.err" "$tmp/err"
      fi
    elif [ -e "$base.$okext" ]; then
      if [ $status != 0 ]; then
        fail "$py" "kilnc $cmd exited $status: $(head -n 1 "$tmp/errfull")"
      elif cmp -s "$tmp/out" "$base.$okext"; then
        passed=$((passed + 1))
      else
        fail "$py" "output differs" "$base.$okext" "$tmp/out"
      fi
    else
      fail "$py" "missing expected file $base.$okext or $base.err"
    fi
  done
}

run_dir tests/golden/lex tokens tokens first
run_dir tests/golden/parse ast ast first
run_dir tests/golden/diag check err all

echo "$passed passed, $failed failed"
[ $failed = 0 ]
