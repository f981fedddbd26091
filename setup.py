"""Builds kiln's two C extensions; the metadata lives in pyproject.toml.

- kiln._compiler: the compiler (compiler/*.c, compiler/plugins/*.c)
- kiln._runtime:  kernels and framework boundaries (runtime/*.c)

KILN_SANITIZE=1 builds both with AddressSanitizer and UBSan.
"""

from __future__ import annotations

import os
import sys
from glob import glob

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def rel(pattern: str) -> list[str]:
    """Sorted repository-relative paths matching *pattern* (setuptools wants
    relative paths)."""
    return sorted(os.path.relpath(p, HERE) for p in glob(os.path.join(HERE, pattern)))


CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"]
LDFLAGS: list[str] = []
if os.environ.get("KILN_SANITIZE") == "1":
    SAN = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
    CFLAGS += SAN + ["-O1"]  # the last -O wins
    LDFLAGS += SAN

LIBS = ["m"] + (["dl", "pthread"] if sys.platform.startswith("linux") else [])

compiler_sources = rel("compiler/*.c") + rel("compiler/plugins/*.c")
runtime_sources = rel("runtime/*.c")
headers = rel("compiler/*.h") + rel("compiler/plugins/*.h") + rel("runtime/*.h") \
    + rel("kiln/include/*.h")

extensions = []
# While the tree is being bootstrapped a part may not exist yet (no sources,
# or no compiler/pymod.c defining PyInit__compiler); it is left out rather
# than built into a module that cannot be imported.
if "compiler/pymod.c" not in compiler_sources:
    compiler_sources = []
if compiler_sources:
    extensions.append(Extension(
        "kiln._compiler", sources=compiler_sources, include_dirs=["compiler"],
        depends=headers, extra_compile_args=CFLAGS, extra_link_args=LDFLAGS,
        libraries=LIBS))
if runtime_sources:
    extensions.append(Extension(
        "kiln._runtime", sources=runtime_sources, include_dirs=["runtime", "kiln/include"],
        depends=headers, extra_compile_args=CFLAGS, extra_link_args=LDFLAGS,
        libraries=LIBS))
for name, srcs in (("kiln._compiler", compiler_sources), ("kiln._runtime", runtime_sources)):
    if not srcs:
        print(f"setup.py: warning: the sources of {name} are not there yet; not building it",
              file=sys.stderr)

setup(ext_modules=extensions)
