"""Worker process: builds a module with kiln and runs every requested case
natively, as the original Python (``mod.__kiln_python__[name]``, the oracle)
and as the int64-checked twin.  Spoken to by :mod:`tests.difftest.harness`
over pickles on a private pipe; writes ``fname case-index`` to a progress
file before each native call so a crash or hang can be pinned down.

Outcomes: ``("ok", value)``, ``("exc", type_name, message, chain)`` (chain:
the type names of ``__context__`` and ``__cause__``, or None, and
``__suppress_context__``), ``("timeout",)`` (oracle and twin only), and for
the checked twin ``("ovf", outcomes)`` when an int left int64: what the twin
did then (the OverflowError or, if the program caught it, the rest), and when
kiln's outcome is neither Python's nor that, also what the twin does when it
lets the big int through at some of the sites (kiln may compute a site with
Python ints).
"""

from __future__ import annotations

import copy
import os
import pathlib
import pickle
import signal
import sys


class _Alarm(BaseException):
    """The oracle's time limit (not an Exception: ``except Exception`` of a
    generated program must not catch it)."""


_active = [False]   # a call with a time limit is running
_fired = [False]    # ... and its limit passed


def _on_alarm(signum, frame):
    if not _active[0]:
        return
    _fired[0] = True
    # a bare `except:` or a finally's return/break/continue of the program may
    # swallow it: raise again soon, until the call ends
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    raise _Alarm()


def exc_outcome(exc: BaseException) -> tuple:
    """("exc", type name, message, (type of __context__, type of __cause__,
    __suppress_context__)); the types are names or None."""
    def name(x):
        return None if x is None else type(x).__name__
    chain = (name(exc.__context__), name(exc.__cause__), bool(exc.__suppress_context__))
    return ("exc", type(exc).__name__, str(exc), chain)


def _call(fn, args, limit: float | None):
    args = copy.deepcopy(args)
    _fired[0] = False
    if limit:
        _active[0] = True
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        try:
            out = ("ok", fn(*args))
        except _Alarm:
            out = ("timeout",)
        except Exception as exc:  # noqa: BLE001 — compared by the harness
            out = exc_outcome(exc)
        finally:
            if limit:
                _active[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
    except _Alarm:      # the limit passed while the call was ending
        _active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        out = ("timeout",)
    return ("timeout",) if _fired[0] else out


def _run_twin(fn, args, limit: float, passing=frozenset()):
    """(outcome, sites where an int left int64, sites that raised in order)."""
    from tests.difftest import typer
    typer.CK_PASS.clear()
    typer.CK_PASS.update(passing)
    typer.CK_SEEN.clear()
    typer.CK_RAISED.clear()
    out = _call(fn, args, limit)
    typer.CK_PASS.clear()
    return out, set(typer.CK_SEEN), list(typer.CK_RAISED)


def _call_checked(fn, args, limit: float):
    """The int64-checked twin: its outcome, or ("ovf", [outcome], sites that
    raised) when an int left int64 on the way (even if the program caught
    that OverflowError)."""
    out, seen, raised = _run_twin(fn, args, limit)
    return ("ovf", [out], raised) if seen else out


def _twin_variants(fn, args, chk, budget: float = 4.0, most: int = 24) -> tuple:
    """("ovf", outcomes): chk's outcome and the twin's with some of the sites
    that raised letting the big int through instead (kiln computes some sites
    with Python ints; each site one way on every pass).  A decision tree over
    the sites in the order they raise: a run that raised at r1, r2, ... has
    a child run for each ri not yet decided, where ri lets through and r1 ..
    r(i-1) keep raising; until `most` runs or `budget` seconds."""
    import time
    outs = list(chk[1])
    todo = [(frozenset(), frozenset(), list(chk[2]))]   # (passing, raising, raised in order)
    t0 = time.time()
    runs = 0
    while todo:
        passing, raising, raised = todo.pop(0)
        for i, site in enumerate(raised):
            if site in raising:
                continue
            if runs >= most or time.time() - t0 > budget:
                return ("ovf", outs)
            p2, r2 = passing | {site}, raising | set(raised[:i])
            out, _, raised2 = _run_twin(fn, args, 0.5, p2)
            runs += 1
            outs.append(out)
            todo.append((p2, r2, raised2))
    return ("ovf", outs)


def _as_expected(nat, ora, chk) -> bool:
    """kiln's outcome is Python's, the plain twin's, or its OverflowError (no
    need for the twin's variants)."""
    from tests.difftest.harness import outcome_differs
    if nat[0] == "exc" and nat[1] == "OverflowError":
        return True
    return any(o[0] in ("ok", "exc") and nat[0] in ("ok", "exc")
               and outcome_differs(nat, o, 0.0, 0.0, False) is None for o in (ora, chk[1][0]))


SENS_REL = 2.0 ** -22   # about 4 ulp of a float32


def _perturbed(args, sign: float):
    """The float tensor arguments scaled elementwise by 1 +- SENS_REL (the sign
    alternating along the flat order, `sign` first), everything else as it is:
    the oracle on these shows how far changes of the size of rounding move the
    result (harness.values_differ allows that much more)."""
    out = []
    for a in args:
        mod = type(a).__module__
        if mod.startswith("torch") and getattr(a, "is_floating_point", lambda: False)():
            import torch
            f = torch.full((a.numel(),), sign * SENS_REL, dtype=a.dtype)
            f[1::2] = -sign * SENS_REL
            out.append(a * (1 + f.reshape(a.shape)))
        elif mod.startswith("tensorflow") and getattr(getattr(a, "dtype", None), "is_floating", False):
            import numpy as np
            import tensorflow as tf
            f = np.full(a.shape.num_elements(), sign * SENS_REL, dtype=np.float64)
            f[1::2] = -sign * SENS_REL
            out.append(tf.constant((a.numpy() * (1 + f.reshape(a.shape))).astype(a.dtype.as_numpy_dtype)))
        else:
            out.append(a)
    return tuple(out)


def _sensitivity(py_fn, args, ora) -> tuple:
    """ora with the values of the oracle on two perturbed copies of the
    tensor arguments appended, for a tensor function that returned."""
    if ora[0] != "ok" or not any(type(a).__module__.startswith(("torch", "tensorflow")) for a in args):
        return ora
    runs = [_call(py_fn, _perturbed(args, sign), 2.0) for sign in (1.0, -1.0)]
    return ora + (tuple(r[1] if r[0] == "ok" else None for r in runs),)


def handle(req: dict) -> dict:
    import kiln
    from tests.difftest.typer import checked_namespace
    path = os.path.join(req["dir"], req["stem"] + ".py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(req["source"])
    from kiln import _build, _cache
    saved = list(_build.GENERATED_CFLAGS)
    if req.get("opt"):  # the shrinker builds its candidates at -O0 (faster)
        _build.GENERATED_CFLAGS[0] = req["opt"]
    try:
        reuse = req.get("reuse")
        so = os.path.join(reuse, req["stem"] + _cache.ext_suffix()) if reuse else None
        if so and os.path.exists(so):   # built by a worker that crashed running it
            mod = _build.import_extension(req["stem"], pathlib.Path(so))
        else:
            mod = kiln.build(path, out_dir=req["dir"])
    except Exception as exc:  # noqa: BLE001
        return {"build_error": f"{type(exc).__name__}: {exc}"}
    finally:
        _build.GENERATED_CFLAGS[:] = saved
    ns = checked_namespace(req["source"], path, req["stem"])
    results = {}
    progress = req["progress"]
    for fname, cases, skip in req["calls"]:
        out = []
        native_fn = getattr(mod, fname)
        py_fn = mod.__kiln_python__[fname]
        ck_fn = ns[fname]
        for i, args in enumerate(cases):
            if i in skip:
                out.append(None)
                continue
            with open(progress, "w") as pf:
                pf.write(f"{fname} {i}\n")
            chk = _call_checked(ck_fn, args, 2.0)
            ora = _call(py_fn, args, 2.0)
            # where Python ran out of time, so may kiln: its loops run signal
            # handlers as CPython's do, so the alarm stops it too
            nat = _call(native_fn, args, 2.0 if ora[0] == "timeout" else None)
            if chk[0] == "ovf":
                chk = (_twin_variants(ck_fn, args, chk) if not _as_expected(nat, ora, chk)
                       else chk[:2])
            out.append((nat, _sensitivity(py_fn, args, ora), chk))
        results[fname] = out
    with open(progress, "w") as pf:
        pf.write("done\n")
    return {"results": results}


def main() -> None:
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints go to stderr
    proto_in = sys.stdin.buffer
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.setrecursionlimit(5000)
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:  # another Python: scalar programs only (--tensor-frac 0)
        sys.path.insert(0, str(pathlib.Path(__file__).with_name("no_torch")))
    while True:
        try:
            req = pickle.load(proto_in)
        except EOFError:
            return
        try:
            resp = handle(req)
        except Exception as exc:  # noqa: BLE001
            resp = {"build_error": f"worker: {type(exc).__name__}: {exc}"}
        try:
            data = pickle.dumps(resp)
        except Exception as exc:  # noqa: BLE001  (unpicklable result)
            data = pickle.dumps({"build_error": f"worker: cannot send results: {exc}"})
        proto_out.write(data)
        proto_out.flush()


if __name__ == "__main__":
    main()
