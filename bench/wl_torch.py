"""Torch model workloads: reference Phase A and Phase B cells, TorchBench's
lennard_jones MLP and an elementwise chain, kiln vs eager vs torch.jit.script
vs torch.compile."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import torch

import harness
from common import build_model
from harness import Budget, Cell

PHASE_A_CELLS = [(1, 32, 32), (1, 128, 64), (8, 64, 64), (16, 128, 64), (64, 128, 64), (256, 256, 128)]
PHASE_B_CELLS = [(1, 16, 4, 0), (1, 32, 8, 1), (4, 32, 16, 0), (8, 64, 16, 1), (32, 128, 8, 0),
                 (64, 128, 16, 1)]
ELEMENTWISE_CELLS = [(1, 64), (16, 64), (64, 256), (256, 1024)]
QUICK_A = [(1, 32, 32)]
QUICK_B = [(1, 16, 4, 0)]


def _peers(name: str, mod: Any, args: tuple, use_compile: bool,
           extra: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """kiln, eager, jit.script and (unless quick) torch.compile, warm; the
    lazily compiling peers' first-call time goes into extra['compile_s']."""
    import torch_twins

    native = getattr(mod, name)
    eager = mod.__kiln_python__[name]
    scripted = torch.jit.script(getattr(torch_twins, name))
    contenders = {
        "kiln": lambda: native(*args),
        "eager": lambda: eager(*args),
        "jit.script": lambda: scripted(*args),
    }
    extra["compile_s"] = {"jit.script": harness.first_call_seconds(contenders["jit.script"])}
    if use_compile:
        torch._dynamo.reset()
        compiled = torch.compile(eager)
        contenders["torch.compile"] = lambda: compiled(*args)
        extra["compile_s"]["torch.compile"] = harness.first_call_seconds(contenders["torch.compile"])
    ref = eager(*args)
    extra["check"] = harness.compare(native(*args), ref, f"{name} {extra['cell']}")
    extra["peer_check"] = {p: harness.compare(f(), ref, f"{p} {name}")["ok"]
                           for p, f in contenders.items() if p not in ("kiln", "eager")}
    return contenders


def phase_a(mod: Any, budget: Budget, quick: bool) -> list[Cell]:
    cells = []
    for batch, n_in, n_out in (QUICK_A if quick else PHASE_A_CELLS):
        label = f"{batch}/{n_in}->{n_out}"
        x = torch.randn(batch, n_in)
        w = torch.randn(n_out, n_in) / n_in ** 0.5
        b = torch.randn(n_out) * 0.1
        extra: dict[str, Any] = {"cell": label}
        contenders = _peers("phase_a", mod, (x, w, b), not quick, extra)
        cell = harness.measure("phase_a", label, {"batch": batch, "in": n_in, "out": n_out},
                               contenders, budget)
        cell.extra.update(extra)
        harness.log(cell)
        cells.append(cell)
    return cells


def phase_b(mod: Any, budget: Budget, quick: bool) -> list[Cell]:
    cells = []
    for batch, width, depth, phase in (QUICK_B if quick else PHASE_B_CELLS):
        label = f"{batch}/{width}/{depth}/{phase}"
        x = torch.randn(batch, width)
        w = torch.randn(width, width) / width ** 0.5
        b = torch.randn(width) * 0.1
        extra: dict[str, Any] = {"cell": label}
        contenders = _peers("phase_b", mod, (x, w, b, depth, phase), not quick, extra)
        cell = harness.measure("phase_b", label,
                               {"batch": batch, "width": width, "depth": depth, "phase": phase},
                               contenders, budget)
        cell.extra.update(extra)
        harness.log(cell)
        cells.append(cell)
    return cells


def lennard_jones(mod: Any, budget: Budget, quick: bool) -> list[Cell]:
    """TorchBench's lennard_jones at batch 1; the nn.Sequential module (as
    TorchBench runs it, eager) is an extra contender."""
    net = torch.nn.Sequential(
        torch.nn.Linear(1, 16), torch.nn.Tanh(),
        torch.nn.Linear(16, 16), torch.nn.Tanh(),
        torch.nn.Linear(16, 16), torch.nn.Tanh(),
        torch.nn.Linear(16, 16), torch.nn.Tanh(),
        torch.nn.Linear(16, 1)).eval()
    params: list[torch.Tensor] = []
    for layer in net:
        if isinstance(layer, torch.nn.Linear):
            params += [layer.weight.detach(), layer.bias.detach()]
    x = torch.randn(1, 1)
    extra: dict[str, Any] = {"cell": "batch 1"}
    contenders = _peers("lennard_jones", mod, (x, *params), not quick, extra)

    def module_call() -> torch.Tensor:
        with torch.no_grad():
            return net(x)

    contenders["nn.Sequential"] = module_call
    with torch.no_grad():
        extra["peer_check"]["nn.Sequential"] = harness.compare(
            net(x), mod.__kiln_python__["lennard_jones"](x, *params), "nn.Sequential")["ok"]
    cell = harness.measure("lennard_jones", "batch 1", {"batch": 1, "width": 16, "layers": 5},
                           contenders, budget)
    cell.extra.update(extra)
    harness.log(cell)
    return [cell]


def elementwise(mod: Any, budget: Budget, quick: bool) -> list[Cell]:
    """`((x - mu) / sd * gain + bias).relu() * scale` on batch x width."""
    cells = []
    for batch, width in (ELEMENTWISE_CELLS[:1] if quick else ELEMENTWISE_CELLS):
        label = f"{batch}x{width}"
        x = torch.randn(batch, width)
        mu, sd = torch.randn(width), torch.rand(width) + 0.5
        gain, bias = torch.randn(width), torch.randn(width)
        extra: dict[str, Any] = {"cell": label}
        contenders = _peers("elementwise", mod, (x, mu, sd, gain, bias, 0.5), not quick, extra)
        cell = harness.measure("elementwise", label, {"batch": batch, "width": width}, contenders, budget)
        cell.extra.update(extra)
        harness.log(cell)
        cells.append(cell)
    return cells


def run(out_dir: str, budget: Budget, quick: bool, groups: list[str]) -> dict[str, list[Cell]]:
    warnings.filterwarnings("ignore")
    mod = build_model("torch_models", out_dir)
    results = {}
    for group, fn in (("phase_a", phase_a), ("phase_b", phase_b),
                      ("lennard_jones", lennard_jones), ("elementwise", elementwise)):
        if group in groups:
            print(f"== {group}", flush=True)
            results[group] = fn(mod, budget, quick)
    return results
