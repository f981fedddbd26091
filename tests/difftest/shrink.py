"""Delta-debugging a mismatch down to a minimal program.

The mismatching function and the functions it calls (or reads, as in
``u_log(T, 0, u_args)(...)``) are cut out of their module; then, round
after round, candidate variants are made (drop chunks of
statements, replace an if/for/while by its body, a try by one of its parts,
drop a handler or a raise's cause, replace a match statement by one of its
cases' bodies, drop a case or a guard, replace a sub-pattern by ``_`` or an
or-pattern by one of its alternatives, replace an expression by a
sub-expression of the same type or by a constant, drop unused parameters,
simplify scalar arguments), up to ~40 of them are built *together* in one
module (each candidate's functions renamed ``NAME_cK``) and run on the
failing input, and the smallest candidate whose outcome still mismatches with
the same signature (expected kind, observed kind) becomes the new program.
Statements that drive a while loop's counter ``wN`` are never touched, so
every candidate still terminates. The module's other top-level statements
(the match statements' helper classes and their imports) stay as a prelude,
cut down to what the program uses when it is written out.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import math
import os
import re
import time

from tests.difftest import harness
from tests.difftest.gen import HEADER
from tests.difftest.typer import BOOL, FLOAT, INT, TENSOR, infer

REG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")
BATCH = 40
BATCH_CHARS = 60_000      # fewer candidates per module when they are big (gcc time)
_COUNTER = re.compile(r"^w\d+$")


# --------------------------------------------------------------------------
# Program state

class State:
    def __init__(self, funcs: list[ast.FunctionDef], target: str, args: tuple, prelude: list | None = None):
        self.funcs = funcs
        self.target = target
        self.args = args
        self.prelude = prelude or []      # top-level statements but defs (not mutated)

    def source(self) -> str:
        return "\n\n".join(ast.unparse(f) for f in self.funcs)

    def size(self) -> int:
        return len(self.source()) + sum(len(repr(a)) for a in self.args if not harness._is_tensor(a)) // 4


def callees(f: ast.FunctionDef, names: set) -> set:
    """The module's functions f calls or reads (u_log(T, 0, u_args)(...))."""
    return {n.id for n in ast.walk(f) if isinstance(n, ast.Name) and n.id in names}


def closure(funcs: dict, target: str) -> list[str]:
    need, todo = set(), [target]
    while todo:
        n = todo.pop()
        if n in need:
            continue
        need.add(n)
        todo.extend(callees(funcs[n], set(funcs)))
    return need


def _binds(s: ast.stmt) -> set:
    """The names a top-level statement binds."""
    if isinstance(s, (ast.ClassDef, ast.FunctionDef)):
        return {s.name}
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in s.names}
    return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def prelude_for(prelude: list, funcs: list) -> list:
    """The prelude statements the functions need (through one another)."""
    need = {n.id for f in funcs for n in ast.walk(f) if isinstance(n, ast.Name)}
    keep: list = []
    changed = True
    while changed:
        changed = False
        for s in prelude:
            if s not in keep and _binds(s) & need:
                keep.append(s)
                need |= {n.id for n in ast.walk(s) if isinstance(n, ast.Name)}
                changed = True
    return [s for s in prelude if s in keep]


def prune(st: State) -> State:
    d = {f.name: f for f in st.funcs}
    need = closure(d, st.target)
    st.funcs = [f for f in st.funcs if f.name in need]
    return st


# --------------------------------------------------------------------------
# Candidates

def _paths(node, path=()):
    yield path, node
    for field, value in ast.iter_fields(node):
        if isinstance(value, list):
            for i, x in enumerate(value):
                if isinstance(x, ast.AST):
                    yield from _paths(x, path + ((field, i),))
        elif isinstance(value, ast.AST):
            yield from _paths(value, path + ((field, None),))


def _get(root, path):
    for field, i in path:
        root = getattr(root, field) if i is None else getattr(root, field)[i]
    return root


def _counters(fn: ast.FunctionDef) -> set:
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.While):
            out |= {x.id for x in ast.walk(n) if isinstance(x, ast.Name) and _COUNTER.match(x.id)}
    return out


def _protected(stmt: ast.stmt, counters: set) -> bool:
    if isinstance(stmt, (ast.While, ast.For, ast.Try)):
        return False
    part = stmt.test if isinstance(stmt, ast.If) else stmt
    return any(isinstance(x, ast.Name) and x.id in counters for x in ast.walk(part))


def _const(ty: str):
    return {INT: [0, 1], FLOAT: [0.0, 1.0], BOOL: [True, False]}.get(ty, [])


def candidates(st: State):
    """Yields mutated copies of the state, roughly biggest cut first."""
    mod = ast.Module(body=st.funcs, type_ignores=[])
    types = infer(mod)
    counters = {f.name: _counters(f) for f in st.funcs}
    stmt_lists, exprs, compounds = [], [], []
    tries, matches, pats = [], [], []
    for path, node in _paths(mod):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(node, (ast.FunctionDef, ast.If, ast.For, ast.While, ast.Try,
                                 ast.ExceptHandler, ast.match_case)) and getattr(node, field, None):
                stmt_lists.append((path, field))
        if isinstance(node, (ast.If, ast.For, ast.While)):
            compounds.append(path)
        if isinstance(node, ast.Try):
            tries.append(path)
        if isinstance(node, ast.Match):
            matches.append(path)
        if isinstance(node, ast.pattern) and not (isinstance(node, ast.MatchAs) and node.pattern is None
                                                  and node.name is None):
            pats.append(path)
        if isinstance(node, ast.expr) and types.get(id(node)) in (INT, FLOAT, BOOL, TENSOR):
            exprs.append(path)

    def mk(mutate):
        funcs = copy.deepcopy(st.funcs)
        m = ast.Module(body=funcs, type_ignores=[])
        args = mutate(m)
        return State(funcs, st.target, st.args if args is None else args, st.prelude)

    # 1. statement chunks
    for path, field in stmt_lists:
        node = _get(mod, path)
        lst = getattr(node, field)
        fi = path[0][1] if path else None
        ctr = counters[st.funcs[fi].name] if fi is not None else set()
        n = len(lst)
        size = n
        while size >= 1:
            for start in range(0, n, size):
                idx = [i for i in range(start, min(n, start + size)) if not _protected(lst[i], ctr)]
                if not idx:
                    continue
                if isinstance(node, ast.FunctionDef) and n - len(idx) == 0:
                    continue

                def mut(m, path=path, field=field, idx=idx):
                    tgt = _get(m, path)
                    keep = [s for i, s in enumerate(getattr(tgt, field)) if i not in idx]
                    if not keep and field == "body":
                        keep = [ast.Pass()]
                    setattr(tgt, field, keep)
                yield mk(mut)
            size //= 2
    # 2. compound -> its body / orelse
    for path in compounds:
        node = _get(mod, path)
        for field in ("body", "orelse"):
            if not getattr(node, field):
                continue

            def mut(m, path=path, field=field):
                parent = _get(m, path[:-1])
                pf, pi = path[-1]
                lst = getattr(parent, pf)
                inner = [s for s in getattr(_get(m, path), field)]
                lst[pi:pi + 1] = inner
            yield mk(mut)
    # 2b. try -> a part of it (body, body + finally, a handler's body, ...);
    # a handler dropped; a raise's cause dropped
    for path in tries:
        node = _get(mod, path)
        parts = [node.body, node.body + node.finalbody, node.orelse, node.finalbody,
                 node.body + node.orelse + node.finalbody] + [h.body for h in node.handlers]
        for k, part in enumerate(parts):
            if not part:
                continue

            def mut(m, path=path, k=k):
                parent = _get(m, path[:-1])
                pf, pi = path[-1]
                t = _get(m, path)
                inner = [t.body, t.body + t.finalbody, t.orelse, t.finalbody,
                         t.body + t.orelse + t.finalbody] + [h.body for h in t.handlers]
                getattr(parent, pf)[pi:pi + 1] = inner[k]
            yield mk(mut)
        for i in range(len(node.handlers)):
            def mut(m, path=path, i=i):
                del _get(m, path).handlers[i]
            yield mk(mut)
    for path, node in _paths(mod):
        if isinstance(node, ast.Raise) and node.cause is not None:
            def mut(m, path=path):
                _get(m, path).cause = None
            yield mk(mut)
    # 2c. match -> a case's body; a case or a guard dropped; a sub-pattern
    # -> `_`; an or-pattern -> one of its alternatives (candidates that no
    # longer compile, e.g. an irrefutable case before another, are skipped)
    for path in matches:
        node = _get(mod, path)
        for k in range(len(node.cases)):
            def mut(m, path=path, k=k):
                parent = _get(m, path[:-1])
                pf, pi = path[-1]
                getattr(parent, pf)[pi:pi + 1] = _get(m, path).cases[k].body
            yield mk(mut)
            if len(node.cases) > 1:
                def mut(m, path=path, k=k):
                    del _get(m, path).cases[k]
                yield mk(mut)
            if node.cases[k].guard is not None:
                def mut(m, path=path, k=k):
                    _get(m, path).cases[k].guard = None
                yield mk(mut)
    for path in pats:
        node = _get(mod, path)
        alts = [None] + (list(range(len(node.patterns))) if isinstance(node, ast.MatchOr) else [])
        for k in alts:
            def mut(m, path=path, k=k):
                parent = _get(m, path[:-1])
                pf, pi = path[-1]
                new = ast.MatchAs() if k is None else _get(m, path).patterns[k]
                if pi is None:
                    setattr(parent, pf, new)
                else:
                    getattr(parent, pf)[pi] = new
            yield mk(mut)
    # 3. expressions
    for path in exprs:
        node = _get(mod, path)
        if path and path[-1][0] in ("targets", "target", "func"):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            continue
        fi = path[0][1]
        ctr = counters[st.funcs[fi].name]
        if any(isinstance(x, ast.Name) and x.id in ctr for x in ast.walk(node)):
            continue
        ty = types[id(node)]
        subs = []
        for sub_path, sub in _paths(node):
            if sub_path and isinstance(sub, ast.expr) and types.get(id(sub)) == ty:
                subs.append(sub_path)
        for sub_path in subs:
            def mut(m, path=path, sub_path=sub_path):
                parent = _get(m, path[:-1])
                pf, pi = path[-1]
                new = _get(_get(m, path), sub_path)
                if pi is None:
                    setattr(parent, pf, new)
                else:
                    getattr(parent, pf)[pi] = new
            yield mk(mut)
        if not isinstance(node, (ast.Constant, ast.Name)):
            for c in _const(ty):
                def mut(m, path=path, c=c):
                    parent = _get(m, path[:-1])
                    pf, pi = path[-1]
                    new = ast.Constant(c)
                    if pi is None:
                        setattr(parent, pf, new)
                    else:
                        getattr(parent, pf)[pi] = new
                yield mk(mut)
    # 4. unused parameters of the target; simpler scalar arguments
    tgt = next(f for f in st.funcs if f.name == st.target)
    used = {n.id for n in ast.walk(tgt) if isinstance(n, ast.Name)}
    for i, a in enumerate(tgt.args.args):
        if a.arg not in used:
            def mut(m, i=i):
                f = next(f for f in m.body if f.name == st.target)
                del f.args.args[i]
                return st.args[:i] + st.args[i + 1:]
            yield mk(mut)
    for i, v in enumerate(st.args):
        simpler = []
        if type(v) is int and v not in (0, 1):
            simpler = [0, 1, -1] + ([v // 2] if abs(v) > 2 else [])
        elif type(v) is float and v not in (0.0, 1.0) and not (math.isnan(v) or math.isinf(v)):
            simpler = [0.0, 1.0, float(round(v))]
        for s in simpler:
            yield State(copy.deepcopy(st.funcs), st.target, st.args[:i] + (s,) + st.args[i + 1:],
                        st.prelude)


# --------------------------------------------------------------------------
# Evaluation

class _Rename(ast.NodeTransformer):
    def __init__(self, names: set, suffix: str):
        self.names, self.suffix = names, suffix

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if node.name in self.names:
            node.name += self.suffix
        return node

    def visit_Name(self, node):
        if node.id in self.names:
            node.id += self.suffix
        return node


def _batch_source(states: list[State]) -> str:
    parts = [HEADER] + [ast.unparse(s) for s in (states[0].prelude if states else [])]
    for k, s in enumerate(states):
        names = {f.name for f in s.funcs}
        for f in s.funcs:
            parts.append(ast.unparse(_Rename(names, f"_c{k}").visit(copy.deepcopy(f))))
    return "\n\n".join(parts) + "\n"


def _valid(st: State) -> bool:
    try:
        compile(st.source(), "<cand>", "exec")
        return True
    except SyntaxError:
        return False


def evaluate(worker, states: list[State], sig, rtol, atol, tensor_fn, opt=None) -> list:
    """Per state: the (nat, ora, chk) outcome when it still mismatches with
    signature *sig*, else None."""
    src = _batch_source(states)
    calls = {f"{s.target}_c{k}": [s.args] for k, s in enumerate(states)}
    crash = sig[1] == "crash"
    results, err = harness.run_module(worker, src, calls, attempts=len(states) + 2, opt=opt,
                                      stop_on_crash=crash)
    if err:
        if len(states) == 1:
            return [None]
        h = len(states) // 2
        return (evaluate(worker, states[:h], sig, rtol, atol, tensor_fn, opt) +
                evaluate(worker, states[h:], sig, rtol, atol, tensor_fn, opt))
    out = []
    for k, s in enumerate(states):
        if results[f"{s.target}_c{k}"][0] is None:    # not run (after a crash)
            out.append(None)
            continue
        nat, ora, chk = results[f"{s.target}_c{k}"][0]
        d = harness.judge(nat, ora, chk, rtol, atol, tensor_fn)
        ok = d is not None and harness.signature(nat, ora) == sig
        out.append((nat, ora, chk, d) if ok else None)
    return out


class Repro:
    def __init__(self, st: State, m, outcome):
        self.st, self.m = st, m
        self.nat, self.ora, self.chk, self.desc = outcome

    def key(self) -> str:
        return self.st.source()

    def name(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "_", f"{self.m.sig[0]}_vs_{self.m.sig[1]}".lower()).strip("_")
        h = hashlib.sha1(self.key().encode()).hexdigest()[:6]
        return f"r_{slug}_{h}"

    def render_summary(self) -> str:
        pre = "".join(ast.unparse(s) + "\n\n\n" for s in prelude_for(self.st.prelude, self.st.funcs))
        return ("  minimal program:\n" + "\n".join("    " + ln for ln in (pre + self.st.source()).splitlines())
                + f"\n  args: {lit_args(self.st.args)}"
                + f"\n  expected (python): {harness.fmt(self.ora)}"
                + f"\n  observed (kiln):   {harness.fmt(self.nat)}")

    def write(self, reg_dir: str) -> str:
        os.makedirs(reg_dir, exist_ok=True)
        name = self.name()
        path = os.path.join(reg_dir, name + ".py")
        doc = (f'"""difftest regression {name}.\n\n'
               f"Found by `python -m tests.difftest.run --seed {self.m.seed}` (module {self.m.batch}, "
               f"function {self.m.info.name}), shrunk.\n\n"
               f"expected (python): {_doc(harness.fmt(self.ora))}\n"
               f"observed (kiln):   {_doc(harness.fmt(self.nat))}\n"
               f'"""\n')
        body = "\n\n\n".join([ast.unparse(s) for s in prelude_for(self.st.prelude, self.st.funcs)]
                              + [ast.unparse(f) for f in self.st.funcs])
        reason = _doc(f"open kiln bug: {self.desc}")[:300]
        text = (doc + HEADER + "\n\n" + body + "\n\n\n"
                + f"CASES = {{{self.st.target!r}: [{lit_args(self.st.args)}]}}\n"
                + f"TOL = {{{self.st.target!r}: ({self.m.rtol!r}, {self.m.atol!r})}}\n"
                + f"# Remove XFAIL once kiln is fixed (the test is xfail(strict=True) meanwhile).\n"
                + f"XFAIL = {reason!r}\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


def _doc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"""', "'''")


def lit(v) -> str:
    if isinstance(v, bool) or isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "math.nan"
        if math.isinf(v):
            return "math.inf" if v > 0 else "-math.inf"
        return repr(v)
    if harness._is_tf_tensor(v):
        if v.shape.num_elements() == 0:
            return f"tf.zeros({tuple(v.shape)!r}, dtype=tf.float32)"
        return f"tf.constant({_nested(v.numpy().tolist())}, dtype=tf.float32)"
    if harness._is_tensor(v):
        shape = tuple(v.shape)
        if len(shape) == 2 and not v.is_contiguous() and v.numel():
            return f"torch.tensor({_nested(v.t().tolist())}, dtype=torch.float32).t()"
        if v.numel() == 0:
            return f"torch.zeros({shape!r}, dtype=torch.float32)"
        return f"torch.tensor({_nested(v.tolist())}, dtype=torch.float32)"
    return repr(v)


def _nested(x) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_nested(y) for y in x) + "]"
    return lit(float(x))


def lit_args(args: tuple) -> str:
    inner = ", ".join(lit(a) for a in args)
    return f"({inner},)" if len(args) == 1 else f"({inner})"


def shrink(worker, m, time_limit: float = 180.0):
    t0 = time.time()
    tree = ast.parse(m.source)
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    need = closure(funcs, m.info.name)
    header = {ast.unparse(s) for s in ast.parse(HEADER).body}
    prelude = [s for s in tree.body if not isinstance(s, ast.FunctionDef) and ast.unparse(s) not in header]
    st = State([f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name in need],
               m.info.name, m.args, prelude)
    sig, tensor_fn = m.sig, m.info.tensor
    opt = "-O0"
    first = evaluate(worker, [st], sig, m.rtol, m.atol, tensor_fn, opt)[0]
    if first is None:
        opt = None
        first = evaluate(worker, [st], sig, m.rtol, m.atol, tensor_fn)[0]
    if first is None:
        return None
    best, best_out = st, first
    ev = lambda sts: evaluate(worker, sts, sig, m.rtol, m.atol, tensor_fn, opt)  # noqa: E731
    log = os.environ.get("DIFFTEST_SHRINK_LOG")
    rounds = 0
    while time.time() - t0 < time_limit:
        improved = False
        cur_size = best.size()
        pending = []
        seen = set()
        batch = max(4, min(BATCH, BATCH_CHARS // max(1, len(best.source()))))
        for c in candidates(best):
            prune(c)
            if c.size() >= cur_size or not _valid(c):
                continue
            key = (c.source(), repr(c.args) if not tensor_fn else len(c.args))
            if key in seen:
                continue
            seen.add(key)
            pending.append(c)
            if len(pending) == batch:
                t1 = time.time()
                res = ev(pending)
                rounds += 1
                if log:
                    print(f"    [shrink] {len(pending)} candidates in {time.time() - t1:.1f}s, "
                          f"{sum(1 for r in res if r)} ok, size {cur_size}", flush=True)
                ok = [(c2.size(), i) for i, (c2, r) in enumerate(zip(pending, res)) if r]
                if ok:
                    _, i = min(ok)
                    best, best_out = pending[i], res[i]
                    improved = True
                    break
                pending = []
                if time.time() - t0 > time_limit:
                    break
        if not improved and pending and time.time() - t0 < time_limit:
            res = ev(pending)
            ok = [(c2.size(), i) for i, (c2, r) in enumerate(zip(pending, res)) if r]
            if ok:
                _, i = min(ok)
                best, best_out = pending[i], res[i]
                improved = True
        if not improved:
            break
    if opt is not None:  # confirm at the default optimisation level
        again = evaluate(worker, [best], sig, m.rtol, m.atol, tensor_fn)[0]
        if again is not None:
            best_out = again
        else:
            best_out = (best_out[0], best_out[1], best_out[2], best_out[3] + " [only at -O0]")
    return Repro(best, m, best_out)
