#!/usr/bin/env python3
"""Reads the LeakSanitizer logs of `make test-lsan` and fails on any leak
that kiln's code could have caused.

Every process of the run writes its report to LOGDIR/lsan.<exe>.<pid>
(`log_path` + `log_exe_name`); LeakSanitizer is run WITHOUT suppressions,
so every leaked block is in the logs with its full allocation stack (slow
unwinding, `malloc_context_size`), each frame printed with its module
(`stack_trace_format` ends in `{module+offset}`).

A report (one allocation stack, as LeakSanitizer groups them) is

- *third-party* when every frame of its stack, apart from the sanitizer
  runtime's own, is in a library listed in the `[third-party]` section of
  the suppressions file (CPython, libtorch, TensorFlow, numpy, libc, ...);
- *third-party* too when the allocation happened inside a third-party
  function listed in the `[third-party-setup]` section (a framework's own
  one-time setup, which leaks whoever triggers it first): like an `import`,
  such a frame is a boundary, and only the frames from the allocation out to
  it are judged;
- *kiln-singleton* when a frame outside those libraries is a function named
  in the `[kiln-singletons]` section (each one explained in
  docs/reliability.md);
- *held-by-third-party* when it is an indirect leak (reachable only from
  other leaked blocks) in a process with no kiln-attributed direct leak: the
  blocks that hold it were allocated by third-party code and leaked there, so
  it is freed exactly when they are. (A kiln stack under it only says kiln's
  call allocated it: e.g. the dims tuples of the TensorShapes TensorFlow
  caches on a tensor the first time an op kiln calls reads its `.shape`.)
- *kiln-attributed* otherwise: some frame is in kiln's code (kiln/_compiler,
  kiln/_runtime, kilnc, a generated module, a test extension) or in a module
  nobody has classified. This fails the run.

LeakSanitizer's own `leak:` suppressions match when ANY frame matches, and
nearly every stack has a libpython frame (kiln is called from Python), so
the file is deliberately not given to LeakSanitizer: it is applied here,
where a library entry can only ever suppress a stack that lies entirely
inside third-party libraries.

Usage: lsan_check.py --supp tests/lsan/lsan.supp [--json OUT] [--expect-kiln F,G] LOGDIR
Exit status: 0 clean, 1 kiln-attributed leaks or sanitizer errors, 2 usage.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
from dataclasses import dataclass, field

LEAK_RE = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\) allocated from:")
FRAME_RE = re.compile(r"^\s*#(\d+) (0x[0-9a-f]+)\s*(?:in )?(.*?)\s*(?:\{([^{}]*)\})?\s*$")
FRAME_START_RE = re.compile(r"^\s*#\d+ ")
ERROR_RE = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): (.*)")
SUMMARY_RE = re.compile(r"SUMMARY: \w+: (\d+) byte\(s\) leaked in (\d+) allocation\(s\)")
# The sanitizer runtimes' own frames (the malloc interceptor is frame #0).
RUNTIME_RE = re.compile(r"/lib(asan|ubsan|lsan)\.so[.\d]*$")


@dataclass
class Frame:
    num: int
    pc: str
    function: str  # "" when not symbolized
    location: str  # "file:line" or "(module+0x..)"
    module: str    # path of the module, "" when unknown

    def render(self) -> str:
        where = self.location or ""
        return f"#{self.num} {self.pc} in {self.function or '?'} {where} {{{self.module}}}".rstrip()


@dataclass
class Leak:
    log: str
    kind: str  # "Direct" / "Indirect"
    nbytes: int
    objects: int
    frames: list[Frame] = field(default_factory=list)
    verdict: str = ""       # third-party / kiln-singleton / held-by-third-party / kiln
    reason: str = ""        # the frame or entry that decided it


@dataclass
class Suppressions:
    third_party: list[str]
    kiln_singletons: list[str]
    third_party_setup: list[str]

    @staticmethod
    def load(path: str) -> "Suppressions":
        sections: dict[str, list[str]] = {"third-party": [], "kiln-singletons": [],
                                          "third-party-setup": []}
        current = None
        with open(path, encoding="utf-8") as f:
            for raw in f:
                line = raw.strip()
                m = re.match(r"^#\s*\[([\w-]+)\]", line)
                if m:
                    if m.group(1) not in sections:
                        raise SystemExit(f"{path}: unknown section [{m.group(1)}]")
                    current = m.group(1)
                    continue
                if not line or line.startswith("#"):
                    continue
                if not line.startswith("leak:"):
                    raise SystemExit(f"{path}: only leak: entries are supported: {line!r}")
                if current is None:
                    raise SystemExit(f"{path}: entry outside a section: {line!r}")
                entry = line[len("leak:"):]
                if current == "third-party" and "/" not in entry:
                    raise SystemExit(f"{path}: [third-party] entries are library paths: {line!r}")
                if current == "kiln-singletons" and not re.fullmatch(r"[A-Za-z_]\w*", entry):
                    raise SystemExit(f"{path}: [kiln-singletons] entries are function names: {line!r}")
                sections[current].append(entry)
        return Suppressions(sections["third-party"], sections["kiln-singletons"],
                            sections["third-party-setup"])


def template_match(template: str, text: str) -> bool:
    """LeakSanitizer's template matching: substring match with `*` wildcards,
    `^` / `$` anchoring the start / end."""
    if not text:
        return False
    rx = re.escape(template).replace(r"\*", ".*")
    if rx.startswith(r"\^"):
        rx = "^" + rx[2:]
    if rx.endswith(r"\$"):
        rx = rx[:-2] + "$"
    return re.search(rx, text) is not None


def parse_frame(line: str) -> Frame | None:
    """One frame as printed with stack_trace_format "#%n %p %F %L {%m+%o}":
    `#3 0x7f.. in func file.c:12 {/path/mod.so+0x1c3}`, `#1 0x55.. (/usr/bin/sed+0x16223)
    {/usr/bin/sed+0x16223}` when not symbolized, `{<unknown module>}` outside modules."""
    m = FRAME_RE.match(line)
    if not m:
        return None
    num, pc, rest, modoff = int(m.group(1)), m.group(2), m.group(3) or "", m.group(4)
    module = re.sub(r"\+0x[0-9a-f]+$", "", modoff.strip()) if modoff else ""
    function, location = rest, ""
    if rest.startswith("("):
        function, location = "", rest
    elif " " in rest:
        # C++ names contain blanks; the location is the last word
        head, last = rest.rsplit(" ", 1)
        if ":" in last or last.startswith("("):
            function, location = head, last
    if not module:
        mm = re.search(r"\(([^()]*)\+0x[0-9a-f]+\)$", location)
        if mm:
            module = mm.group(1)
    if module.startswith("<"):  # <unknown module>
        module = ""
    return Frame(num, pc, function.strip(), location.strip(), module)


def parse_log(path: str) -> tuple[list[Leak], list[str], tuple[int, int]]:
    leaks: list[Leak] = []
    errors: list[str] = []
    summary = (0, 0)
    cur: Leak | None = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = LEAK_RE.match(line)
            if m:
                cur = Leak(os.path.basename(path), m.group(1), int(m.group(2)), int(m.group(3)))
                leaks.append(cur)
                continue
            if cur is not None:
                if FRAME_START_RE.match(line):
                    # a frame that cannot be parsed keeps its place with no module:
                    # it is never taken for a third-party frame
                    cur.frames.append(parse_frame(line) or Frame(-1, "?", line.strip(), "", ""))
                    continue
                cur = None
            m = ERROR_RE.search(line)
            if m and "detected memory leaks" not in m.group(2):
                errors.append(f"{os.path.basename(path)}: {line.strip()}")
            m = SUMMARY_RE.search(line)
            if m:
                summary = (int(m.group(1)), int(m.group(2)))
    return leaks, errors, summary


# CPython's C entry of every `import` statement and __import__ call. An
# allocation below one (nearer to malloc) happened while importing a module and
# belongs to that import: a kiln frame further out only triggered it (a
# generated module runs the original source at import, and its `import torch`
# runs all of torch's import under kiln's frames).
IMPORT_BOUNDARY = {"PyImport_ImportModuleLevelObject", "import_find_and_load"}


def third_party_frame(fr: Frame, supp: Suppressions) -> bool:
    return bool(fr.module) and any(template_match(t, fr.module) for t in supp.third_party)


def owning_frames(leak: Leak, supp: Suppressions) -> list[Frame]:
    """The frames from the allocation out to the innermost import boundary or
    listed third-party setup function (the boundary frame itself included:
    a setup function is only a boundary when it is third-party code)."""
    out = []
    for fr in leak.frames:
        if fr.function in IMPORT_BOUNDARY:
            break
        out.append(fr)
        if third_party_frame(fr, supp) and any(template_match(t, fr.function)
                                               for t in supp.third_party_setup):
            break
    return out


def classify(leak: Leak, supp: Suppressions) -> None:
    frames = [fr for fr in owning_frames(leak, supp)
              if not (fr.module and RUNTIME_RE.search(fr.module))]
    if not frames:
        # nothing but the sanitizer runtime: nothing says whose leak it is
        leak.verdict, leak.reason = "kiln", "no frame beyond the sanitizer runtime"
        return
    foreign = [fr for fr in frames if not third_party_frame(fr, supp)]
    if not foreign:
        leak.verdict, leak.reason = "third-party", ""
        return
    for fr in foreign:
        if fr.function in supp.kiln_singletons:  # exact names: narrow on purpose
            leak.verdict, leak.reason = "kiln-singleton", fr.function
            return
    fr = foreign[0]
    leak.verdict = "kiln"
    leak.reason = f"#{fr.num} {fr.function or '?'} in {fr.module or '<unknown module>'}"


THREAD_ENTRY = {"_start", "start_thread", "clone", "clone3", "__libc_start_main",
                "__libc_start_main_impl", "__libc_start_call_main"}


def complete(leak: Leak) -> bool:
    """Whether the stack reaches an import boundary or the thread's entry
    (else it was cut at malloc_context_size: a kiln frame further out, below
    any import, would not be seen)."""
    return any(fr.function in THREAD_ENTRY or fr.function in IMPORT_BOUNDARY for fr in leak.frames)


def first_library(leak: Leak) -> str:
    for fr in leak.frames:
        if fr.module and not RUNTIME_RE.search(fr.module):
            return os.path.basename(fr.module)
    return "?"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logdir")
    ap.add_argument("--supp", required=True, help="the suppressions file (tests/lsan/lsan.supp)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--expect-kiln", default="",
                    help="canary mode: comma-separated functions that MUST appear in "
                         "kiln-attributed reports; exit 0 only if all do")
    ap.add_argument("--show", type=int, default=20, help="kiln-attributed reports to print in full")
    args = ap.parse_args(argv)

    supp = Suppressions.load(args.supp)
    logs = sorted(os.path.join(args.logdir, n) for n in os.listdir(args.logdir))
    leaks: list[Leak] = []
    errors: list[str] = []
    per_exe: collections.Counter[str] = collections.Counter()
    leaked_bytes = leaked_objects = 0
    for path in logs:
        ls, es, (b, o) = parse_log(path)
        leaks += ls
        errors += es
        leaked_bytes += b
        leaked_objects += o
        exe = re.sub(r"^[^.]*\.|\.\d+$", "", os.path.basename(path))  # lsan.<exe>.<pid>
        per_exe[exe or "?"] += 1
    for leak in leaks:
        classify(leak, supp)
    # An indirect leak is held only by other leaked blocks; with no direct
    # leak through kiln in its process, those were allocated (and leaked) by
    # third-party code, and it goes when they go.
    kiln_direct = {l.log for l in leaks if l.verdict == "kiln" and l.kind == "Direct"}
    for leak in leaks:
        if leak.verdict == "kiln" and leak.kind == "Indirect" and leak.log not in kiln_direct:
            leak.verdict, leak.reason = "held-by-third-party", leak.reason

    by = collections.Counter(l.verdict for l in leaks)
    kiln = [l for l in leaks if l.verdict == "kiln"]
    singletons = collections.Counter(l.reason for l in leaks if l.verdict == "kiln-singleton")
    libs = collections.Counter(first_library(l) for l in leaks if l.verdict == "third-party")
    figures = {
        "logs": len(logs),
        "logs_by_exe": dict(per_exe),
        "reports": len(leaks),
        "reports_direct": sum(1 for l in leaks if l.kind == "Direct"),
        "leaked_bytes": leaked_bytes,
        "leaked_objects": leaked_objects,
        "third_party": by["third-party"],
        "third_party_by_allocating_library": dict(libs.most_common()),
        "third_party_stack_cut_at_depth_limit": sum(1 for l in leaks
                                                    if l.verdict == "third-party" and not complete(l)),
        "kiln_singleton": by["kiln-singleton"],
        "kiln_singleton_by_entry": dict(singletons),
        "held_by_third_party": by["held-by-third-party"],
        "kiln_attributed": len(kiln),
        "sanitizer_errors": len(errors),
    }
    print(f"lsan_check: {len(logs)} process logs ({', '.join(f'{k} {v}' for k, v in per_exe.most_common())}); "
          f"{len(leaks)} leak reports ({figures['reports_direct']} direct), "
          f"{leaked_objects} blocks, {leaked_bytes} bytes")
    print(f"lsan_check: third-party {by['third-party']}, kiln singletons {by['kiln-singleton']}, "
          f"indirect held by third-party leaks {by['held-by-third-party']}, "
          f"kiln-attributed {len(kiln)}, sanitizer errors {len(errors)}")
    if by["third-party"]:
        print(f"lsan_check: {figures['third_party_stack_cut_at_depth_limit']} third-party stacks end at "
              f"the depth limit (malloc_context_size) before an import or their thread's entry")
    if libs:
        print("lsan_check: third-party reports by allocating library: "
              + ", ".join(f"{k} {v}" for k, v in libs.most_common(12)))
    for entry, n in singletons.items():
        print(f"lsan_check: kiln singleton {entry!r}: {n} report(s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)
            f.write("\n")

    if args.expect_kiln:
        want = [w for w in args.expect_kiln.split(",") if w]
        seen = {fr.function for l in kiln for fr in l.frames}
        missing = [w for w in want if not any(template_match(w, s) for s in seen)]
        if missing or errors:
            print(f"lsan_check: CANARY FAILED: no kiln-attributed report through {missing} "
                  f"(errors: {errors})", file=sys.stderr)
            return 1
        print(f"lsan_check: canary ok: leaks through {want} were found and attributed to kiln")
        return 0

    for e in errors:
        print(f"lsan_check: sanitizer error: {e}", file=sys.stderr)
    for leak in kiln[:args.show]:
        print(f"\nkiln-attributed: {leak.kind} leak of {leak.nbytes} byte(s) in {leak.objects} "
              f"object(s) [{leak.log}] ({leak.reason})", file=sys.stderr)
        for fr in leak.frames:
            print("    " + fr.render(), file=sys.stderr)
    if len(kiln) > args.show:
        print(f"\n... and {len(kiln) - args.show} more kiln-attributed reports", file=sys.stderr)
    if kiln or errors:
        print(f"lsan_check: FAILED: {len(kiln)} kiln-attributed leak report(s), "
              f"{len(errors)} sanitizer error(s)", file=sys.stderr)
        return 1
    print("lsan_check: ok: no leak through kiln's code")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
