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

.PHONY: all setup build test demo bench clean distclean FORCE
all: build

# ---- setup: the venv and an editable install with the test extras --------
setup: $(STAMP)

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
test: build
	@if [ -f tests/c/run.sh ]; then bash tests/c/run.sh; fi
	$(RUN_ENV) $(VPY) -m pytest -q tests

demo: build
	$(RUN_ENV) $(VPY) examples/demo.py

bench: build
	$(VPY) bench/run.py

clean:
	rm -rf build kilnc kiln/*.so kiln/*.pyd *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

FORCE:
