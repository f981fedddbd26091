"""The TensorFlow reference chain (matmul -> relu -> + bias -> reduce_mean
axis 1): kiln vs eager TF vs tf.function vs tf.function(jit_compile=True)."""

from __future__ import annotations

import os
from typing import Any

import harness
from common import build_model
from harness import Budget, Cell

BATCHES = [1, 16, 64]
IN, OUT = 128, 64


def setup_threads(threads: int | None) -> Any:
    """Import TF and pin its thread pools before any TF op runs."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    if threads is not None:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    return tf


def run(out_dir: str, budget: Budget, quick: bool, groups: list[str],
        threads: int | None = 1) -> dict[str, list[Cell]]:
    tf = setup_threads(threads)
    import numpy as np

    mod = build_model("tf_models", out_dir)
    native = mod.tf_chain
    eager = mod.__kiln_python__["tf_chain"]
    rng = np.random.default_rng(0)
    cells = []
    print("== tf_chain", flush=True)
    for batch in (BATCHES[:1] if quick else BATCHES):
        x = tf.constant(rng.standard_normal((batch, IN), dtype=np.float32))
        w = tf.constant(rng.standard_normal((IN, OUT), dtype=np.float32) / IN ** 0.5)
        b = tf.constant(rng.standard_normal(OUT, dtype=np.float32) * 0.1)
        function = tf.function(eager)
        contenders = {
            "kiln": lambda: native(x, w, b),
            "eager": lambda: eager(x, w, b),
            "tf.function": lambda: function(x, w, b),
        }
        compile_s = {"tf.function": harness.first_call_seconds(contenders["tf.function"])}
        if not quick:
            xla = tf.function(eager, jit_compile=True)
            contenders["tf.function(xla)"] = lambda: xla(x, w, b)
            compile_s["tf.function(xla)"] = harness.first_call_seconds(contenders["tf.function(xla)"])
        label = f"batch {batch}"
        ref = eager(x, w, b)
        check = harness.compare(native(x, w, b), ref, f"tf_chain {label}")
        peer_check = {p: harness.compare(f(), ref, f"{p} tf_chain")["ok"]
                      for p, f in contenders.items() if p not in ("kiln", "eager")}
        cell = harness.measure("tf_chain", label, {"batch": batch, "in": IN, "out": OUT},
                               contenders, budget)
        cell.extra.update(check=check, compile_s=compile_s, peer_check=peer_check)
        # a warm tf.function traces once; more would mean it retraced while timed
        cell.extra["traces"] = {"tf.function": function.experimental_get_tracing_count()}
        if not quick:
            cell.extra["traces"]["tf.function(xla)"] = xla.experimental_get_tracing_count()
        harness.log(cell)
        cells.append(cell)
    return {"tf_chain": cells}
