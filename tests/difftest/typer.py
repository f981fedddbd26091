"""Static types of generated programs (read back from their source) and the
int64-checked twin of a module.

``infer(tree)`` maps ``id(expr_node) -> "int"|"float"|"bool"|"T"|"obj"`` for
every expression of every function of a parsed module; the generator keeps
each local at one type, so the first assignment decides.

``checked_source(src)`` rewrites every expression that makes a new int by
native int arithmetic (binary/unary operators, abs, int(), round(),
math.floor/ceil/trunc, augmented assignments) into ``_ck(...)``, which
raises ``Int64Overflow`` when the value leaves int64.  Running the twin tells
whether CPython produced an int outside int64 (where kiln may raise
OverflowError) and where.
"""

from __future__ import annotations

import ast

INT, FLOAT, BOOL, TENSOR, OBJ = "int", "float", "bool", "T", "obj"
I64_MIN, I64_MAX = -2**63, 2**63 - 1

_ANN = {"int": INT, "float": FLOAT, "bool": BOOL, "TensorF32Cpu1D": TENSOR,
        "TensorF32Cpu2D": TENSOR}
_INT_FUNCS = {"int", "round", "math.floor", "math.ceil", "math.trunc", "len"}
_BOOL_FUNCS = {"bool", "math.isnan", "math.isinf", "math.isfinite"}


class Int64Overflow(Exception):
    pass


def _ck(v):
    if type(v) is int and not (I64_MIN <= v <= I64_MAX):
        raise Int64Overflow(v)
    return v


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
    return _ANN.get(dotted(ann) or "", OBJ)


class Typer:
    def __init__(self, tree: ast.Module):
        self.types: dict[int, str] = {}
        self.rets = {f.name: ann_type(f.returns) for f in tree.body if isinstance(f, ast.FunctionDef)}
        for f in tree.body:
            if isinstance(f, ast.FunctionDef):
                self.env = {a.arg: ann_type(a.annotation) for a in f.args.args}
                for st in f.body:
                    self.stmt(st)

    def bind(self, target: ast.AST, ty: str) -> None:
        if isinstance(target, ast.Name) and target.id not in self.env:
            self.env[target.id] = ty

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
        if isinstance(e, ast.Tuple):
            for x in e.elts:
                self.expr(x)
            return OBJ
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
            if isinstance(e.func, ast.Attribute) and name is None:
                self.expr(e.func.value)
            if name in self.rets:
                return self.rets[name]
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
    def __init__(self, types: dict[int, str]):
        self.types = types

    def _wrap(self, node: ast.expr, orig: ast.expr) -> ast.expr:
        return ast.Call(func=ast.Name("_ck", ast.Load()), args=[node], keywords=[])

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
        if ty == INT and name in ({"abs"} | _INT_FUNCS):
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
    types = infer(tree)
    new = _Checker(types).visit(tree)
    ast.fix_missing_locations(new)
    return ast.unparse(new)


def checked_namespace(src: str, filename: str = "<checked>") -> dict:
    ns: dict = {"_ck": _ck, "__name__": "_difftest_checked"}
    exec(compile(checked_source(src), filename, "exec"), ns)
    return ns
