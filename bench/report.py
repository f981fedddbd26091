"""Turning the suite's results into results.md, results.json and plots."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

TITLES = {
    "phase_a": "Phase A: linear -> relu -> mean (cell = batch/in->out)",
    "phase_b": "Phase B: alternating relu/sigmoid layer loop (cell = batch/width/depth/phase)",
    "lennard_jones": "TorchBench lennard_jones MLP (5 x Linear width 16, tanh; batch 1)",
    "elementwise": "Elementwise chain: ((x - mu) / sd * gain + bias).relu() * scale (cell = batch x width)",
    "tf_chain": "TensorFlow chain: matmul -> relu -> + bias -> reduce_mean(axis=1) (in 128, out 64)",
    "gemm": "GEMM sweep (C = A @ B, float32)",
    "scalar": "Scalar loops: compiled pure-int function vs CPython",
    "fixed_cost": "Fixed cost of a call: 3 tensors in, the first one out",
}
PASS_TITLES = {"single": "one thread", "default": "default thread count"}


def geomean(values: list[float]) -> float:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def fmt_us(us: float) -> str:
    return f"{us:.1f}" if us >= 100 else f"{us:.2f}"


def fmt_x(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def check_text(cell: dict[str, Any]) -> str:
    check = cell["extra"].get("check")
    if check is None:
        return "-"
    if not check["ok"]:
        return f"**MISMATCH** ({check['max_abs_diff']:.2g})"
    bad = [p for p, ok in cell["extra"].get("peer_check", {}).items() if not ok]
    text = f"ok ({check['max_abs_diff']:.1g})"
    return text + (f"; peer differs: {', '.join(bad)}" if bad else "")


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def latency_table(cells: list[dict[str, Any]]) -> str:
    """Times (us, median) per contender, then each peer's time / kiln's time."""
    contenders = list(dict.fromkeys(c for cell in cells for c in cell["contenders"]))
    peers = [c for c in contenders if c != "kiln"]
    header = (["cell"] + [f"{c} us" for c in contenders] + [f"{p}/kiln" for p in peers]
              + ["compile s (first call)", "check"])
    rows = []
    for cell in cells:
        compile_s = cell["extra"].get("compile_s", {})
        rows.append([cell["label"]]
                    + [fmt_us(cell["median_us"][c]) if c in cell["median_us"] else "-"
                       for c in contenders]
                    + [fmt_x(cell["ratio"].get(p)) for p in peers]
                    + [", ".join(f"{k} {v:.2f}" for k, v in compile_s.items()) or "-",
                       check_text(cell)])
    return md_table(header, rows)


FMA = "fma peak"  # the GEMM cells' in-round contender: the cell's multiply-adds at the FMA peak


def peak_share(cell: dict[str, Any], who: str, peak: float | None) -> float | None:
    """A GEMM contender's share of the one-core FMA peak. Where the cell timed
    the peak in its own rounds (one-thread pass, large cells), against that:
    kiln's is the median over rounds of (peak time / kiln time), a peer's the
    ratio of medians. Otherwise against the best-of peak of bench/fma_peak.c
    run before and after the suite (another process, another minute)."""
    if FMA in cell.get("median_us", {}):
        if who == cell.get("reference", "kiln") and FMA in cell["ratio"]:
            return cell["ratio"][FMA]
        return cell["median_us"][FMA] / cell["median_us"][who]
    return cell["extra"]["gflops"][who] / peak if peak else None


def gemm_table(cells: list[dict[str, Any]], peak: float | None) -> str:
    header = ["M x N x K", "kiln GFLOP/s", "torch GFLOP/s", "numpy GFLOP/s", "FMA peak GFLOP/s (same rounds)",
              "kiln/torch speed", "kiln/numpy speed", "kiln % of FMA peak (best-of)",
              "kiln % of FMA peak (same rounds)", "check"]
    rows = []
    for cell in cells:
        g = cell["extra"]["gflops"]
        same = peak_share(cell, "kiln", None) if FMA in g else None
        rows.append([cell["label"], f"{g['kiln']:.1f}", f"{g['torch']:.1f}", f"{g['numpy']:.1f}",
                     f"{g[FMA]:.1f}" if FMA in g else "-",
                     fmt_x(cell["ratio"].get("torch")), fmt_x(cell["ratio"].get("numpy")),
                     f"{100 * g['kiln'] / peak:.0f}%" if peak else "-",
                     f"{100 * same:.0f}%" if same else "-", check_text(cell)])
    return md_table(header, rows)


def scalar_table(cells: list[dict[str, Any]]) -> str:
    header = ["function(n)", "kiln us", "CPython us", "CPython/kiln", "goal >= 20x", "check"]
    rows = [[c["label"], fmt_us(c["median_us"]["kiln"]), fmt_us(c["median_us"]["cpython"]),
             fmt_x(c["ratio"]["cpython"]), "met" if c["ratio"]["cpython"] >= 20 else "**not met**",
             check_text(c)] for c in cells]
    return md_table(header, rows)


def fixed_table(cells: list[dict[str, Any]]) -> str:
    header = ["call", "kiln ns", "C no-op ns", "Python `return a` ns", "kiln / C no-op",
              "Python / C no-op", "check"]
    rows = [[c["label"], f"{c['median_us']['kiln'] * 1e3:.0f}",
             f"{c['median_us']['C no-op'] * 1e3:.0f}", f"{c['median_us']['python'] * 1e3:.0f}",
             fmt_x(c["ratio"]["kiln"]), fmt_x(c["ratio"]["python"]), check_text(c)]
            for c in cells]
    return md_table(header, rows)


def summary_rows(results: dict[str, Any]) -> list[list[str]]:
    """One line per group and peer: geometric mean and range of the per-cell ratios."""
    rows = []
    peak = results.get("fma_peak_gflops", {}).get(results["machine"]["kiln_isa"])
    for pass_name, groups in results["passes"].items():
        for group, cells in groups.items():
            if not cells:
                continue
            if group == "fixed_cost":
                r = cells[0]["ratio"]["kiln"]
                rows.append([PASS_TITLES[pass_name], group, "kiln / C no-op (lower is better)",
                             fmt_x(r), fmt_x(r)])
                continue
            peers = list(dict.fromkeys(p for c in cells for p in c["ratio"] if p != FMA))
            for peer in peers:
                vals = [c["ratio"][peer] for c in cells if peer in c["ratio"]]
                rows.append([PASS_TITLES[pass_name], group, f"{peer} time / kiln time",
                             fmt_x(geomean(vals)), f"{fmt_x(min(vals))} .. {fmt_x(max(vals))}"])
            if group == "gemm" and peak:
                fr = [c["extra"]["gflops"]["kiln"] / peak for c in cells]
                rows.append([PASS_TITLES[pass_name], group, "kiln GFLOP/s / FMA peak (one core, best-of)",
                             f"{100 * geomean(fr):.0f}%",
                             f"{100 * min(fr):.0f}% .. {100 * max(fr):.0f}%"])
            same = [c["ratio"][FMA] for c in cells if FMA in c["ratio"]] if group == "gemm" else []
            if same:
                rows.append([PASS_TITLES[pass_name], group, "kiln GFLOP/s / FMA peak (same rounds)",
                             f"{100 * geomean(same):.0f}%",
                             f"{100 * min(same):.0f}% .. {100 * max(same):.0f}%"])
    return rows


def cell_flops(group: str, params: dict[str, Any]) -> float | None:
    """Multiply-add work of a cell (2 flops per MAC), for the peak-FMA ceiling."""
    if group == "phase_a":
        return 2.0 * params["batch"] * params["in"] * params["out"]
    if group == "phase_b":
        return 2.0 * params["depth"] * params["batch"] * params["width"] ** 2
    if group == "lennard_jones":
        return 2.0 * (16 + 3 * 16 * 16 + 16)
    if group == "tf_chain":
        return 2.0 * params["batch"] * params["in"] * params["out"]
    return None


# (group, which cells, peer, goal, what the goal is): the targets of issues #3 and #5
TARGETS = [
    ("phase_a", lambda p: p["batch"] <= 16, "eager", 5.0, "#3: Phase A batch <= 16 vs eager"),
    ("phase_a", lambda p: p["batch"] <= 16, "eager", 10.0, "#5: Phase A batch <= 16 vs eager"),
    ("phase_a", lambda p: p["batch"] <= 16, "torch.compile", 20.0, "#5: Phase A batch <= 16 vs torch.compile"),
    ("phase_a", lambda p: p["batch"] == 64, "eager", 3.0, "#5: Phase A batch 64 vs eager"),
    ("phase_a", lambda p: p["batch"] == 256, "eager", 1.5, "#5: Phase A 256/256->128 vs eager"),
    ("phase_b", lambda p: p["batch"] <= 16, "eager", 10.0, "#5: Phase B batch <= 16 vs eager"),
    ("phase_b", lambda p: p["batch"] <= 16, "torch.compile", 20.0, "#5: Phase B batch <= 16 vs torch.compile"),
    ("phase_b", lambda p: p["batch"] == 64, "eager", 3.0, "#5: Phase B batch 64 vs eager"),
    ("lennard_jones", lambda p: True, "eager", 10.0, "#5: lennard_jones vs eager"),
    ("lennard_jones", lambda p: True, "torch.compile", 5.0, "#5: lennard_jones vs torch.compile"),
    ("tf_chain", lambda p: p["batch"] <= 64, "eager", 30.0, "#5: TF chain batch <= 64 vs eager TF"),
    ("tf_chain", lambda p: p["batch"] <= 64, "tf.function", 10.0, "#5: TF chain batch <= 64 vs tf.function"),
]


def targets_table(results: dict[str, Any]) -> str:
    """Each target cell: measured ratio, goal, and the ceiling a kernel running
    at the FMA peak with a free boundary would reach (peer time / (flops /
    peak)): a goal above its ceiling cannot be met on this machine."""
    single = results["passes"].get("single", {})
    peak = results.get("fma_peak_gflops", {}).get(results["machine"]["kiln_isa"])
    rows = []
    for group, which, peer, goal, what in TARGETS:
        for c in single.get(group, []):
            if not which(c["params"]) or peer not in c["ratio"]:
                continue
            r = c["ratio"][peer]
            flops = cell_flops(group, c["params"])
            ceiling = (c["median_us"][peer] / (flops / (peak * 1e3))) if flops and peak else None
            status = "met" if r >= goal else (
                "**not met**, above the FMA-peak ceiling" if ceiling and ceiling < goal else "**not met**")
            rows.append([what, c["label"], fmt_x(r), f">= {goal:g}x", status,
                         f"{ceiling:.1f}x" if ceiling else "-"])
    for c in single.get("fixed_cost", []):
        r = c["ratio"]["kiln"]
        rows.append(["#5: fixed cost vs C no-op (lower is better)", c["label"], fmt_x(r), "<= 3x",
                     "met" if r <= 3 else "**not met**", "-"])
    for pass_name, groups in results["passes"].items():
        for c in groups.get("gemm", []):
            m, n, k = (c["params"][x] for x in ("m", "n", "k"))
            if not (m == n == k and 512 <= m <= 2048):
                continue
            r = c["ratio"].get("torch")
            rows.append([f"#5: GEMM square vs torch.matmul ({PASS_TITLES[pass_name]})", c["label"], fmt_x(r),
                         ">= 0.9x", "met" if r and r >= 0.9 else "**not met**", "-"])
            f = peak_share(c, "kiln", peak) if pass_name == "single" else None
            if f:
                how = "same rounds" if FMA in c["ratio"] else "best-of peak"
                rows.append([f"#5: GEMM square, % of FMA peak (one thread, {how})", c["label"],
                             f"{100 * f:.0f}%", ">= 80%", "met" if f >= 0.8 else "**not met**", "-"])
    return md_table(["target", "cell", "measured", "goal", "status", "ceiling at FMA peak"], rows)


KERNEL_GROUPS = {"phase_a": "Phase A", "phase_b": "Phase B", "tf_chain": "TF chain"}


def goal_time(group: str, cell: dict[str, Any]) -> tuple[float, str] | None:
    """The strictest target of TARGETS for this cell as a time: min over its
    goals of peer us / goal ratio, with the goal that sets it."""
    best = None
    for g, which, peer, goal, _what in TARGETS:
        if g != group or not which(cell["params"]) or peer not in cell["median_us"]:
            continue
        us = cell["median_us"][peer] / goal
        if best is None or us < best[0]:
            best = (us, f">= {goal:g}x {peer}")
    return best


def time_split_table(results: dict[str, Any]) -> str | None:
    """kiln's one-thread time per call split into the C kernels alone and the
    rest, against the FMA-peak time and the time the strictest goal needs."""
    kernels = results.get("kernel_cells")
    if not kernels:
        return None
    single = results["passes"].get("single", {})
    peak = results.get("fma_peak_gflops", {}).get(results["machine"]["kiln_isa"])
    shares = results.get("kernel_cells_peak_share") or {}
    rows = []
    for group, title in KERNEL_GROUPS.items():
        for c in single.get(group, []):
            k_us = kernels.get(group, {}).get(c["label"])
            same = shares.get(group, {}).get(c["label"])
            kiln_us = c["median_us"].get("kiln")
            if k_us is None or kiln_us is None:
                continue
            flops = cell_flops(group, c["params"])
            gflops = flops / (k_us * 1e3) if flops and k_us > 0 else None
            goal = goal_time(group, c)
            rows.append([
                title, c["label"], fmt_us(kiln_us), fmt_us(k_us), fmt_us(kiln_us - k_us),
                f"{100 * k_us / kiln_us:.0f}%",
                f"{gflops:.1f}" if gflops else "-",
                f"{100 * gflops / peak:.0f}%" if gflops and peak else "-",
                f"{100 * same:.0f}%" if same else "-",
                fmt_us(flops / (peak * 1e3)) if flops and peak else "-",
                f"{fmt_us(goal[0])} ({goal[1]})" if goal else "-",
                fmt_us(goal[0] - k_us) if goal else "-",
            ])
    if not rows:
        return None
    return md_table(["group", "cell", "kiln us", "kernel us", "rest us", "kernel share of kiln",
                     "kernel GFLOP/s", "kernel % of FMA peak (best-of)",
                     "kernel % of FMA peak (same samples)", "FMA-peak us",
                     "time the goal needs us (strictest goal)", "goal time - kernel us"], rows)


def unmet_table(results: dict[str, Any]) -> str | None:
    """Each unmet target, how far off it is and whether any kernel could meet
    it: the kernels' share of the FMA peak it would need, given the measured
    non-kernel time (*rest*) of the same cell and, more kindly, the smallest
    rest measured in its group."""
    kernels = results.get("kernel_cells") or {}
    single = results["passes"].get("single", {})
    isa = results["machine"]["kiln_isa"]
    peak = results.get("fma_peak_gflops", {}).get(isa)
    if not peak:
        return None
    # the practical ceiling: the same FMAs fed from L1 through a register tile
    loadfed = results.get("fma_peak_gflops", {}).get(f"{isa}_loadfed", 0.0) / peak
    rows = []
    for group, which, peer, goal, what in TARGETS:
        cells = single.get(group, [])
        # kiln's time and the kernels' are measured in different processes, so a
        # rest can come out negative (noise): count it as none
        rests = [max(0.0, c["median_us"]["kiln"] - kernels[group][c["label"]]) for c in cells
                 if c["label"] in kernels.get(group, {}) and "kiln" in c["median_us"]]
        for c in cells:
            if not which(c["params"]) or peer not in c["ratio"] or c["ratio"][peer] >= goal:
                continue
            kiln_us, k_us = c["median_us"]["kiln"], kernels.get(group, {}).get(c["label"])
            flops = cell_flops(group, c["params"])
            goal_us, peak_us = c["median_us"][peer] / goal, flops / (peak * 1e3)
            if k_us is None:
                rows.append([what, c["label"], fmt_us(kiln_us), fmt_us(goal_us),
                             f"{100 * (1 - goal_us / kiln_us):.0f}%", "-", "-", "-", "-"])
                continue
            rest, min_rest = max(0.0, kiln_us - k_us), min(rests)

            def need(rest_us: float) -> str:
                left = goal_us - rest_us
                return f"{100 * peak_us / left:.0f}%" if left > 0 else "-"

            if peak_us >= goal_us:
                verdict = "no kernel can: the multiply-adds alone at the FMA peak take longer"
            elif peak_us + min_rest >= goal_us:
                verdict = f"no kernel can with the group's smallest rest ({fmt_us(min_rest)} us)"
            elif loadfed and peak_us / loadfed + min_rest >= goal_us:
                verdict = (f"no kernel fed from L1 can: at the load-fed ceiling ({100 * loadfed:.0f}% of the peak) "
                           "with the group's smallest rest it is still too slow")
            elif peak_us + rest >= goal_us:
                verdict = "needs a smaller rest as well as faster kernels"
            else:
                verdict = "faster kernels could"
            rows.append([what, c["label"], fmt_us(kiln_us), fmt_us(goal_us),
                         f"{100 * (1 - goal_us / kiln_us):.0f}%",
                         f"{100 * peak_us / k_us:.0f}%", need(rest), need(min_rest), verdict])
    if not rows:
        return None
    return md_table(["target", "cell", "kiln us", "goal needs us", "time to cut", "kernels now, % of FMA peak",
                     "kernels need (this cell's rest)", "kernels need (group's smallest rest)", "verdict"], rows)


def unmet_section(results: dict[str, Any]) -> list[str]:
    """The "Targets not met" section as Markdown lines ([] when all are met)."""
    table = unmet_table(results)
    peaks = results.get("fma_peak_gflops", {})
    isa = results["machine"]["kiln_isa"]
    gemm = [c for c in results["passes"].get("single", {}).get("gemm", [])
            if c["params"]["m"] == c["params"]["n"] == c["params"]["k"] and 512 <= c["params"]["m"] <= 2048]
    gemm_text = []
    shares = {who: [peak_share(c, who, peaks.get(isa)) for c in gemm] for who in ("kiln", "torch", "numpy")}
    if gemm and all(shares["kiln"]) and any(f < 0.8 for f in shares["kiln"]):
        def pcts(who: str) -> str:
            return "/".join(f"{100 * f:.0f}" for f in shares[who])
        same = all(FMA in c.get("median_us", {}) for c in gemm)
        gemm_text = [f"GEMM square {'/'.join(c['label'].split('x')[0] for c in gemm)}, one thread, % of the FMA"
                     f" peak{' timed in the same rounds' if same else ''}: kiln {pcts('kiln')}, torch.matmul (MKL)"
                     f" {pcts('torch')}, NumPy (OpenBLAS) {pcts('numpy')} (goal 80%).", ""]
    if table is None and not gemm_text:
        return []
    fed = peaks.get(f"{isa}_loadfed")
    fed_text = (f" The same FMAs fed by loads from L1 through a 6x4 register tile (`{isa}_loadfed`)"
                f" ran at {100 * fed / peaks[isa]:.0f}% of the peak: the practical ceiling of a kernel"
                " whose operands are in L1; a goal needing more than that (with the group's smallest rest)"
                " is marked *no kernel fed from L1 can*." if fed and peaks.get(isa) else "")
    return [
        "## Targets not met: by how much, and could a kernel close it", "",
        "*goal needs us*: the peer's median / the goal ratio; *time to cut*: the share of kiln's time",
        "that must go. *Kernels need*: the share of the measured FMA peak at which the kernels would",
        "have to run for kiln to meet the goal, if everything outside them took this cell's *rest*",
        "(previous section) or the smallest *rest* of any cell in its group; `-` or above 100%: no",
        "kernel can." + fed_text, "",
    ] + ([table, ""] if table else []) + gemm_text


def time_split_section(results: dict[str, Any]) -> list[str]:
    """The "Where the time goes" section as Markdown lines ([] without data)."""
    table = time_split_table(results)
    if table is None:
        return []
    lines = [
        "## Where the time goes (one thread)", "",
        "*kernel us*: the C kernels alone. bench/kernel_cells.c makes the compiled function's",
        "kk_* calls (same shapes, strides and activations; one thread; inputs allocated once, so",
        "warm in cache) with no Python, framework or boundary code around them and reports the",
        "median thread CPU time over samples of ~3 ms (~1 ms with --quick). *rest us* = kiln us -",
        "kernel us: argument checks, the DLPack/TFE boundary, output allocation and the glue",
        "between kernels; kiln us is the one-thread pass's wall-clock median, measured in another",
        "process, so *rest* also absorbs any difference between the two measurements. *FMA-peak",
        "us*: the cell's multiply-adds at the measured one-core FMA peak (best-of). *Kernel % of FMA",
        "peak (same samples)*: the median over samples of the time the same multiply-adds take at",
        "the FMA peak, timed right after each kernel sample, / that sample's time. *Time the goal needs*:",
        "the peer's median time / goal ratio for the strictest of the cell's targets above; *goal",
        "time - kernel us* is what that leaves for everything outside the kernels (negative: the",
        "kernels alone take longer than the goal allows).", "",
    ]
    return lines + [table, ""]


def mismatches(results: dict[str, Any]) -> list[str]:
    out = []
    for pass_name, groups in results["passes"].items():
        for group, cells in groups.items():
            for cell in cells:
                check = cell["extra"].get("check")
                if check is not None and not check["ok"]:
                    out.append(f"{pass_name}/{group}/{cell['label']}")
    return out


def markdown(results: dict[str, Any], plots: list[str]) -> str:
    m = results["machine"]
    peak = results.get("fma_peak_gflops", {})
    lines = ["# kiln benchmark results", ""]
    if results["quick"]:
        lines += ["**Quick run** (`--quick`): a tiny subset with few repeats; not for quoting.", ""]
    lines += [
        f"Run {results['started']}, {results.get('elapsed_s', 0):.0f} s in all.", "",
        "## Machine", "",
        md_table(["what", "value"], [
            ["CPU", m["cpu_model"]],
            ["cores (logical / usable)", f"{m['logical_cpus']} / {m['usable_cpus']}"],
            ["ISA flags", " ".join(m["isa_flags"])],
            ["kiln kernels (`kiln._runtime.isa()`)", m["kiln_isa"]],
            ["FMA peak, one core (GFLOP/s; best of start and end)", ", ".join(f"{k} {v:.1f}" for k, v in peak.items())],
            ["C compiler", m["cc"]],
            ["kernel", m["kernel"]],
        ] + [
            ["load average (1/5/15 min) at start / end",
             " / ".join(" ".join(f"{v:.1f}" for v in m[k]) for k in ("load_avg_at_start",
                                                                      "load_avg_at_end"))]
            for _ in [0] if "load_avg_at_end" in m
        ] + [
        ] + [[f"version: {k}", v] for k, v in m["versions"].items()]),
        "",
        "## Method", "",
        "- Each cell interleaves its contenders: every round times one sample of each (a",
        "  sample is as many back-to-back calls as fill ~2 ms; the order rotates per round).",
        "  Times are medians over the rounds, in microseconds per call; a ratio `peer/kiln`",
        "  is the median over rounds of that round's peer time / kiln time (> 1: kiln is",
        "  faster). Rounds adapt to a per-cell time budget.",
        "- Pass *one thread*: `OMP_NUM_THREADS=1`, `torch.set_num_threads(1)`, TF intra/inter",
        "  op threads 1 (set before any TF op). Pass *default thread count*: no limits",
        "  (GEMM sweep and Phase A only). kiln's large GEMMs use torch's thread budget",
        "  (`torch.get_num_threads()`, asked before each GEMM large enough to thread), so",
        "  one thread in the first pass and torch's default in the second.",
        "- Peers are warm: torch.compile (default settings), torch.jit.script,",
        "  tf.function and tf.function(jit_compile=True) are called once before timing; that",
        "  first call's wall time is reported as *compile s* (Dynamo's cache is reset per cell;",
        "  Inductor's on-disk cache may make it shorter on re-runs).",
        "- Every cell checks kiln's output against eager once (|diff| <= 1e-4 x max(1, max|ref|));",
        "  a mismatch is printed loudly and marked **MISMATCH** here.",
        "- GEMM: kiln is a compiled `a @ b`; NumPy runs in the same process, whose environment has",
        "  `OPENBLAS_CORETYPE` and `OPENBLAS_L2_SIZE` unset. GFLOP/s = 2MNK / median time.",
        "  In the one-thread pass, cells from 256x256x256 on also time *fma peak*: the cell's MNK",
        "  multiply-adds from registers (bench/fma_peak.c as a shared library, the loop the FMA-peak",
        "  row of the machine table takes the best of) as one more contender in the same rounds;",
        "  kiln's *% of FMA peak (same rounds)* is the median over rounds of that time / kiln's time.",
        "  The machine's speed drifts by 10-20% over minutes here, so a best-of peak from another",
        "  process and another minute overstates the core the GEMM medians ran on.",
        "  In the default-thread pass, in every cell but 64x64x64, each contender runs untimed for 0.3 s",
        "  before each of its samples: torch's OpenMP and NumPy's OpenBLAS keep idle threads",
        "  spinning after a call, and in one process those take the cores of whichever library",
        "  runs next (measured on a 2-core Intel Xeon: 1024^3, 2 threads, kiln/torch/NumPy",
        "  interleaved 14.9/15.0/11.2 ms without, 7.0/6.4/7.0 ms with; each alone 7.2/6.6/7.4 ms).",
        "",
        "## Summary", "",
        md_table(["pass", "group", "ratio", "geomean", "range"], summary_rows(results)), "",
        "## Targets (issues #3 and #5, one thread)", "",
        "*Ceiling at FMA peak*: the peer's time divided by the cell's multiply-adds run at",
        "the measured FMA peak with no call, boundary or epilogue cost; a goal above it",
        "cannot be met on this machine by any kernel.", "",
        targets_table(results), "",
    ]
    lines += time_split_section(results)
    lines += unmet_section(results)
    bad = mismatches(results)
    if bad:
        lines += ["**MISMATCHES (kiln output differs from eager):** " + ", ".join(bad), ""]
    errors = {k: v["error"] for k, v in results["children"].items() if "error" in v}
    if errors:
        lines += ["**Failed children:** " + ", ".join(f"{k}: {v}" for k, v in errors.items()), ""]
    main_peak = peak.get(m["kiln_isa"])
    for pass_name, groups in results["passes"].items():
        lines += [f"## Pass: {PASS_TITLES[pass_name]}", ""]
        for group, cells in groups.items():
            lines += [f"### {TITLES.get(group, group)}", ""]
            if group == "gemm":
                lines.append(gemm_table(cells, main_peak))
                blas = cells[0]["extra"].get("numpy_blas") if cells else None
                if blas:
                    lines += ["", "NumPy BLAS: " + "; ".join(
                        ", ".join(f"{k}={v}" for k, v in b.items() if k != "filepath")
                        for b in blas)]
            elif group == "scalar":
                lines.append(scalar_table(cells))
            elif group == "fixed_cost":
                lines.append(fixed_table(cells))
            else:
                lines.append(latency_table(cells))
            lines.append("")
    if plots:
        lines += ["## Plots", ""] + [f"![{p}]({p})" for p in plots] + [""]
    return "\n".join(lines)


# ---- plots ------------------------------------------------------------------

def plot_all(results: dict[str, Any], out: Path) -> list[str]:
    """PNG plots (matplotlib, Agg); [] when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots (pip install -e '.[bench]')", flush=True)
        return []
    written = []
    for pass_name, groups in results["passes"].items():
        suffix = "" if pass_name == "single" else f"_{pass_name}"
        for group, cells in groups.items():
            if not cells or group in ("gemm", "fixed_cost"):
                continue
            name = f"{group}{suffix}.png"
            peers = list(dict.fromkeys(p for c in cells for p in c["ratio"]))
            fig, ax = plt.subplots(figsize=(max(5, 1.3 * len(cells) + 2), 3.8))
            width = 0.8 / max(1, len(peers))
            for i, peer in enumerate(peers):
                xs = [j + (i - (len(peers) - 1) / 2) * width for j in range(len(cells))]
                ax.bar(xs, [c["ratio"].get(peer, 0) for c in cells], width, label=peer)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_yscale("log")
            ax.set_xticks(range(len(cells)), [c["label"] for c in cells], fontsize=8)
            ax.set_ylabel("peer time / kiln time")
            ax.set_title(f"{TITLES.get(group, group)}\n({PASS_TITLES[pass_name]})", fontsize=9)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(out / name, dpi=110)
            plt.close(fig)
            written.append(name)
        cells = groups.get("gemm")
        if cells:
            name = f"gemm{suffix}.png"
            peak = results.get("fma_peak_gflops", {}).get(results["machine"]["kiln_isa"])
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
            for ax, kind, key, xlabel in ((axes[0], "square", "n", "N = M = K"),
                                          (axes[1], "skinny", "m", "M (N = K = 1024)")):
                sel = [c for c in cells if c["params"]["kind"] == kind]
                if not sel:
                    ax.set_visible(False)
                    continue
                xs = [c["params"][key] for c in sel]
                for contender in ("kiln", "torch", "numpy"):
                    ax.plot(xs, [c["extra"]["gflops"][contender] for c in sel], marker="o",
                            label=contender)
                if peak:
                    ax.axhline(peak, color="gray", linestyle="--", label="FMA peak (1 core)")
                ax.set_xscale("log", base=2)
                ax.set_xlabel(xlabel)
                ax.set_ylabel("GFLOP/s")
                ax.set_title(f"{kind} GEMM ({PASS_TITLES[pass_name]})", fontsize=9)
                ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(out / name, dpi=110)
            plt.close(fig)
            written.append(name)
    return written


def write_all(results: dict[str, Any], out: Path) -> list[str]:
    """results.json, the plots, results.md; returns the mismatching cells."""
    (out / "results.json").write_text(json.dumps(results, indent=1))
    plots = plot_all(results, out)
    (out / "results.md").write_text(markdown(results, plots))
    return mismatches(results)
