"""kiln differential tester: random well-typed programs, compiled vs Python.

Usage::

    python -m tests.difftest.run --seed S --programs N [--per-module 50]
        [--cases 8] [--shrink K] [--write-regressions] [--tensor-frac 0.3]
        [--comp-weight 1.0] [--try-weight 1.0] [--lambda-weight 1.0]
        [--unpack-weight 1.0] [--match-weight 1.0] [--genexpr-weight 1.0]
        [--local-import-weight 1.0] [--tf-frac 0.0]

Generates N random functions (each one a *program*: the function plus the
earlier functions of its module it calls), about 50 per module, builds each
module once with ``kiln.build`` and runs every function on ``--cases`` random
inputs natively and as the original Python (``mod.__kiln_python__[name]``).
Everything is derived from the seed: ``--seed S`` reproduces a run exactly
(module ``b`` uses ``random.Random(f"{S}:{b}")``).

Mismatches (see :mod:`tests.difftest.harness` for the rules) are printed;
up to ``--shrink K`` distinct ones (default 10) are delta-debugged down to a
minimal program (see :mod:`tests.difftest.shrink`) and, with
``--write-regressions``, written to ``tests/difftest/regressions/NAME.py``
with their CASES, where ``tests/test_differential.py`` runs them on every
``make test`` (xfail(strict=True) while ``XFAIL`` is set in the file).

Exit status: 0 no mismatch, 1 mismatches found.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from tests.difftest import harness
from tests.difftest.gen import (COMP_WEIGHT, GENEXPR_WEIGHT, LAMBDA_WEIGHT, LOCAL_IMPORT_WEIGHT, MATCH_WEIGHT,
                                TRY_WEIGHT, UNPACK_WEIGHT, gen_module)


class Mismatch:
    def __init__(self, seed, batch, source, info, args, nat, ora, chk, desc, rtol, atol):
        self.seed, self.batch, self.source, self.info = seed, batch, source, info
        self.args, self.nat, self.ora, self.chk = args, nat, ora, chk
        self.desc, self.rtol, self.atol = desc, rtol, atol

    @property
    def sig(self):
        return harness.signature(self.nat, self.ora)


def run_batch(worker, seed, b, per_module, n_cases, tensor_frac, log=print, tf_frac=0.0,
              comp_weight=COMP_WEIGHT, try_weight=TRY_WEIGHT, lambda_weight=LAMBDA_WEIGHT,
              unpack_weight=UNPACK_WEIGHT, match_weight=MATCH_WEIGHT, genexpr_weight=GENEXPR_WEIGHT,
              local_import_weight=LOCAL_IMPORT_WEIGHT):
    rng = random.Random(f"{seed}:{b}")
    mod = gen_module(rng, per_module, tensor_frac, comp_weight=comp_weight, try_weight=try_weight,
                     lambda_weight=lambda_weight, unpack_weight=unpack_weight, match_weight=match_weight,
                     genexpr_weight=genexpr_weight, local_import_weight=local_import_weight,
                     tf_frac=tf_frac)
    calls, tols = {}, {}
    for info in mod.funcs:
        cases, tl = harness.make_cases(rng, info, n_cases)
        calls[info.name] = cases
        tols[info.name] = tl
    results, err = harness.run_module(worker, mod.source, calls)
    stats = {"programs": len(mod.funcs), "cases": 0, "void": 0}
    mismatches = []
    if err:
        log(f"  batch {b}: build failed: {err.splitlines()[0] if err else err}")
        stats["build_error"] = err
        return stats, mismatches, mod
    infos = {i.name: i for i in mod.funcs}
    for fname, outs in results.items():
        for i, o in enumerate(outs):
            if o is None:
                continue
            nat, ora, chk = o
            stats["cases"] += 1
            if ora is not None and ora[0] == "timeout":
                stats["void"] += 1
            rtol, atol = tols[fname][i]
            d = harness.judge(nat, ora, chk, rtol, atol, infos[fname].tensor)
            if d:
                mismatches.append(Mismatch(seed, b, mod.source, infos[fname], calls[fname][i],
                                           nat, ora, chk, d, rtol, atol))
    return stats, mismatches, mod


def assert_clean_batch(stats, mismatches, seed, funcs, cases, flags=""):
    """A fixed-seed batch's checks (the tests): it built, every case ran, and
    none differs; the message names the command that reproduces it."""
    assert "build_error" not in stats, stats.get("build_error")
    assert stats["cases"] == funcs * cases
    assert not mismatches, "\n".join(f"{m.info.name}{m.args!r}: {m.desc}" for m in mismatches[:10]) + \
        f"\n(Python {sys.version.split()[0]}; reproduce and shrink: python -m tests.difftest.run --seed {seed} " \
        f"--programs {funcs} --per-module {funcs} --cases {cases}{flags})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--programs", type=int, default=500)
    ap.add_argument("--per-module", type=int, default=50)
    ap.add_argument("--cases", type=int, default=8)
    ap.add_argument("--tensor-frac", type=float, default=0.3)
    ap.add_argument("--tf-frac", type=float, default=0.0,
                    help="share of the modules whose tensor functions are TensorFlow's, not torch's "
                         "(0: none, and a seed's programs are those from before)")
    ap.add_argument("--comp-weight", type=float, default=COMP_WEIGHT,
                    help="scale how often scalar code gets comprehensions and consumed generator "
                         "expressions (0: none)")
    ap.add_argument("--try-weight", type=float, default=TRY_WEIGHT,
                    help="scale how often scalar code gets try statements (0: none, and the "
                         "programs of a seed are those from before try statements)")
    ap.add_argument("--lambda-weight", type=float, default=LAMBDA_WEIGHT,
                    help="scale how often scalar code gets lambdas (immediately called, stored and "
                         "called late, made in loops/handlers/branches, closures, key=/map/filter; "
                         "0: none, and the programs of a seed are those from before lambdas)")
    ap.add_argument("--unpack-weight", type=float, default=UNPACK_WEIGHT,
                    help="scale how often scalar code gets unpacking (*/** in calls of builtins, "
                         "methods and the module's functions, [*a]/(*a,)/{*a}/{**m} displays, starred "
                         "and nested targets of assignments and for statements, bad operands; 0: none, "
                         "and the programs of a seed are those from before unpacking)")
    ap.add_argument("--match-weight", type=float, default=MATCH_WEIGHT,
                    help="scale how often scalar code gets match statements (subjects: typed scalars, "
                         "strs, tuples of locals, lists, dicts, ranges, the module's M* helper classes; "
                         "every pattern form, guards, nested matches; 0: none, and the programs of a "
                         "seed are those from before match statements)")
    ap.add_argument("--genexpr-weight", type=float, default=GENEXPR_WEIGHT,
                    help="scale how often scalar code gets generator expressions no consumer takes "
                         "(next(), dict/zip/enumerate/map/filter/`in`/`*` over them, kept and consumed "
                         "later after rebinding what they read, partly consumed, helpers, bad first "
                         "iterables, raising bodies, close/send/throw) and lambdas and lazy generator "
                         "expressions reading a comprehension's variable; 0: none, and the programs of a "
                         "seed are those from before them)")
    ap.add_argument("--local-import-weight", type=float, default=LOCAL_IMPORT_WEIGHT,
                    help="scale how often a function's body starts by importing the module's own "
                         "modules again (math, torch, torch.nn.functional as F: locals kiln resolves "
                         "as the module-level names); 0: none (the other draws are unchanged)")
    ap.add_argument("--shrink", type=int, default=10)
    ap.add_argument("--shrink-time", type=float, default=180.0)
    ap.add_argument("--shrink-per-observed", type=int, default=2,
                    help="shrink at most this many mismatches per observed outcome kind")
    ap.add_argument("--mismatch-log", help="write every mismatching case here (one per line)")
    ap.add_argument("--write-regressions", action="store_true")
    ap.add_argument("--jobs", type=int, default=2, help="parallel worker processes")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    from tests.difftest import shrink as shrink_mod
    t0 = time.time()
    from concurrent.futures import ThreadPoolExecutor
    workers = [harness.Worker() for _ in range(max(1, a.jobs))]
    worker = workers[0]
    total = {"programs": 0, "cases": 0, "void": 0, "build_errors": 0}
    all_mm: list[Mismatch] = []
    nb = (a.programs + a.per_module - 1) // a.per_module
    try:
        free = list(workers)
        import threading
        lock = threading.Lock()

        def job(b):
            with lock:
                w = free.pop()
            try:
                n = min(a.per_module, a.programs - b * a.per_module)
                return run_batch(w, a.seed, b, n, a.cases, a.tensor_frac, tf_frac=a.tf_frac,
                                 comp_weight=a.comp_weight, try_weight=a.try_weight,
                                 lambda_weight=a.lambda_weight, unpack_weight=a.unpack_weight,
                                 match_weight=a.match_weight, genexpr_weight=a.genexpr_weight,
                                 local_import_weight=a.local_import_weight)
            finally:
                with lock:
                    free.append(w)
        pool = ThreadPoolExecutor(max_workers=len(workers))
        for b, (stats, mms, _) in enumerate(pool.map(job, range(nb))):
            total["programs"] += stats["programs"]
            total["cases"] += stats["cases"]
            total["void"] += stats["void"]
            total["build_errors"] += "build_error" in stats
            all_mm.extend(mms)
            if not a.quiet:
                print(f"batch {b}: {stats['programs']} programs, {stats['cases']} cases, "
                      f"{len(mms)} mismatches ({time.time() - t0:.0f}s)", flush=True)
                for m in mms[:3]:
                    print(f"   {m.info.name}{m.args!r:.200}: {m.desc[:300]}")
        print(f"\n{total['programs']} programs, {total['cases']} cases "
              f"({total['void']} void), {total['build_errors']} modules failed to build, "
              f"{len(all_mm)} mismatching cases, {time.time() - t0:.0f}s; "
              f"{harness.ILL_CONDITIONED['cases']} cases within the oracle's own movement under "
              f"rounding-sized input changes (ill-conditioned, accepted)")
        # distinct mismatches: by signature and function
        seen, todo = set(), []
        for m in all_mm:
            key = (m.sig, m.batch, m.info.name)
            if key not in seen:
                seen.add(key)
                todo.append(m)
        by_sig: dict = {}
        for m in todo:
            by_sig.setdefault(m.sig, []).append(m)
        print(f"{len(todo)} mismatching functions; signatures (expected, observed):")
        for s, ms in sorted(by_sig.items(), key=lambda kv: -len(kv[1])):
            print(f"  {s}: {len(ms)}")
        if a.mismatch_log:
            with open(a.mismatch_log, "w") as f:
                for m in all_mm:
                    f.write(f"batch {m.batch} {m.info.name}{m.args!r:.300}: {m.desc}\n")
        # shrink round-robin over signatures, a few per observed kind
        order, per_obs = [], {}
        lists = [list(v) for v in by_sig.values()]
        while any(lists) and len(order) < a.shrink:
            for lst in lists:
                if lst and len(order) < a.shrink:
                    m = lst.pop(0)
                    if per_obs.get(m.sig[1], 0) >= a.shrink_per_observed:
                        lst.clear()
                        continue
                    per_obs[m.sig[1]] = per_obs.get(m.sig[1], 0) + 1
                    order.append(m)
        minimal = []

        def sjob(m):
            with lock:
                w = free.pop()
            try:
                return shrink_mod.shrink(w, m, time_limit=a.shrink_time)
            finally:
                with lock:
                    free.append(w)
        for m, res in zip(order, pool.map(sjob, order)):
            print(f"\nshrunk {m.info.name} of batch {m.batch} ({m.sig}; {m.desc[:200]}):", flush=True)
            if res is None:
                print("  (did not reproduce in isolation)")
                continue
            key = res.key()
            if any(r.key() == key for r in minimal):
                print("  duplicate of an earlier reproducer")
                continue
            minimal.append(res)
            print(res.render_summary())
            if a.write_regressions:
                try:
                    path = res.write(shrink_mod.REG_DIR)
                    print(f"  written to {path}")
                except Exception:  # noqa: BLE001
                    import traceback
                    traceback.print_exc()
    finally:
        for w in workers:
            w.close()
    return 1 if all_mm else 0


if __name__ == "__main__":
    sys.exit(main())
