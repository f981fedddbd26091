#!/usr/bin/env python3
"""kiln's benchmark suite (`make bench`).

    python bench/run.py [--quick] [--out DIR] [--no-default-threads]

Writes DIR/results.md (Markdown tables), DIR/results.json and DIR/*.png
(DIR defaults to bench/results).  The suite runs as a few child processes of
this script, one per framework group, so that thread settings are fixed
before a framework starts:

  pass "single"  every workload, pinned to one thread (OMP_NUM_THREADS=1,
                 torch.set_num_threads(1), TF intra/inter-op threads 1);
  pass "default" the GEMM sweep and Phase A at the default thread count
                 (skipped with --quick or --no-default-threads).

The GEMM child runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset, for
NumPy's sake.  bench/fma_peak.c is compiled with `cc -O2` and measures the
core's FMA peak, from registers and (AVX-512) fed by loads as in a GEMM
register tile; bench/kernel_cells.c, compiled with runtime/kernels.c, times
the C kernels of the Phase A, Phase B and TF-chain cells alone (the kernel
calls the compiled functions make, without Python or framework boundary) for
the report's "Where the time goes" section.  Every cell interleaves its
contenders and reports medians; kiln's output is checked against eager once
per cell and a mismatch is printed loudly and flagged in the results.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# child name -> (workload module, its groups)
CHILDREN = {
    "torch": ("wl_torch", ["phase_a", "phase_b", "lennard_jones", "elementwise"]),
    "micro": ("wl_micro", ["scalar", "fixed_cost"]),
    "tf": ("wl_tf", ["tf_chain"]),
    "gemm": ("wl_gemm", ["gemm"]),
}
THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


# ---- child side -------------------------------------------------------------

def child_main(args: argparse.Namespace) -> None:
    """Run one workload module in this process and write its cells as JSON."""
    sys.path.insert(0, str(BENCH))
    sys.path.insert(0, str(BENCH / "models"))
    import harness

    threads = None if args.threads == "default" else int(args.threads)
    module_name, all_groups = CHILDREN[args.child]
    groups = args.groups.split(",") if args.groups else all_groups
    budget = harness.Budget.quick() if args.quick else harness.Budget()
    if args.threads == "default":
        budget.cell_s /= 2
    if args.child == "tf":
        import wl_tf  # TF threading first, before anything touches TF
        results = wl_tf.run(args.out, budget, args.quick, groups, threads=threads)
    else:
        import torch
        if threads is not None:
            torch.set_num_threads(threads)
            torch.set_num_interop_threads(threads)
        module = __import__(module_name)
        results = module.run(args.out, budget, args.quick, groups)
    import kiln._runtime

    info = {"boundary_paths": kiln._runtime.boundary_paths()}
    if "torch" in sys.modules:
        info["torch_threads"] = sys.modules["torch"].get_num_threads()
    payload = {"info": info,
               "groups": {g: [c.to_json() for c in cells] for g, cells in results.items()}}
    Path(args.json).write_text(json.dumps(payload, indent=1))


# ---- parent side ------------------------------------------------------------

def machine_info() -> dict:
    """CPU model and cores, kiln's kernel set, library versions."""
    cpu_model, flags = "unknown", set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and cpu_model == "unknown":
                cpu_model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    import kiln
    import kiln._runtime

    versions = {"python": platform.python_version(), "kiln": kiln.__version__}
    for dist in ("torch", "tensorflow-cpu", "tensorflow", "numpy", "matplotlib", "threadpoolctl"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    cc = subprocess.run(["cc", "--version"], capture_output=True, text=True)
    return {
        "cpu_model": cpu_model,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "isa_flags": sorted(f for f in flags if f in {"avx2", "fma", "avx512f", "avx512bw",
                                                       "avx512vl", "amx_tile"}),
        "kernel": platform.release(),
        "kiln_isa": kiln._runtime.isa(),
        "load_avg_at_start": os.getloadavg(),
        "cc": cc.stdout.splitlines()[0] if cc.returncode == 0 else "unknown",
        "versions": versions,
    }


def run_child(name: str, threads: str, out: Path, quick: bool, groups: list[str] | None,
              tmp: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if threads == "default":
        for var in THREAD_ENV:
            env.pop(var, None)
    else:
        env.update({var: threads for var in THREAD_ENV})
    if name == "gemm":
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    json_path = tmp / f"{name}-{threads}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--threads", threads,
           "--json", str(json_path), "--out", str(out)]
    if quick:
        cmd.append("--quick")
    if groups:
        cmd += ["--groups", ",".join(groups)]
    print(f"\n### {name} (threads: {threads})", flush=True)
    proc = subprocess.run(cmd, env=env)
    if proc.returncode != 0:
        print(f"ERROR: child {name} (threads {threads}) exited with {proc.returncode}",
              flush=True)
        return {"error": f"exit status {proc.returncode}", "groups": {}}
    return json.loads(json_path.read_text())


def fma_peak(out: Path, quick: bool) -> dict:
    """Compile and run bench/fma_peak.c; {isa: GFLOP/s}."""
    exe = out / "build" / "fma_peak"
    exe.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cc", "-O2", str(BENCH / "fma_peak.c"), "-o", str(exe)], check=True)
    res = subprocess.run([str(exe)] + (["quick"] if quick else []), capture_output=True,
                         text=True, check=True)
    peaks = {}
    for line in res.stdout.splitlines():
        isa, value = line.split()
        peaks[isa] = float(value)
    print(f"\n### fma peak (one core): {peaks}", flush=True)
    return peaks


def _module_constants(path: Path, names: set[str]) -> dict:
    """Top-level literal constants of a workload module, read without importing
    it (wl_torch imports torch, which the parent process never loads)."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name):
            pairs = [(target, value)]
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            pairs = list(zip(target.elts, value.elts))
        else:
            continue
        for t, v in pairs:
            if isinstance(t, ast.Name) and t.id in names:
                found[t.id] = ast.literal_eval(v)
    missing = names - found.keys()
    if missing:
        raise ValueError(f"{path.name}: no literal {', '.join(sorted(missing))}")
    return found


def kernel_cell_specs(quick: bool) -> dict[str, dict[str, str]]:
    """{group: {cell label: kernel_cells spec}} for the single-thread pass's
    Phase A, Phase B and TF-chain cells (the labels the workloads give them)."""
    t = _module_constants(BENCH / "wl_torch.py",
                          {"PHASE_A_CELLS", "PHASE_B_CELLS", "QUICK_A", "QUICK_B"})
    f = _module_constants(BENCH / "wl_tf.py", {"BATCHES", "IN", "OUT"})
    if (f["IN"], f["OUT"]) != (128, 64):  # kernel_cells.c hard-codes the TF chain's shape
        raise ValueError(f"wl_tf.py: TF chain is {f['IN']}->{f['OUT']}, kernel_cells.c has 128->64")
    cells_a = t["QUICK_A"] if quick else t["PHASE_A_CELLS"]
    cells_b = t["QUICK_B"] if quick else t["PHASE_B_CELLS"]
    batches = f["BATCHES"][:1] if quick else f["BATCHES"]  # as wl_tf.run picks them
    return {
        "phase_a": {f"{b}/{i}->{o}": f"phase_a:{b}:{i}:{o}" for b, i, o in cells_a},
        "phase_b": {f"{b}/{w}/{d}/{p}": f"phase_b:{b}:{w}:{d}:{p}" for b, w, d, p in cells_b},
        "tf_chain": {f"batch {b}": f"tf_chain:{b}" for b in batches},
    }


def kernel_cells(out: Path, quick: bool) -> tuple[dict, dict] | None:
    """Compile and run bench/kernel_cells.c: {group: {label: kernel us per call}}
    (one thread, thread CPU time) and {group: {label: the kernels' share of the
    FMA peak timed in the same samples}}, or None with a warning if anything
    fails."""
    try:
        specs = kernel_cell_specs(quick)
        exe = out / "build" / "kernel_cells"
        exe.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cc", "-std=c11", "-O2", f"-I{ROOT / 'runtime'}", "-DFMA_PEAK_LIB",
                        str(BENCH / "kernel_cells.c"), str(BENCH / "fma_peak.c"), str(ROOT / "runtime" / "kernels.c"),
                        "-o", str(exe), "-lm", "-lpthread"],
                       check=True, capture_output=True, text=True)
        flat = {spec: (group, label) for group, cells in specs.items()
                for label, spec in cells.items()}
        res = subprocess.run([str(exe)] + (["quick"] if quick else []) + list(flat),
                             capture_output=True, text=True, check=True, timeout=600)
        measured: dict[str, dict[str, float]] = {group: {} for group in specs}
        shares: dict[str, dict[str, float]] = {group: {} for group in specs}
        for line in res.stdout.splitlines():
            spec, value, share = line.split()
            group, label = flat[spec]
            measured[group][label] = float(value)
            if float(share) > 0:
                shares[group][label] = float(share)
        missing = [spec for spec, (g, label) in flat.items() if label not in measured[g]]
        if missing:
            raise ValueError(f"no time for {', '.join(missing)}")
    except (OSError, ValueError, KeyError, SyntaxError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", None) or ""
        print(f"WARNING: kernel-only timing (bench/kernel_cells.c) failed, no "
              f"'Where the time goes' section: {exc}\n{detail}".rstrip(), flush=True)
        return None
    print(f"\n### kernel-only time per call (one thread, us): {measured}", flush=True)
    print(f"### kernels' share of the FMA peak timed in the same samples: {shares}", flush=True)
    return measured, shares


def kernels_newer_than_extension() -> str | None:
    """kernel_cells is built from runtime/kernels.c as it is now, while the
    compiled functions call the kernels built into kiln._runtime: say so when
    the source is newer than that extension (`make build` rebuilds it)."""
    import kiln._runtime

    ext = Path(kiln._runtime.__file__)
    sources = [ROOT / "runtime" / "kernels.c", ROOT / "runtime" / "kernels.h"]
    newer = [s.name for s in sources if s.exists() and s.stat().st_mtime > ext.stat().st_mtime]
    if not newer:
        return None
    return (f"runtime/{' and runtime/'.join(newer)} changed after {ext.name} was built: the "
            f"kernel-only times may come from other kernel code than kiln's times")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tiny subset (smoke test)")
    ap.add_argument("--out", default=str(BENCH / "results"), help="results directory")
    ap.add_argument("--no-default-threads", action="store_true",
                    help="skip the pass at the default thread count")
    ap.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    ap.add_argument("--threads", default="1", help=argparse.SUPPRESS)
    ap.add_argument("--groups", help=argparse.SUPPRESS)
    ap.add_argument("--json", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child_main(args)
        return 0

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    results = {"quick": args.quick, "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
               "machine": machine_info(), "passes": {}, "children": {}}
    print(json.dumps(results["machine"], indent=1), flush=True)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        results["fma_peak_gflops"] = fma_peak(out, args.quick)
        kernels = kernel_cells(out, args.quick)
        if kernels is not None:
            results["kernel_cells"], results["kernel_cells_peak_share"] = kernels
            stale = kernels_newer_than_extension()
            if stale:
                print(f"WARNING: {stale}", flush=True)
        plan = [("single", name, None) for name in CHILDREN]
        if not (args.quick or args.no_default_threads):
            plan += [("default", "gemm", None), ("default", "torch", ["phase_a"])]
        for pass_name, child, groups in plan:
            threads = "1" if pass_name == "single" else "default"
            payload = run_child(child, threads, out, args.quick, groups, tmp)
            results["passes"].setdefault(pass_name, {}).update(payload["groups"])
            results["children"][f"{child}/{pass_name}"] = {
                k: v for k, v in payload.items() if k != "groups"}
        # A second FMA measurement after the suite: a peak is a max, and the
        # machine is shared, so either run alone may have been slowed down.
        for isa, gflops in fma_peak(out, args.quick).items():
            results["fma_peak_gflops"][isa] = max(gflops, results["fma_peak_gflops"].get(isa, 0))
    results["elapsed_s"] = round(time.time() - started, 1)
    results["machine"]["load_avg_at_end"] = os.getloadavg()

    sys.path.insert(0, str(BENCH))
    import report

    mismatches = report.write_all(results, out)
    print(f"\nwrote {out / 'results.md'}, {out / 'results.json'} "
          f"({results['elapsed_s']:.0f} s)", flush=True)
    errors = [k for k, v in results["children"].items() if "error" in v]
    if mismatches:
        print(f"MISMATCHES: {', '.join(mismatches)}", flush=True)
    if errors:
        print(f"FAILED CHILDREN: {', '.join(errors)}", flush=True)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
