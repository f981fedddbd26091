"""Driving the worker, drawing inputs, and comparing outcomes.

Comparison rules (native kiln result vs the Python oracle):

- scalars exactly: same type (bool/int/float), ints equal, floats equal
  bit for bit up to NaN (so -0.0 != 0.0, NaN == NaN);
- tensors (torch or TensorFlow): same type, dtype, shape; torch's
  ``requires_grad`` False and eager's strides; NaN positions
  equal; elsewhere ``|n - p| <= atol + rtol*|p|`` with rtol 1e-4 and atol
  1e-5, both scaled by sqrt(K) (K the largest contraction size) and by the
  number of matmuls on the longest chain, plus 4x how far the oracle's own
  value moves when the tensor arguments are scaled by 1 +- 2^-22 (the
  worker runs it on two such copies): an ill-conditioned result (a
  division by a sum near zero) may differ as much as rounding moves it
  (counted in ILL_CONDITIONED); infinities must be equal;
- exceptions: the same type; raised by scalar functions also the same
  message (but for OverflowError) and the same chain: the type of
  ``__context__`` and of ``__cause__`` (or None each) and
  ``__suppress_context__``;
- OverflowError from kiln is accepted wherever the int64-checked twin of the
  oracle (see :mod:`tests.difftest.typer`) saw an int outside int64 (kiln may
  also return exactly what Python returned there); so is exactly the twin's
  outcome there (the twin raises OverflowError where the int left int64, so a
  ``try`` that catches it goes on as kiln's does), or the twin's outcome when
  it lets the big int through at some of the sites that overflowed (kiln may
  compute a site with Python ints, e.g. an object local, and raise at a
  later one);
- an oracle that takes over 2 s (huge Python ints) makes the case void
  unless the checked twin overflowed first, in which case kiln must raise
  OverflowError or give one of the twin's outcomes (the case is void again
  when the twin letting the big ints through at some sites is as slow).
"""

from __future__ import annotations

import math
import hashlib
import os
import pickle
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# `make test-lsan` runs everything 10-30x slower (tests/conftest.py)
TIMEOUT_SCALE = float(os.environ.get("KILN_TEST_TIMEOUT_SCALE") or 1)
I64_MIN, I64_MAX = -2**63, 2**63 - 1
# exceptions whose message is not compared: kiln's int64 OverflowError says
# "integer overflow (FILE:LINE)" where Python has no error at all
NO_MSG_TYPES = ("OverflowError",)

# --------------------------------------------------------------------------
# Inputs

INT_EDGES = [0, 1, -1, 2, 3, 63, 64, 2**31, -2**31, 2**32, 2**53, 2**53 + 1, 2**62, -2**62,
             I64_MAX, I64_MIN, I64_MAX - 1, I64_MIN + 1, 3037000499, 3037000500, -3037000500]
FLOAT_EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e308, -1e308, 5e-324, 2.0**53,
               2.0**63, -2.0**63, 9.2e18, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-300, 710.0, -745.5]


def rand_int(r: random.Random) -> int:
    x = r.random()
    if x < 0.55:
        return r.randint(-10, 10)
    if x < 0.72:
        return r.choice(INT_EDGES)
    if x < 0.87:
        return r.randint(-1000, 1000)
    return r.randint(I64_MIN, I64_MAX)


def rand_float(r: random.Random) -> float:
    x = r.random()
    if x < 0.25:
        return r.choice(FLOAT_EDGES)
    if x < 0.55:
        return round(r.uniform(-10, 10), r.choice([0, 1, 3, 17]))
    if x < 0.7:
        return float(r.randint(-5, 5))
    return r.uniform(-1, 1) * 10.0 ** r.randint(-30, 30)


def rand_scalar(r: random.Random, kind: str):
    if kind == "int":
        return rand_int(r)
    if kind == "float":
        return rand_float(r)
    return r.random() < 0.5


B_SIZES = [0, 1, 1, 2, 3, 4, 5, 7, 16]
D_SIZES = [1, 1, 2, 3, 4, 5, 8, 16, 17, 33, 64]


def make_tensor(r: random.Random, shape: tuple, scale: float, noncontig: bool):
    import torch
    g = torch.Generator().manual_seed(r.getrandbits(31))
    t = torch.randn(*shape, generator=g) * scale
    if t.numel() and r.random() < 0.15:
        flat = t.view(-1)
        for _ in range(r.randint(1, 2)):
            flat[r.randrange(flat.numel())] = r.choice([math.nan, math.inf, -math.inf, -0.0, 1e-40, -1e-40])
    if noncontig and len(shape) == 2:
        t = t.t().contiguous().t()
    return t


def make_tf_tensor(r: random.Random, shape: tuple, scale: float):
    """make_tensor's values as a TensorFlow tensor (always dense row-major)."""
    import tensorflow as tf
    return tf.constant(make_tensor(r, shape, scale, False).numpy())


def tensor_case(r: random.Random, info) -> tuple[tuple, float, float]:
    """Arguments for a tensor function and its (rtol, atol)."""
    sizes: dict[str, int] = {"1": 1}
    for _, kind in info.params:
        if isinstance(kind, tuple):
            for s in kind[1]:
                if s not in sizes:
                    sizes[s] = r.choice(B_SIZES if s == "B" else D_SIZES)
    perturb = None
    tparams = [n for n, k in info.params if isinstance(k, tuple)]
    if r.random() < 0.1 and tparams:
        perturb = r.choice(tparams)
    args = []
    for name, kind in info.params:
        if isinstance(kind, tuple):
            shape = [sizes[s] for s in kind[1]]
            if name == perturb:
                i = r.randrange(len(shape))
                shape[i] = r.choice([v for v in (0, 1, 2, 3, 6) if v != shape[i]])
            fan_in = shape[-1] if name.startswith("w") and shape else 1
            scale = 1.0 / math.sqrt(max(fan_in, 1)) if name.startswith("w") else 1.0
            if info.fw == "tf":
                args.append(make_tf_tensor(r, tuple(shape), scale))
            else:
                args.append(make_tensor(r, tuple(shape), scale, r.random() < 0.15))
        elif name == "depth":
            args.append(r.choice([-1, 0, 1, 2, 3]))
        elif kind == "bool":
            args.append(r.random() < 0.5)
        elif kind == "float":
            args.append(r.choice([0.5, -1.5, 0.0, math.nan, math.inf, 3.0]))
        else:
            args.append(rand_scalar(r, kind))
    k = max([v for s, v in sizes.items() if s.startswith("D")] + [1])
    chain = 1 + info.mm_chain
    return tuple(args), 1e-4 * chain, 1e-5 * math.sqrt(k) * chain


def make_cases(r: random.Random, info, n: int) -> tuple[list, list]:
    cases, tols = [], []
    for _ in range(n):
        if info.tensor:
            args, rtol, atol = tensor_case(r, info)
        else:
            args, rtol, atol = tuple(rand_scalar(r, k) for _, k in info.params), 0.0, 0.0
        cases.append(args)
        tols.append((rtol, atol))
    return cases, tols


# --------------------------------------------------------------------------
# Comparison

def kind_of(o) -> str:
    if o is None:
        return "none"
    if o[0] == "ok":
        return "ok:" + type(o[1]).__name__
    if o[0] == "exc":
        return o[1]
    return o[0]


def _is_tensor(v) -> bool:
    t = sys.modules.get("torch")
    return t is not None and isinstance(v, t.Tensor) or _is_tf_tensor(v)


def _is_tf_tensor(v) -> bool:
    tf = sys.modules.get("tensorflow")
    return tf is not None and isinstance(v, tf.Tensor)


SENS_K = 4.0                          # how many times the oracle's own movement a result may differ by
ILL_CONDITIONED = {"cases": 0}        # comparisons passed only through that allowance


def _movement(p, sens):
    """|s - p| elementwise, the largest over the perturbed oracle values sens
    (inf where one is not finite and p is), or None without usable ones."""
    import torch
    dev = None
    for s in sens or ():
        if _is_tf_tensor(s):
            s = torch.tensor(s.numpy())
        if not _is_tensor(s) or tuple(s.shape) != tuple(p.shape):
            continue
        d = (s.detach().double() - p).abs()
        d[~torch.isfinite(s.detach().double()) & torch.isfinite(p)] = math.inf
        dev = d if dev is None else torch.maximum(dev, d)
    return dev


def values_differ(n, p, rtol: float, atol: float, sens=None) -> str | None:
    """None when native value n is oracle value p's (module docstring);
    sens: the oracle's values on perturbed arguments (a tuple, or None)."""
    if type(n) is not type(p):
        return f"type {type(n).__name__} != {type(p).__name__}"
    if isinstance(n, float):
        if math.isnan(n) and math.isnan(p):
            return None
        if n == p and math.copysign(1, n) == math.copysign(1, p):
            return None
        return f"{n!r} != {p!r}"
    if _is_tf_tensor(n):
        import torch
        if n.dtype != p.dtype:
            return f"dtype {n.dtype} != {p.dtype}"
        if tuple(n.shape) != tuple(p.shape):
            return f"shape {tuple(n.shape)} != {tuple(p.shape)}"
        # the values as torch tensors (copies: TF's buffers are read-only)
        return values_differ(torch.tensor(n.numpy()), torch.tensor(p.numpy()), rtol, atol, sens)
    if _is_tensor(n):
        import torch
        if n.dtype != p.dtype:
            return f"dtype {n.dtype} != {p.dtype}"
        if tuple(n.shape) != tuple(p.shape):
            return f"shape {tuple(n.shape)} != {tuple(p.shape)}"
        if n.requires_grad:
            return "native result requires grad"
        # eager's memory order (a dim of size 1 has no meaningful stride)
        if n.dim() == 2 and min(n.shape) > 1 and n.stride() != p.stride():
            return f"strides {n.stride()} != {p.stride()}"
        n, p = n.detach().double(), p.detach().double()
        nn_, pn = torch.isnan(n), torch.isnan(p)
        if not torch.equal(nn_, pn):
            return f"NaN positions differ ({int((nn_ != pn).sum())} elements)"
        ok = ~pn
        a, b = n[ok], p[ok]
        inf = torch.isinf(b) | torch.isinf(a)
        if not torch.equal(a[inf], b[inf]):
            return "infinities differ"
        fin = ~inf
        err = (a[fin] - b[fin]).abs()
        bound = atol + rtol * b[fin].abs()
        if bool((err > bound).any()):
            dev = _movement(p, sens)
            if dev is not None:
                moved = bound + SENS_K * dev[ok][fin]
                if not bool((err > moved).any()):
                    ILL_CONDITIONED["cases"] += 1
                    return None
                bound = moved
            i = int(torch.argmax(err - bound))
            return (f"values differ: max excess at {i}: {float(a[fin][i])!r} vs "
                    f"{float(b[fin][i])!r} (rtol={rtol:g}, atol={atol:g})")
        return None
    if isinstance(n, (tuple, list)):
        if len(n) != len(p):
            return "length differs"
        for k, (x, y) in enumerate(zip(n, p)):
            parts = [v[k] if isinstance(v, (tuple, list)) and len(v) == len(p) else None for v in sens or ()]
            d = values_differ(x, y, rtol, atol, parts)
            if d:
                return d
        return None
    return None if n == p else f"{n!r} != {p!r}"


def _exc_differs(nat, ref, tensor_fn: bool) -> str | None:
    # DESIGN.md: incompatible shapes in a claimed op raise kiln's RuntimeError,
    # and an index out of range kiln's IndexError (in TF's words), where eager
    # TensorFlow raises InvalidArgumentError
    if tensor_fn and ref[1] == "InvalidArgumentError" and nat[1] in ("RuntimeError", "IndexError") and \
            nat[2].startswith("kiln"):
        return None
    if ref[1] != nat[1]:
        return f"expected {fmt(ref)}, observed {fmt(nat)}"
    if tensor_fn:
        return None
    if ref[1] not in NO_MSG_TYPES and ref[2] != nat[2]:
        return f"message differs: expected {fmt(ref)}, observed {fmt(nat)}"
    if len(ref) > 3 and len(nat) > 3 and ref[3] != nat[3]:
        return f"exception chain differs: expected {fmt(ref)}, observed {fmt(nat)}"
    return None


def outcome_differs(nat, ref, rtol: float, atol: float, tensor_fn: bool) -> str | None:
    """None when outcome nat is ref's ("ok"/"exc" outcomes), else a description."""
    if ref[0] == "exc" or nat[0] == "exc":
        if ref[0] != "exc" or nat[0] != "exc":
            return f"expected {fmt(ref)}, observed {fmt(nat)}"
        return _exc_differs(nat, ref, tensor_fn)
    if ref[0] != "ok" or nat[0] != "ok":
        return f"expected {fmt(ref)}, observed {fmt(nat)}"
    d = values_differ(nat[1], ref[1], rtol, atol, ref[2] if len(ref) > 2 else None)
    return None if d is None else f"{d}: expected {fmt(ref)}, observed {fmt(nat)}"


def judge(nat, ora, chk, rtol: float, atol: float, tensor_fn: bool) -> str | None:
    """None when kiln's outcome is acceptable, else a description."""
    if ora is None:
        return f"native crashed or hung ({nat[1] if nat and len(nat) > 1 else '?'})"
    overflowed = chk is not None and chk[0] == "ovf"
    # kiln as the twin: an int left int64 and the program went on (it caught
    # the OverflowError) the way kiln's program goes on after its own
    as_twin = overflowed and len(chk) > 1 and nat[0] in ("ok", "exc") and any(
        t[0] in ("ok", "exc") and outcome_differs(nat, t, rtol, atol, tensor_fn) is None
        for t in chk[1])
    ovf_exc = nat[0] == "exc" and nat[1] == "OverflowError"
    if ora[0] == "timeout":
        # a twin that lets big ints through at some sites (as kiln may) and
        # is as slow as Python: kiln's outcome cannot be told there
        slow = overflowed and len(chk) > 1 and any(t[0] == "timeout" for t in chk[1])
        if overflowed and not (ovf_exc or as_twin or slow):
            return f"python overflowed int64, native gave {fmt(nat)}"
        return None
    if nat[0] == "crash":
        return f"native crashed or hung ({nat[1]})"
    if overflowed and (ovf_exc or as_twin):
        return None
    return outcome_differs(nat, ora, rtol, atol, tensor_fn)


def fmt(o) -> str:
    if o is None:
        return "<nothing>"
    if o[0] == "ok":
        v = o[1]
        if _is_tensor(v):
            s = repr(v.numpy()) if _is_tf_tensor(v) else repr(v.detach())
            return f"tensor{tuple(v.shape)} " + (s if len(s) < 400 else s[:400] + "…")
        return f"{type(v).__name__} {v!r}"
    if o[0] == "exc":
        chain = ""
        if len(o) > 3 and o[3] != (None, None, False):
            ctx, cause, sup = o[3]
            chain = (f" [__context__ {ctx}, __cause__ {cause}"
                     + (", __suppress_context__" if sup else "") + "]")
        return f"{o[1]}({o[2]!r}){chain}"
    return str(o)


def signature(nat, ora) -> tuple:
    return (kind_of(ora), kind_of(nat) if nat[0] != "crash" else "crash")


# --------------------------------------------------------------------------
# Worker management

class Worker:
    def __init__(self, idle_timeout: float = 30.0):
        self.idle_timeout = idle_timeout * TIMEOUT_SCALE
        self.dir = tempfile.mkdtemp(prefix="kiln-difftest-")
        self.progress = os.path.join(self.dir, "progress")
        self.p = None
        self.n = 0
        self.built: dict[tuple, str] = {}   # (source hash, stem, opt) -> dir of its build

    def new_stem(self) -> str:
        self.n += 1
        return f"dtmod{self.n}"

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
        self.log = open(os.path.join(self.dir, "worker.log"), "ab")
        self.p = subprocess.Popen([sys.executable, "-m", "tests.difftest.worker"], cwd=REPO,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.log, env=env, start_new_session=True)

    def close(self) -> None:
        if self.p is not None:
            try:
                self.p.stdin.close()
                self.p.wait(timeout=10 * TIMEOUT_SCALE)
            except Exception:  # noqa: BLE001
                self.p.kill()
            self.p = None

    def kill(self) -> None:
        if self.p is not None:
            try:     # the worker and its compiler processes (its own session)
                os.killpg(self.p.pid, 9)
            except OSError:
                self.p.kill()
            self.p.wait()
            self.p = None

    def request(self, source: str, calls: list, stem: str | None = None, opt: str | None = None):
        """calls: [(fname, cases, excluded_indices)].  Returns the worker's
        response, or ("crash", "fname i", how) when it died or hung."""
        if self.p is None or self.p.poll() is not None:
            self.start()
        self.n += 1
        stem = stem or f"dtmod{self.n}"
        sub = os.path.join(self.dir, f"m{self.n}")
        os.makedirs(sub, exist_ok=True)
        with open(self.progress, "w") as f:
            f.write("build\n")
        # a module built before (by a worker that then crashed) is imported again
        key = (hashlib.sha1(source.encode()).hexdigest(), stem, opt)
        req = {"dir": sub, "stem": stem, "source": source, "calls": calls,
               "progress": self.progress, "opt": opt, "reuse": self.built.get(key)}
        box: dict = {}

        def reader():
            try:
                box["resp"] = pickle.load(self.p.stdout)
            except Exception as exc:  # noqa: BLE001
                box["err"] = exc
        self.p.stdin.write(pickle.dumps(req))
        self.p.stdin.flush()
        th = threading.Thread(target=reader, daemon=True)
        th.start()
        last = (None, time.time())
        while th.is_alive():
            th.join(0.2)
            try:
                with open(self.progress) as f:
                    cur = f.read().strip()
            except OSError:
                cur = None
            if cur != last[0]:
                last = (cur, time.time())
            elif time.time() - last[1] > self.idle_timeout + (60 * TIMEOUT_SCALE if cur == "build" else 0):
                self.kill()
                th.join(5)
                if cur not in (None, "build"):
                    self.built.setdefault(key, sub)
                return ("crash", cur, "hang")
        if "resp" in box:
            if "build_error" not in box["resp"]:
                self.built.setdefault(key, sub)
            return box["resp"]
        rc = self.p.wait() if self.p else None
        self.p = None
        with open(self.progress) as f:
            cur = f.read().strip()
        if cur not in ("", "build"):
            self.built.setdefault(key, sub)
        return ("crash", cur, f"worker died (exit {rc})")


def run_module(worker: Worker, source: str, calls: dict, stem: str | None = None,
               attempts: int = 8, opt: str | None = None, stop_on_crash: bool = False):
    """calls: {fname: cases}.  Returns (results, build_error) where results
    maps fname -> [(nat, ora, chk)] (ora None when native crashed; the whole
    entry None for a case not run: a function that crashed twice is not run
    again, so that one crashing function does not use up the attempts).
    With stop_on_crash, the first crash ends the run: only that case has an
    entry (the shrinker of a crash needs one crashing candidate, and each
    crash costs a new worker)."""
    excluded: dict[str, set] = {f: set() for f in calls}
    crashes: dict[tuple, str] = {}
    stem = stem or worker.new_stem()    # one stem, so that a retry reuses the build
    for _attempt in range(attempts):
        req = [(f, cases, excluded[f]) for f, cases in calls.items()]
        resp = worker.request(source, req, stem, opt)
        if isinstance(resp, tuple):
            where, how = resp[1], resp[2]
            if not where or where in ("build", "done"):
                return None, f"worker {how} during {where}"
            fname, i = where.split()
            if stop_on_crash:
                results = {f: [None] * len(c) for f, c in calls.items()}
                results[fname][int(i)] = (("crash", how), None, None)
                return results, None
            if any(f == fname for f, _ in crashes):
                excluded[fname].update(range(len(calls[fname])))
            excluded[fname].add(int(i))
            crashes[(fname, int(i))] = how
            continue
        if "build_error" in resp:
            return None, resp["build_error"]
        results = resp["results"]
        for (fname, i), how in crashes.items():
            results[fname][i] = (("crash", how), None, None)
        return results, None
    return None, "too many crashes"
