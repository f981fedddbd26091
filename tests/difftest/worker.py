"""Worker process: builds a module with kiln and runs every requested case
natively, as the original Python (``mod.__kiln_python__[name]``, the oracle)
and as the int64-checked twin.  Spoken to by :mod:`tests.difftest.harness`
over pickles on a private pipe; writes ``fname case-index`` to a progress
file before each native call so a crash or hang can be pinned down.

Outcomes: ``("ok", value)``, ``("exc", type_name, message)``,
``("timeout",)`` (oracle only), and for the checked twin ``("ovf",)``.
"""

from __future__ import annotations

import copy
import os
import pathlib
import pickle
import signal
import sys


class _Alarm(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Alarm()


def _call(fn, args, limit: float | None):
    args = copy.deepcopy(args)
    if limit:
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return ("ok", fn(*args))
    except _Alarm:
        return ("timeout",)
    except Exception as exc:  # noqa: BLE001 — compared by the harness
        from tests.difftest.typer import Int64Overflow
        if isinstance(exc, Int64Overflow):
            return ("ovf",)
        return ("exc", type(exc).__name__, str(exc))
    except RecursionError as exc:
        return ("exc", "RecursionError", str(exc))
    finally:
        if limit:
            signal.setitimer(signal.ITIMER_REAL, 0)


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
    ns = checked_namespace(req["source"], path)
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
            chk = _call(ck_fn, args, 2.0)
            ora = _call(py_fn, args, 2.0)
            nat = _call(native_fn, args, None)
            out.append((nat, ora, chk))
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
    import torch  # noqa: F401
    torch.set_num_threads(1)
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
