/* kiln_runtime.h — what generated modules see of the kiln runtime.
 *
 * Generated modules link nothing: they import `kiln._runtime`, take the
 * function table from its capsule `kiln._runtime._C_API` (the NumPy
 * import_array pattern) and call through `kr->`. The table is versioned;
 * a module built for another ABI refuses to import.
 *
 * All names here start with kr_/Kr/KR_ (runtime); generated names use kg_
 * (globals), kl_ (locals), ks_ (interned strings). */
#ifndef KILN_RUNTIME_H
#define KILN_RUNTIME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdbool.h>

/* 17: tensor ops abs/sqrt/square/exp/silu/log/log_softmax/rsqrt/colsum/colmean/relu6/hardtanh
 * 18: KR_OP_KEEPDIM, tensor_clamp, KR_OP_CLAMP, KR_OP_BIAS_ADD, KrFused.bias_op/post_op
 * 19: KR_OP_LEAKY_RELU (tensor_scalar_op, chains), tensor_layer_norm, tensor_normalize
 * 20: KR_OP_GELU, KR_OP_GELU_TANH
 * 21: KR_EW_PUSH / KR_EW_POP (elementwise trees)
 * 22: fail_line (the line of the op a fused call failed at)
 * 23: KR_OP_MAXIMUM, KR_OP_MINIMUM
 * 24: tensor_cat
 * 25: tensor_cat's stack flag (torch.stack / tf.stack)
 * 26: tensor_reshape (view / reshape / flatten / squeeze / unsqueeze)
 * 27: tensor_index, KrIndex */
#define KR_ABI_VERSION 27

/* One index of x[...] (KrApi.tensor_index): KR_IX_INT i, or KR_IX_SLICE
 * start:stop:step (`given` bit 0: start is given, bit 1: stop; step > 0). */
enum { KR_IX_INT = 0, KR_IX_SLICE };
typedef struct KrIndex {
  int32_t kind, given;
  int64_t start, stop, step; /* KR_IX_INT: the int in start */
} KrIndex;

/* KrApi.tensor_reshape's `how`. */
enum { KR_SHAPE_RESHAPE = 0, KR_SHAPE_VIEW, KR_SHAPE_SQUEEZE, KR_SHAPE_UNSQUEEZE, KR_SHAPE_CONTIGUOUS, KR_SHAPE_CLONE,
       KR_SHAPE_DETACH };

/* Frameworks a tensor value belongs to (decides how it is boxed). */
enum { KR_FW_TORCH = 1, KR_FW_TF = 2, KR_FW_TEST = 3 };

/* Native tensor operations; same order as the compiler's KL_TENSOR_OPS. */
enum {
  KR_OP_MATMUL = 0, /* a[M,K] @ b[K,N] */
  KR_OP_LINEAR,     /* a[M,K] @ b[N,K].T + c[N] */
  KR_OP_ADD,        /* a + b; ranks 1+1, 2+2, 2+1, 1+2 (row broadcast) */
  KR_OP_RELU, KR_OP_SIGMOID, KR_OP_TANH,
  KR_OP_ROWSUM, KR_OP_ROWMEAN,
  KR_OP_SUB, KR_OP_MUL, KR_OP_DIV, /* a - b, a * b, a / b; broadcast as KR_OP_ADD */
  KR_OP_SOFTMAX,                    /* softmax of each row (rank 2) or of the vector */
  KR_OP_NEG,                        /* -a */
  KR_OP_ABS, KR_OP_SQRT, KR_OP_SQUARE, KR_OP_EXP, /* elementwise, as kk_act's */
  KR_OP_SILU,                       /* a / (1 + e^-a), torch's F.silu */
  KR_OP_LOG,                        /* natural log, elementwise */
  KR_OP_LOG_SOFTMAX,                /* log_softmax of each row (rank 2) or of the vector */
  KR_OP_RSQRT,                      /* 1 / sqrt(a), elementwise */
  KR_OP_COLSUM, KR_OP_COLMEAN,      /* sum / mean over dim 0 of a rank-2 a */
  KR_OP_RELU6, KR_OP_HARDTANH,      /* a clamped to [0, 6], [-1, 1] */
  KR_OP_CLAMP,                      /* a clamped to scalar bounds: through tensor_clamp */
  KR_OP_CLAMP_ORDERED,              /* the same, F.hardtanh's: lo > hi raises ValueError first */
  KR_OP_BIAS_ADD,                   /* a[M,N] + b[N] (KR_OP_ADD), b exactly N long: tf.nn.bias_add */
  KR_OP_LEAKY_RELU,                 /* a > 0 ? a : a * slope, slope a scalar: through tensor_scalar_op */
  KR_OP_GELU, KR_OP_GELU_TANH,      /* a/2 (1 + erf(a/sqrt 2)), and its tanh form: elementwise, as relu */
  KR_OP_MAXIMUM, KR_OP_MINIMUM,     /* torch.maximum / minimum(a, b): NaN-propagating; broadcast as KR_OP_ADD */
  KR_NUM_OPS
};
/* OR'd into a reduction (KR_OP_ROWSUM/ROWMEAN/COLSUM/COLMEAN, tensor_op or
 * KrFused.reduce): the result keeps the reduced dim with size 1, [M, 1] or
 * [1, N] (torch's keepdim=True, TF's keepdims=True). */
#define KR_OP_KEEPDIM 0x100

/* torch's autograd state saved around a decorated function's call. */
enum { KR_GUARD_NO_GRAD = 1, KR_GUARD_INFERENCE = 2 };
typedef struct {
  int kind;          /* 0 until entered */
  uint64_t saved[3]; /* what grad_guard_enter found */
  PyObject *guard;   /* torch._C._InferenceMode, when entered through Python */
} KrGradGuard;

/* The exception a try statement's handler or finally block found handled
 * when it began (sys.exc_info()), restored when it ends; on 3.10 also the
 * caught exception's type and traceback as caught, which its re-raise uses. */
typedef struct KrExcSave {
  PyObject *type, *value, *tb;
  PyObject *caught_type, *caught_tb;
} KrExcSave;

/* Moves an owned reference out of *p (for a call that steals it). */
static inline PyObject *kr_take(PyObject **p) {
  PyObject *o = *p;
  *p = NULL;
  return o;
}

/* Builtin sum()'s running total, kept where CPython keeps it, so the result
 * is CPython's to the bit: in C while every item is an exact int (or bool)
 * and the total fits a long (KR_SUM_INT); then in C while every item is an
 * exact float or an int that fits (KR_SUM_FLOAT: 3.12 compensates the
 * floats' rounding, Neumaier's improved Kahan-Babuska); then as an object
 * that PyNumber_Add updates (KR_SUM_OBJECT, kept by the caller). A mode
 * never comes back. */
enum { KR_SUM_INT, KR_SUM_FLOAT, KR_SUM_OBJECT };
typedef struct {
  int mode;
  long i;      /* KR_SUM_INT */
  double f, c; /* KR_SUM_FLOAT: the sum and its compensation */
} KrSum;

static inline void kr_sum_add_float(KrSum *s, double x) {
#if PY_VERSION_HEX >= 0x030C0000
  double t = s->f + x;
  if (fabs(s->f) >= fabs(x)) s->c += (s->f - t) + x;
  else s->c += (x - t) + s->f;
  s->f = t;
#else
  s->f += x;
#endif
}

/* The float total CPython hands out: the compensation is left out when it
 * is zero (the sign of -0.0 stays) or not finite (an infinite sum stays
 * infinite, not NaN). */
static inline double kr_sum_float_value(const KrSum *s) {
#if PY_VERSION_HEX >= 0x030C0000
  return s->c != 0.0 && isfinite(s->c) ? s->f + s->c : s->f;
#else
  return s->f;
#endif
}

/* An exact int (or bool) item v: 1 when the total took it in C; 0 when
 * the caller must pass it boxed to kr->sum_add. */
static inline int kr_sum_int(KrSum *s, long v) {
  long r;
  if (s->mode == KR_SUM_INT && !__builtin_add_overflow(s->i, v, &r)) {
    s->i = r;
    return 1;
  }
  if (s->mode != KR_SUM_FLOAT) return 0;
  s->f += (double)v; /* not compensated, as in CPython */
  return 1;
}

/* An exact float item x: likewise. From an int total, total + x is a
 * float, and the float mode starts from it. */
static inline int kr_sum_float(KrSum *s, double x) {
  if (s->mode == KR_SUM_INT) {
    s->f = (double)s->i + x;
    s->c = 0.0;
    s->mode = KR_SUM_FLOAT;
    return 1;
  }
  if (s->mode != KR_SUM_FLOAT) return 0;
  kr_sum_add_float(s, x);
  return 1;
}

/* A chain of claimed ops the compiler fused into one kernel call:
 *   r = reduce(act(base(a, b, c) + d) + e)
 * base: KR_OP_MATMUL (a @ b) or KR_OP_LINEAR (a @ b.T + c);
 * d, when bias_line > 0: a rank-1 row added to a matmul/linear result;
 * act: KR_OP_RELU / SIGMOID / TANH or -1;
 * e, when post_line > 0 (only after an act): a rank-1 row added to act's result;
 * reduce: KR_OP_ROWSUM / ROWMEAN (with KR_OP_KEEPDIM or not) or -1;
 * bias_op, post_op: KR_OP_ADD, or KR_OP_BIAS_ADD (the row exactly N long).
 * Each part keeps the .py line of the op it came from, so a shape error
 * names the same op and line as the unfused code would. */
typedef struct KrFused {
  int base, base_line;
  int bias_line, bias_first; /* bias_first: written `d + base(...)` */
  int act, act_line;
  int post_line, post_first; /* post_first: written `e + act(...)` */
  int reduce, reduce_line;
  int bias_op, post_op;
} KrFused;

/* kiln-owned storage: 64-byte aligned, reference counted without the GIL
 * so frameworks may free it from any thread. */
typedef struct KrBuffer KrBuffer;

/* A float32 tensor value inside compiled code: rank 1 or 2, strides in
 * elements. It either views a framework tensor (`source`, inputs) or owns
 * a kiln buffer (`buf`, results). Boxing a result memoises the framework
 * tensor made for it in `source`, so Python sees one object per value
 * (identity, requires_grad_, in-place metadata changes) as in eager. */
typedef struct KrTensor {
  PyObject_HEAD
  float *data;
  int32_t rank;
  int32_t framework;
  int64_t shape[2];
  int64_t strides[2];
  PyObject *source; /* strong ref to the framework tensor viewed, or NULL */
  KrBuffer *buf;    /* strong ref to kiln storage, or NULL */
} KrTensor;

/* An elementwise chain the compiler fused (fuse.c kl_plan_ewise):
 *   v = first; then for each step: v = act(v), v = v op x or (swap) x op v,
 * x a tensor or a Python scalar (KrEwArg); op KR_OP_ADD/SUB/MUL/DIV or
 * KR_OP_RELU/SIGMOID/TANH/NEG/ABS/SQRT/SQUARE/EXP/SILU/LOG/RSQRT/RELU6/HARDTANH/GELU/GELU_TANH, a bound of
 * KR_OP_CLAMP, or KR_OP_LEAKY_RELU's slope (a scalar; KR_EW_ACT: the
 * framework's default). A tree of such ops is a stack program in Python's
 * evaluation order: KR_EW_PUSH sets v aside (at most KR_EW_DEPTH deep) and
 * starts a new v = its tensor (op ignored); KR_EW_POP: v = w op v (swap) or
 * v op w, w the value set aside last, op KR_OP_ADD/SUB/MUL/DIV. One pass over
 * the result, computed as the ops one by one compute it (same roundings, NaNs
 * and errors, each error naming its op's line); no intermediate tensor. */
#define KR_EW_MAX 16
#define KR_EW_DEPTH 4
enum { KR_EW_ACT = 0, KR_EW_TENSOR, KR_EW_FLOAT, KR_EW_INT, KR_EW_PUSH, KR_EW_POP };
typedef struct KrEwStep {
  int op, line;
  int swap; /* the operand is the left one: x op v. KR_OP_CLAMP (the operand its
               bound): 0 max(lo, v), 1 min(hi, v), 2 max(lo, v) of a clamp whose
               min(hi, v) is the next step (a NaN bound of either fills it with NaN),
               3 the same for KR_OP_CLAMP_ORDERED's pair */
  int kind; /* KR_EW_ACT, what the operand is, KR_EW_PUSH or KR_EW_POP */
} KrEwStep;
typedef struct KrEwise {
  int nsteps;
  KrEwStep step[KR_EW_MAX];
} KrEwise;
typedef struct KrEwArg { /* step k's operand: t (KR_EW_TENSOR, PUSH), f (FLOAT) or i (INT, bools too) */
  KrTensor *t;
  double f;
  int64_t i;
} KrEwArg;

/* A compiled function's signature, for argument binding. */
typedef struct KrSig {
  const char *name;        /* function name, for messages */
  int nparams;             /* the named parameters */
  int nposparams;          /* positional (the rest of the named ones are keyword-only) */
  const char *const *param_names;
  PyObject **names;        /* interned names, filled by module_init */
  PyObject **defaults;     /* nparams slots; NULL = required; filled by module_init */
  int nposonly;            /* the first nposonly positional ones are positional-only (`/`) */
  int varargs, varkw;      /* 1 when it has *args, **kwargs: bound after the named ones */
} KrSig;

/* A lambda or nested def in a compiled function. CPython compiled its body
 * with the original function; at bind the runtime finds that code object
 * among the original's constants (and its comprehensions'): on 3.11+ by the
 * line and column of `lambda`/`def`, on 3.10 (no columns) by the line and
 * its place among the functions 3.10 compiled on that line. Its name,
 * parameters and free variables must match too. */
typedef struct KrLambda {
  int line, col;           /* of `lambda` or `def`; col in UTF-8 bytes from 0 (CPython's col_offset) */
  int nth;                 /* 0 for the first function 3.10 compiles on its line, ... */
  int argcount, kwonlyargcount;
  const char *name;        /* co_name: "<lambda>" or a nested def's name */
  const char *varnames;    /* its parameters, comma-separated, in co_varnames order */
  const char *freevars;    /* the cells make_lambda gets, comma-separated, by name: a lambda's are its
                              co_freevars; a nested def's may be more (kiln only scanned its body) */
  PyObject *code;          /* runtime-owned: the code object, NULL until found */
  PyObject *qualname;      /* runtime-owned: 3.10's __qualname__ (3.11+ take the code's) */
  PyObject *select;        /* runtime-owned: which of those cells co_freevars wants (a tuple of
                              indices), or NULL when it wants them all, in order */
} KrLambda;

/* One compiled function of a module. */
typedef struct KrFuncDef {
  const char *name;
  PyCFunction fn;          /* METH_FASTCALL | METH_KEYWORDS */
  KrSig *sig;
  const char *status;      /* "native" or "python" */
  const char *reason;      /* why it stays Python (NULL when native) */
  PyMethodDef method;      /* runtime-owned (zero in generated code): the builtin's method def */
  KrLambda *lambdas;       /* the function's lambdas, or NULL */
  int nlambdas;
  int first_line, def_line; /* its def statement's first line (a decorator's) and its `def` line */
  const char *const *import_guards; /* NULL, or name, path, ..., NULL: module globals kiln resolved
                                       under a guard (a conditional import, an alias of a path), which
                                       must be the object at path once the module has run, else the
                                       function is installed as Python */
} KrFuncDef;

typedef struct KrModuleDef {
  const char *filename;    /* the .py path as given at build */
  const char *source;      /* the original source text (UTF-8) */
  Py_ssize_t source_len;
  KrFuncDef *funcs;
  int nfuncs;
  const char *const *strings; /* every identifier/string constant the code uses */
  const Py_ssize_t *string_lens;
  int nstrings;
  PyObject **interned;     /* nstrings slots, filled by module_init */
  PyObject **globals;      /* where module_init stores the globals dict */
  int bind_globals;        /* 1: do not exec the source; expose _kiln_bind */
} KrModuleDef;

typedef struct KrApi {
  int abi_version;
  size_t size;

  /* --- module setup ---
   * Interns strings, sets __kiln_native__ = True in the module dict, execs
   * the source there (unless bind_globals), records __kiln_python__ (name ->
   * original function), fills each KrSig's names/defaults from the original
   * function's __defaults__/__kwdefaults__, then, by KILN_MODE (read now):
   * python -> leaves the originals; auto -> replaces native functions with
   * builtin functions; native -> same, and replaces functions whose status
   * is "python" with ones that raise RuntimeError naming the reason.
   * With bind_globals it instead adds `_kiln_bind(globals, originals=None)`,
   * which does the same against the given dict. Returns -1 with an exception. */
  int (*module_init)(PyObject *module, KrModuleDef *def);

  /* --- calls ---
   * Binds fastcall arguments to out[sig->nparams] (borrowed references),
   * then *args's tuple and **kwargs's dict (new references) if it has them,
   * raising TypeError exactly like Python for missing, duplicate, unexpected
   * or too many arguments. */
  int (*bind_args)(const KrSig *sig, PyObject *const *args, Py_ssize_t nargs,
                   PyObject *kwnames, PyObject **out);
  /* Adds a traceback entry "File FILE, line LINE, in FUNC" for the current exception. */
  void (*add_traceback)(const char *func, const char *file, int line);

  /* --- entry checks for annotated parameters (TypeError naming the argument) --- */
  int (*unbox_int)(PyObject *o, const char *fname, const char *arg, int64_t *out);   /* int, bool, __index__ */
  int (*unbox_float)(PyObject *o, const char *fname, const char *arg, double *out);  /* float or int */
  int (*unbox_bool)(PyObject *o, const char *fname, const char *arg, int *out);      /* exactly bool */
  /* Checks and views a framework tensor (kiln-torch: / kiln-tensorflow:
   * messages of DESIGN.md, in the order type, device, dtype, rank). New ref. */
  KrTensor *(*tensor_unbox)(PyObject *o, int framework, int rank, const char *arg);
  /* A framework tensor for a native value (new ref), without copying. */
  PyObject *(*tensor_box)(KrTensor *t);
  /* Converts an object produced by a fallback site to a native tensor of the
   * given type, or raises TypeError (used where a result must be native). */
  KrTensor *(*tensor_from_object)(PyObject *o, int framework, int rank, const char *file, int line);

  /* --- scalar helpers (all raise Python's exact exceptions) --- */
  void (*raise_overflow)(const char *file, int line);   /* OverflowError "integer overflow (FILE:LINE)" */
  int (*int_floordiv)(int64_t a, int64_t b, int64_t *out, const char *file, int line); /* ZeroDivisionError / OverflowError */
  int (*int_mod)(int64_t a, int64_t b, int64_t *out);
  int (*int_pow)(int64_t a, int64_t b, int64_t *out, const char *file, int line); /* b >= 0 */
  int (*int_lshift)(int64_t a, int64_t b, int64_t *out, const char *file, int line);
  int64_t (*int_rshift)(int64_t a, int64_t b);           /* b >= 0 (the caller raises for b < 0) */
  int (*int_truediv)(int64_t a, int64_t b, double *out); /* correctly rounded like Python */
  int (*float_div)(double a, double b, double *out);
  int (*float_floordiv)(double a, double b, double *out);
  int (*float_mod)(double a, double b, double *out);
  /* a ** b like CPython's float_pow: 0 with *out, -1 with an exception
   * (ZeroDivisionError for 0.0 ** negative, OverflowError(34, ...)), or 2
   * when the result is complex (a < 0, b not an integer): no exception is
   * set and the caller must compute a ** b through kr->power instead. */
  int (*float_pow)(double a, double b, double *out);
  int (*float_to_int)(double a, int64_t *out, const char *file, int line); /* int(x): ValueError/OverflowError */
  int (*int_float_cmp)(int64_t a, double b);  /* exact: -1, 0, 1, or 2 when b is NaN */
  int (*negative_shift)(void);                  /* raises ValueError("negative shift count"), returns -1 */

  /* --- Python fallback helpers --- */
  /* Global lookup: globals dict, then builtins; NameError like Python. New ref. */
  PyObject *(*load_global)(PyObject *globals, PyObject *name);
  /* Raises UnboundLocalError for a local read before assignment. */
  void (*unbound_local)(const char *name);
  PyObject *(*power)(PyObject *a, PyObject *b);          /* a ** b */
  PyObject *(*inplace_power)(PyObject *a, PyObject *b);  /* a **= b */
  /* Unpacks an iterable into n new references exactly like Python's
   * `a, b = x` (ValueError messages included). */
  int (*unpack)(PyObject *seq, Py_ssize_t n, PyObject **out);

  /* --- native tensor operations ---
   * Checks concrete shapes first: a mismatch raises RuntimeError naming both
   * shapes and FILE:LINE before any memory is touched. New ref. */
  KrTensor *(*tensor_op)(int op, KrTensor *a, KrTensor *b, KrTensor *c, const char *file, int line);
  /* t op s (scalar_left: s op t) for op ADD/SUB/MUL/DIV and a Python scalar
   * s: the float f, or (is_int) the int or bool i, converted to float32 as
   * the tensor's framework converts it. op KR_OP_LEAKY_RELU (scalar_left 0):
   * t > 0 ? t : t * s, s converted as the framework converts the slope
   * (torch: as a clamp bound, a finite float past float32's range raising
   * RuntimeError; TF: through a double), or with is_int -1 its default
   * (torch's 0.01, TF's 0.2). New ref. */
  KrTensor *(*tensor_scalar_op)(int op, KrTensor *t, double f, int64_t i, int is_int, int scalar_left,
                                const char *file, int line);
  /* A fused elementwise chain (see KrEwise). New ref. */
  KrTensor *(*tensor_ewise)(const KrEwise *p, KrTensor *first, const KrEwArg *args, const char *file);
  /* A fused chain (see KrFused): same checks and errors as the ops one by
   * one, one pass over the output, no intermediate tensors. New ref. */
  KrTensor *(*tensor_fused)(const KrFused *f, KrTensor *a, KrTensor *b, KrTensor *c, KrTensor *d, KrTensor *e,
                            const char *file);
  /* torch.clamp(t, lo, hi) (and clip, clamp_min, clamp_max): each bound
   * KR_EW_FLOAT (f) or KR_EW_INT (i, bools too), or -1 when absent (one at
   * least). As eager: a NaN bound makes every element NaN; else a finite
   * float bound past float32's range raises RuntimeError; else min(hi,
   * max(lo, t)) in x86's instructions, NaN and -0.0 passing as themselves.
   * ordered (F.hardtanh(t, lo, hi), both given): first, lo > hi as Python
   * compares them raises ValueError. New ref. */
  KrTensor *(*tensor_clamp)(KrTensor *t, int ordered, int lo_kind, double lo_f, int64_t lo_i, int hi_kind,
                            double hi_f, int64_t hi_i, const char *file, int line);
  /* torch's F.layer_norm(t, shape, w, b, eps), w and b NULL for None. With
   * shape a tuple or list (torch.Size too) of one int, t's last dim, and w
   * and b of that length: each row's mean and variance (kk_moments: no
   * overflow, no cancellation), then
   * (t * rstd - mean * rstd) * w + b in float32. Anything else is eager's
   * own F.layer_norm called with the same arguments (its result or error).
   * New ref. */
  KrTensor *(*tensor_layer_norm)(KrTensor *t, PyObject *shape, KrTensor *w, KrTensor *b, double eps,
                                 const char *file, int line);
  /* torch's F.normalize(t, 2, last dim, eps): t / clamp_min(norm of each
   * row, eps), the norm a float32 sum of squares, eps (KR_EW_FLOAT f or
   * KR_EW_INT i) taken as clamp_min takes its bound (NaN: every quotient
   * NaN; a finite float past float32's range: RuntimeError). New ref. */
  KrTensor *(*tensor_normalize)(KrTensor *t, int eps_kind, double eps_f, int64_t eps_i, const char *file, int line);
  /* torch.cat / tf.concat of ts[0..n) along dim (0 or 1, below the result's rank):
   * every tensor of one framework and rank, every other dim equal (else
   * RuntimeError naming the first that differs and FILE:LINE); the result
   * dense row-major, each element copied bit for bit. stack (torch.stack /
   * tf.stack): rank-1 tensors of one length, each a row (dim 0) or a column
   * (dim 1) of a rank-2 result. New ref. */
  KrTensor *(*tensor_cat)(KrTensor *const *ts, int n, int dim, int stack, const char *file, int line);
  /* x's elements in row-major order as a tensor of another shape, a new
   * dense row-major tensor (kiln's tensors are values: it never aliases x):
   *   KR_SHAPE_RESHAPE, KR_SHAPE_VIEW: sizes[0..n), n 1 or 2, one of them
   *     may be -1 (inferred), as torch's x.reshape / x.view or tf.reshape
   *     (by x's framework) check them; VIEW also refuses x's strides where
   *     eager's view does;
   *   KR_SHAPE_SQUEEZE: rank 2 to 1 without dim `dim`, which must be of size 1;
   *   KR_SHAPE_UNSQUEEZE: rank 1 to 2 with a dim of size 1 at `dim`;
   *   KR_SHAPE_CONTIGUOUS (x itself when row-major), KR_SHAPE_CLONE (x's
   *     strides when dense, else row-major), KR_SHAPE_DETACH (as a view of
   *     x): torch's x.contiguous() / x.clone() / x.detach() (n, sizes unused).
   * Errors: RuntimeError in the framework's words, with FILE:LINE. New ref. */
  KrTensor *(*tensor_reshape)(KrTensor *x, int how, int dim, int n, const int64_t *sizes, const char *file, int line);
  /* x[ix[0], ix[1]] (n 1 or 2, at most x's rank; the dims after them taken
   * whole): an int picks one place of its dim (negative ones from the end;
   * out of range: IndexError in the framework's words) and drops the dim; a
   * slice clamps its bounds as Python's do. The elements copied into a new
   * dense row-major tensor (never a view). New ref. */
  KrTensor *(*tensor_index)(KrTensor *x, int n, const KrIndex *ix, const char *file, int line);
  /* After Python code ran (a fallback site), re-reads the view of a tensor
   * local from the framework tensor it shares memory with: Python may have
   * changed that tensor's metadata in place (x.t_(), x.resize_(...),
   * x.set_(...)). Replaces *slot when the view changed; raises when the
   * tensor no longer has the promised dtype/rank. No-op for values Python
   * never saw and for immutable (TensorFlow) tensors. */
  int (*tensor_refresh)(PyObject **slot, const char *name, const char *file, int line);
  /* At the edges of a `with torch.inference_mode():` block: makes the torch
   * tensor that boxing *slot returns now, under the autograd state in force
   * (an inference tensor inside the block, a normal one outside), and keeps
   * it as *slot's source. No-op for values already boxed and for other
   * frameworks. */
  int (*tensor_pin)(PyObject **slot, const char *name);
  /* An f-string field: v converted by conv ('s', 'r', 'a' or 0), then
   * formatted with spec (NULL: none), as Python's FORMAT_VALUE. New ref. */
  PyObject *(*format_value)(PyObject *v, int conv, PyObject *spec);
  /* The conversion alone (3.13 converts before a spec's fields). New ref. */
  PyObject *(*convert_value)(PyObject *v, int conv);
  /* A function decorated @torch.no_grad() or @torch.inference_mode():
   * grad_guard_enter sets torch's autograd state for this thread as the
   * decorator would (kind: KR_GUARD_*) and saves what it found in *g;
   * 0, or -1 with an exception set. grad_guard_exit restores it (nothing
   * when enter failed or was not called: *g starts zeroed) and never
   * disturbs a pending exception. */
  int (*grad_guard_enter)(KrGradGuard *g, int kind);
  void (*grad_guard_exit)(KrGradGuard *g);
  /* A comprehension's read of an unbound variable bound outside it: the
   * error the running CPython raises (NameError for a free variable; from
   * 3.12 as unbound_local, unless `generator`: the read crosses a generator
   * expression, which 3.12 did not inline). */
  void (*unbound_free)(const char *name, int generator);
  /* At an error raised inside a generator expression kiln consumes itself:
   * a pending StopIteration becomes RuntimeError (PEP 479). */
  void (*generator_raised)(void);
  /* sum(items, start) of a generator expression kiln consumes itself.
   * sum_start checks start (NULL: none) as sum() does (no str, bytes or
   * bytearray: TypeError) and sets *s, and *total to a new reference to
   * start when the object mode begins with it. sum_add adds an item
   * (stolen) that kr_sum_int/kr_sum_float did not take, releasing what
   * sum() releases in its order; on an error *total is already released
   * and NULL. sum_total: the sum, a new reference (takes *total). */
  int (*sum_start)(KrSum *s, PyObject **total, PyObject *start);
  int (*sum_add)(KrSum *s, PyObject **total, PyObject *item);
  PyObject *(*sum_total)(KrSum *s, PyObject **total);
  /* min()/max() (op Py_LT / Py_GT) of a generator expression: one item
   * (stolen) and key (NULL or None: none). Keeps the item and its key in
   * *best and *best_key when nothing is kept or its key compares op against
   * the kept one; releases the loser as min() does. On an error both are
   * released, in min()'s order, and NULL. */
  int (*best_step)(PyObject **best, PyObject **best_key, PyObject *item, PyObject *key, int op);
  /* ValueError: min()/max() (is_max) of nothing, in the running version's words. */
  void (*best_empty)(int is_max);

  /* --- try statements and raise ---
   * exc_catch takes the raised exception (normalized, its traceback on it)
   * into *exc, a new reference, and makes it the handled exception
   * (sys.exc_info(), the __context__ of what is raised next), saving the
   * one handled before in *save; exc_uncatch restores that one. */
  void (*exc_catch)(KrExcSave *save, PyObject **exc);
  void (*exc_uncatch)(KrExcSave *save);
  /* An `except T:` test: 1 when exc is an instance of T (a class or a
   * tuple of them, as CPython matches), 0 if not, -1 with TypeError when T
   * is not BaseException subclasses (CPython's message). */
  int (*exc_match)(PyObject *exc, PyObject *type);
  /* exc_uncatch, then raises exc (stolen) again as CPython's RERAISE: with
   * its traceback now (3.10: its type and traceback as caught). */
  void (*exc_rethrow)(KrExcSave *save, PyObject *exc);
  /* `raise exc` / `raise exc from cause` (cause NULL when absent), as
   * CPython's RAISE_VARARGS: always leaves an exception set. */
  void (*raise)(PyObject *exc, PyObject *cause);
  /* Bare `raise`: 1 re-raising the handled exception, 0 with RuntimeError
   * ("No active exception to reraise") when none is. */
  int (*reraise)(void);
  /* `with m:` of a manager kiln does not apply itself. with_enter looks up
   * type(m).__enter__ and __exit__ as CPython does (a missing one raises
   * the running version's error), calls __enter__ and returns its result
   * (new ref), the bound __exit__ in *exit; NULL with an exception.
   * with_exit calls __exit__(None, None, None); with_exit_exc calls
   * __exit__(type(exc), exc, exc.__traceback__) and returns 1 when the
   * result is true (the exception is suppressed), 0 if not, -1 with an
   * exception. Both release *exit. */
  PyObject *(*with_enter)(PyObject *mgr, PyObject **exit);
  int (*with_exit)(PyObject **exit);
  int (*with_exit_exc)(PyObject **exit, PyObject *exc);
  /* A lambda's function object (new ref) with its defaults (a tuple or
   * NULL), keyword-only defaults (a dict or NULL) and closure (a tuple of
   * cells in co_freevars order, or NULL), as MAKE_FUNCTION makes it;
   * RuntimeError when its code object was not found at bind. */
  PyObject *(*make_lambda)(const KrLambda *l, PyObject *globals, PyObject *defaults, PyObject *kwdefaults,
                           PyObject *closure);
  /* callee() with no arguments; builtins.globals() is `globals` (new ref),
   * the compiled function's module dict, as it would be in Python. */
  PyObject *(*call_noargs)(PyObject *callee, PyObject *globals);
  /* 0 under -O (sys.flags.optimize): CPython compiles assert statements away. */
  int (*asserts_enabled)(void);

  /* --- unpacking (`*` and `**`), each as the CPython instruction named,
   * errors worded as it words them; 0 or -1 unless said --- */
  /* `a, *b, c = seq` (UNPACK_EX): before + 1 + after new references, the
   * middle one a list of the rest. */
  int (*unpack_starred)(PyObject *seq, Py_ssize_t before, Py_ssize_t after, PyObject **out);
  int (*list_extend)(PyObject *list, PyObject *iterable);   /* [*it] (LIST_EXTEND) */
  int (*set_update)(PyObject *set, PyObject *iterable);     /* {*it} (SET_UPDATE) */
  int (*dict_update)(PyObject *dict, PyObject *mapping);    /* {**m} (DICT_UPDATE) */
  /* f(**m): merges m into the call's keyword dict; a key already there is
   * an error naming func (DICT_MERGE). */
  int (*kwargs_merge)(PyObject *kwargs, PyObject *mapping, PyObject *func);
  /* func(*args, **kwargs) (CALL_FUNCTION_EX): args a tuple, or for `f(*a)`
   * alone any iterable; kwargs a dict or NULL. New ref. */
  PyObject *(*call_unpacked)(PyObject *func, PyObject *args, PyObject *kwargs);

  /* --- import statements in a function --- */
  /* IMPORT_NAME: builtins' __import__(name, globals, None, fromlist, level). New ref. */
  PyObject *(*import_name)(PyObject *globals, PyObject *name, PyObject *fromlist, int level);
  /* IMPORT_FROM: the attribute, or the submodule from sys.modules, or
   * CPython's ImportError. New ref. */
  PyObject *(*import_from)(PyObject *module, PyObject *name);

  /* --- names a function declares `global` --- */
  /* `del name` (DELETE_GLOBAL): NameError when it is not there. */
  int (*delete_global)(PyObject *globals, PyObject *name);
  /* The end of `except E as name`: `name = None; del name`, keeping any
   * exception being raised. */
  void (*unbind_global)(PyObject *globals, PyObject *name);

  /* --- a class statement in a function --- */
  /* builtins.__build_class__ (LOAD_BUILD_CLASS; NameError when missing). New ref. */
  PyObject *(*build_class_function)(void);

  /* --- match statements: CPython's pattern instructions, in its order and words --- */
  /* MATCH_KEYS: the tuple of map.get(key, dummy) for the keys (a tuple), or
   * None when one is missing; a repeated key is a ValueError. New ref. */
  PyObject *(*match_keys)(PyObject *map, PyObject *keys);
  /* MATCH_CLASS: the attributes nargs positional sub-patterns and those
   * named in kwnames (a tuple or NULL) match, as a tuple, or None when the
   * subject is not an instance of cls or lacks one. New ref. */
  PyObject *(*match_class)(PyObject *subject, PyObject *cls, Py_ssize_t nargs, PyObject *kwnames);
  /* seq[i], for i < 0 seq[len(seq) + i] (an item after `*_`). New ref. */
  PyObject *(*match_index)(PyObject *seq, Py_ssize_t i);
  /* A mapping pattern's **rest: a dict of map's items but keys (a tuple). New ref. */
  PyObject *(*match_rest)(PyObject *map, PyObject *keys);

  /* --- a native loop's back edge: what CPython's eval loop does at a jump back ---
   * A loop counts its iterations down from *tick_period (a function's
   * countdown, kl_tick, starts there); at zero it calls tick, which runs
   * pending signal handlers (KeyboardInterrupt, an alarm's handler; their
   * exception: -1), lets a thread waiting for the GIL run once 5 ms have
   * passed since it last did, and sets *countdown to the period, adapted so
   * that ticks come every 0.1 to 1 ms whatever an iteration costs. Python
   * code may have run: the loop refreshes its torch tensors after it. */
  int (*tick)(int *countdown);
  const int *tick_period;

  /* --- the line a fused call failed at ---
   * After tensor_ewise or tensor_fused returned NULL: the .py line of the
   * op whose error it raised (a chain forwarded across statements spans
   * several), else `line`; the call site's traceback names it, as
   * Python's frame names the line of the op that raised. Clears it. */
  int (*fail_line)(int line);
} KrApi;

/* Generated modules: `static const KrApi *kr;` then `kr = kr_import();`. */
static inline const KrApi *kr_import(void) {
  PyObject *mod = PyImport_ImportModule("kiln._runtime");
  if (!mod) return NULL;
  PyObject *cap = PyObject_GetAttrString(mod, "_C_API");
  Py_DECREF(mod);
  if (!cap) return NULL;
  const KrApi *api = (const KrApi *)PyCapsule_GetPointer(cap, "kiln._runtime._C_API");
  Py_DECREF(cap);
  if (!api) return NULL;
  if (api->abi_version != KR_ABI_VERSION || api->size < sizeof(KrApi)) {
    PyErr_Format(PyExc_ImportError,
                 "kiln: module built for runtime ABI %d (a %zu-byte table), installed runtime has ABI %d "
                 "(%zu bytes); rebuild it",
                 KR_ABI_VERSION, sizeof(KrApi), api->abi_version, (size_t)api->size);
    return NULL;
  }
  return api;
}

#endif
