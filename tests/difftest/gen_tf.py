"""Random TensorFlow tensor functions for the differential tester.

The TensorFlow twin of :class:`tests.difftest.gen.TensorGen`: each function
takes float32 TF tensors (kiln.tensorflow's markers), runs a few chains of
the forms kiln-tensorflow claims (tf.matmul in its spellings, transpose_b,
bias_add, the activations and math functions, softmax / log_softmax, tf.concat and tf.stack, tf.reshape /
tf.squeeze / tf.expand_dims, the
row and column reductions, arithmetic with tensors, scalars, literals and
ints read from a shape) mixed with forms it leaves to TensorFlow
(tf.transpose, tf.reduce_max, softsign, sign, elu), loops over a
square layer and branches on a bool.  A module holds either torch or
TensorFlow tensor functions (``gen_module(..., tf_frac=...)``), never both:
the markers of both plugins share their names.
"""

from __future__ import annotations

import random

from tests.difftest.gen import TensorGen

TF_HEADER = ("import math\n"
             "import tensorflow as tf\n"
             "from kiln.tensorflow import TensorF32Cpu1D, TensorF32Cpu2D\n")
# the same modules again at the top of a function (see gen.LOCAL_IMPORTS)
TF_LOCAL_IMPORTS = ["import math", "import tensorflow as tf", "from math import inf"]

# elementwise forms of one tensor: {x} is the operand in parentheses when it
# needs them, {v} as it is, {s} a float parameter
UNARY = [
    "tf.nn.relu({v})", "tf.nn.sigmoid({v})", "tf.nn.tanh({v})", "tf.sigmoid({v})", "tf.tanh({v})",
    "tf.math.sigmoid({v})", "tf.math.tanh({v})", "tf.abs({v})", "tf.math.abs({v})", "tf.square({v})",
    "tf.math.square({v})", "tf.sqrt(tf.abs({v}))", "tf.math.sqrt({v})", "tf.exp(tf.tanh({v}))",
    "tf.math.exp({x} * 0.5)", "tf.math.log(tf.abs({v}) + 1.0)", "tf.math.log({v})", "tf.math.rsqrt({v})",
    "tf.math.rsqrt(tf.square({v}) + 1e-6)", "tf.nn.relu6({v})", "tf.nn.relu6({x} * 4.0)", "tf.nn.silu({v})",
    "tf.nn.swish({v})", "tf.nn.gelu({v})", "tf.nn.gelu({v}, approximate=True)",
    "tf.nn.gelu({x} * 2.0, False) - 1.0", "tf.nn.leaky_relu({v})", "tf.nn.leaky_relu({x} - 0.5, 0.2)",
    "tf.nn.leaky_relu({v}, alpha={s})", "tf.nn.leaky_relu({v}, -1) * 2.0", "tf.negative({v})",
    "tf.math.negative({v})", "-{x}", "-tf.nn.relu({x} * 2.0 - 1.0) + 1.0",
    # tf.maximum / tf.minimum, native since 2026-12-05 (eleventh session)
    "tf.maximum({v}, 0.25)", "tf.minimum({v}, {x} * 0.5)", "tf.math.maximum(0, {v})", "tf.minimum(1.0, {x}) - {x}",
    "tf.clip_by_value({v}, -1.0, 1.0)", "tf.clip_by_value({x} * 3.0, 0, 2.5) - 1.0",
]
# forms kiln leaves to TensorFlow (the fallback path), shape unchanged
FALLBACK = ["tf.math.softsign({v})", "tf.math.sign({v}) * {x}", "tf.nn.elu({x} * 0.5)",
            "tf.math.softplus({v})", "tf.nn.elu({v})"]


class TFTensorGen(TensorGen):
    """TensorGen's functions (its loops, branches and chains) over TensorFlow's forms."""

    FW = "tf"

    def __init__(self, rng: random.Random, name: str):
        super().__init__(rng, name)
        # picks among equivalent spellings of a drawn op; draws nothing from rng
        self.spell = random.Random(repr(rng.getstate()[1][:8]) + name + "tf")

    def matmul(self, v: str, s: tuple) -> tuple[str, tuple]:
        r, sp = self.r, self.spell.random()
        self.mm += 1
        other = self.pick(2) if r.random() < 0.2 else None
        if other and self.vars[other][0] == s[1] and sp >= 0.2:
            return f"tf.matmul({v}, {other})", (s[0], self.vars[other][1])
        dout = self.dim()
        if sp < 0.2:  # the weight stored transposed (out x in)
            w = self.param("w", (dout, s[1]))
            form = self.spell.choice(["tf.matmul({a}, {w}, transpose_b=True)",
                                      "tf.linalg.matmul({a}, {w}, transpose_b=True)"])
            return form.format(a=v, w=w), (s[0], dout)
        w = self.param("w", (s[1], dout))
        if sp < 0.5:  # with a bias
            b = self.param("b", (dout,))
            form = self.spell.choice(["tf.matmul({a}, {w}) + {b}", "tf.nn.bias_add(tf.matmul({a}, {w}), {b})",
                                      "tf.add(tf.matmul({a}, {w}), {b})", "{b} + {p} @ {w}"])
            return form.format(a=v, w=w, b=b, p=self.paren(v)), (s[0], dout)
        form = self.spell.choice(["tf.matmul({a}, {w})", "{p} @ {w}", "tf.linalg.matmul({a}, {w})"])
        return form.format(a=v, w=w, p=self.paren(v)), (s[0], dout)

    def op(self, v: str) -> tuple[str, tuple]:
        """One operation applied to expression text v of shape self.cur."""
        r = self.r
        s = self.cur
        k = r.randint(0, 20)
        if len(s) == 2 and k <= 5:
            return self.matmul(v, s)
        if k <= 9:
            form = self.spell.choice(UNARY)
            if "{s}" in form:
                form = form.replace("{s}", self.scalar_param("s", "float"))
            return form.format(x=self.paren(v), v=v), s
        if k <= 12:
            x = r.random()
            if len(s) == 2 and x < 0.4:
                b = self.param("b", (s[1],))
                form = self.spell.choice(["{p} + {b}", "{b} + {p}", "tf.nn.bias_add({v}, {b})", "tf.add({v}, {b})",
                                          "{p} * {b}", "tf.subtract({v}, {b})"])
                return form.format(p=self.paren(v), v=v, b=b), s
            other = self.pick(len(s)) if r.random() < 0.5 else None
            if not (other and self.vars[other] == s):
                if len(s) == 1 and r.random() < 0.3:  # a row stretched over a matrix
                    m = self.param("m", (self.dim(), s[0]))
                    return f"{self.paren(v)} + {m}", (self.params[-1][1][1][0], s[0])
                other = self.param("y", s)
            form = self.spell.choice(["{p} + {o}", "tf.add({v}, {o})", "{p} - {o}", "tf.subtract({v}, {o})",
                                      "{p} * {o}", "tf.multiply({v}, {o})", "{p} / ({o} * {o} + 1.0)",
                                      "tf.divide({v}, {o})", "tf.math.truediv({v}, {o})", "{p} / {o}"])
            return form.format(p=self.paren(v), v=v, o=other), s
        if len(s) == 2 and k <= 15:
            red = r.choice(["reduce_mean", "reduce_sum"])
            form = self.spell.choice(["tf.{red}({v}, axis=1)", "tf.{red}({v}, axis=-1)", "tf.{red}({v}, 1)",
                                      "tf.math.{red}({v}, axis=1, keepdims=False)", "tf.{red}({v}, -1)"])
            if self.spell.random() < 0.15:  # a join reduced along itself (tf.concat native since 2026-12-05)
                form = self.spell.choice(["tf.{red}(tf.concat([{v}, {x} * 0.5], 1), axis=1)",
                                          "tf.{red}(tf.concat((tf.nn.relu({v}), {v}), axis=-1), -1)"])
                return form.format(v=v, x=self.paren(v), red=red), (s[0],)
            if self.spell.random() < 0.12:  # a column picked or sliced (indexing native since 2026-12-05)
                form = self.spell.choice(["{x}[:, 0]", "{x}[:, -1] * 2.0", "tf.{red}({x}[:, :1], axis=1)",
                                          "tf.{red}({x}[:, 1:], -1)"])
                return form.format(x=self.paren(v), v=v, red=red), (s[0],)
            if self.spell.random() < 0.15:  # kept axis, then taken away (shape ops native since 2026-12-05)
                form = self.spell.choice(["tf.squeeze(tf.{red}({v}, axis=1, keepdims=True), 1)",
                                          "tf.reshape(tf.{red}({v}, -1, keepdims=True), [-1])",
                                          "tf.squeeze(tf.{red}({v}, 1, keepdims=True), axis=-1)"])
            return form.format(v=v, red=red), (s[0],)
        x = r.randint(0, 7)
        if x == 0 and len(s) == 2:
            red = r.choice(["reduce_mean", "reduce_sum"])
            if r.random() < 0.5:
                if self.spell.random() < 0.2:  # rows joined, then reduced down the columns
                    return f"tf.{red}(tf.concat([{v}, {self.paren(v)} * 2.0], 0), axis=0)", (s[1],)
                return f"tf.{red}({v}, axis=0)", (s[1],)
            return f"tf.{red}({v}, axis=0, keepdims=True)", ("1", s[1])
        if x == 1 and len(s) == 2:
            red = r.choice(["reduce_mean", "reduce_sum"])
            return f"tf.{red}({v}, axis=1, keepdims=True)", (s[0], "1")
        if x == 1 and self.spell.random() < 0.2:  # a vector made a matrix and back (shape ops native since 2026-12-05)
            form = self.spell.choice(["tf.squeeze(tf.expand_dims({v}, 0), 0)", "tf.reshape(tf.expand_dims({v}, 1), [-1])",
                                      "tf.reduce_sum(tf.reshape({v}, (1, -1)), 0)", "tf.reshape({v}, [-1, 1])[:, 0]"])
            return form.format(x=self.paren(v), v=v), s
        if x == 1 and self.spell.random() < 0.5:  # vectors stacked, then reduced (tf.stack native since 2026-12-05)
            form = self.spell.choice(["tf.reduce_mean(tf.stack([{v}, tf.nn.relu({v})], axis=1), axis=1)",
                                      "tf.reduce_sum(tf.stack(({x} * 2.0, {v})), 0)"])
            return form.format(x=self.paren(v), v=v), s
        if x == 2:
            form = self.spell.choice(["tf.nn.softmax({v})", "tf.nn.log_softmax({v})", "tf.math.softmax({v}, axis=-1)",
                                      "tf.nn.softmax({v}, axis=None)", "tf.math.log_softmax({v}, -1)"])
            if len(s) == 2 and self.spell.random() < 0.3:
                form = self.spell.choice(["tf.nn.softmax({v}, axis=1)", "tf.nn.log_softmax({v}, axis=0)"])
            return form.format(v=v), s
        if x == 3 and len(s) == 2 and s[0] != s[1]:
            return f"tf.transpose({v})", (s[1], s[0])
        if x == 3:
            return self.spell.choice(FALLBACK).format(v=v, x=self.paren(v)), s
        if x == 4 and len(s) == 2:
            return f"tf.reduce_max({v}, axis=1)", (s[0],)
        if x == 5:
            sp = self.scalar_param("s", "float")
            o = r.choice(['+', '+', '-', '*', '/'])
            return (f"{self.paren(v)} {o} {sp}" if r.random() < 0.6 else f"{sp} {o} {self.paren(v)}"), s
        if x == 6:
            lit = r.choice(['0.5', '2.0', '-1.0', '3'])
            if self.spell.random() < 0.3:  # an int read from the tensor x
                lit = self.spell.choice(["x.shape[-1]", "x.shape[0]", "len(x)", "x.ndim"])
            o = r.choice(['+', '*', '-', '/'])
            return (f"{self.paren(v)} {o} {lit}" if r.random() < 0.6 else f"{lit} {o} {self.paren(v)}"), s
        return f"tf.nn.relu({v})", s

    @staticmethod
    def layer_forms(h: str, w: str, b: str) -> list[str]:
        return [f"tf.nn.relu(tf.matmul({h}, {w}) + {b})", f"tf.nn.tanh({h} @ {w} + {b})",
                f"tf.nn.sigmoid(tf.nn.bias_add(tf.matmul({h}, {w}), {b}))"]

    def branch_forms(self, src: str) -> tuple[str, str]:
        r = self.r
        a = r.choice(["tf.nn.relu", "tf.nn.sigmoid", "tf.nn.tanh"])
        b = r.choice(["tf.nn.relu", "tf.nn.sigmoid", "tf.abs"])
        return f"{a}({src})", f"{b}({src}) * 2.0"
