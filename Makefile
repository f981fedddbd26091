# kiln developer Makefile.  `make test` and `make demo` work from a fresh clone.
# SANITIZE=1 builds the extensions and kilnc with ASan+UBSan.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
VPY    := $(VENV)/bin/python
CC     ?= cc
SANITIZE ?= 0

STAMP := $(VENV)/.kiln-setup-stamp

COMPILER_SRC := $(filter-out compiler/pymod.c,$(wildcard compiler/*.c compiler/plugins/*.c))
ALL_C := $(wildcard compiler/*.c compiler/plugins/*.c runtime/*.c)
ALL_H := $(wildcard compiler/*.h compiler/plugins/*.h runtime/*.h kiln/include/*.h)

KILNC_FLAGS := -std=c11 -O2 -Wall -Wextra -Werror
RUN_ENV :=
ifeq ($(SANITIZE),1)
KILNC_FLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -O1
export KILN_SANITIZE := 1
# Python itself is not instrumented: preload the sanitizer runtimes, ignore its leaks.
RUN_ENV := LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
           ASAN_OPTIONS=detect_leaks=0
endif

.PHONY: all setup build test test-pythons demo bench clean distclean FORCE fuzz test-asan test-lsan leakcheck
all: build

# ---- setup: the venv and an editable install with the test extras --------
# Also headless Chromium for the HTML report test (Debian's `chromium`);
# never fails setup: without apt (or root) that one test is skipped.
setup: $(STAMP)
	@command -v chromium >/dev/null || (command -v apt-get >/dev/null && \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) || \
	  echo "note: chromium is not installed; the HTML report browser test will be skipped"

$(STAMP): setup.py pyproject.toml
	@test -x $(VPY) || { echo "creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	$(VPY) -m pip install -q -e '.[test]'
	@touch $@

# ---- build: C extensions in place + the standalone kilnc ------------------
build: setup build/ext.stamp kilnc

# A flags file that changes only when the flags do, so switching SANITIZE rebuilds.
build/flags: FORCE
	@mkdir -p build
	@echo '$(KILNC_FLAGS) $(SANITIZE)' | cmp -s - $@ || echo '$(KILNC_FLAGS) $(SANITIZE)' > $@

# Always asks setuptools, which rebuilds an extension only when it is missing
# or older than one of its sources or headers (a no-op costs ~0.3 s);
# --force when the flags changed (or the first time).
build/ext.stamp: $(STAMP) build/flags FORCE
	$(VPY) setup.py -q build_ext --inplace $(if $(filter build/flags,$?),--force)
	@touch $@

kilnc: build/flags $(COMPILER_SRC) $(ALL_H)
	@if [ -z "$(COMPILER_SRC)" ]; then echo "kilnc: no compiler sources yet"; exit 1; fi
	$(CC) $(KILNC_FLAGS) -Icompiler $(COMPILER_SRC) -o $@ -lm

# ---- test / demo / bench ---------------------------------------------------
# The core also on Python 3.10, 3.12 and 3.13 (tests/other_pythons.sh), not
# under SANITIZE=1 (its preloaded runtimes are for this venv's interpreter).
test: build
	@if [ -f tests/c/run.sh ]; then bash tests/c/run.sh; fi
	$(RUN_ENV) $(VPY) -m pytest -q -rs tests
ifneq ($(SANITIZE),1)
	bash tests/other_pythons.sh
endif

test-pythons: build
	bash tests/other_pythons.sh

demo: build
	$(RUN_ENV) $(VPY) examples/demo.py

bench: build
	@$(VPY) -c 'import matplotlib, threadpoolctl' 2>/dev/null || $(VPY) -m pip install -q -e '.[test,bench]'
	$(VPY) bench/run.py

# ---- reliability: fuzzing, sanitizers, leak check (docs/reliability.md) ----
# `make fuzz [FUZZ_SECONDS=600]`: libFuzzer over the whole compiler; crashes
# land in tests/fuzz/regressions/ (replayed by `make test`).
FUZZ_SECONDS ?= 60
FUZZ_BIN := build/fuzz/fuzz_compile
FUZZ_SRC := $(filter-out compiler/kilnc.c,$(COMPILER_SRC))

$(FUZZ_BIN): tests/fuzz/fuzz_compile.c $(FUZZ_SRC) $(ALL_H)
	@command -v clang >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y clang; }
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -Wall -Wextra -Werror -Icompiler tests/fuzz/fuzz_compile.c $(FUZZ_SRC) -o $@ -lm

fuzz: setup kilnc $(FUZZ_BIN)
	bash tests/fuzz/run.sh $(FUZZ_BIN) $(FUZZ_SECONDS)

# `make test-asan`: the extensions, generated modules and kilnc built with
# ASan+UBSan, in a copy of the tree (build/asan-tree) so the in-place build
# others are using is left alone; any sanitizer report fails the run.
ASAN_TREE := build/asan-tree
ASAN_TESTS ?= tests/test_scalar_programs.py tests/test_api.py tests/test_runtime.py \
  tests/test_torch_plugin.py tests/test_boundary_matrix.py tests/test_concurrency.py \
  tests/test_security.py tests/test_fuzz_regressions.py tests/test_package.py
ASAN_ENV := KILN_SANITIZE=1 \
  LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

test-asan: setup
	rm -rf $(ASAN_TREE) && mkdir -p $(ASAN_TREE)
	tar -c --exclude=./.venv --exclude=./build --exclude=./.git --exclude='*.so' --exclude=./kilnc . | tar -x -C $(ASAN_TREE)
	cd $(ASAN_TREE) && KILN_SANITIZE=1 $(CURDIR)/$(VPY) setup.py -q build_ext --inplace
	cd $(ASAN_TREE) && $(CC) $(KILNC_FLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer -O1 \
	  -Icompiler $(COMPILER_SRC) -o kilnc -lm
	cd $(ASAN_TREE) && $(ASAN_ENV) $(CURDIR)/$(VPY) -c 'import kiln, sys; assert kiln.__file__.startswith("$(CURDIR)/$(ASAN_TREE)/"), kiln.__file__'
	cd $(ASAN_TREE) && $(ASAN_ENV) $(CURDIR)/$(VPY) -m pytest -q -p no:cacheprovider $(ASAN_TESTS)

# `make test-lsan [LSAN_TESTS=tests]`: the whole suite (C tests too) under
# LeakSanitizer with leak detection on, in its own ASan+UBSan tree
# (build/lsan-tree); tests/lsan/lsan_check.py fails the run on any leak whose
# allocation stack goes through kiln's code. Slow (CPython's allocations are
# all tracked, with full stacks): a scheduled job, not part of `make test`.
LSAN_TREE ?= build/lsan-tree
LSAN_TESTS ?= tests
test-lsan: setup
	rm -rf $(LSAN_TREE) && mkdir -p $(LSAN_TREE)
	tar -c --exclude=./.venv --exclude=./build --exclude=./.git --exclude='*.so' --exclude=./kilnc . | tar -x -C $(LSAN_TREE)
	cd $(LSAN_TREE) && KILN_SANITIZE=1 $(CURDIR)/$(VPY) setup.py -q build_ext --inplace
	cd $(LSAN_TREE) && $(CC) $(KILNC_FLAGS) -g -fsanitize=address,undefined -fno-omit-frame-pointer -O1 \
	  -Icompiler $(COMPILER_SRC) -o kilnc -lm
	cd $(LSAN_TREE) && PY=$(CURDIR)/$(VPY) CC=$(CC) LSAN_TESTS="$(LSAN_TESTS)" bash tests/lsan/run.sh

# `make leakcheck [LEAK_CALLS=1000000]`: RSS and refcounts over many calls.
LEAK_CALLS ?= 1000000
leakcheck: build
	$(VPY) tests/leakcheck.py $(LEAK_CALLS)

clean:
	rm -rf build kilnc kiln/*.so kiln/*.pyd *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

FORCE:
