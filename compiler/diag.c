/* diag.c — diagnostics: the code table, explain texts, rustc-style rendering. */
#include "kiln.h"

#include <stdio.h>
#include <string.h>

static const char *const code_names[] = {
#define X(code, title) #code,
    KL_DIAG_CODES(X)
#undef X
};

static const char *const code_titles[] = {
#define X(code, title) title,
    KL_DIAG_CODES(X)
#undef X
};

/* What each code means, an example that triggers it and the fix
 * (`kiln explain CODE`). Every entry has the sections "Example:" and "Fix:". */
#define EXPLAIN(what, example, fix) what "\n\nExample:\n" example "\n\nFix:\n" fix
static const char *const code_explains[] = {
    [KL_KILN001] = EXPLAIN(
        "The source is not valid Python (an unknown name in a \\N{NAME} escape\n"
        "included), or uses a lexical form kiln cannot read. Nothing is compiled;\n"
        "the build fails. \\N{NAME} escapes are resolved by the Python that builds\n"
        "the module: the standalone kilnc, which has no name database, refuses them.",
        "    def f(x: int) -> int:\n"
        "        return x +          # KILN001: invalid syntax",
        "Fix the syntax at the location shown: the file must import under plain\n"
        "CPython first (`python -m py_compile FILE`). Build modules with \\N{NAME}\n"
        "escapes with `kiln build` (or spell them \\uXXXX for kilnc)."),
    [KL_KILN002] = EXPLAIN(
        "The source contains bytes that are not valid in its encoding (UTF-8 unless\n"
        "a PEP 263 coding line says latin-1 or ascii), a NUL byte, or declares an\n"
        "encoding kiln does not read. The build fails.",
        "    # -*- coding: cp1252 -*-      # KILN002: unsupported source encoding",
        "Re-save the file as UTF-8 and drop the coding line (or declare utf-8,\n"
        "latin-1 or ascii), and remove any NUL bytes."),
    [KL_KILN003] = EXPLAIN(
        "A dedent does not return to any enclosing indentation level, tabs and\n"
        "spaces are mixed inconsistently, or blocks nest more than 100 levels deep\n"
        "(CPython's limit too). The build fails.",
        "    def f(x: int) -> int:\n"
        "            y = x\n"
        "        return y                # KILN003: unindent does not match",
        "Indent with spaces only (4 per level) and line each block up with the\n"
        "block it belongs to."),
    [KL_KILN010] = EXPLAIN(
        "The function uses a construct the compiler does not translate (generators\n"
        "and yield, async def and await, except* clauses, := in a lambda's\n"
        "body or in a generator expression no consumer takes (any/all/list/set/\n"
        "tuple/sorted/sum/min/max/next, a string literal's join, unpacking by *), a\n"
        "nested def with annotations under `from __future__ import annotations`,\n"
        "locals()/vars()/dir() and eval/exec without a globals argument (they read\n"
        "the calling frame), comprehension targets that are attributes or\n"
        "subscripts, the rare f-string forms kiln does not parse, ...). The\n"
        "function still works: kiln leaves all of it as ordinary Python and the\n"
        "report names the construct and its line.",
        "    def f(rows: list) -> tuple:\n"
        "        return {k: v for k, v in rows}, locals()\n"
        "        # KILN010: locals() (it reads the calling frame, which a compiled\n"
        "        # function does not have)",
        "Move the construct into a separate helper function (which stays Python)\n"
        "and call it, so the rest of the function is compiled; or rewrite it with\n"
        "supported statements (if/for/while, plain calls, arithmetic)."),
    [KL_KILN011] = EXPLAIN(
        "The function has more than 256 parameters (positional-only ones, *args\n"
        "and **kwargs compile). It runs as ordinary Python.",
        "    def f(p0, p1, p2, ..., p256):   # KILN011: more than 256 parameters\n"
        "        return p0",
        "Pass the values as one tuple, list or dict parameter, or as *args."),
    [KL_KILN012] = EXPLAIN(
        "The function has a decorator other than kiln.compile, torch.no_grad()\n"
        "and torch.inference_mode() (which the compiled function applies itself\n"
        "during the call), or two of the torch ones. A decorator can replace the\n"
        "function with anything, so kiln leaves it as Python.",
        "    @functools.lru_cache        # KILN012: decorator\n"
        "    def f(n: int) -> int:\n"
        "        return n * 2",
        "Remove the decorator (or keep only @kiln.compile) and apply the wrapper\n"
        "at the call site instead, e.g. `cached_f = functools.lru_cache(f)`."),
    [KL_KILN020] = EXPLAIN(
        "A name is neither a local, a module global, an import nor a builtin. It is\n"
        "looked up at run time and raises NameError like Python if still missing.",
        "    def f(x: int) -> int:\n"
        "        return x + offset       # KILN020: `offset` is not defined anywhere",
        "Define the name at module level, import it, or pass it as a parameter."),
    [KL_KILN021] = EXPLAIN(
        "A parameter annotation names a torch or tensorflow type (torch.Tensor,\n"
        "tf.Tensor) or a kiln name that is not a tensor marker (TensorF32Cpu3D,\n"
        "TensorF64Cpu2D). The parameter is treated as a Python object: operations\n"
        "on it run on the Python fallback. Other annotations that are not int,\n"
        "float, bool or a marker (str, list, a class) make a Python object too,\n"
        "without a warning.",
        "    def f(x: torch.Tensor) -> torch.Tensor:   # KILN021: not a kiln marker\n"
        "        return x.relu()",
        "Annotate tensors with a kiln marker that states dtype, device and rank:\n"
        "`from kiln.torch import TensorF32Cpu2D` and `def f(x: TensorF32Cpu2D)`;\n"
        "scalars with int, float or bool."),
    [KL_KILN030] = EXPLAIN(
        "An integer literal does not fit in int64; expressions using it run on the\n"
        "Python fallback with arbitrary precision.",
        "    def f(n: int) -> int:\n"
        "        return n * 99999999999999999999999   # KILN030",
        "Keep native integer arithmetic within int64 (|value| < 2**63); if you\n"
        "really need big integers, that code is fine on the fallback."),
    [KL_KILN040] = EXPLAIN(
        "Two plugins claimed the same site. This is a plugin bug: plugins must\n"
        "cover disjoint targets. The build fails rather than guess.",
        "    def f(x: kilntest.Tensor1D):\n"
        "        return kilntest.conflict(x)  # KILN040: this plugin and its twin\n"
        "        # both claim it (`kilnc check FILE --test-plugin`)",
        "Report it with the source. Until fixed, keep the site off the native path:\n"
        "bind the callee to a local variable first (`op = kilntest.conflict; op(x)`)\n"
        "so no plugin recognises it."),
    [KL_KILN041] = EXPLAIN(
        "A plugin's lowering disagreed with its own claim for the same site\n"
        "metadata. The build fails instead of emitting code that might be wrong.",
        "    def f(x: kilntest.Tensor1D):\n"
        "        return kilntest.drift(x)     # KILN041: the test plugin lowers\n"
        "        # it inconsistently (`kilnc check FILE --test-plugin`)",
        "Report it with the source and `kiln doctor` output. Until fixed, call the\n"
        "operation through a local alias so it stays on the Python fallback."),
    [KL_KILN042] = EXPLAIN(
        "A plugin was built for a different plugin API version than this compiler.\n"
        "Nothing in the source triggers it; the kiln installation is inconsistent.",
        "    (any file: the compiler refuses to load the mismatched plugin)",
        "Rebuild kiln from one source tree (`make build` or `pip install -e .`)\n"
        "so the compiler and its plugins agree."),
    [KL_KILN050] = EXPLAIN(
        "The compiler hit an internal limit or bug. The build fails.",
        "    (no particular source: e.g. more plugins or types than the compiler\n"
        "    supports, or an expression the emitter cannot handle)",
        "Report it with the source file and `kiln doctor` output. Meanwhile,\n"
        "simplify the line shown, or move that code into a helper function that\n"
        "stays Python."),
    [KL_KILN_TEST_001] = EXPLAIN(
        "The test plugin recognised the call kilntest.reject(...) and rejected it,\n"
        "to exercise the rejected outcome. The site runs on the Python fallback.\n"
        "Only seen with the test plugin enabled.",
        "    def f(x: kilntest.Tensor1D):\n"
        "        return kilntest.reject(x)    # KILN-TEST-001 (`kilnc check FILE\n"
        "        # --test-plugin`)",
        "Nothing to fix: it exists to test kiln. Use kilntest.relu(x) to see a\n"
        "claimed site instead."),
    [KL_KILN_TORCH_001] = EXPLAIN(
        "torch.nn.functional.linear is native only as linear(x, w, b) or\n"
        "linear(x, w), the tensors positional, x of rank 2 (a batch) or 1 (one\n"
        "sample), w of rank 2 and b of rank 1, and no keywords. Other forms\n"
        "(bias=..., a bias of None, other ranks) run on eager PyTorch through\n"
        "the Python fallback.",
        "    def f(x: TensorF32Cpu2D, w: TensorF32Cpu2D) -> TensorF32Cpu2D:\n"
        "        return F.linear(x, w, None)    # KILN-TORCH-001: a None bias",
        "Write `F.linear(x, w, b)` with x: TensorF32Cpu2D, w: TensorF32Cpu2D,\n"
        "b: TensorF32Cpu1D (x may also be a TensorF32Cpu1D), all positional,\n"
        "or `F.linear(x, w)` without a bias."),
    [KL_KILN_TORCH_002] = EXPLAIN(
        ".relu(), .sigmoid() and .tanh(), and torch.relu / F.relu, torch.sigmoid /\n"
        "F.sigmoid, torch.tanh / F.tanh of one tensor, are native with no other\n"
        "arguments on rank-1 or rank-2 float32 CPU tensors. With arguments\n"
        "(F.relu's inplace=..., torch.sigmoid's out=...) they run on the Python\n"
        "fallback (the tensor methods take none in eager PyTorch either).",
        "    def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:\n"
        "        return F.relu(x, inplace=True)    # KILN-TORCH-002",
        "Write `x.relu()`, `x.sigmoid()` or `x.tanh()` with no arguments; kiln\n"
        "tensors are values, so an in-place form is never needed."),
    [KL_KILN_TORCH_003] = EXPLAIN(
        "a @ b, torch.matmul(a, b) and a.matmul(b) are native for ranks 2,2,\n"
        "1,2 and 2,1 (a vector and a matrix give a vector) without keywords. Two\n"
        "vectors (a 0-d result) or out=... run on the Python fallback.",
        "    def f(u: TensorF32Cpu1D, v: TensorF32Cpu1D):\n"
        "        return u @ v                   # KILN-TORCH-003: ranks 1 and 1",
        "Keep a matrix on at least one side, e.g. `(u * v).sum()` on eager for a\n"
        "dot product, and write `a @ b` or `torch.matmul(a, b)` without keywords."),
    [KL_KILN_TORCH_004] = EXPLAIN(
        "Tensor + - * / are native for ranks 1+1, 2+2 and 2+1/1+2 (broadcast) and\n"
        "between a tensor and an int, float or bool. The current torch plugin\n"
        "claims every such form it sees (`x - True` it leaves to eager, which\n"
        "raises), so this code is reserved.",
        "    def f(x: TensorF32Cpu2D, flag: bool) -> TensorF32Cpu2D:\n"
        "        return x - flag                # eager torch refuses - with a bool",
        "Nothing to fix: the site runs on eager PyTorch, which raises for a bool;\n"
        "write `x - int(flag)` to subtract 0 or 1."),
    [KL_KILN_TORCH_005] = EXPLAIN(
        ".mean, .sum, torch.mean and torch.sum are native only over one dim of a\n"
        "rank-2 tensor: the dim a literal 1, 0, -1 or -2 (positional or dim=),\n"
        "keepdim left out or a literal True or False (positional or keepdim=),\n"
        "and no dtype= or other arguments. Other forms (a tuple of dims, no dim,\n"
        "a dim held in a variable) run on eager PyTorch through the fallback.",
        "    def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:\n"
        "        return x.mean(dim=(1,), keepdim=True)   # KILN-TORCH-005: a tuple",
        "Write `x.mean(dim=1)`, `x.sum(0, keepdim=True)` or `torch.mean(x,\n"
        "dim=-1)` on a TensorF32Cpu2D; a reduction of every element as\n"
        "`x.sum(1).sum(0)` is native only up to its inner sum(1) (the outer one\n"
        "has a rank-0 result, which is eager's)."),
    [KL_KILN_TORCH_006] = EXPLAIN(
        "torch.softmax, torch.nn.functional.softmax and .softmax (and the same\n"
        "for log_softmax) are native over the last dimension of a rank-1 or\n"
        "rank-2 float32 CPU tensor, with the dim a\n"
        "literal (positional or dim=) and no other arguments (no dtype=, no\n"
        "implicit dim). Other forms run on eager PyTorch through the fallback.",
        "    def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:\n"
        "        return torch.softmax(x, dim=0)   # KILN-TORCH-006: not the last dim",
        "Write `torch.softmax(x, dim=-1)` (or `dim=1` on rank 2); for another dim,\n"
        "transpose once outside the hot function."),
    [KL_KILN_TORCH_007] = EXPLAIN(
        "torch.cat, torch.concat and torch.concatenate are native for a list or\n"
        "tuple written out in the call, of 1 to 16 float32 CPU tensors that are\n"
        "all rank 1 or all rank 2, joined along a literal dim (positional, dim=\n"
        "or axis=; 0 when absent); torch.stack the same for rank-1 tensors (each\n"
        "a row of the result, or a column with dim 1 or -1). Other forms that\n"
        "hold a kiln tensor (another value in the list, mixed ranks, a dim\n"
        "computed at run time or out of range, out=) run on eager PyTorch\n"
        "through the fallback.",
        "    def f(x: TensorF32Cpu2D, d: int) -> TensorF32Cpu2D:\n"
        "        return torch.cat([x, x], dim=d)   # KILN-TORCH-007: the dim is not a literal",
        "Write the dim as a literal (`torch.cat([a, b], dim=1)`) and the tensors in\n"
        "the call; a list built in a loop stays on eager (it is not a kiln value)."),
    [KL_KILN_TORCH_008] = EXPLAIN(
        "x.view, x.reshape and torch.reshape are native to a rank-1 or rank-2\n"
        "result: one or two int sizes (positional, or one list or tuple written\n"
        "in the call; one may be -1). So are x.flatten() / torch.flatten(x)\n"
        "(literal start_dim / end_dim), x.squeeze(d) of a matrix and\n"
        "x.unsqueeze(d) of a vector, d a literal int. Other forms on a kiln\n"
        "tensor (a result of rank 0 or 3 and up, sizes that are not ints, a dim\n"
        "computed at run time, x.squeeze() without a dim, whose rank depends on\n"
        "the data, a dtype) run on eager PyTorch through the fallback, as do\n"
        "x.contiguous(), x.clone(), x.detach(), x.float() and x.cpu() with\n"
        "arguments (native without).",
        "    def f(x: TensorF32Cpu2D) -> TensorF32Cpu1D:\n"
        "        return x.squeeze()    # KILN-TORCH-008: no dim",
        "Name the dim: `x.squeeze(1)` (kiln then requires dim 1 to have size 1,\n"
        "and raises RuntimeError otherwise), or write `x.view(-1)`."),
    [KL_KILN_TORCH_009] = EXPLAIN(
        "Indexing a kiln tensor is native when every index is an int or a slice\n"
        "(bounds ints or None, the step absent or a positive literal int) and the\n"
        "result is rank 1 or 2: x[i] and x[:, j] of a matrix, x[a:b], x[:, a:b],\n"
        "x[a:b, c:d], v[a:b]. The result is a new tensor holding the elements\n"
        "(never a view). Other indexes (None, ..., a bool, a tensor, a list) and\n"
        "results of rank 0 (v[i] of a vector, x[i, j]) run on eager PyTorch\n"
        "through the fallback.",
        "    def f(v: TensorF32Cpu1D) -> float:\n"
        "        return float(v[0])    # KILN-TORCH-009: a 0-d tensor",
        "Keep the result a vector or a matrix (`v[0:1]`), or accept the eager\n"
        "fallback for 0-d values."),
    [KL_KILN_TORCH_010] = EXPLAIN(
        "A torch operation on kiln tensor types outside the proven native surface.\n"
        "It runs on eager PyTorch through the Python fallback. Reserved: the\n"
        "current torch plugin reports such sites as not covered instead.",
        "    def f(x: TensorF32Cpu2D) -> TensorF32Cpu2D:\n"
        "        return torch.cumsum(x, dim=1)    # no native cumsum",
        "Nothing is wrong: the site runs correctly on eager PyTorch. To make it\n"
        "native, express it with the native surface (`kiln rules` lists it)."),
    [KL_KILN_TF_001] = EXPLAIN(
        "tf.matmul / tf.linalg.matmul and a @ b are native for two rank-2 tensors,\n"
        "tf.matmul also with the literal transpose_b=True (or False) and\n"
        "transpose_a=False. Others (transpose_a=True, adjoint_*, other keywords or\n"
        "ranks) run on the Python fallback.",
        "    def f(a: TensorF32Cpu2D, b: TensorF32Cpu2D):\n"
        "        return tf.matmul(a, b, transpose_a=True)   # KILN-TF-001",
        "Write `tf.matmul(a, b)`, `tf.matmul(a, b, transpose_b=True)` or `a @ b`\n"
        "with both operands TensorF32Cpu2D; transpose a once, outside the hot\n"
        "function."),
    [KL_KILN_TF_002] = EXPLAIN(
        "tf.nn.relu is native for one rank-1 or rank-2 tensor and no keywords;\n"
        "tf.nn.leaky_relu for one such tensor and an optional int, float or bool\n"
        "alpha (positional or alpha=), no other keywords.",
        "    def f(x: TensorF32Cpu2D):\n"
        "        return tf.nn.relu(x, name=\"act\")   # KILN-TF-002",
        "Write `tf.nn.relu(x)` or `tf.nn.leaky_relu(x, alpha=0.1)`: one positional\n"
        "tensor, no name= or other keywords."),
    [KL_KILN_TF_003] = EXPLAIN(
        "tf.add, tf.subtract, tf.multiply and tf.divide (and their tf.math names,\n"
        "tf.truediv) are native for two tensors of ranks 1+1, 2+2, 2+1 or 1+2 with\n"
        "no keywords; tf.nn.bias_add for a rank-2 tensor and a rank-1 bias, no\n"
        "keywords (data_format=, name=); tf.maximum and tf.minimum (and their\n"
        "tf.math names) for two such tensors, or a tensor and an int, float or\n"
        "bool, no keywords; tf.clip_by_value for a tensor and two such numbers,\n"
        "positional.",
        "    def f(a: TensorF32Cpu2D, b: TensorF32Cpu1D):\n"
        "        return tf.add(a, b, name=\"sum\")   # KILN-TF-003",
        "Write `tf.add(a, b)` (or `a + b`) with two kiln tensors and no keywords."),
    [KL_KILN_TF_004] = EXPLAIN(
        "tf.reduce_mean and tf.reduce_sum are native on rank 2 with a literal\n"
        "axis 1 or 0 (keyword or second positional, -1 and -2 also accepted) and\n"
        "optionally keepdims= a literal True or False.",
        "    def f(x: TensorF32Cpu2D):\n"
        "        return tf.reduce_mean(x)   # KILN-TF-004: no axis",
        "Write `tf.reduce_mean(x, axis=1)` on a TensorF32Cpu2D; `axis` must be a\n"
        "literal and keepdims, if given, a literal bool."),
    [KL_KILN_TF_005] = EXPLAIN(
        "tf.nn.sigmoid and tf.nn.tanh (also tf.sigmoid, tf.math.sigmoid, tf.tanh,\n"
        "tf.math.tanh), tf.negative, tf.abs, tf.sqrt, tf.square, tf.exp (and\n"
        "their tf.math names), tf.math.log, tf.math.rsqrt, tf.nn.relu6 and\n"
        "tf.nn.silu / tf.nn.swish are\n"
        "native for one rank-1 or rank-2 tensor and no keywords (no beta=);\n"
        "tf.nn.gelu also with approximate a literal True or False, tf.nn.softmax\n"
        "and tf.nn.log_softmax with axis None or a literal naming the last axis.",
        "    def f(x: TensorF32Cpu1D):\n"
        "        return tf.nn.sigmoid(x, name=\"p\")   # KILN-TF-005",
        "Write `tf.nn.sigmoid(x)`: one positional tensor, no keywords."),
    [KL_KILN_TF_006] = EXPLAIN(
        "Binary + - * / on TensorFlow tensors are native for ranks 1+1, 2+2, 2+1\n"
        "and 1+2, and between a tensor and an int, float or bool. Reserved: the\n"
        "current plugin claims every such form it sees.",
        "    def f(x: TensorF32Cpu2D, y):\n"
        "        return x * y                   # y untyped: eager TensorFlow",
        "Annotate the other operand (a kiln tensor type, int, float or bool)."),
    [KL_KILN_TF_007] = EXPLAIN(
        "tf.concat is native for a list or tuple written out in the call, of 1\n"
        "to 16 float32 CPU:0 tensors that are all rank 1 or all rank 2, joined\n"
        "along a literal axis (positional or axis=); tf.stack the same for rank-1\n"
        "tensors (the axis 0 when absent). Other forms that hold a\n"
        "kiln tensor (another value in the list, mixed ranks, an axis computed\n"
        "at run time or out of range, name=) run on eager TensorFlow through\n"
        "the fallback.",
        "    def f(x: TensorF32Cpu2D, a: int) -> TensorF32Cpu2D:\n"
        "        return tf.concat([x, x], a)    # KILN-TF-007: the axis is not a literal",
        "Write the axis as a literal (`tf.concat([a, b], 1)` or `axis=-1`) and the\n"
        "tensors in the call."),
    [KL_KILN_TF_008] = EXPLAIN(
        "tf.reshape is native to a rank-1 or rank-2 result, its shape a list or\n"
        "tuple of one or two ints written in the call (one may be -1);\n"
        "tf.squeeze(x, axis) of a matrix and tf.expand_dims(x, axis) of a vector,\n"
        "the axis a literal int. Other forms on a kiln tensor (a shape held in a\n"
        "variable, a result of rank 0 or 3 and up, tf.squeeze without an axis,\n"
        "whose rank depends on the data, name=) run on eager TensorFlow through\n"
        "the fallback.",
        "    def f(x: TensorF32Cpu2D) -> TensorF32Cpu1D:\n"
        "        return tf.squeeze(x)    # KILN-TF-008: no axis",
        "Name the axis (`tf.squeeze(x, 1)` or `axis=-1`) and write the shape in the\n"
        "call (`tf.reshape(x, [-1])`)."),
    [KL_KILN_TF_009] = EXPLAIN(
        "Indexing a kiln tensor is native when every index is an int or a slice\n"
        "(bounds ints or None, the step absent or a positive literal int) and the\n"
        "result is rank 1 or 2: x[i] and x[:, j] of a matrix, x[a:b], x[:, a:b],\n"
        "x[a:b, c:d], v[a:b]. An int out of range raises IndexError in TF's\n"
        "words. Other indexes (tf.newaxis, ..., a bool, a tensor) and results of\n"
        "rank 0 (v[i] of a vector, x[i, j]) run on eager TensorFlow through the\n"
        "fallback.",
        "    def f(v: TensorF32Cpu1D):\n"
        "        return v[0]    # KILN-TF-009: a scalar tensor",
        "Keep the result a vector or a matrix (`v[0:1]`), or accept the eager\n"
        "fallback for scalar tensors."),
    [KL_KILN_TF_010] = EXPLAIN(
        "A covered TensorFlow operation got an operand outside the kiln-tensorflow\n"
        "vocabulary (a Python scalar, or another framework's tensor). It runs on\n"
        "eager TensorFlow through the Python fallback.",
        "    def f(a: TensorF32Cpu2D, s: float):\n"
        "        return tf.add(a, s)            # KILN-TF-010: float operand",
        "Write the operator, `a + s` (or - * /): it is native with an int, float or\n"
        "bool. Otherwise pass only kiln-tensorflow tensors to the covered\n"
        "operations, e.g. the scalar as a shape-[1] tensor (`tf.constant([s])`)\n"
        "annotated TensorF32Cpu1D."),
};
#undef EXPLAIN

const char *kl_code_name(KlCode code) {
  /* KILN_TORCH_001 is spelled KILN-TORCH-001 to users. */
  static char spelled[KL_NUM_CODES][24];
  if ((unsigned)code >= KL_NUM_CODES) return "KILN???";
  if (!spelled[code][0]) {
    const char *n = code_names[code];
    size_t i = 0;
    for (; n[i] && i < sizeof spelled[code] - 1; i++) spelled[code][i] = n[i] == '_' ? '-' : n[i];
    spelled[code][i] = 0;
  }
  return spelled[code];
}

const char *kl_code_title(KlCode code) {
  return (unsigned)code < KL_NUM_CODES ? code_titles[code] : "unknown";
}

const char *kl_code_explain(KlCode code) {
  return (unsigned)code < KL_NUM_CODES && code_explains[code] ? code_explains[code] : "";
}

bool kl_code_lookup(const char *name, KlCode *out) {
  for (int i = 0; i < KL_NUM_CODES; i++) {
    const char *n = kl_code_name((KlCode)i);
    size_t j = 0;
    /* case-insensitive, '-' and '_' alike */
    for (;; j++) {
      char a = n[j], b = name[j];
      if (b >= 'a' && b <= 'z') b = (char)(b - 32);
      if (b == '_') b = '-';
      if (a != b) break;
      if (!a) {
        *out = (KlCode)i;
        return true;
      }
    }
  }
  return false;
}

static void vdiag(KlCtx *ctx, KlSeverity sev, KlCode code, KlLoc loc, const char *fmt, va_list ap) {
  KlDiag *d = kl_alloc(ctx, sizeof *d);
  d->sev = sev;
  d->code = code;
  d->loc = loc;
  KlBuf b = {0};
  kl_buf_vprintf(&b, fmt, ap);
  d->msg = kl_strndup(ctx, b.data ? b.data : "", b.len);
  kl_buf_free(&b);
  *ctx->diag_tail = d;
  ctx->diag_tail = &d->next;
  if (sev == KL_SEV_ERROR) ctx->nerrors++;
}

void kl_diag(KlCtx *ctx, KlSeverity sev, KlCode code, KlLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(ctx, sev, code, loc, fmt, ap);
  va_end(ap);
}

_Noreturn void kl_fatal(KlCtx *ctx, KlCode code, KlLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(ctx, KL_SEV_ERROR, code, loc, fmt, ap);
  va_end(ap);
  longjmp(*ctx->fatal, 1);
}

/* The source line `line` (1-based), without its newline. */
static const char *source_line(KlCtx *ctx, int line, size_t *len) {
  const char *p = ctx->src, *end = ctx->src + ctx->srclen;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n') l++;
  const char *e = p;
  while (e < end && *e != '\n' && *e != '\r') e++;
  *len = (size_t)(e - p);
  return p;
}

/* Diagnostics in source order (stable: same line keeps recording order). */
static void sort_diags(KlCtx *ctx) {
  KlDiag *sorted = NULL;
  for (KlDiag *d = ctx->diags, *next; d; d = next) {
    next = d->next;
    KlDiag **at = &sorted;
    while (*at && ((*at)->loc.line < d->loc.line ||
                   ((*at)->loc.line == d->loc.line && (*at)->loc.col <= d->loc.col)))
      at = &(*at)->next;
    d->next = *at;
    *at = d;
  }
  ctx->diags = sorted;
  ctx->diag_tail = &ctx->diags;
  while (*ctx->diag_tail) ctx->diag_tail = &(*ctx->diag_tail)->next;
}

void kl_render_diags(KlCtx *ctx, KlBuf *out) {
  static const char *const sev_text[] = {"error", "warning", "note"};
  sort_diags(ctx);
  for (KlDiag *d = ctx->diags; d; d = d->next) {
    kl_buf_printf(out, "%s:%d:%d: %s[%s]: %s\n", ctx->filename, d->loc.line, d->loc.col,
                  sev_text[d->sev], kl_code_name(d->code), d->msg);
    if (d->loc.line <= 0) continue;
    size_t len;
    const char *text = source_line(ctx, d->loc.line, &len);
    kl_buf_printf(out, "%5d | ", d->loc.line);
    kl_buf_put(out, text, len);
    kl_buf_puts(out, "\n      | ");
    /* caret under the column, counting code points; tabs kept as tabs */
    int col = 1;
    for (size_t i = 0; i < len && col < d->loc.col; i++) {
      unsigned char c = (unsigned char)text[i];
      if ((c & 0xC0) == 0x80) continue;
      kl_buf_puts(out, c == '\t' ? "\t" : " ");
      col++;
    }
    kl_buf_puts(out, "^\n");
  }
}
