"""Static types of generated programs (read back from their source) and the
int64-checked twin of a module.

``infer(tree)`` maps ``id(expr_node) -> "int"|"float"|"bool"|"T"|"obj"`` for
every expression of every function of a parsed module; the generator keeps
each local at one type, so the first assignment decides.

Collections are typed by their items: ``"L:<t>"`` a list or tuple,
``"S:<t>"`` a set, ``"G:<t>"`` a generator expression, ``"D:<k>:<v>"`` a
dict; a comprehension's targets are typed from their iterable (``range``
gives ints, ``enumerate`` an int and the item, ``zip`` the items, a dict's
``items()`` its key and value) in the comprehension's own scope.

``checked_source(src)`` rewrites every expression that makes a new int by
native int arithmetic (binary/unary operators, abs, int(), round(),
math.floor/ceil/trunc, len, augmented assignments) into ``_ck(...)``, which
raises ``Int64Overflow`` when the value leaves int64, and every ``sum(...)``
into ``_cksum(...)``, which does the same for each running total (kiln adds
int items on a C int64 total, CPython's total may leave int64 and come back).
Running the twin tells whether CPython produced an int outside int64 (where
kiln may raise OverflowError) and where.

The twin's ``_ck`` raises a plain ``OverflowError`` (what kiln raises there),
so a ``try`` of the program catches it as it would catch kiln's (``except
OverflowError``/``ArithmeticError``/``Exception``/bare ``except``), and
records the site (each ``_ck``/``_cksum`` of the source has a number) in
``CK_SEEN``: the worker clears it before each call of the twin and reads it
after, so it knows the twin overflowed even when the program caught the
overflow and went on.  A site may be in ``CK_PASS``: there the twin lets the
big int through, as kiln does where it computes with Python ints (an object
local, a list item...) instead of C int64s; kiln decides that per site, so
running the twin again with each site that raised let through gives every
outcome kiln may have under its int64 contract (see
``worker._twin_variants``).  ``try``/``except``/``else``/``finally`` bodies
and ``raise`` expressions are typed and checked like any other statements,
as are a ``match`` statement's subject, guards and case bodies; a name a
pattern captures has the subject's type when it is the subject itself (kiln
binds it from the subject's hidden local), else it is an object
(``Typer.bind_pattern``).
"""

from __future__ import annotations

import ast

INT, FLOAT, BOOL, TENSOR, OBJ = "int", "float", "bool", "T", "obj"
I64_MIN, I64_MAX = -2**63, 2**63 - 1

_ANN = {"int": INT, "float": FLOAT, "bool": BOOL, "TensorF32Cpu1D": TENSOR,
        "TensorF32Cpu2D": TENSOR}
_INT_FUNCS = {"int", "round", "math.floor", "math.ceil", "math.trunc", "len"}
_BOOL_FUNCS = {"bool", "math.isnan", "math.isinf", "math.isfinite"}
_REDUCERS = {"sum", "min", "max", "sorted", "list", "tuple", "set", "any", "all"}


# What the twin raises where an int leaves int64: kiln's exception type (a
# handler of the program must catch it as it catches kiln's); the worker tells
# it from other OverflowErrors by CK_SEEN.
Int64Overflow = OverflowError
CK_SEEN: set = set()      # sites where an int left int64 (this call)
CK_RAISED: list = []      # ... and raised OverflowError, in order (each once)
CK_PASS: set = set()      # sites that let it through (Python's big int)


def _ck(v, site=-1):
    if type(v) is int and not (I64_MIN <= v <= I64_MAX):
        CK_SEEN.add(site)
        if site not in CK_PASS:
            if site not in CK_RAISED:
                CK_RAISED.append(site)
            raise OverflowError("int64 overflow (checked twin)")
    return v


def _cksum(iterable, /, start=0, *, _site=-1):
    """sum(iterable, start), checking every int running total."""
    items, total = [], start
    for x in iterable:
        items.append(x)
        total = total + x
        _ck(total, _site)
    return sum(items, start)


def item_type(ty: str) -> str:
    """The type of what iterating a value of type ty gives."""
    if ty[:2] in ("L:", "S:", "G:"):
        return ty[2:]
    if ty.startswith("D:"):
        return ty.split(":")[1]
    return OBJ


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def ann_type(ann: ast.AST | None) -> str:
    if ann is None:
        return OBJ
    if isinstance(ann, ast.Subscript) and dotted(ann.value) == "list":
        item = ann_type(ann.slice)
        return f"L:{item}" if item in (INT, FLOAT, BOOL) else OBJ
    return _ANN.get(dotted(ann) or "", OBJ)


_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def lambda_captures(f: ast.FunctionDef) -> set:
    """Names a lambda of f reads that are not its own (or an enclosing
    lambda's) parameters: f's locals among them live in cells, and kiln
    keeps them as Python objects, not C scalars.  Inside a lambda, a
    comprehension's targets are its own (`lambda: list(c for d in r)` reads
    c, not d; kiln keeps f's d a C int). (Over-approximate still: a lambda
    inside a comprehension of f that reads that comprehension's target
    counts it.)"""
    out: set = set()

    def params(a: ast.arguments) -> set:
        names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        return names | {x.arg for x in (a.vararg, a.kwarg) if x is not None}

    def visit(node, bound, inside):  # inside a lambda: names read from outside it are captures
        if isinstance(node, ast.Name):
            if inside and node.id not in bound:
                out.add(node.id)
            return
        if isinstance(node, ast.Lambda):
            a = node.args
            for x in a.defaults + [k for k in a.kw_defaults if k is not None]:
                visit(x, bound, inside)
            visit(node.body, bound | params(a), True)
            return
        if inside and isinstance(node, _COMPS):
            scope = frozenset(bound)
            for i, g in enumerate(node.generators):
                visit(g.iter, bound if i == 0 else scope, True)  # the first iterable: the enclosing scope
                scope = scope | {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
                for c in g.ifs:
                    visit(c, scope, True)
            for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
                visit(part, scope, True)
            return
        for c in ast.iter_child_nodes(node):
            visit(c, bound, inside)
    for st in f.body:
        visit(st, frozenset(), False)
    return out


class Typer:
    def __init__(self, tree: ast.Module):
        self.types: dict[int, str] = {}
        self.rets = {f.name: ann_type(f.returns) for f in tree.body if isinstance(f, ast.FunctionDef)}
        self.lambda_locals: dict[str, set] = {}
        for f in tree.body:
            if isinstance(f, ast.FunctionDef):
                self.cells = lambda_captures(f)
                self.env = {a.arg: (OBJ if a.arg in self.cells else ann_type(a.annotation))
                            for a in f.args.args}
                for st in f.body:
                    self.stmt(st)
                self.lambda_locals[f.name] = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)
                                              and isinstance(n.ctx, ast.Store)}

    def reduce(self, name: str, e: ast.Call, args: list) -> str:
        """The type of a builtin consuming one iterable (a generator
        expression, list, tuple or set) of items of one type."""
        item = item_type(args[0])
        kw = {k.arg: self.types.get(id(k.value), OBJ) for k in e.keywords}
        if name in ("any", "all"):
            return BOOL
        if name in ("sorted", "list", "tuple"):
            return "L:" + item
        if name == "set":
            return "S:" + item
        if name == "sum":
            start = args[1] if len(args) > 1 else kw.get("start", INT)
            if start == FLOAT and item in (INT, FLOAT, BOOL):
                return FLOAT
            if start in (INT, BOOL) and item in (INT, BOOL):
                return INT if start == INT or item == INT else OBJ
            return OBJ
        # min / max: an item, or the default when empty
        if "default" in kw and kw["default"] != item:
            return OBJ
        return item if item in (INT, FLOAT, BOOL) else OBJ

    def comp(self, e: ast.expr) -> str:
        """A comprehension or generator expression, in its own scope."""
        saved = self.env
        self.env = dict(saved)
        for g in e.generators:
            self.expr(g.iter)
            self.bind_target(g.target, g.iter)
            self.expr(g.target)
            for c in g.ifs:
                self.expr(c)
        if isinstance(e, ast.DictComp):
            res = f"D:{self.expr(e.key)}:{self.expr(e.value)}"
        else:
            kind = {ast.ListComp: "L:", ast.SetComp: "S:", ast.GeneratorExp: "G:"}[type(e)]
            res = kind + self.expr(e.elt)
        self.env = saved
        return res

    def bind_target(self, target: ast.AST, it: ast.expr) -> None:
        """Types a comprehension clause's target from its iterable."""
        ty = self.types.get(id(it), OBJ)
        fn = dotted(it.func) if isinstance(it, ast.Call) else None
        if isinstance(target, ast.Name):
            self.env[target.id] = INT if fn == "range" else item_type(ty)
            return
        if not isinstance(target, ast.Tuple):
            return
        if fn == "enumerate":
            parts = [INT, item_type(self.types.get(id(it.args[0]), OBJ))]
        elif fn == "zip":
            parts = [item_type(self.types.get(id(a), OBJ)) for a in it.args]
        elif isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) \
                and it.func.attr == "items":
            d = self.types.get(id(it.func.value), OBJ)
            parts = d.split(":")[1:] if d.startswith("D:") else []
        else:
            parts = []
        for i, t in enumerate(target.elts):
            if isinstance(t, ast.Name):
                self.env[t.id] = parts[i] if i < len(parts) else OBJ

    def bind(self, target: ast.AST, ty: str) -> None:
        if isinstance(target, ast.Name) and target.id not in self.env:
            self.env[target.id] = OBJ if target.id in self.cells else ty

    def stmt(self, st: ast.stmt) -> None:
        if isinstance(st, ast.Assign):
            if isinstance(st.value, ast.Tuple) and isinstance(st.targets[0], ast.Tuple):
                for t, v in zip(st.targets[0].elts, st.value.elts):
                    self.bind(t, self.expr(v))
                self.expr(st.value)
            else:
                ty = self.expr(st.value)
                for t in st.targets:
                    self.bind(t, ty)
            for t in st.targets:
                self.expr(t)
        elif isinstance(st, ast.AugAssign):
            self.expr(st.value)
            self.expr(st.target)
        elif isinstance(st, ast.For):
            self.expr(st.iter)
            self.bind(st.target, INT)
            self.expr(st.target)
            for s in st.body + st.orelse:
                self.stmt(s)
        elif isinstance(st, (ast.If, ast.While)):
            self.expr(st.test)
            for s in st.body + st.orelse:
                self.stmt(s)
        elif isinstance(st, (ast.Return, ast.Expr)):
            if st.value is not None:
                self.expr(st.value)
        elif isinstance(st, ast.Try):
            for s in st.body:
                self.stmt(s)
            for h in st.handlers:
                if h.type is not None:
                    self.expr(h.type)
                for s in h.body:
                    self.stmt(s)
            for s in st.orelse + st.finalbody:
                self.stmt(s)
        elif isinstance(st, ast.Raise):
            for x in (st.exc, st.cause):
                if x is not None:
                    self.expr(x)
        elif isinstance(st, ast.Match):
            ty = self.expr(st.subject)
            for case in st.cases:
                self.bind_pattern(case.pattern, ty, True)
                if case.guard is not None:
                    self.expr(case.guard)
                for s in case.body:
                    self.stmt(s)

    def bind_pattern(self, p: ast.pattern, ty: str, direct: bool) -> None:
        """Types the names a case's pattern binds as kiln does: a capture of
        the subject itself (at the top, through `as` and `|`) has the
        subject's type, any other (an item, an attribute, a value of a key, a
        `*rest`, a `**rest`) is an object.  The patterns' values are not
        typed, so the twin never wraps them (a pattern is no expression)."""
        if isinstance(p, ast.MatchAs):
            if p.pattern is not None:
                self.bind_pattern(p.pattern, ty, direct)
            if p.name:
                self.bind(ast.Name(p.name, ast.Store()), ty if direct else OBJ)
        elif isinstance(p, ast.MatchOr):
            for alt in p.patterns:
                self.bind_pattern(alt, ty, direct)
        elif isinstance(p, ast.MatchStar):
            if p.name:
                self.bind(ast.Name(p.name, ast.Store()), OBJ)
        elif isinstance(p, ast.MatchMapping):
            for sub in p.patterns:
                self.bind_pattern(sub, OBJ, False)
            if p.rest:
                self.bind(ast.Name(p.rest, ast.Store()), OBJ)
        elif isinstance(p, ast.MatchSequence):
            for sub in p.patterns:
                self.bind_pattern(sub, OBJ, False)
        elif isinstance(p, ast.MatchClass):
            for sub in p.patterns + p.kwd_patterns:
                self.bind_pattern(sub, OBJ, False)

    def expr(self, e: ast.expr) -> str:
        ty = self._expr(e)
        self.types[id(e)] = ty
        return ty

    def _expr(self, e: ast.expr) -> str:
        if isinstance(e, ast.Constant):
            return {bool: BOOL, int: INT, float: FLOAT}.get(type(e.value), OBJ)
        if isinstance(e, ast.Name):
            return self.env.get(e.id, OBJ)
        if isinstance(e, ast.Attribute):
            self.expr(e.value)
            return FLOAT if dotted(e) in ("math.inf", "math.nan", "math.pi", "math.e") else OBJ
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            ts = [self.expr(x) for x in e.elts]
            if isinstance(e, ast.Tuple) and isinstance(e.ctx, ast.Store):
                return OBJ
            item = ts[0] if ts and all(t == ts[0] for t in ts) else OBJ
            return ("S:" if isinstance(e, ast.Set) else "L:") + item
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comp(e)
        if isinstance(e, ast.Lambda):
            # defaults run natively in the enclosing scope; the body is
            # CPython's own code (typed with its parameters as objects)
            a = e.args
            for x in a.defaults + [k for k in a.kw_defaults if k is not None]:
                self.expr(x)
            saved = self.env
            self.env = dict(saved)
            for x in a.posonlyargs + a.args + a.kwonlyargs + [v for v in (a.vararg, a.kwarg) if v]:
                self.env[x.arg] = OBJ
            self.expr(e.body)
            self.env = saved
            return OBJ
        if isinstance(e, ast.Subscript):
            base = self.expr(e.value)
            self.expr(e.slice)
            if base.startswith("D:"):
                return base.split(":")[2]
            return item_type(base) if base[:2] in ("L:",) else OBJ
        if isinstance(e, ast.BinOp):
            a, b = self.expr(e.left), self.expr(e.right)
            if TENSOR in (a, b):
                return TENSOR
            if OBJ in (a, b):
                return OBJ
            if isinstance(e.op, ast.Div):
                return FLOAT
            if FLOAT in (a, b):
                return FLOAT
            if a == b == BOOL and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
                return BOOL
            if isinstance(e.op, ast.Pow):
                r = e.right
                neg = (isinstance(r, ast.UnaryOp) and isinstance(r.op, ast.USub)) or \
                      (isinstance(r, ast.Constant) and isinstance(r.value, int) and r.value < 0)
                return FLOAT if neg else INT
            return INT
        if isinstance(e, ast.UnaryOp):
            a = self.expr(e.operand)
            if isinstance(e.op, ast.Not):
                return BOOL
            return INT if a == BOOL else a
        if isinstance(e, ast.BoolOp):
            ts = [self.expr(v) for v in e.values]
            return ts[0] if all(t == ts[0] for t in ts) else OBJ
        if isinstance(e, ast.Compare):
            self.expr(e.left)
            for c in e.comparators:
                self.expr(c)
            return BOOL
        if isinstance(e, ast.IfExp):
            self.expr(e.test)
            a, b = self.expr(e.body), self.expr(e.orelse)
            return a if a == b else OBJ
        if isinstance(e, ast.Call):
            args = [self.expr(a) for a in e.args]
            for kw in e.keywords:
                self.expr(kw.value)
            name = dotted(e.func)
            if isinstance(e.func, ast.Attribute):
                self.expr(e.func.value)
            elif isinstance(e.func, (ast.Lambda, ast.Call)):
                self.expr(e.func)
            if name in self.rets:
                return self.rets[name]
            if name in _REDUCERS and args and args[0][:2] in ("L:", "S:", "G:") \
                    and (name == "sum" or len(args) == 1):
                return self.reduce(name, e, args)
            if name == "next" and e.args and isinstance(e.args[0], ast.GeneratorExp) \
                    and len(args) <= 2 and not e.keywords:
                # kiln consumes it: the first item, or the default (as min/max)
                item = args[0][2:]
                if len(args) == 2 and args[1] != item:
                    return OBJ
                return item if item in (INT, FLOAT, BOOL) else OBJ
            if isinstance(e.func, ast.Attribute):
                base = self.types.get(id(e.func.value), OBJ)
                if base.startswith("D:") and e.func.attr == "get":
                    return base.split(":")[2] if len(args) == 2 and args[1] == base.split(":")[2] else OBJ
                if base[:2] in ("L:", "S:", "D:") or isinstance(e.func.value, ast.Constant):
                    return OBJ
            if name == "abs":
                return INT if args and args[0] == BOOL else (args[0] if args else OBJ)
            if name in ("min", "max"):
                return args[0] if args and all(a == args[0] for a in args) else OBJ
            if name in _INT_FUNCS:
                return INT
            if name in _BOOL_FUNCS:
                return BOOL
            if name == "float" or (name and name.startswith("math.")):
                return FLOAT
            if TENSOR in args or isinstance(e.func, ast.Attribute):
                return TENSOR
            return OBJ
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self.expr(child)
        return OBJ


def infer(tree: ast.Module) -> dict[int, str]:
    return Typer(tree).types


class _Checker(ast.NodeTransformer):
    def __init__(self, types: dict[int, str], lambda_locals: dict | None = None):
        self.types = types
        self.sites = 0
        self.lambda_locals = lambda_locals or {}
        self.locals: set = set()

    def visit_FunctionDef(self, node):
        self.locals = self.lambda_locals.get(node.name, set())
        return self.generic_visit(node)

    def visit_Lambda(self, node):
        # the body is CPython's bytecode (Python ints, no int64): only the
        # defaults, which kiln evaluates, are checked
        a = node.args
        a.defaults = [self.visit(x) for x in a.defaults]
        a.kw_defaults = [None if x is None else self.visit(x) for x in a.kw_defaults]
        return node

    def _lambda_call(self, node) -> bool:
        """A call of a lambda (made here, stored in a local, returned by a
        call) or of a builtin given one: its result is a Python object kiln
        may unbox into an int64 local."""
        f = node.func
        if isinstance(f, (ast.Lambda, ast.Call)):
            return True
        if isinstance(f, ast.Name) and f.id in self.locals:
            return True
        return any(isinstance(x, ast.Lambda) for x in node.args + [k.value for k in node.keywords])

    def _site(self) -> ast.Constant:
        self.sites += 1
        return ast.Constant(self.sites)

    def _wrap(self, node: ast.expr, orig: ast.expr) -> ast.expr:
        return ast.Call(func=ast.Name("_ck", ast.Load()), args=[node, self._site()], keywords=[])

    def visit_BinOp(self, node):
        ty = self.types.get(id(node))
        new = self.generic_visit(node)
        return self._wrap(new, node) if ty == INT else new

    def visit_UnaryOp(self, node):
        ty = self.types.get(id(node))
        new = self.generic_visit(node)
        return self._wrap(new, node) if ty == INT and not isinstance(node.op, ast.Not) else new

    def visit_Call(self, node):
        ty = self.types.get(id(node))
        name = dotted(node.func)
        new = self.generic_visit(node)
        if name == "sum":
            new.func = ast.Name("_cksum", ast.Load())
            new.keywords.append(ast.keyword("_site", self._site()))
            return new
        if ty == INT and name in ({"abs"} | _INT_FUNCS):
            return self._wrap(new, node)
        if self._lambda_call(node):
            return self._wrap(new, node)
        return new

    def visit_AugAssign(self, node):
        tty = self.types.get(id(node.target))
        new = self.generic_visit(node)
        if tty == INT and isinstance(node.target, ast.Name):
            val = ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=new.op, right=new.value)
            return ast.Assign(targets=[ast.Name(node.target.id, ast.Store())],
                              value=self._wrap(val, node), lineno=node.lineno)
        return new


def checked_source(src: str) -> str:
    tree = ast.parse(src)
    typer = Typer(tree)
    new = _Checker(typer.types, typer.lambda_locals).visit(tree)
    ast.fix_missing_locations(new)
    return ast.unparse(new)


def checked_namespace(src: str, filename: str = "<checked>", name: str = "_difftest_checked") -> dict:
    """The twin's globals; name: the module's __name__ (messages that name a
    function, `M.f() got multiple values for keyword argument 'k'`, have it)."""
    ns: dict = {"_ck": _ck, "_cksum": _cksum, "__name__": name}
    # dont_inherit: not this file's `from __future__ import annotations` (a
    # dataclass of the program would see strings and look its module up)
    exec(compile(checked_source(src), filename, "exec", dont_inherit=True), ns)
    return ns
