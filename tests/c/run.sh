#!/usr/bin/env bash
# C-level tests: kernel sweep against the reference kernels, then the
# tokenizer/parser/diagnostic golden files through kilnc.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
mkdir -p build
$CC -std=c11 -O2 -Wall -Wextra -Werror ${SANITIZE_FLAGS:-} -Iruntime tests/c/test_kernels.c runtime/kernels.c -lm -o build/test_kernels
./build/test_kernels
bash tests/golden/run.sh
