"""Random generator of well-typed kiln programs (scalar and torch tensor code).

Every generated function is plain Python source text.  The generator keeps
each local at one static type (int / float / bool / tensor of a known
symbolic shape), bounds every loop (range arguments are reduced modulo small
constants or span a constant width; while loops count down a protected
counter ``wN``), and only calls earlier, cheap enough functions, so the
Python oracle always terminates quickly.

``gen_module(rng, n_funcs)`` returns a :class:`Module`: source text plus, for
every function, its parameter kinds (used by :mod:`tests.difftest.values` to
draw inputs).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

INT, FLOAT, BOOL = "int", "float", "bool"
NUM = (INT, FLOAT)

HEADER = ("import math\n"
          "import torch\n"
          "import torch.nn.functional as F\n"
          "from kiln.torch import TensorF32Cpu1D, TensorF32Cpu2D\n")

I64_MAX = 2**63 - 1

INT_CONSTS = [0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 31, 63, 100, 255, 1000, -1, -2, -3, -7, -100,
              2**31, 2**32 - 1, 2**53 + 1, 2**62, 3037000499, I64_MAX]
FLOAT_CONSTS = ["0.0", "-0.0", "1.0", "0.5", "-2.5", "3.25", "1e300", "-1e-300", "1e16",
                "9007199254740993.0", "2.0", "-1.0", "0.1", "1e-05", "math.inf", "-math.inf",
                "math.nan", "math.pi", "5e-324", "1.7976931348623157e+308"]


@dataclass
class FuncInfo:
    name: str
    params: list            # [(name, kind)]; kind: "int"|"float"|"bool"|("T", shape)
    ret: str                # "int"|"float"|"bool"|"tensor"
    cost: int = 1
    tensor: bool = False
    mm_chain: int = 0       # matmuls along the longest chain (tolerance scaling)
    depth_param: str | None = None


@dataclass
class Module:
    source: str
    funcs: list = field(default_factory=list)   # [FuncInfo]


# --------------------------------------------------------------------------
# Scalar functions

class ScalarGen:
    def __init__(self, rng: random.Random, name: str, helpers: list[FuncInfo]):
        self.r = rng
        self.name = name
        self.helpers = [h for h in helpers if not h.tensor]
        self.lines: list[str] = []
        self.n = 0
        self.env: dict[str, str] = {}        # definitely assigned, visible
        self.maybe: dict[str, str] = {}      # possibly unbound
        self.protected: set[str] = set()     # while counters
        self.loop = 0
        self.mult = 1                         # iteration multiplier at this point
        self.cost = 1

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def emit(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    # ---- leaves -----------------------------------------------------------
    def var(self, ty: str) -> str | None:
        if self.maybe and self.r.random() < 0.01:
            c = [v for v, t in self.maybe.items() if t == ty]
            if c:
                return self.r.choice(c)
        c = [v for v, t in self.env.items() if t == ty]
        return self.r.choice(c) if c else None

    def const(self, ty: str) -> str:
        r = self.r
        if ty == INT:
            v = r.choice(INT_CONSTS) if r.random() < 0.5 else r.randint(-9, 9)
            return f"({v})" if v < 0 else str(v)
        if ty == FLOAT:
            c = r.choice(FLOAT_CONSTS) if r.random() < 0.6 else repr(round(r.uniform(-10, 10), 2))
            return f"({c})" if c.startswith("-") else c
        return r.choice(["True", "False"])

    def leaf(self, ty: str) -> str:
        if self.r.random() < 0.7:
            v = self.var(ty)
            if v:
                return v
        return self.const(ty)

    # ---- expressions --------------------------------------------------------
    def expr(self, ty: str, d: int) -> str:
        if d <= 0 or self.r.random() < 0.2:
            return self.leaf(ty)
        return {INT: self.int_expr, FLOAT: self.float_expr, BOOL: self.bool_expr}[ty](d - 1)

    def num(self, d: int) -> str:
        return self.expr(self.r.choice(NUM), d)

    def call_helper(self, ty: str, d: int) -> str | None:
        c = [h for h in self.helpers if h.ret == ty and h.cost * self.mult <= 3000]
        if not c:
            return None
        h = self.r.choice(c)
        self.cost += h.cost * self.mult
        args = ", ".join(self.expr(k, d) for _, k in h.params)
        return f"{h.name}({args})"

    def int_expr(self, d: int) -> str:
        r = self.r
        e = self.expr
        k = r.randint(0, 15)
        if k <= 4:
            op = r.choice(["+", "-", "*", "+", "-", "*", "//", "%", "&", "|", "^"])
            a = e(INT, d) if r.random() < 0.93 else e(BOOL, d)
            return f"({a} {op} {e(INT, d)})"
        if k == 5:
            op = r.choice(["<<", ">>"])
            x = r.random()
            rhs = (f"({e(INT, d)} % {r.choice([8, 16, 32, 64, 65, 70])})" if x < 0.6 else
                   str(r.randint(0, 70)) if x < 0.9 else f"({e(INT, d)} % 70 - 3)")
            return f"({e(INT, d)} {op} {rhs})"
        if k == 6:
            x = r.random()
            rhs = str(r.randint(0, 5)) if x < 0.6 else f"({e(INT, d)} % {r.choice([3, 4, 5, 8])})"
            return f"({e(INT, d)} ** {rhs})"
        if k == 7:
            return f"({r.choice(['-', '~', '+', '-'])}{e(INT, d)})"
        if k == 8:
            f = r.choice(["abs", "min", "max", "min", "max"])
            if f == "abs":
                return f"abs({e(INT, d)})"
            n = r.choice([2, 2, 3])
            return f"{f}({', '.join(e(INT, d) for _ in range(n))})"
        if k == 9:
            f = r.choice(["int", "round", "math.floor", "math.ceil", "math.trunc"])
            return f"{f}({e(FLOAT, d)})"
        if k == 10:
            return f"({e(INT, d)} if {e(BOOL, d)} else {e(INT, d)})"
        if k == 11:
            return f"({e(INT, d)} {r.choice(['and', 'or'])} {e(INT, d)})"
        if k == 12:
            return f"({e(BOOL, d)} {r.choice(['+', '*', '-'])} {e(r.choice([BOOL, INT]), d)})"
        if k == 13:
            c = self.call_helper(INT, d)
            if c:
                return c
        if k == 14:
            return f"int({e(BOOL, d)})" if r.random() < 0.3 else f"({e(INT, d)} // {self.nonzero_int()})"
        return self.leaf(INT)

    def nonzero_int(self) -> str:
        v = self.r.choice([1, 2, 3, 7, 10, -1, -2, -3, -7, 1000])
        return f"({v})" if v < 0 else str(v)

    def float_expr(self, d: int) -> str:
        r = self.r
        e = self.expr
        k = r.randint(0, 14)
        if k <= 4:
            op = r.choice(["+", "-", "*", "/", "+", "-", "*", "/", "//", "%"])
            ta, tb = r.choice([(FLOAT, FLOAT), (FLOAT, FLOAT), (FLOAT, INT), (INT, FLOAT)] +
                              ([(INT, INT)] if op == "/" else []))
            return f"({e(ta, d)} {op} {e(tb, d)})"
        if k == 5:
            x = r.random()
            if x < 0.4:
                return f"(abs({e(FLOAT, d)}) ** {e(FLOAT, d)})"
            if x < 0.8:
                return f"({e(FLOAT, d)} ** {r.randint(-3, 4)})"
            return f"({e(INT, d)} ** (-{r.randint(1, 3)}))"
        if k == 6:
            return f"({r.choice(['-', '+', '-'])}{e(FLOAT, d)})"
        if k == 7:
            f = r.choice(["math.sqrt", "math.exp", "math.log", "math.sin", "math.cos", "math.tan",
                          "math.atan", "math.tanh", "math.fabs", "abs", "float", "math.log2",
                          "math.expm1", "math.log1p"])
            arg = e(INT if f == "float" else FLOAT, d)
            return f"{f}({arg})"
        if k == 8:
            f = r.choice(["math.copysign", "math.fmod", "math.hypot", "math.atan2", "math.pow",
                          "min", "max", "min", "max"])
            return f"{f}({e(FLOAT, d)}, {e(FLOAT, d)})"
        if k == 9:
            return f"({e(FLOAT, d)} if {e(BOOL, d)} else {e(FLOAT, d)})"
        if k == 10:
            return f"({e(FLOAT, d)} {r.choice(['and', 'or'])} {e(FLOAT, d)})"
        if k == 11:
            c = self.call_helper(FLOAT, d)
            if c:
                return c
        if k == 12:
            return f"float({e(INT, d)})"
        return self.leaf(FLOAT)

    def bool_expr(self, d: int) -> str:
        r = self.r
        e = self.expr
        k = r.randint(0, 11)
        if k <= 4:
            n = r.choice([1, 1, 1, 2, 3])
            parts = [e(r.choice([INT, INT, FLOAT]), d)]
            for _ in range(n):
                parts.append(r.choice(["<", "<=", ">", ">=", "==", "!="]))
                parts.append(e(r.choice([INT, INT, FLOAT]), d))
            return "(" + " ".join(parts) + ")"
        if k == 5:
            return f"(not {e(r.choice([BOOL, BOOL, INT, FLOAT]), d)})"
        if k == 6:
            return f"({e(BOOL, d)} {r.choice(['and', 'or'])} {e(BOOL, d)})"
        if k == 7:
            return f"{r.choice(['math.isnan', 'math.isinf', 'math.isfinite'])}({e(FLOAT, d)})"
        if k == 8:
            return f"bool({e(r.choice(NUM), d)})"
        if k == 9:
            c = self.call_helper(BOOL, d)
            if c:
                return c
        if k == 10:
            return f"({e(BOOL, d)} {r.choice(['&', '|', '^', '=='])} {e(BOOL, d)})"
        return self.leaf(BOOL)

    def cond(self, d: int = 2) -> str:
        if self.r.random() < 0.85:
            return self.expr(BOOL, d)
        return self.expr(self.r.choice(NUM), d)

    # ---- statements -------------------------------------------------------
    def assignable(self) -> list[str]:
        return [v for v in self.env if v not in self.protected]

    def block(self, ind: int, n: int, depth: int) -> None:
        start = len(self.lines)
        for _ in range(n):
            self.stmt(ind, depth)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def scoped_block(self, ind: int, n: int, depth: int) -> None:
        saved = dict(self.env)
        self.block(ind, n, depth)
        for v, t in self.env.items():
            if v not in saved:
                self.maybe[v] = t
        self.env = saved

    def stmt(self, ind: int, depth: int) -> None:
        r = self.r
        choices = ["new"] * 25 + ["re"] * 10 + ["aug"] * 12 + ["swap"] * 3
        if depth > 0:
            choices += ["if"] * 12 + ["while"] * 5 + ["for"] * 8
        if self.loop:
            choices += ["brk"] * 5
        choices += ["ret"] * 2 + ["call"]
        kind = r.choice(choices)
        ed = r.choice([1, 2, 2, 3])
        if kind == "new":
            ty = r.choice([INT, INT, FLOAT, FLOAT, BOOL])
            v = self.fresh("v")
            self.emit(ind, f"{v} = {self.expr(ty, ed)}")
            self.env[v] = ty
        elif kind in ("re", "aug"):
            cand = self.assignable()
            if not cand:
                return self.stmt(ind, depth)
            v = r.choice(cand)
            ty = self.env[v]
            if kind == "re":
                self.emit(ind, f"{v} = {self.expr(ty, ed)}")
            elif ty == INT:
                op = r.choice(["+=", "-=", "*=", "+=", "-=", "//=", "%=", "&=", "|=", "^=",
                               "<<=", ">>=", "**="])
                if op in ("<<=", ">>="):
                    rhs = f"({self.expr(INT, ed)} % {r.choice([8, 32, 64, 66])})"
                elif op == "**=":
                    rhs = str(r.randint(0, 3))
                else:
                    rhs = self.expr(INT, ed)
                self.emit(ind, f"{v} {op} {rhs}")
            elif ty == FLOAT:
                op = r.choice(["+=", "-=", "*=", "/=", "+=", "-=", "*=", "//=", "%=", "**="])
                rhs = str(r.randint(-2, 3)) if op == "**=" else self.expr(r.choice(NUM), ed)
                self.emit(ind, f"{v} {op} {rhs}")
            else:
                self.emit(ind, f"{v} {r.choice(['&=', '|=', '^='])} {self.expr(BOOL, ed)}")
        elif kind == "swap":
            cand = self.assignable()
            if len(cand) < 2:
                return
            a, b = r.sample(cand, 2)
            if self.env[a] == self.env[b] and r.random() < 0.6:
                self.emit(ind, f"{a}, {b} = {b}, {a}")
            else:
                self.emit(ind, f"{a}, {b} = {self.expr(self.env[a], ed)}, {self.expr(self.env[b], ed)}")
        elif kind == "if":
            self.emit(ind, f"if {self.cond()}:")
            self.scoped_block(ind + 1, r.randint(1, 3), depth - 1)
            while r.random() < 0.3:
                self.emit(ind, f"elif {self.cond()}:")
                self.scoped_block(ind + 1, r.randint(1, 2), depth - 1)
            if r.random() < 0.5:
                self.emit(ind, "else:")
                self.scoped_block(ind + 1, r.randint(1, 2), depth - 1)
        elif kind == "for":
            i = self.fresh("i")
            x = r.random()
            if x < 0.25:
                rng = f"range({self.expr(INT, 1)} % {r.randint(1, 12)})"
                iters = 12
            elif x < 0.7:
                step = (str(r.choice([1, 1, 2, 3, -1, -1, -2, -3, 0] if r.random() < 0.9 else [0]))
                        if r.random() < 0.8 else f"({self.expr(INT, 1)} % 5 - 2)")
                rng = (f"range({self.expr(INT, 1)} % {r.randint(1, 9)} - {r.randint(0, 5)}, "
                       f"{self.expr(INT, 1)} % {r.randint(1, 9)} - {r.randint(0, 5)}, {step})")
                iters = 14
            else:
                w = r.randint(0, 8)
                base = self.expr(INT, 1)
                if r.random() < 0.5:
                    rng = f"range({base}, {base} + {w}, {r.choice([1, 1, 2, 3])})"
                else:
                    rng = f"range({base}, {base} - {w}, {r.choice([-1, -1, -2])})"
                iters = 9
            self.emit(ind, f"for {i} in {rng}:")
            self.enter_loop(iters)
            saved = dict(self.env)
            self.env[i] = INT
            self.block(ind + 1, r.randint(1, 3), depth - 1)
            for v, t in self.env.items():
                if v not in saved:
                    self.maybe[v] = t
            self.env = saved
            self.leave_loop(iters)
            if r.random() < 0.1:
                self.emit(ind, "else:")
                self.scoped_block(ind + 1, 1, depth - 1)
        elif kind == "while":
            w = self.fresh("w")
            k = r.randint(0, 6)
            self.emit(ind, f"{w} = {k}")
            self.env[w] = INT
            self.protected.add(w)
            if r.random() < 0.5:
                self.emit(ind, f"while {w} > 0:")
                self.emit(ind + 1, f"{w} -= 1")
            else:
                self.emit(ind, f"while {self.cond()}:")
                self.emit(ind + 1, f"{w} -= 1")
                self.emit(ind + 1, f"if {w} < 0:")
                self.emit(ind + 2, "break")
            self.enter_loop(k + 1)
            self.scoped_block(ind + 1, r.randint(1, 3), depth - 1)
            self.leave_loop(k + 1)
        elif kind == "brk":
            self.emit(ind, f"if {self.cond()}:")
            self.emit(ind + 1, r.choice(["break", "continue"]))
        elif kind == "ret":
            if ind == 1:
                return
            self.emit(ind, f"return {self.expr(self.ret, 2)}")
        else:
            c = self.call_helper(r.choice([INT, FLOAT, BOOL]), 1)
            if c:
                self.emit(ind, c)

    def enter_loop(self, iters: int) -> None:
        self.loop += 1
        self.mult *= iters

    def leave_loop(self, iters: int) -> None:
        self.loop -= 1
        self.mult //= iters

    def generate(self) -> tuple[str, FuncInfo]:
        r = self.r
        params = []
        for k in range(r.randint(1, 4)):
            ty = r.choice([INT, INT, INT, FLOAT, FLOAT, BOOL])
            params.append((f"{'abcd'[k]}", ty))
            self.env[params[-1][0]] = ty
        self.ret = r.choice([INT, INT, FLOAT, FLOAT, BOOL])
        self.block(1, r.randint(2, 7), 2)
        self.emit(1, f"return {self.expr(self.ret, 3)}")
        sig = ", ".join(f"{n}: {t}" for n, t in params)
        src = f"def {self.name}({sig}) -> {self.ret}:\n" + "\n".join(self.lines) + "\n"
        return src, FuncInfo(self.name, params, self.ret, cost=max(1, self.cost))


# --------------------------------------------------------------------------
# Tensor functions

class TensorGen:
    def __init__(self, rng: random.Random, name: str):
        self.r = rng
        self.name = name
        self.params: list = []          # (name, kind)
        self.vars: dict[str, tuple] = {}
        self.lines: list[str] = []
        self.n = 0
        self.ndim = 0
        self.mm = 0

    def dim(self) -> str:
        if self.ndim and self.r.random() < 0.35:
            return f"D{self.r.randrange(self.ndim)}"
        self.ndim += 1
        return f"D{self.ndim - 1}"

    def param(self, prefix: str, shape: tuple) -> str:
        self.n += 1
        name = f"{prefix}{self.n}"
        self.params.append((name, ("T", shape)))
        return name

    def scalar_param(self, name: str, kind: str) -> str:
        if not any(p == name for p, _ in self.params):
            self.params.append((name, kind))
        return name

    def fresh(self) -> str:
        self.n += 1
        return f"t{self.n}"

    def pick(self, rank: int | None = None, last: str | None = None) -> str | None:
        c = [v for v, s in self.vars.items() if (rank is None or len(s) == rank)
             and (last is None or s[-1] == last)]
        return self.r.choice(c) if c else None

    def op(self, v: str) -> tuple[str, tuple]:
        """One operation applied to expression text v of shape self.cur."""
        r = self.r
        s = self.cur
        k = r.randint(0, 20)
        if len(s) == 2 and k <= 3:
            dout = self.dim()
            w = self.param("w", (dout, s[1]))
            b = self.param("b", (dout,))
            f = r.choice(["F.linear", "F.linear", "torch.nn.functional.linear"])
            self.mm += 1
            return f"{f}({v}, {w}, {b})", (s[0], dout)
        if len(s) == 2 and k <= 6:
            other = self.pick(2) if r.random() < 0.2 else None
            if other and self.vars[other][0] == s[1]:
                w, dout = other, self.vars[other][1]
            else:
                dout = self.dim()
                w = self.param("w", (s[1], dout))
            self.mm += 1
            form = r.choice(["{a} @ {b}", "torch.matmul({a}, {b})", "{a}.matmul({b})"])
            return form.format(a=self.paren(v), b=w), (s[0], dout)
        if k <= 9:
            return f"{self.paren(v)}.{r.choice(['relu', 'sigmoid', 'tanh'])}()", s
        if k <= 12:
            x = r.random()
            if len(s) == 2 and x < 0.4:
                b = self.param("b", (s[1],))
                return (f"{self.paren(v)} + {b}" if r.random() < 0.7 else f"{b} + {self.paren(v)}"), s
            other = self.pick(len(s)) if r.random() < 0.5 else None
            if other and self.vars[other] == s:
                return f"{self.paren(v)} + {other}", s
            if len(s) == 1 and r.random() < 0.3:
                m = self.param("m", (self.dim(), s[0]))
                return f"{self.paren(v)} + {m}", (self.params[-1][1][1][0], s[0])
            p = self.param("y", s)
            return f"{self.paren(v)} + {p}", s
        if len(s) == 2 and k <= 15:
            red = r.choice(["mean", "sum"])
            dim = r.choice(["1", "1", "-1"])
            kw = (f"dim={dim}, keepdim=False" if r.random() < 0.7 else f"keepdim=False, dim={dim}")
            return f"{self.paren(v)}.{red}({kw})", (s[0],)
        # forms that run on the Python fallback
        x = r.randint(0, 7)
        if x == 0 and len(s) == 2:
            return f"{self.paren(v)}.{r.choice(['mean', 'sum'])}(dim=0)", (s[1],)
        if x == 1 and len(s) == 2:
            return f"{self.paren(v)}.{r.choice(['mean', 'sum'])}(dim=1, keepdim=True)", (s[0], "1")
        if x == 2:
            return f"torch.softmax({v}, dim=-1)", s
        if x == 3:
            other = self.pick(len(s))
            if other and self.vars[other] == s:
                return f"{self.paren(v)} {r.choice(['*', '-'])} {other}", s
            p = self.param("y", s)
            return f"{self.paren(v)} {r.choice(['*', '-'])} {p}", s
        if x == 4 and len(s) == 2:
            return f"{self.paren(v)}.transpose(0, 1)", (s[1], s[0])
        if x == 5:
            sp = self.scalar_param("s", FLOAT)
            return f"{self.paren(v)} + {sp}", s
        if x == 6:
            return f"{self.paren(v)} {r.choice(['+', '*'])} {r.choice(['0.5', '2.0', '-1.0'])}", s
        return f"{self.paren(v)}.relu()", s

    @staticmethod
    def paren(v: str) -> str:
        return v if v.isidentifier() or v.endswith(")") and v.count("(") == 1 else f"({v})"

    def chain(self, src: str) -> str:
        self.cur = self.vars[src]
        text = src
        for _ in range(self.r.choice([1, 1, 2, 2, 3])):
            text, self.cur = self.op(text)
        return text

    def generate(self) -> tuple[str, FuncInfo]:
        r = self.r
        rank = 2 if r.random() < 0.85 else 1
        x = "x"
        shape = ("B", self.dim()) if rank == 2 else (self.dim(),)
        self.params.append((x, ("T", shape)))
        self.vars[x] = shape
        depth_param = None
        last = x
        for _ in range(r.randint(1, 4)):
            k = r.random()
            src = last if r.random() < 0.75 else r.choice(list(self.vars))
            if k < 0.15 and len(self.vars[src]) == 2:
                s = self.vars[src]
                w = self.param("wl", (s[1], s[1]))
                b = self.param("bl", (s[1],))
                depth_param = self.scalar_param("depth", INT)
                h = self.fresh()
                self.lines.append(f"    {h} = {src}")
                body = r.choice([f"F.linear({h}, {w}, {b}).relu()", f"({h} @ {w} + {b}).tanh()",
                                 f"torch.matmul({h}, {w}).sigmoid()"])
                self.lines.append(f"    for _ in range(depth):")
                self.lines.append(f"        {h} = {body}")
                self.vars[h] = s
                self.mm += 4
                last = h
            elif k < 0.25:
                flag = self.scalar_param("flag", BOOL)
                t = self.fresh()
                self.cur = self.vars[src]
                a = f"{self.paren(src)}.{r.choice(['relu', 'sigmoid', 'tanh'])}()"
                b_ = f"{self.paren(src)}.{r.choice(['relu', 'sigmoid', 'tanh'])}()"
                self.lines.append(f"    if {flag}:")
                self.lines.append(f"        {t} = {a}")
                self.lines.append(f"    else:")
                self.lines.append(f"        {t} = {b_}")
                self.vars[t] = self.vars[src]
                last = t
            else:
                t = self.fresh()
                text = self.chain(src)
                self.lines.append(f"    {t} = {text}")
                self.vars[t] = self.cur
                last = t
        res = last
        rank = len(self.vars[res])
        ann = {1: " -> TensorF32Cpu1D", 2: " -> TensorF32Cpu2D"}[rank] if r.random() < 0.8 else ""
        self.lines.append(f"    return {res}")

        def annot(kind):
            if isinstance(kind, tuple):
                return "TensorF32Cpu2D" if len(kind[1]) == 2 else "TensorF32Cpu1D"
            return kind
        sig = ", ".join(f"{n}: {annot(k)}" for n, k in self.params)
        src = f"def {self.name}({sig}){ann}:\n" + "\n".join(self.lines) + "\n"
        return src, FuncInfo(self.name, list(self.params), "tensor", tensor=True,
                             mm_chain=self.mm, depth_param=depth_param)


def gen_module(rng: random.Random, n_funcs: int = 50, tensor_frac: float = 0.3,
               prefix: str = "f") -> Module:
    parts = [HEADER]
    infos: list[FuncInfo] = []
    for k in range(n_funcs):
        name = f"{prefix}{k}"
        if rng.random() < tensor_frac:
            src, info = TensorGen(rng, name).generate()
        else:
            src, info = ScalarGen(rng, name, infos).generate()
        parts.append(src)
        infos.append(info)
    return Module("\n\n".join(parts), infos)
