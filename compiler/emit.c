/* emit.c — C source for one CPython extension module.
 *
 * Shape of the output (Cython-like):
 *   - every emitted name has a reserved prefix: kf_ functions, lv_/lb_ locals
 *     and their bound flags, t/i/d/b temporaries, ks interned strings, kc
 *     constants, kg_ globals;
 *   - the .py line is quoted in a comment above the C it became;
 *   - every fallible call is followed by KL_FAIL(line), which jumps to the one
 *     error label; it adds a traceback entry for the .py line, and the exit
 *     path releases every local and temporary (all start as NULL);
 *   - no source text reaches the output except through kl_buf_c_string
 *     (octal escapes) or sanitised comments, so it cannot inject C. */
#include "kiln.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct Val {
  KlType t;
  char s[40]; /* C expression: a temporary, a local, a literal */
  bool owned; /* an object temporary this code must release */
} Val;

/* A `with` guard block being emitted: leaving it restores kl_wg_<id>. */
typedef struct With {
  struct With *outer;
  int id;
  int kind; /* KL_GUARD_* */
} With;

typedef struct Loop {
  struct Loop *outer;
  int id;
  bool used_break, used_continue;
  With *with;       /* the innermost guard block around the loop */
  struct Try *tried; /* the innermost try statement around it */
  const char *iter;  /* a for loop's iterator temporary, or NULL */
} Loop;

/* Why control enters a finally block (kl_why_<id>). */
enum { WHY_NONE, WHY_EXC, WHY_RETURN, WHY_BREAK, WHY_CONTINUE };
/* The part of a try statement being emitted (TRY_WITH: the body of a
 * `with` of a manager kiln calls through __enter__/__exit__: a Try too). */
enum { TRY_BODY, TRY_ELSE, TRY_HANDLER, TRY_FINALLY, TRY_WITH };

/* A try statement being emitted (try_stmt). Its C state: kl_exc_<id> the
 * exception being handled, kl_esave_<id> what was handled before it,
 * kl_why_<id> and kl_rv_<id> (a pending return value) for the finally. */
typedef struct Try {
  struct Try *outer;
  int id;
  int part;               /* TRY_* */
  bool has_finally;
  const KlNode *as_name;  /* in a handler: its `as` name, or NULL */
  With *with;             /* the innermost guard block around the try */
  Loop *loop;             /* the innermost loop around it */
  const char *outer_fail; /* the fail label around it (NULL: kl_error) */
  unsigned exits;         /* 1 << WHY_*: the exits that went through the finally */
  const char *line;       /* a `with`'s line, where its __exit__ errors are reported (a C expression: with_line) */
} Try;

typedef struct Str {
  const char *s;
  size_t len;
} Str;

/* A lambda or nested def evaluated in a compiled function: kl_lambdas[i] (KrLambda). */
typedef struct LambdaRef {
  const KlNode *n;
  int func; /* index of its function */
} LambdaRef;

typedef struct Module {
  KlCtx *ctx;
  KlModule *m;
  Str *strs;
  int nstrs, capstrs;
  KlBuf *consts; /* statements creating kc[] constants at init */
  int nconsts;
  LambdaRef *lambdas; /* by function: each function's are consecutive */
  int nlambdas, caplambdas;
} Module;

typedef struct E {
  Module *mod;
  KlCtx *ctx;
  KlFunc *f;
  KlBuf *out;
  char *temps; /* kind of each temporary: 'o' object, 'i' int64, 'd' double, 'b' int */
  int ntemps, captemps;
  Loop *loop;
  int nloops;
  With *with;  /* innermost guard block */
  Try *tried;  /* innermost try statement */
  int ntries;
  const char *fail_label; /* where KL_FAIL goes in the text being emitted: NULL kl_error */
  int nwiths;
  int nsums;   /* KrSum kl_sum_<n> of sum() over a consumed generator */
  int nticks;  /* loop heads counting iterations down in kl_tick (loop_tick) */
  int indent;
  int src_line;        /* comment_line's cursor: line src_line starts at src_pos */
  size_t src_pos;      /* (lines are mostly asked in order: linear, not quadratic) */
} E;

/* ---- small helpers ---- */

static void line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(E *e, const char *fmt, ...) {
  kl_buf_printf(e->out, "%*s", e->indent * 2, "");
  va_list ap;
  va_start(ap, fmt);
  kl_buf_vprintf(e->out, fmt, ap);
  va_end(ap);
  kl_buf_puts(e->out, "\n");
}

static Val val(KlType t, bool owned, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Val val(KlType t, bool owned, const char *fmt, ...) {
  Val v = {.t = t, .owned = owned};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v.s, sizeof v.s, fmt, ap);
  va_end(ap);
  return v;
}

static bool is_obj(E *e, KlType t) { return t == KL_T_OBJECT || kl_is_tensor(e->ctx, t); }

static char kind_of(E *e, KlType t) {
  if (is_obj(e, t)) return 'o';
  return t == KL_T_INT ? 'i' : t == KL_T_FLOAT ? 'd' : 'b';
}

static Val temp(E *e, KlType t) {
  if (e->ntemps == e->captemps) {
    int cap = e->captemps ? e->captemps * 2 : 64;
    char *ts = kl_alloc(e->ctx, (size_t)cap);
    if (e->ntemps) memcpy(ts, e->temps, (size_t)e->ntemps);
    e->temps = ts;
    e->captemps = cap;
  }
  char k = kind_of(e, t);
  e->temps[e->ntemps] = k;
  return val(t, k == 'o', "%c%d", k == 'o' ? 't' : k, e->ntemps++);
}

static void release(E *e, Val v) {
  if (v.owned) line(e, "Py_CLEAR(%s);", v.s);
}

static int intern(Module *mod, const char *s, size_t len) {
  for (int i = 0; i < mod->nstrs; i++)
    if (mod->strs[i].len == len && !memcmp(mod->strs[i].s, s, len)) return i;
  if (mod->nstrs == mod->capstrs) {
    int cap = mod->capstrs ? mod->capstrs * 2 : 64;
    Str *ss = kl_alloc(mod->ctx, sizeof(Str) * (size_t)cap);
    if (mod->nstrs) memcpy(ss, mod->strs, sizeof(Str) * (size_t)mod->nstrs);
    mod->strs = ss;
    mod->capstrs = cap;
  }
  mod->strs[mod->nstrs] = (Str){s, len};
  return mod->nstrs++;
}

static int str_index(E *e, const char *s) { return intern(e->mod, s, strlen(s)); }

/* A C string literal for arbitrary text (the caller adds the quotes). */
static char *c_str(KlCtx *ctx, const char *s) {
  KlBuf b = {0};
  kl_buf_c_string(&b, s, strlen(s));
  char *r = kl_strndup(ctx, b.data ? b.data : "", b.len);
  kl_buf_free(&b);
  return r;
}

/* Source text of a line, safe inside a C comment. */
static void comment_line(E *e, int lineno) {
  const char *src = e->ctx->src, *p = src, *end = p + e->ctx->srclen;
  int l = 1;
  if (e->src_line >= 1 && e->src_line <= lineno) {
    l = e->src_line;
    p = src + e->src_pos;
  }
  for (; l < lineno && p < end; p++)
    if (*p == '\n') l++;
  e->src_line = l;
  e->src_pos = (size_t)(p - src);
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  KlBuf b = {0};
  for (; p < end && *p != '\n' && *p != '\r' && b.len < 100; p++) {
    char c = *p;
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f || c == '\\' || c == '?') c = '.';
    if (c == '/' && b.len && b.data[b.len - 1] == '*') c = '.';
    if (c == '*' && b.len && b.data[b.len - 1] == '/') c = '.';
    kl_buf_put(&b, &c, 1);
  }
  line(e, "/* %d: %s */", lineno, b.data ? b.data : "");
  kl_buf_free(&b);
}

static void fail_if(E *e, int lineno, const char *cond_fmt, const char *arg) {
  kl_buf_printf(e->out, "%*sif (", e->indent * 2, "");
  kl_buf_printf(e->out, cond_fmt, arg);
  kl_buf_printf(e->out, ") KL_FAIL(%d);\n", lineno);
}

/* After a fused call (tensor_ewise, tensor_fused): its ops may come from
 * several statements (forwarding), and the traceback names the line of
 * the one that raised (kr->fail_line), lineno if none did. */
static void fail_at_op(E *e, int lineno, const char *result) {
  line(e, "if (!%s) KL_FAIL(kr->fail_line(%d));", result, lineno);
}

/* `if (lv_N && kr->FN(&lv_N, "name"EXTRA) < 0) KL_FAIL(lineno);` for each
 * local holding a torch tensor natively. */
static void each_torch_tensor_local(E *e, const char *fn, const char *extra, int lineno) {
  for (int i = 0; i < e->f->nlocals; i++) {
    KlLocal *l = &e->f->locals[i];
    if (!kl_is_tensor(e->ctx, l->type) || l->fwd) continue;
    const char *fw = e->ctx->plugins[e->ctx->types[l->type].plugin]->framework;
    if (strcmp(fw, "torch")) continue;
    kl_buf_printf(e->out, "%*sif (lv_%d && kr->%s(&lv_%d, \"%s\"%s) < 0) KL_FAIL(%d);\n", e->indent * 2, "", i, fn, i,
                  c_str(e->ctx, l->name), extra, lineno);
  }
}

/* Python code may have run (a fallback site): re-read the views of torch
 * tensor locals, whose framework tensors it may have changed in place. */
static void after_python(E *e, int lineno) {
  each_torch_tensor_local(e, "tensor_refresh", kl_fmt(e->ctx, ", kl_file, %d", lineno), lineno);
}

/* Before and after a `with torch.inference_mode():` block: box each torch
 * tensor local now, so that a value made before the block stays a normal
 * tensor and one made inside stays an inference tensor, as eager's values
 * would be, wherever they are boxed later. */
static void pin_tensor_locals(E *e, int lineno) {
  each_torch_tensor_local(e, "tensor_pin", "", lineno);
}

static const char *guard_name(int kind) {
  return kind == KL_GUARD_INFERENCE ? "KR_GUARD_INFERENCE" : "KR_GUARD_NO_GRAD";
}

/* Leaving a guard block on a normal path (its end, break, continue);
 * return and errors leave through kl_exit, which restores what is left. */
static void with_leave(E *e, const With *w, int lineno) {
  if (w->kind == KL_GUARD_INFERENCE) pin_tensor_locals(e, lineno);
  line(e, "kr->grad_guard_exit(&kl_wg_%d);", w->id);
}

static int framework_id(E *e, KlType t) {
  const char *fw = e->ctx->plugins[e->ctx->types[t].plugin]->framework;
  return !strcmp(fw, "torch") ? 1 : !strcmp(fw, "tensorflow") ? 2 : 3;
}

/* ---- conversions ---- */

/* Any value as a Python object (owned when newly created). */
static Val to_object(E *e, Val v, int lineno) {
  if (v.t == KL_T_OBJECT) return v;
  Val t = temp(e, KL_T_OBJECT);
  if (kl_is_tensor(e->ctx, v.t)) {
    line(e, "%s = kr->tensor_box((KrTensor *)%s);", t.s, v.s);
    release(e, v);
  } else if (v.t == KL_T_INT) {
    line(e, "%s = PyLong_FromLongLong(%s);", t.s, v.s);
  } else if (v.t == KL_T_FLOAT) {
    line(e, "%s = PyFloat_FromDouble(%s);", t.s, v.s);
  } else {
    line(e, "%s = PyBool_FromLong(%s);", t.s, v.s);
  }
  fail_if(e, lineno, "!%s", t.s);
  return t;
}

/* An owned copy that later code cannot change (for parallel assignment). */
static Val own(E *e, Val v) {
  if (v.owned) return v;
  Val t = temp(e, v.t);
  line(e, "%s = %s;", t.s, v.s);
  if (is_obj(e, v.t)) line(e, "Py_INCREF(%s);", t.s);
  return t;
}

/* Converts v to type want (same type, or boxing into object). */
static Val coerce(E *e, Val v, KlType want, int lineno) {
  if (v.t == want) return v;
  if (want == KL_T_OBJECT) return to_object(e, v, lineno);
  /* joins never produce another combination */
  kl_fatal(e->ctx, KL_KILN050, (KlLoc){lineno, 1}, "cannot convert %s to %s", kl_type_name(e->ctx, v.t),
           kl_type_name(e->ctx, want));
}

static const char *as_double(E *e, Val v) {
  return v.t == KL_T_FLOAT ? kl_strdup(e->ctx, v.s) : kl_fmt(e->ctx, "((double)%s)", v.s);
}

/* A C int holding Python truthiness of v. */
static const char *truth(E *e, Val v, int lineno) {
  switch (v.t) {
  case KL_T_BOOL: return kl_strdup(e->ctx, v.s);
  case KL_T_INT: return kl_fmt(e->ctx, "(%s != 0)", v.s);
  case KL_T_FLOAT: return kl_fmt(e->ctx, "(%s != 0.0)", v.s);
  default: {
    /* v itself is not consumed; a box made here is */
    Val borrowed = v;
    borrowed.owned = false;
    Val o = to_object(e, borrowed, lineno);
    Val b = temp(e, KL_T_BOOL);
    line(e, "%s = PyObject_IsTrue(%s);", b.s, o.s);
    release(e, o);
    fail_if(e, lineno, "%s < 0", b.s);
    return kl_strdup(e->ctx, b.s);
  }
  }
}

/* Evaluates a condition and releases its value. */
static Val ev(E *e, KlNode *n);
static void store(E *e, KlNode *target, Val v, int L);
static const char *cond(E *e, KlNode *n) {
  Val v = ev(e, n);
  const char *t = truth(e, v, n->loc.line);
  release(e, v);
  return t;
}

static void overflow_check(E *e, const char *cond, int lineno) {
  line(e, "if (%s) { kr->raise_overflow(kl_file, %d); KL_FAIL(%d); }", cond, lineno, lineno);
}

/* ---- expressions ---- */

static Val ev(E *e, KlNode *n);

static Val constant(E *e, const char *create_fmt, ...) __attribute__((format(printf, 2, 3)));
static Val constant(E *e, const char *create_fmt, ...) {
  Module *mod = e->mod;
  int k = mod->nconsts++;
  kl_buf_printf(mod->consts, "  kc[%d] = ", k);
  va_list ap;
  va_start(ap, create_fmt);
  kl_buf_vprintf(mod->consts, create_fmt, ap);
  va_end(ap);
  kl_buf_printf(mod->consts, ";\n  if (!kc[%d]) return -1;\n", k);
  return val(KL_T_OBJECT, false, "kc[%d]", k);
}

static const char *double_literal(E *e, double d) {
  if (isinf(d)) return d > 0 ? "HUGE_VAL" : "(-HUGE_VAL)";
  if (isnan(d)) return "NAN";
  return kl_fmt(e->ctx, "%a", d);
}

/* ---- locals ----
 * A local is lv_N (an object, NULL when unbound) or lv_N with lb_N (a C
 * scalar and its bound flag). A variable a lambda or nested def reads
 * (resolve.c) is a cell: lv_N is the cell object, made at entry, and its
 * value is PyCell_GET(lv_N); a read takes a reference of its own, as LOAD_DEREF does,
 * since whoever holds the cell may change it. */

/* The local's value: a cell's read always checks, whatever resolve.c proved. */
static Val local_value(E *e, int s, const char *unbound_call, int lineno, bool check) {
  KlLocal *l = &e->f->locals[s];
  if (l->cell) {
    Val t = temp(e, KL_T_OBJECT);
    line(e, "%s = PyCell_GET(lv_%d);", t.s, s);
    line(e, "if (!%s) { %s; KL_FAIL(%d); }", t.s, unbound_call, lineno);
    line(e, "Py_INCREF(%s);", t.s);
    return t;
  }
  if (check) line(e, "if (!%s_%d) { %s; KL_FAIL(%d); }", is_obj(e, l->type) ? "lv" : "lb", s, unbound_call, lineno);
  for (int i = 0; i < e->f->nwalrus_names && !l->comp; i++)
    if (!strcmp(e->f->walrus_names[i], l->name)) { /* a := later in the expression may rebind it: a copy */
      Val t = temp(e, l->type);
      line(e, "%s = lv_%d;%s", t.s, s, is_obj(e, l->type) ? kl_fmt(e->ctx, " Py_INCREF(%s);", t.s) : "");
      return t;
    }
  return val(l->type, false, "lv_%d", s);
}

/* Unbinds a local (del, the end of an `except ... as`, a comprehension's end). */
static void unbind_slot(E *e, int s) {
  KlLocal *l = &e->f->locals[s];
  if (l->cell && l->comp) line(e, "Py_CLEAR(lv_%d);", s); /* the comprehension's cell: closures keep it */
  else if (l->cell) line(e, "PyCell_Set(lv_%d, NULL);", s);
  else if (kind_of(e, l->type == KL_T_NONE_YET ? KL_T_OBJECT : l->type) == 'o') line(e, "Py_CLEAR(lv_%d);", s);
  else line(e, "lb_%d = 0;", s);
}

static Val load_slot(E *e, int s, KlLoc loc, bool check);

/* Reads a local; where some path reaches the read unbound (resolve.c), the
 * error CPython raises there: a comprehension's read of a variable bound
 * outside it is a free variable's (kr->unbound_free says which version). */
static Val load_local(E *e, KlNode *n) {
  if (!n->enclosing) return load_slot(e, n->slot, n->loc, n->maybe_unbound);
  KlLocal *l = &e->f->locals[n->slot];
  return local_value(e, n->slot, kl_fmt(e->ctx, "kr->unbound_free(\"%s\", %d)", c_str(e->ctx, l->name), n->enclosing == 2),
                     n->loc.line, n->maybe_unbound);
}

static Val load_slot(E *e, int s, KlLoc loc, bool check) {
  KlLocal *l = &e->f->locals[s];
  return local_value(e, s, kl_fmt(e->ctx, "kr->unbound_local(\"%s\")", c_str(e->ctx, l->name)), loc.line, check);
}

static Val scalar_binop(E *e, int op, KlType rt, Val a, Val b, int L) {
  Val r = temp(e, rt);
  if (rt == KL_T_FLOAT) {
    const char *x = as_double(e, a), *y = as_double(e, b);
    switch (op) {
    case KL_OP_ADD: line(e, "%s = %s + %s;", r.s, x, y); break;
    case KL_OP_SUB: line(e, "%s = %s - %s;", r.s, x, y); break;
    case KL_OP_MUL: line(e, "%s = %s * %s;", r.s, x, y); break;
    case KL_OP_DIV:
      if (a.t != KL_T_FLOAT && b.t != KL_T_FLOAT)
        line(e, "if (kr->int_truediv(%s, %s, &%s) < 0) KL_FAIL(%d);", a.s, b.s, r.s, L);
      else
        line(e, "if (kr->float_div(%s, %s, &%s) < 0) KL_FAIL(%d);", x, y, r.s, L);
      break;
    case KL_OP_FLOORDIV: line(e, "if (kr->float_floordiv(%s, %s, &%s) < 0) KL_FAIL(%d);", x, y, r.s, L); break;
    case KL_OP_MOD: line(e, "if (kr->float_mod(%s, %s, &%s) < 0) KL_FAIL(%d);", x, y, r.s, L); break;
    case KL_OP_POW: line(e, "if (kr->float_pow(%s, %s, &%s) < 0) KL_FAIL(%d);", x, y, r.s, L); break;
    default: kl_unreachable();
    }
    return r;
  }
  if (rt == KL_T_BOOL) {
    const char *c = op == KL_OP_BITAND ? "&" : op == KL_OP_BITOR ? "|" : "^";
    line(e, "%s = %s %s %s;", r.s, a.s, c, b.s);
    return r;
  }
  /* int64 */
  switch (op) {
  case KL_OP_ADD: overflow_check(e, kl_fmt(e->ctx, "__builtin_add_overflow((int64_t)%s, (int64_t)%s, &%s)", a.s, b.s, r.s), L); break;
  case KL_OP_SUB: overflow_check(e, kl_fmt(e->ctx, "__builtin_sub_overflow((int64_t)%s, (int64_t)%s, &%s)", a.s, b.s, r.s), L); break;
  case KL_OP_MUL: overflow_check(e, kl_fmt(e->ctx, "__builtin_mul_overflow((int64_t)%s, (int64_t)%s, &%s)", a.s, b.s, r.s), L); break;
  case KL_OP_FLOORDIV: line(e, "if (kl_floordiv(%s, %s, &%s, kl_file, %d) < 0) KL_FAIL(%d);", a.s, b.s, r.s, L, L); break;
  case KL_OP_MOD: line(e, "if (kl_mod(%s, %s, &%s) < 0) KL_FAIL(%d);", a.s, b.s, r.s, L); break;
  case KL_OP_POW: line(e, "if (kr->int_pow(%s, %s, &%s, kl_file, %d) < 0) KL_FAIL(%d);", a.s, b.s, r.s, L, L); break;
  case KL_OP_LSHIFT:
    line(e, "if (%s < 0) { kr->negative_shift(); KL_FAIL(%d); }", b.s, L);
    line(e, "if (kr->int_lshift(%s, %s, &%s, kl_file, %d) < 0) KL_FAIL(%d);", a.s, b.s, r.s, L, L);
    break;
  case KL_OP_RSHIFT:
    line(e, "if (%s < 0) { kr->negative_shift(); KL_FAIL(%d); }", b.s, L);
    line(e, "%s = kr->int_rshift(%s, %s);", r.s, a.s, b.s);
    break;
  case KL_OP_BITAND: line(e, "%s = (int64_t)%s & (int64_t)%s;", r.s, a.s, b.s); break;
  case KL_OP_BITOR: line(e, "%s = (int64_t)%s | (int64_t)%s;", r.s, a.s, b.s); break;
  case KL_OP_BITXOR: line(e, "%s = (int64_t)%s ^ (int64_t)%s;", r.s, a.s, b.s); break;
  default: kl_unreachable();
  }
  return r;
}

static const char *const capi_binop[] = {
#define X(name, text, capi, capi_inplace) capi,
    KL_BINOPS(X)
#undef X
};
static const char *const capi_inplace[] = {
#define X(name, text, capi, capi_inplace) capi_inplace,
    KL_BINOPS(X)
#undef X
};

static Val object_binop(E *e, int op, Val a, Val b, bool inplace, int L) {
  Val oa = to_object(e, a, L), ob = to_object(e, b, L);
  Val r = temp(e, KL_T_OBJECT);
  const char *fn = inplace ? capi_inplace[op] : capi_binop[op];
  if (op == KL_OP_POW) line(e, "%s = kr->%s(%s, %s);", r.s, inplace ? "inplace_power" : "power", oa.s, ob.s);
  else line(e, "%s = %s(%s, %s);", r.s, fn, oa.s, ob.s);
  release(e, oa);
  release(e, ob);
  fail_if(e, L, "!%s", r.s);
  after_python(e, L);
  return r;
}

static const char *const tensor_op_enum[] = {
#define X(name, text) "KR_OP_" #name,
    KL_TENSOR_OPS(X)
#undef X
};

/* The runtime op of a claimed site: a reduction with a rank-2 result
 * (keepdim=True) keeps the reduced dim. */
static const char *tensor_op_code(E *e, const KlSiteInfo *s) {
  KlTensorOp op = s->lowered.op;
  bool reduction = op == KL_TOP_ROWSUM || op == KL_TOP_ROWMEAN || op == KL_TOP_COLSUM || op == KL_TOP_COLMEAN;
  if (reduction && e->ctx->types[s->lowered.result].rank == 2)
    return kl_fmt(e->ctx, "%s | KR_OP_KEEPDIM", tensor_op_enum[op]);
  return tensor_op_enum[op];
}

/* clamp(a, lo, hi): a tensor and up to two native scalar bounds (kr->tensor_clamp). */
static Val clamp_op(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  Val r = temp(e, s->lowered.result);
  const int *k = s->lowered.operands;
  if (s->lowered.noperands != 3 || k[0] < 0 || k[0] >= nops || !kl_is_tensor(e->ctx, ops[k[0]].t))
    kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "clamp of a non-tensor");
  const char *bound[2];
  for (int b = 0; b < 2; b++) {
    int i = k[b + 1];
    if (i < 0) {
      bound[b] = "-1, 0.0, 0";
      continue;
    }
    if (i >= nops || !kl_is_scalar(ops[i].t))
      kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "clamp bound is not a scalar");
    bound[b] = ops[i].t == KL_T_FLOAT ? kl_fmt(e->ctx, "KR_EW_FLOAT, %s, 0", ops[i].s)
                                      : kl_fmt(e->ctx, "KR_EW_INT, 0.0, (int64_t)(%s)", ops[i].s);
  }
  line(e, "%s = (PyObject *)kr->tensor_clamp((KrTensor *)%s, %d, %s, %s, kl_file, %d);", r.s, ops[k[0]].s,
       s->lowered.op == KL_TOP_CLAMP_ORDERED, bound[0], bound[1], L);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* A native scalar operand of kr->tensor_scalar_op: "f, i, is_int". */
static const char *scalar_operand(E *e, Val v) {
  return v.t == KL_T_FLOAT ? kl_fmt(e->ctx, "%s, 0, 0", v.s) : kl_fmt(e->ctx, "0.0, (int64_t)(%s), 1", v.s);
}

/* tf.clip_by_value(a, lo, hi), both bounds native scalars: TF's own
 * maximum(minimum(a, hi), lo), two scalar ops, each with TF's rules. */
static Val clip_by_value_op(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  const int *k = s->lowered.operands;
  bool ok = s->lowered.noperands == 3 && k[0] >= 0 && k[0] < nops && kl_is_tensor(e->ctx, ops[k[0]].t);
  for (int i = 1; i <= 2; i++) ok = ok && k[i] >= 0 && k[i] < nops && kl_is_scalar(ops[k[i]].t);
  if (!ok) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "clip_by_value operands of the wrong kinds");
  Val mid = temp(e, s->lowered.result), r = temp(e, s->lowered.result);
  line(e, "%s = (PyObject *)kr->tensor_scalar_op(KR_OP_MINIMUM, (KrTensor *)%s, %s, 0, kl_file, %d);", mid.s,
       ops[k[0]].s, scalar_operand(e, ops[k[2]]), L);
  fail_if(e, L, "!%s", mid.s);
  line(e, "%s = (PyObject *)kr->tensor_scalar_op(KR_OP_MAXIMUM, (KrTensor *)%s, %s, 0, kl_file, %d);", r.s, mid.s,
       scalar_operand(e, ops[k[1]]), L);
  release(e, mid);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* The operands of an op of a tensor and an optional native scalar (leaky_relu's
 * slope, normalize's eps): the tensor in *t, the scalar (NULL: absent). */
static const Val *tensor_and_scalar(E *e, const KlSiteInfo *s, const Val *ops, int nops, int L, const Val **t) {
  const int *k = s->lowered.operands;
  if (s->lowered.noperands != 2 || k[0] < 0 || k[0] >= nops || !kl_is_tensor(e->ctx, ops[k[0]].t) || k[1] >= nops ||
      (k[1] >= 0 && !kl_is_scalar(ops[k[1]].t)))
    kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "%s of a non-tensor or with a non-scalar operand",
             kl_tensor_op_text[s->lowered.op]);
  *t = &ops[k[0]];
  return k[1] < 0 ? NULL : &ops[k[1]];
}

/* leaky_relu(a, slope): a tensor and a native scalar slope, or (is_int -1)
 * the framework's default (kr->tensor_scalar_op). */
static Val leaky_relu_op(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  const Val *t, *sc = tensor_and_scalar(e, s, ops, nops, L, &t);
  const char *slope = !sc                    ? "0.0, 0, -1"
                      : sc->t == KL_T_FLOAT ? kl_fmt(e->ctx, "%s, 0, 0", sc->s)
                                            : kl_fmt(e->ctx, "0.0, (int64_t)(%s), 1", sc->s);
  Val r = temp(e, s->lowered.result);
  line(e, "%s = (PyObject *)kr->tensor_scalar_op(KR_OP_LEAKY_RELU, (KrTensor *)%s, %s, 0, kl_file, %d);", r.s, t->s,
       slope, L);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* F.layer_norm(a, shape, weight, bias, eps): shape as a Python object, weight
 * and bias native tensors or NULL, eps a double (absent: eager's 1e-5). */
static Val layer_norm_op(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  const int *k = s->lowered.operands;
  bool ok = s->lowered.noperands == 5 && k[0] >= 0 && k[0] < nops && kl_is_tensor(e->ctx, ops[k[0]].t) && k[1] >= 0 &&
            k[1] < nops && k[4] < nops && (k[4] < 0 || kl_is_scalar(ops[k[4]].t));
  for (int i = 2; i <= 3; i++) ok = ok && k[i] < nops && (k[i] < 0 || kl_is_tensor(e->ctx, ops[k[i]].t));
  if (!ok) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "layer_norm operands of the wrong kinds");
  Val shape = to_object(e, ops[k[1]], L);
  ops[k[1]] = shape; /* released below with the others */
  const char *w = k[2] < 0 ? "NULL" : kl_fmt(e->ctx, "(KrTensor *)%s", ops[k[2]].s);
  const char *b = k[3] < 0 ? "NULL" : kl_fmt(e->ctx, "(KrTensor *)%s", ops[k[3]].s);
  const char *eps = k[4] < 0 ? "1e-5" : kl_fmt(e->ctx, "(double)(%s)", ops[k[4]].s);
  Val r = temp(e, s->lowered.result);
  line(e, "%s = (PyObject *)kr->tensor_layer_norm((KrTensor *)%s, %s, %s, %s, %s, kl_file, %d);", r.s, ops[k[0]].s,
       shape.s, w, b, eps, L);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* F.normalize(a, eps): a tensor and a native scalar eps, or eager's 1e-12. */
static Val normalize_op(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  const Val *t, *sc = tensor_and_scalar(e, s, ops, nops, L, &t);
  const char *eps = !sc                    ? "KR_EW_FLOAT, 1e-12, 0"
                    : sc->t == KL_T_FLOAT ? kl_fmt(e->ctx, "KR_EW_FLOAT, %s, 0", sc->s)
                                          : kl_fmt(e->ctx, "KR_EW_INT, 0.0, (int64_t)(%s)", sc->s);
  Val r = temp(e, s->lowered.result);
  line(e, "%s = (PyObject *)kr->tensor_normalize((KrTensor *)%s, %s, kl_file, %d);", r.s, t->s, eps, L);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* x.size(d), x.dim(), x.numel(): ints read from the native tensor (the
 * plugin claims only a literal d naming one of its dims). */
static Val tensor_int_query(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  const int *k = s->lowered.operands;
  bool size = s->lowered.op == KL_TOP_SIZE;
  if (s->lowered.noperands != 1 + size || k[0] < 0 || k[0] >= nops || !kl_is_tensor(e->ctx, ops[k[0]].t) ||
      s->lowered.result != KL_T_INT || (size && (k[1] < 0 || k[1] >= nops || ops[k[1]].t != KL_T_INT)))
    kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "%s of a non-tensor", kl_tensor_op_text[s->lowered.op]);
  int rank = e->ctx->types[ops[k[0]].t].rank;
  Val r = temp(e, KL_T_INT);
  const char *t = ops[k[0]].s;
  if (size) { /* the literal as the plugin saw it */
    int64_t d = s->meta.nargs ? s->meta.arg_ival[0] : s->meta.nkw ? s->meta.kw[0].ival : -1 - rank;
    if (d < -rank || d >= rank) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "size of a dim out of range");
    line(e, "%s = ((KrTensor *)%s)->shape[%d];", r.s, t, (int)(d < 0 ? d + rank : d));
  } else if (s->lowered.op == KL_TOP_NDIM) line(e, "%s = %d;", r.s, rank);
  else if (rank == 1) line(e, "%s = ((KrTensor *)%s)->shape[0];", r.s, t);
  else line(e, "%s = ((KrTensor *)%s)->shape[0] * ((KrTensor *)%s)->shape[1];", r.s, t, t);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  return r;
}

/* A claimed site: operands (receiver first) are native tensors, but for one
 * native scalar meeting a tensor in + - * /. */
static Val tensor_op(E *e, KlSiteInfo *s, Val *ops, int nops, int L) {
  if (s->lowered.op == KL_TOP_SIZE || s->lowered.op == KL_TOP_NDIM || s->lowered.op == KL_TOP_NUMEL)
    return tensor_int_query(e, s, ops, nops, L);
  if (s->lowered.op == KL_TOP_CLAMP || s->lowered.op == KL_TOP_CLAMP_ORDERED) return clamp_op(e, s, ops, nops, L);
  if (s->lowered.op == KL_TOP_LEAKY_RELU) return leaky_relu_op(e, s, ops, nops, L);
  if (s->lowered.op == KL_TOP_LAYER_NORM) return layer_norm_op(e, s, ops, nops, L);
  if (s->lowered.op == KL_TOP_NORMALIZE) return normalize_op(e, s, ops, nops, L);
  if (s->lowered.op == KL_TOP_CLIP_BY_VALUE) return clip_by_value_op(e, s, ops, nops, L);
  Val r = temp(e, s->lowered.result);
  if (s->lowered.noperands == 2 && nops == 2 && kl_is_scalar(ops[0].t) != kl_is_scalar(ops[1].t)) {
    bool left = kl_is_scalar(ops[0].t);
    Val sc = ops[left ? 0 : 1], t = ops[left ? 1 : 0];
    if (!kl_is_tensor(e->ctx, t.t) ||
        (s->lowered.op != KL_TOP_ADD && s->lowered.op != KL_TOP_SUB && s->lowered.op != KL_TOP_MUL &&
         s->lowered.op != KL_TOP_DIV && s->lowered.op != KL_TOP_MAXIMUM && s->lowered.op != KL_TOP_MINIMUM))
      kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a scalar operand lowered to %s", kl_tensor_op_text[s->lowered.op]);
    line(e, "%s = (PyObject *)kr->tensor_scalar_op(%s, (KrTensor *)%s, %s, %d, kl_file, %d);", r.s,
         tensor_op_enum[s->lowered.op], t.s, scalar_operand(e, sc), left, L);
    for (int i = 0; i < nops; i++) release(e, ops[i]);
    fail_if(e, L, "!%s", r.s);
    return r;
  }
  const char *args[3] = {"NULL", "NULL", "NULL"};
  for (int i = 0; i < s->lowered.noperands && i < 3; i++) {
    int k = s->lowered.operands[i];
    if (k >= nops || !kl_is_tensor(e->ctx, ops[k].t))
      kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "lowered operand %d is not a native tensor", k);
    args[i] = kl_fmt(e->ctx, "(KrTensor *)%s", ops[k].s);
  }
  line(e, "%s = (PyObject *)kr->tensor_op(%s, %s, %s, %s, kl_file, %d);", r.s, tensor_op_code(e, s), args[0], args[1],
       args[2], L);
  for (int i = 0; i < nops; i++) release(e, ops[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

static Val binop_vals(E *e, KlSiteInfo *s, int op, KlType rt, Val a, Val b, bool inplace, int L) {
  if (s->outcome == KL_SITE_SCALAR && kl_is_scalar(rt)) return scalar_binop(e, op, rt, a, b, L);
  if (s->outcome == KL_SITE_CLAIMED && !inplace) {
    Val ops[2] = {a, b};
    return tensor_op(e, s, ops, 2, L);
  }
  return object_binop(e, op, a, b, inplace, L);
}

/* One comparison of two scalars, as a C int expression into r. */
static void scalar_compare(E *e, const char *r, int op, Val a, Val b) {
  static const char *const cop[] = {"<", "<=", ">", ">=", "==", "!="};
  bool fa = a.t == KL_T_FLOAT, fb = b.t == KL_T_FLOAT;
  if (!strcmp(a.s, b.s)) b = own(e, b); /* `x < x`: C compilers warn on a self-comparison */
  if (fa == fb) {
    line(e, "%s = %s %s %s;", r, a.s, cop[op], b.s);
    return;
  }
  /* int vs float: exact, like Python (never through a rounded double) */
  if (fb) line(e, "%s = kr->int_float_cmp(%s, %s);", r, a.s, b.s);
  else line(e, "%s = kr->int_float_cmp(%s, %s), %s = %s == 2 ? 2 : -%s;", r, b.s, a.s, r, r, r);
  static const char *const test[] = {"%s == -1", "(%s == -1 || %s == 0)", "%s == 1", "(%s == 1 || %s == 0)",
                                     "%s == 0", "%s != 0"};
  char buf[96];
  snprintf(buf, sizeof buf, test[op], r, r);
  line(e, "%s = %s;", r, buf);
}

static const char *const richop[] = {"Py_LT", "Py_LE", "Py_GT", "Py_GE", "Py_EQ", "Py_NE"};

/* One comparison of two objects; r is an owned object temp. a and b are
 * not consumed (a chain compares the middle operand twice); boxes made here are. */
/* r = a op b on objects; literal: 1 when b is a str literal, 2 when a is. */
static void object_compare(E *e, Val r, int op, Val a, Val b, int literal, int L) {
  a.owned = b.owned = false;
  Val oa = to_object(e, a, L), ob = to_object(e, b, L);
  if ((op == KL_CMP_EQ || op == KL_CMP_NE) && literal) {
    line(e, "%s = kl_str_compare(%s, %s, %s, %s);", r.s, oa.s, ob.s, literal == 1 ? oa.s : ob.s, richop[op]);
  } else if (op <= KL_CMP_NE) {
    line(e, "%s = PyObject_RichCompare(%s, %s, %s);", r.s, oa.s, ob.s, richop[op]);
  } else if (op == KL_CMP_IS || op == KL_CMP_ISNOT) {
    line(e, "%s = PyBool_FromLong((%s == %s) == %d);", r.s, oa.s, ob.s, op == KL_CMP_IS);
  } else {
    Val c = temp(e, KL_T_BOOL);
    line(e, "%s = PySequence_Contains(%s, %s);", c.s, ob.s, oa.s);
    line(e, "%s = %s < 0 ? NULL : PyBool_FromLong(%s == %d);", r.s, c.s, c.s, op == KL_CMP_IN);
  }
  release(e, oa);
  release(e, ob);
  fail_if(e, L, "!%s", r.s);
  after_python(e, L);
}

static Val compare(E *e, KlNode *n) {
  int L = n->loc.line;
  KlSiteInfo *s = n->site;
  int nops = n->list.len - 1;
  if (s->outcome == KL_SITE_SCALAR) {
    Val r = temp(e, KL_T_BOOL);
    Val a = ev(e, n->list.items[0]);
    int depth = 0;
    for (int i = 0; i < nops; i++) {
      Val b = ev(e, n->list.items[i + 1]);
      if (i + 1 < nops) b = own(e, b);
      scalar_compare(e, r.s, n->cmpops[i], a, b);
      a = b;
      if (i + 1 < nops) {
        line(e, "if (%s) {", r.s);
        e->indent++;
        depth++;
      }
    }
    while (depth--) {
      e->indent--;
      line(e, "}");
    }
    return r;
  }
  if (n->type == KL_T_BOOL) { /* single is / is not / in / not in */
    Val a = ev(e, n->list.items[0]), b = ev(e, n->list.items[1]);
    Val o = temp(e, KL_T_OBJECT);
    object_compare(e, o, n->cmpops[0], a, b, 0, L);
    release(e, a);
    release(e, b);
    Val r = temp(e, KL_T_BOOL);
    line(e, "%s = %s == Py_True;", r.s, o.s);
    release(e, o);
    return r;
  }
  /* general chain on objects: each link's result decides whether to go on */
  Val r = temp(e, KL_T_OBJECT);
  Val a = ev(e, n->list.items[0]);
  int depth = 0;
  for (int i = 0; i < nops; i++) {
    Val b = ev(e, n->list.items[i + 1]);
    if (i + 1 < nops) b = own(e, b);
    const int literal = n->list.items[i + 1]->kind == KL_N_STR ? 1 : n->list.items[i]->kind == KL_N_STR ? 2 : 0;
    object_compare(e, r, n->cmpops[i], a, b, literal, L);
    release(e, a);
    a = b;
    if (i + 1 < nops) {
      const char *t = truth(e, r, L);
      line(e, "if (%s) {", t);
      e->indent++;
      line(e, "Py_CLEAR(%s);", r.s);
      depth++;
    }
  }
  release(e, a);
  while (depth--) {
    e->indent--;
    line(e, "}");
  }
  return r;
}

/* math.f(x) natively, with CPython's errors ("math domain error", ...). */
static Val math_call(E *e, KlNode *n) {
  int L = n->loc.line;
  const char *fn = n->site->meta.target + 5;
  Val a = ev(e, n->list.items[0]);
  Val r = temp(e, n->type);
  if (!strcmp(fn, "floor") || !strcmp(fn, "ceil")) {
    if (a.t != KL_T_FLOAT) line(e, "%s = (int64_t)%s;", r.s, a.s);
    else line(e, "if (kr->float_to_int(%s(%s), &%s, kl_file, %d) < 0) KL_FAIL(%d);", fn, a.s, r.s, L, L);
    return r;
  }
  const char *x = as_double(e, a);
  const char *domain = "0";
  if (!strcmp(fn, "sqrt")) domain = kl_fmt(e->ctx, "%s < 0.0", x);
  else if (!strcmp(fn, "log")) domain = kl_fmt(e->ctx, "%s <= 0.0", x);
  else if (!strcmp(fn, "sin") || !strcmp(fn, "cos") || !strcmp(fn, "tan")) domain = kl_fmt(e->ctx, "isinf(%s)", x);
  if (strcmp(domain, "0"))
    line(e, "if (%s) { PyErr_SetString(PyExc_ValueError, \"math domain error\"); KL_FAIL(%d); }", domain, L);
  static const char *const libm[] = {"exp", "log", "sin", "cos", "tan", "tanh", "atan", NULL};
  int k = -1;
  for (int i = 0; libm[i]; i++)
    if (!strcmp(fn, libm[i])) k = i;
  if (k >= 0) line(e, "%s = kl_libm[%d](%s); /* %s */", r.s, k, x, fn);
  else line(e, "%s = %s(%s);", r.s, fn, x);
  if (!strcmp(fn, "exp"))
    line(e, "if (isinf(%s) && isfinite(%s)) { PyErr_SetString(PyExc_OverflowError, \"math range error\"); KL_FAIL(%d); }",
         r.s, x, L);
  return r;
}

static Val scalar_call(E *e, KlNode *n) {
  int L = n->loc.line;
  if (!strncmp(n->site->meta.target, "math.", 5)) return math_call(e, n);
  const char *name = n->site->meta.target + 9; /* after "builtins." */
  KlType rt = n->type;
  if (!strcmp(name, "len") && kl_is_tensor(e->ctx, n->list.items[0]->type)) { /* its first dim, no boxing */
    Val t = ev(e, n->list.items[0]), r = temp(e, KL_T_INT);
    line(e, "%s = ((KrTensor *)%s)->shape[0];", r.s, t.s);
    release(e, t);
    return r;
  }
  if (!strcmp(name, "len")) {
    Val a = to_object(e, ev(e, n->list.items[0]), L);
    Val r = temp(e, KL_T_INT);
    line(e, "%s = (int64_t)PyObject_Length(%s);", r.s, a.s);
    release(e, a);
    fail_if(e, L, "%s < 0", r.s);
    return r;
  }
  if (!strcmp(name, "min") || !strcmp(name, "max")) {
    Val r = temp(e, rt);
    Val a = ev(e, n->list.items[0]);
    line(e, "%s = %s;", r.s, a.s);
    for (int i = 1; i < n->list.len; i++) {
      Val b = ev(e, n->list.items[i]);
      line(e, "if (%s %s %s) %s = %s;", b.s, name[1] == 'i' ? "<" : ">", r.s, r.s, b.s);
    }
    return r;
  }
  Val a = ev(e, n->list.items[0]);
  Val r = temp(e, rt);
  if (!strcmp(name, "abs")) {
    if (a.t == KL_T_FLOAT) line(e, "%s = fabs(%s);", r.s, a.s);
    else {
      overflow_check(e, kl_fmt(e->ctx, "(int64_t)%s == INT64_MIN", a.s), L);
      line(e, "%s = %s < 0 ? -(int64_t)%s : (int64_t)%s;", r.s, a.s, a.s, a.s);
    }
  } else if (!strcmp(name, "int")) {
    if (a.t == KL_T_FLOAT) line(e, "if (kr->float_to_int(%s, &%s, kl_file, %d) < 0) KL_FAIL(%d);", a.s, r.s, L, L);
    else line(e, "%s = (int64_t)%s;", r.s, a.s);
  } else if (!strcmp(name, "float")) {
    line(e, "%s = (double)%s;", r.s, a.s);
  } else if (!strcmp(name, "bool")) {
    line(e, "%s = %s;", r.s, truth(e, a, L));
  } else {
    kl_unreachable();
  }
  return r;
}

/* A tuple of the nodes' names, made once: a call's keyword names, an import's fromlist. */
static const char *names_constant(E *e, KlNodeList names) {
  KlBuf b = {0};
  kl_buf_printf(&b, "PyTuple_Pack(%d", names.len);
  for (int i = 0; i < names.len; i++) kl_buf_printf(&b, ", ks[%d]", str_index(e, names.items[i]->name));
  kl_buf_puts(&b, ")");
  Val c = constant(e, "%s", b.data);
  kl_buf_free(&b);
  return kl_strdup(e->ctx, c.s);
}

/* The line an expression starts on: CPython's traceback line for an
 * operation spanning lines (a node's own loc is its operator or name). */
static int start_line(const KlNode *n) {
  switch (n->kind) {
  case KL_N_BINOP: case KL_N_ATTR: case KL_N_SUBSCRIPT: case KL_N_CALL: return start_line(n->a);
  case KL_N_COMPARE: case KL_N_BOOLOP: return start_line(n->list.items[0]);
  case KL_N_IFEXP: return start_line(n->b);
  case KL_N_NAMEDEXPR: return start_line(n->a);
  default: return n->loc.line;
  }
}

/* A call's traceback line. CPython calls `obj.name(...)` as a method
 * (LOAD_METHOD / CALL) located at the attribute's line, unless it unpacks
 * arguments or passes 30 or more; any other call is located where the
 * call expression starts. */
static int call_line(const KlNode *n) {
  const int nargs = n->list.len + n->kw.len + (n->kw.len != 0);
  if (n->a->kind == KL_N_ATTR && !kl_call_unpacks(n) && nargs < 30) return n->loc.line;
  return start_line(n);
}

static Val display(E *e, KlNode *n);

/* f(a, *b, k=v, **m), as CPython's CALL_FUNCTION_EX: the callee (a method
 * as a bound method, which its errors then name), the positional items
 * into a tuple (`f(*b)` alone passes b, which kr->call_unpacked checks and
 * converts), then the keywords into a dict: a group of named ones
 * evaluated, then added (merged, a repeated name an error, once a `**`
 * came before), each `**` merged as it comes. */
static Val call_unpacking(E *e, Val callee, const Val *pre, int npre, KlNodeList list, KlNodeList kws, int L);

static Val unpacked_call(E *e, KlNode *n) {
  int L = call_line(n);
  Val callee = to_object(e, ev(e, n->a), L);
  return call_unpacking(e, callee, NULL, 0, n->list, n->kw, L);
}

/* callee(*pre, <list>, <kws>) as CALL_FUNCTION_EX, the callee and the pre
 * values (borrowed) already evaluated: unpacked_call, and a class's
 * __build_class__(body, name, bases..., keywords...). Releases callee. */
static Val call_unpacking(E *e, Val callee, const Val *pre, int npre, KlNodeList list, KlNodeList kws, int L) {
  Val args;
  if (!npre && list.len == 1 && list.items[0]->kind == KL_N_STARRED) {
    args = to_object(e, ev(e, list.items[0]->a), L);
  } else if (!npre) {
    KlNode tuple = {.kind = KL_N_TUPLE, .loc = {L, 1}, .list = list};
    args = display(e, &tuple);
  } else { /* the pre values, then the items, into a list made a tuple */
    args = temp(e, KL_T_OBJECT);
    kl_buf_printf(e->out, "%*s%s = PyList_New(%d);\n", e->indent * 2, "", args.s, npre);
    fail_if(e, L, "!%s", args.s);
    for (int i = 0; i < npre; i++) line(e, "Py_INCREF(%s); PyList_SET_ITEM(%s, %d, %s);", pre[i].s, args.s, i, pre[i].s);
    for (int i = 0; i < list.len; i++) {
      KlNode *it = list.items[i];
      Val v = to_object(e, ev(e, it->kind == KL_N_STARRED ? it->a : it), L);
      line(e, "if (%s(%s, %s) < 0) KL_FAIL(%d);", it->kind == KL_N_STARRED ? "kr->list_extend" : "PyList_Append",
           args.s, v.s, L);
      release(e, v);
    }
    line(e, "Py_SETREF(%s, PyList_AsTuple(%s));", args.s, args.s);
    fail_if(e, L, "!%s", args.s);
  }
  Val kw = val(KL_T_OBJECT, false, "NULL");
  if (kws.len) {
    kw = temp(e, KL_T_OBJECT);
    line(e, "%s = PyDict_New();", kw.s);
    fail_if(e, L, "!%s", kw.s);
  }
  bool merged = false;
  for (int i = 0; i < kws.len;) {
    KlNode *k = kws.items[i];
    if (!k->name) {
      Val m = to_object(e, ev(e, k->a), L);
      line(e, "if (kr->kwargs_merge(%s, %s, %s) < 0) KL_FAIL(%d);", kw.s, m.s, callee.s, L);
      release(e, m);
      merged = true;
      i++;
      continue;
    }
    int j = i;
    while (j < kws.len && kws.items[j]->name) j++;
    Val *vals = kl_alloc(e->ctx, sizeof(Val) * (size_t)(j - i));
    for (int q = i; q < j; q++) vals[q - i] = to_object(e, ev(e, kws.items[q]->a), L);
    Val group = kw;
    if (merged) {
      group = temp(e, KL_T_OBJECT);
      line(e, "%s = PyDict_New();", group.s);
      fail_if(e, L, "!%s", group.s);
    }
    for (int q = i; q < j; q++) {
      line(e, "if (PyDict_SetItem(%s, ks[%d], %s) < 0) KL_FAIL(%d);", group.s, str_index(e, kws.items[q]->name),
           vals[q - i].s, L);
      release(e, vals[q - i]);
    }
    if (merged) {
      line(e, "if (kr->kwargs_merge(%s, %s, %s) < 0) KL_FAIL(%d);", kw.s, group.s, callee.s, L);
      release(e, group);
    }
    i = j;
  }
  Val r = temp(e, KL_T_OBJECT);
  line(e, "%s = kr->call_unpacked(%s, %s, %s);", r.s, callee.s, args.s, kw.s);
  release(e, callee);
  release(e, args);
  release(e, kw);
  fail_if(e, L, "!%s", r.s);
  after_python(e, L);
  return r;
}

/* The list or tuple display a site describes (KlSite.seq_arg): a positional, or a keyword's value. */
static KlNode *seq_node(KlNode *n, const KlSite *s) {
  return s->seq_arg < n->list.len ? n->list.items[s->seq_arg] : n->kw.items[s->seq_arg - n->list.len]->a;
}

/* torch.cat / tf.concat (and stack): the display's tensors, evaluated in
 * order (never a Python list), joined by the runtime. */
static Val cat_op(E *e, KlNode *n, KlSiteInfo *s, int L) {
  KlNode *seq = seq_node(n, &s->meta);
  int k = seq->list.len;
  Val *ts = kl_alloc(e->ctx, sizeof(Val) * (size_t)k);
  KlBuf b = {0};
  for (int i = 0; i < k; i++) {
    ts[i] = ev(e, seq->list.items[i]);
    if (!kl_is_tensor(e->ctx, ts[i].t))
      kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a join of a value that is not a native tensor");
    kl_buf_printf(&b, "%s(KrTensor *)%s", i ? ", " : "", ts[i].s);
  }
  Val r = temp(e, s->lowered.result);
  line(e, "{ KrTensor *kl_cat[%d] = {%s};", k, b.data);
  line(e, "  %s = (PyObject *)kr->tensor_cat(kl_cat, %d, %d, %d, kl_file, %d); }", r.s, k, (int)s->lowered.ival,
       s->lowered.op == KL_TOP_STACK, L);
  kl_buf_free(&b);
  for (int i = 0; i < k; i++) release(e, ts[i]);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* A size or index of a shape op, evaluated now as a native int into a C
 * temporary of its own (a later operand may rebind a name this one read). */
static const char *int_operand(E *e, KlNode *n, int L, const char *what) {
  Val v = ev(e, n);
  if (v.t != KL_T_INT) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a %s that is not a native int", what);
  return kl_strdup(e->ctx, own(e, v).s);
}

/* view / reshape / flatten / squeeze / unsqueeze (and TF's): the tensor,
 * then its sizes (positionals or the display's elements) as native ints, in
 * Python's order; the runtime checks them and copies (kr->tensor_reshape).
 * A flatten of nothing is the tensor itself, as eager returns it. */
static Val shape_op(E *e, KlNode *n, KlSiteInfo *s, int L) {
  const bool method = s->meta.kind == KL_SK_METHOD;
  const KlTensorOp op = s->lowered.op;
  const int flags = op == KL_TOP_RESHAPE ? (int)s->lowered.ival : 0;
  Val t = ev(e, method ? n->a->a : n->list.items[0]);
  if (!kl_is_tensor(e->ctx, t.t)) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a reshape of a value that is not a native tensor");
  if (flags & KL_RESHAPE_SAME) return own(e, t);
  KlNode *const *items = NULL;
  int k = 0;
  if (flags & KL_RESHAPE_SEQ) {
    KlNode *seq = seq_node(n, &s->meta);
    items = seq->list.items;
    k = seq->list.len;
  } else if (op == KL_TOP_RESHAPE && !(flags & KL_RESHAPE_FLATTEN)) {
    items = n->list.items + (method ? 0 : 1);
    k = s->lowered.noperands - 1;
  }
  if (k > 2) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a reshape to more than two dims");
  const char *sz[2] = {"-1", "0"};
  for (int i = 0; i < k; i++) sz[i] = int_operand(e, items[i], L, "reshape size");
  static const char *const copies[] = {"KR_SHAPE_CONTIGUOUS", "KR_SHAPE_CLONE", "KR_SHAPE_DETACH"};
  if (op == KL_TOP_COPY && (s->lowered.ival < 0 || s->lowered.ival > 2))
    kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a tensor copy of an unknown kind");
  const char *how = op == KL_TOP_SQUEEZE     ? "KR_SHAPE_SQUEEZE"
                    : op == KL_TOP_UNSQUEEZE ? "KR_SHAPE_UNSQUEEZE"
                    : op == KL_TOP_COPY      ? copies[s->lowered.ival]
                    : flags & KL_RESHAPE_VIEW ? "KR_SHAPE_VIEW"
                                              : "KR_SHAPE_RESHAPE";
  Val r = temp(e, s->lowered.result);
  line(e, "{ const int64_t kl_sz[2] = {%s, %s};", sz[0], sz[1]);
  line(e, "  %s = (PyObject *)kr->tensor_reshape((KrTensor *)%s, %s, %d, %d, kl_sz, kl_file, %d); }", r.s, t.s, how,
       op == KL_TOP_SQUEEZE || op == KL_TOP_UNSQUEEZE ? (int)s->lowered.ival : 0, k ? k : 1, L);
  release(e, t);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* x[...] claimed: the tensor, then each index in Python's order (a
 * slice's start, then its stop; its step is a literal), as native ints;
 * the runtime checks them and copies the elements (kr->tensor_index). */
static Val index_op(E *e, KlNode *n, int L) {
  Val t = ev(e, n->a);
  if (!kl_is_tensor(e->ctx, t.t)) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "an index of a value that is not a native tensor");
  KlNode *one = n->b;
  KlNode *const *items = n->b->kind == KL_N_TUPLE ? n->b->list.items : &one;
  const int k = n->b->kind == KL_N_TUPLE ? n->b->list.len : 1;
  if (k < 1 || k > 2) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a tensor index of %d parts", k);
  KlBuf b = {0};
  for (int i = 0; i < k; i++) {
    KlNode *x = items[i];
    const char *v[2] = {"0", "0"};
    int given[2] = {0, 0};
    int64_t step = 1;
    KlNode *part[2] = {x->kind == KL_N_SLICE ? x->a : x, x->kind == KL_N_SLICE ? x->b : NULL};
    for (int p = 0; p < 2; p++) {
      if (!part[p] || part[p]->kind == KL_N_NONE) continue;
      v[p] = int_operand(e, part[p], L, "tensor index");
      given[p] = 1;
    }
    if (x->kind == KL_N_SLICE) {
      step = n->site->meta.slice_step[i];
      if (step < 1) kl_fatal(e->ctx, KL_KILN041, (KlLoc){L, 1}, "a tensor slice whose step is not a positive literal");
      kl_buf_printf(&b, "%s{KR_IX_SLICE, %d, %s, %s, %lld}", i ? ", " : "", given[0] | given[1] << 1, v[0], v[1],
                    (long long)step);
    } else {
      kl_buf_printf(&b, "%s{KR_IX_INT, 0, %s, 0, 1}", i ? ", " : "", v[0]);
    }
  }
  Val r = temp(e, n->site->lowered.result);
  line(e, "{ const KrIndex kl_ix[%d] = {%s};", k, b.data);
  line(e, "  %s = (PyObject *)kr->tensor_index((KrTensor *)%s, %d, kl_ix, kl_file, %d); }", r.s, t.s, k, L);
  kl_buf_free(&b);
  release(e, t);
  fail_if(e, L, "!%s", r.s);
  return r;
}

static Val call(E *e, KlNode *n) {
  int L = call_line(n);
  KlSiteInfo *s = n->site;
  if (kl_call_unpacks(n)) return unpacked_call(e, n);
  KlNode *fn = n->a;
  bool method = s->meta.kind == KL_SK_METHOD;
  if (s->outcome == KL_SITE_SCALAR && kl_is_scalar(n->type)) return scalar_call(e, n);
  if (s->outcome == KL_SITE_CLAIMED && (s->lowered.op == KL_TOP_CAT || s->lowered.op == KL_TOP_STACK))
    return cat_op(e, n, s, L);
  if (s->outcome == KL_SITE_CLAIMED && (s->lowered.op == KL_TOP_RESHAPE || s->lowered.op == KL_TOP_SQUEEZE ||
                                       s->lowered.op == KL_TOP_UNSQUEEZE || s->lowered.op == KL_TOP_COPY))
    return shape_op(e, n, s, L);
  if (s->outcome == KL_SITE_CLAIMED) {
    Val ops[KL_SITE_MAX_ARGS + KL_SITE_MAX_KW + 1];
    int nops = 0;
    if (method) ops[nops++] = ev(e, fn->a);
    for (int i = 0; i < n->list.len; i++) ops[nops++] = ev(e, kl_site_arg(s, i, n->list.items[i]));
    /* keywords' values are operands only of the ops that read them (clamp's
     * bounds); a literal keyword the claim checked (dim=1) is not evaluated */
    bool kw_operands = false;
    for (int i = 0; i < s->lowered.noperands; i++) kw_operands |= s->lowered.operands[i] >= nops;
    if (kw_operands)
      for (int i = 0; i < n->kw.len; i++) ops[nops++] = ev(e, n->kw.items[i]->a);
    return tensor_op(e, s, ops, nops, L);
  }
  /* Python fallback: vectorcall with keywords. */
  int nargs = n->list.len, nkw = n->kw.len;
  Val callee = {0};
  if (method) callee = to_object(e, ev(e, fn->a), L);
  else callee = to_object(e, ev(e, fn), L);
  int total = nargs + nkw + (method ? 1 : 0);
  Val *argv = kl_alloc(e->ctx, sizeof(Val) * (size_t)(total + 1));
  int k = 0;
  if (method) argv[k++] = callee;
  for (int i = 0; i < nargs; i++) argv[k++] = to_object(e, ev(e, n->list.items[i]), L);
  for (int i = 0; i < nkw; i++) argv[k++] = to_object(e, ev(e, n->kw.items[i]->a), L);
  const char *kwnames = nkw ? names_constant(e, n->kw) : "NULL";
  Val r = temp(e, KL_T_OBJECT);
  KlBuf b = {0};
  for (int i = 0; i < total; i++) kl_buf_printf(&b, "%s%s", i ? ", " : "", argv[i].s);
  line(e, "{ PyObject *kl_av[%d] = {%s};", total ? total : 1, total ? b.data : "NULL");
  kl_buf_free(&b);
  int npos = nargs + (method ? 1 : 0); /* keyword values follow the positionals, named by kwnames */
  if (method)
    line(e, "  %s = PyObject_VectorcallMethod(ks[%d], kl_av, %d, %s); }", r.s, str_index(e, fn->name), npos, kwnames);
  else if (!total) /* globals() under any name */
    line(e, "  %s = kr->call_noargs(%s, kg_globals); (void)kl_av; }", r.s, callee.s);
  else
    line(e, "  %s = PyObject_Vectorcall(%s, kl_av, %d, %s); }", r.s, callee.s, npos, kwnames);
  /* what the call held, in CPython's order: 3.11's CALL drops the callee,
   * then the arguments in order; 3.10's pops them, last first */
  int owned = !method && callee.owned;
  for (int i = 0; i < total; i++) owned += argv[i].owned;
  if (owned > 1) line(e, "#if PY_VERSION_HEX >= 0x030B0000");
  if (!method) release(e, callee);
  for (int i = 0; i < total; i++) release(e, argv[i]);
  if (owned > 1) {
    line(e, "#else");
    for (int i = total - 1; i >= 0; i--) release(e, argv[i]);
    if (!method) release(e, callee);
    line(e, "#endif");
  }
  fail_if(e, L, "!%s", r.s);
  after_python(e, L);
  return r;
}

static Val boolop(E *e, KlNode *n) {
  int L = n->loc.line;
  bool is_or = n->op == 1;
  Val r = temp(e, n->type);
  int depth = 0;
  for (int i = 0; i < n->list.len; i++) {
    Val v = coerce(e, ev(e, n->list.items[i]), n->type, L);
    if (is_obj(e, n->type)) {
      v = own(e, v);
      line(e, "%s = %s; %s = NULL;", r.s, v.s, v.s);
    } else {
      line(e, "%s = %s;", r.s, v.s);
    }
    if (i + 1 < n->list.len) {
      const char *t = truth(e, r, L);
      line(e, "if (%s%s) {", is_or ? "!" : "", t);
      e->indent++;
      if (is_obj(e, n->type)) line(e, "Py_CLEAR(%s);", r.s);
      depth++;
    }
  }
  while (depth--) {
    e->indent--;
    line(e, "}");
  }
  return r;
}

static Val ifexp(E *e, KlNode *n) {
  int L = n->loc.line;
  const char *c = cond(e, n->a);
  Val r = temp(e, n->type);
  line(e, "if (%s) {", c);
  e->indent++;
  Val a = own(e, coerce(e, ev(e, n->b), n->type, L));
  line(e, "%s = %s;%s", r.s, a.s, a.owned ? kl_fmt(e->ctx, " %s = NULL;", a.s) : "");
  e->indent--;
  line(e, "} else {");
  e->indent++;
  Val b = own(e, coerce(e, ev(e, n->c), n->type, L));
  line(e, "%s = %s;%s", r.s, b.s, b.owned ? kl_fmt(e->ctx, " %s = NULL;", b.s) : "");
  e->indent--;
  line(e, "}");
  return r;
}

static bool has_starred(const KlNode *n) {
  for (int i = 0; i < n->list.len; i++)
    if (n->list.items[i]->kind == KL_N_STARRED) return true;
  return false;
}

/* When CPython adds each item of a set or dict display (hashing it, so an
 * unhashable item or a __hash__ with effects shows then): deferred[i] says
 * an item (a dict's pair) is evaluated first and added with the rest of its
 * group, after the group's last one (flush[i]); the others are added as
 * they come. A set's group is its items before the first `*` (all of them
 * without one), unless it has more than 30 items; a dict's groups are its
 * runs of pairs between `**`s of up to 15 pairs; a longer run is added
 * pair by pair (17 at a time, and a last 16), by its compiler's stack limit
 * (compiler_dict/compiler_subdict). Lists and tuples cannot tell. */
static void display_groups(E *e, const KlNode *n, bool **deferred, bool **flush) {
  const bool dict = n->kind == KL_N_DICT;
  const int count = dict ? n->list.len / 2 : n->list.len;
  *deferred = kl_alloc(e->ctx, sizeof(bool) * (size_t)(count + 1));
  *flush = kl_alloc(e->ctx, sizeof(bool) * (size_t)(count + 1));
  if (n->kind != KL_N_SET && !dict) return;
  if (!dict) {
    if (count > 30) return;
    int i = 0;
    for (; i < count && n->list.items[i]->kind != KL_N_STARRED; i++) (*deferred)[i] = true;
    if (i) (*flush)[i - 1] = true;
    return;
  }
  int run = 0; /* pairs since the last group */
  for (int j = 0; j <= count; j++) {
    const bool unpack = j < count && n->list.items[2 * j]->kind == KL_N_STARRED;
    if (j == count || unpack) {
      if (run && run <= 15) { /* a small group (more is its compiler's "big" one): deferred */
        for (int q = j - run; q < j; q++) (*deferred)[q] = true;
        (*flush)[j - 1] = true;
      }
      run = 0;
    } else if (run > 15) {
      run = 0; /* the 17th: these 17 go one by one, as do 16 at a run's end */
    } else {
      run++;
    }
  }
}

/* [a, *b], (a, *b), {a, *b}, {k: v, **m}: the items in order. A list or
 * tuple without `*` is filled in place; otherwise the items go into a list,
 * set or dict, each unpacked one added as it comes (CPython's LIST_EXTEND,
 * SET_UPDATE, DICT_UPDATE: kr's helpers word their errors as it does), and
 * a tuple is made from the list. */
/* A literal's value as a module constant (or an immortal), for a constant tuple. */
static bool is_constant_literal(const KlNode *n) {
  switch (n->kind) {
  case KL_N_INT: case KL_N_FLOAT: case KL_N_IMAG: case KL_N_STR: case KL_N_BYTES:
  case KL_N_TRUE: case KL_N_FALSE: case KL_N_NONE: case KL_N_ELLIPSIS: return true;
  case KL_N_TUPLE:
    for (int i = 0; i < n->list.len; i++)
      if (!is_constant_literal(n->list.items[i])) return false;
    return true;
  default: return false;
  }
}

static Val constant_object(E *e, KlNode *n) {
  switch (n->kind) {
  case KL_N_INT:
    if (!n->big) return constant(e, "PyLong_FromLongLong(INT64_C(%lld))", (long long)n->ival);
    break;
  case KL_N_FLOAT: return constant(e, "PyFloat_FromDouble(%s)", double_literal(e, n->fval));
  case KL_N_TRUE: return val(KL_T_OBJECT, false, "Py_True");
  case KL_N_FALSE: return val(KL_T_OBJECT, false, "Py_False");
  case KL_N_TUPLE: {
    KlBuf b = {0};
    kl_buf_printf(&b, "PyTuple_Pack(%d", n->list.len);
    for (int i = 0; i < n->list.len; i++) kl_buf_printf(&b, ", %s", constant_object(e, n->list.items[i]).s);
    kl_buf_puts(&b, ")");
    Val c = n->list.len ? constant(e, "%s", b.data) : constant(e, "PyTuple_New(0)");
    kl_buf_free(&b);
    return c;
  }
  default: break;
  }
  return ev(e, n); /* a str, bytes, imaginary or big int literal: a constant already */
}

static Val display(E *e, KlNode *n) {
  int L = n->loc.line;
  /* a tuple of literals is one object made once, as CPython's constant is */
  if (n->kind == KL_N_TUPLE && is_constant_literal(n)) return constant_object(e, n);
  Val r = temp(e, KL_T_OBJECT);
  const int len = n->list.len;
  const bool set = n->kind == KL_N_SET, dict = n->kind == KL_N_DICT;
  const bool in_place = !set && !dict && !has_starred(n);
  if (in_place) line(e, "%s = %s(%d);", r.s, n->kind == KL_N_TUPLE ? "PyTuple_New" : "PyList_New", len);
  else line(e, "%s = %s;", r.s, set ? "PySet_New(NULL)" : dict ? "PyDict_New()" : "PyList_New(0)");
  fail_if(e, L, "!%s", r.s);
  bool *deferred, *flush;
  display_groups(e, n, &deferred, &flush);
  Val *pending = kl_alloc(e->ctx, sizeof(Val) * (size_t)(len + 1));
  int npending = 0;
  for (int i = 0, item = 0; i < len; i++, item++) {
    KlNode *it = n->list.items[i];
    if (it->kind == KL_N_STARRED) {
      Val v = to_object(e, ev(e, it->a), L);
      line(e, "if (kr->%s(%s, %s) < 0) KL_FAIL(%d);", set ? "set_update" : dict ? "dict_update" : "list_extend", r.s,
           v.s, L);
      release(e, v);
      i += dict; /* past its placeholder value */
      continue;
    }
    Val k = to_object(e, ev(e, it), L);
    if (in_place) {
      k = own(e, k);
      line(e, "%s_SET_ITEM(%s, %d, %s); %s = NULL;", n->kind == KL_N_TUPLE ? "PyTuple" : "PyList", r.s, i, k.s, k.s);
      continue;
    }
    Val v = dict ? to_object(e, ev(e, n->list.items[++i]), L) : k;
    if (deferred[item]) {
      pending[npending++] = own(e, k);
      if (dict) pending[npending++] = own(e, v);
      if (!flush[item]) continue;
      for (int q = 0; q < npending; q += 1 + dict) {
        if (dict) line(e, "if (PyDict_SetItem(%s, %s, %s) < 0) KL_FAIL(%d);", r.s, pending[q].s, pending[q + 1].s, L);
        else line(e, "if (PySet_Add(%s, %s) < 0) KL_FAIL(%d);", r.s, pending[q].s, L);
      }
      for (int q = 0; q < npending; q++) release(e, pending[q]);
      npending = 0;
      continue;
    }
    if (dict) line(e, "if (PyDict_SetItem(%s, %s, %s) < 0) KL_FAIL(%d);", r.s, k.s, v.s, L);
    else line(e, "if (%s(%s, %s) < 0) KL_FAIL(%d);", set ? "PySet_Add" : "PyList_Append", r.s, k.s, L);
    release(e, k);
    if (dict) release(e, v);
  }
  if (n->kind == KL_N_TUPLE && !in_place) {
    line(e, "Py_SETREF(%s, PyList_AsTuple(%s));", r.s, r.s);
    fail_if(e, L, "!%s", r.s);
  }
  return r;
}

static Val joined_str(E *e, KlNode *n);

/* An f-string field: the value, then its spec's fields, then the value
 * converted (!r/!s/!a) and formatted. 3.13 converts before the spec's
 * fields are evaluated, 3.10-3.12 after: each build follows its Python. */
static Val format_field(E *e, KlNode *n) {
  int L = n->loc.line;
  Val v = own(e, to_object(e, ev(e, n->a), L));
  if (n->op && n->b) {
    line(e, "#if PY_VERSION_HEX >= 0x030D0000");
    Val c = temp(e, KL_T_OBJECT);
    line(e, "%s = kr->convert_value(%s, %d);", c.s, v.s, n->op);
    line(e, "Py_CLEAR(%s);", v.s);
    fail_if(e, L, "!%s", c.s);
    line(e, "%s = %s; %s = NULL;", v.s, c.s, c.s);
    line(e, "#endif");
    after_python(e, L);
  }
  Val spec = n->b ? joined_str(e, n->b) : val(KL_T_OBJECT, false, "NULL");
  Val r = temp(e, KL_T_OBJECT);
  if (n->op && n->b)
    line(e, "%s = kr->format_value(%s, PY_VERSION_HEX >= 0x030D0000 ? 0 : %d, %s);", r.s, v.s, n->op, spec.s);
  else
    line(e, "%s = kr->format_value(%s, %d, %s);", r.s, v.s, n->op, spec.s);
  release(e, v);
  release(e, spec);
  fail_if(e, L, "!%s", r.s);
  after_python(e, L); /* __format__, __repr__ and __str__ are Python code */
  return r;
}

/* An f-string: its parts in order, joined. A single field is its value
 * as __format__ returned it (a str subclass stays one, as in Python). */
static Val joined_str(E *e, KlNode *n) {
  int L = n->loc.line;
  if (n->list.len == 1) return n->list.items[0]->kind == KL_N_FORMAT ? format_field(e, n->list.items[0]) : ev(e, n->list.items[0]);
  Val parts = temp(e, KL_T_OBJECT);
  line(e, "%s = PyTuple_New(%d);", parts.s, n->list.len);
  fail_if(e, L, "!%s", parts.s);
  for (int i = 0; i < n->list.len; i++) {
    KlNode *part = n->list.items[i];
    Val v = own(e, part->kind == KL_N_FORMAT ? format_field(e, part) : ev(e, part));
    line(e, "PyTuple_SET_ITEM(%s, %d, %s); %s = NULL;", parts.s, i, v.s, v.s);
  }
  Val r = temp(e, KL_T_OBJECT);
  line(e, "%s = PyUnicode_Join(ks[%d], %s);", r.s, intern(e->mod, "", 0), parts.s);
  line(e, "Py_CLEAR(%s);", parts.s);
  fail_if(e, L, "!%s", r.s);
  return r;
}

/* A fused chain (fuse.c): operands in Python's evaluation order, one call. */
static Val fused(E *e, KlFusion *fu) {
  Val v[5];
  const char *arg[5] = {"NULL", "NULL", "NULL", "NULL", "NULL"};
  /* Python's order: a bias written first comes before the base operands, and
   * a post row written first before all of them (else after) */
  int order[5], n = 0;
  if (fu->post_first) order[n++] = 4;
  if (fu->bias_first) order[n++] = 3;
  for (int i = 0; i < 3; i++) order[n++] = i;
  if (!fu->bias_first) order[n++] = 3;
  if (!fu->post_first) order[n++] = 4;
  for (int k = 0; k < 5; k++) {
    int i = order[k];
    if (!fu->leaf[i]) continue;
    v[i] = ev(e, fu->leaf[i]);
    if (!kl_is_tensor(e->ctx, v[i].t))
      kl_fatal(e->ctx, KL_KILN041, fu->leaf[i]->loc, "fused operand is not a native tensor");
    arg[i] = kl_fmt(e->ctx, "(KrTensor *)%s", v[i].s);
  }
  KlNode *act = fu->act_node, *post = fu->post_node, *red = fu->reduce_node, *bias = fu->bias_node;
  KlNode *last = red ? red : post ? post : act ? act : bias ? bias : fu->base_node;
  Val r = temp(e, last->type);
  line(e, "{ static const KrFused kl_fz = {%s, %d, %d, %d, %s, %d, %d, %d, %s, %d, %s, %s};", tensor_op_enum[fu->base],
       fu->base_node->loc.line, bias ? bias->loc.line : 0, fu->bias_first,
       act ? tensor_op_enum[act->site->lowered.op] : "-1", act ? act->loc.line : 0, post ? post->loc.line : 0,
       fu->post_first, red ? tensor_op_code(e, red->site) : "-1", red ? red->loc.line : 0,
       tensor_op_enum[bias ? bias->site->lowered.op : KL_TOP_ADD],
       tensor_op_enum[post ? post->site->lowered.op : KL_TOP_ADD]);
  line(e, "  %s = (PyObject *)kr->tensor_fused(&kl_fz, %s, %s, %s, %s, %s, kl_file); }", r.s, arg[0], arg[1], arg[2],
       arg[3], arg[4]);
  for (int i = 0; i < 5; i++)
    if (fu->leaf[i]) release(e, v[i]);
  fail_at_op(e, last->loc.line, r.s);
  return r;
}

/* An elementwise chain (fuse.c): the value it starts from first, then the
 * other operands and pushed values (bound locals and literals: when they
 * are read cannot be seen, and after the first value they are current),
 * then one pass. */
static Val ewise(E *e, KlEwise *w) {
  Val first = ev(e, w->first), v[KL_EW_MAX];
  if (!kl_is_tensor(e->ctx, first.t)) kl_fatal(e->ctx, KL_KILN041, w->first->loc, "elementwise chain of a non-tensor");
  for (int k = 0; k < w->nsteps; k++)
    if (w->operand[k]) v[k] = ev(e, w->operand[k]);
  KlNode *last = w->op[w->nsteps - 1];
  Val r = temp(e, last->type);
  line(e, "{ static const KrEwise kl_ew = {%d, {", w->nsteps);
  for (int k = 0; k < w->nsteps; k++) {
    KlNode *o = w->op[k];
    if (w->form[k] == 'p') {
      line(e, "    {0, 0, 0, KR_EW_PUSH},");
      continue;
    }
    const char *kind = w->form[k] == 's' ? "KR_EW_POP" : !w->operand[k] ? "KR_EW_ACT"
                       : kl_is_tensor(e->ctx, v[k].t) ? "KR_EW_TENSOR" : v[k].t == KL_T_FLOAT ? "KR_EW_FLOAT" : "KR_EW_INT";
    static const char clamp_parts[] = "lhLO"; /* KlEwise.clamp -> KrEwStep.swap 0..3 */
    const char *c = w->clamp[k] ? strchr(clamp_parts, w->clamp[k]) : NULL;
    int swap = c ? (int)(c - clamp_parts) : w->swap[k];
    line(e, "    {%s, %d, %d, %s},", tensor_op_enum[o->site->lowered.op], o->kind == KL_N_CALL ? call_line(o) : o->loc.line,
         swap, kind);
  }
  line(e, "  }};");
  line(e, "  const KrEwArg kl_ea[%d] = {", w->nsteps);
  for (int k = 0; k < w->nsteps; k++) {
    if (!w->operand[k]) line(e, "    {NULL, 0.0, 0},");
    else if (kl_is_tensor(e->ctx, v[k].t)) line(e, "    {(KrTensor *)%s, 0.0, 0},", v[k].s);
    else if (v[k].t == KL_T_FLOAT) line(e, "    {NULL, %s, 0},", v[k].s);
    else if (kl_is_scalar(v[k].t)) line(e, "    {NULL, 0.0, (int64_t)(%s)},", v[k].s);
    else kl_fatal(e->ctx, KL_KILN041, w->operand[k]->loc, "elementwise operand is neither a tensor nor a scalar");
  }
  line(e, "  };");
  line(e, "  %s = (PyObject *)kr->tensor_ewise(&kl_ew, (KrTensor *)%s, kl_ea, kl_file); }", r.s, first.s);
  release(e, first);
  for (int k = 0; k < w->nsteps; k++)
    if (w->operand[k]) release(e, v[k]);
  fail_at_op(e, last->kind == KL_N_CALL ? call_line(last) : last->loc.line, r.s);
  return r;
}

static Val comprehension(E *e, KlNode *n);
static Val get_iter(E *e, KlNode *iterable, int L);

/* kl_lambdas' index of n, registered the first time it is emitted. */
static int lambda_index(E *e, const KlNode *n) {
  Module *mod = e->mod;
  for (int i = 0; i < mod->nlambdas; i++)
    if (mod->lambdas[i].n == n) return i;
  if (mod->nlambdas == mod->caplambdas) {
    int cap = mod->caplambdas ? mod->caplambdas * 2 : 8;
    LambdaRef *ls = kl_alloc(e->ctx, sizeof(LambdaRef) * (size_t)cap);
    if (mod->nlambdas) memcpy(ls, mod->lambdas, sizeof(LambdaRef) * (size_t)mod->nlambdas);
    mod->lambdas = ls;
    mod->caplambdas = cap;
  }
  mod->lambdas[mod->nlambdas] = (LambdaRef){n, e->f->index};
  return mod->nlambdas++;
}

/* A lambda or nested def: a def's decorators, the defaults (positional,
 * then keyword-only) and a def's annotations evaluated here, in that
 * order; then the function made from the code object CPython compiled for
 * it, as MAKE_FUNCTION makes it, and the decorators applied, last first. */
static Val lambda(E *e, KlNode *n) {
  int L = n->loc.line;
  Val decorators = n->b ? display(e, n->b) : val(KL_T_OBJECT, false, "NULL");
  Val defs = val(KL_T_OBJECT, false, "NULL"), kwdefs = defs;
  Val builder = defs;
  if (n->lambda->is_class) { /* LOAD_BUILD_CLASS comes before the body's function is made */
    builder = temp(e, KL_T_OBJECT);
    line(e, "%s = kr->build_class_function();", builder.s);
    fail_if(e, L, "!%s", builder.s);
  } else if (n->list.len) {
    KlNode tuple = {.kind = KL_N_TUPLE, .loc = n->loc, .list = n->list};
    defs = display(e, &tuple);
  }
  if (n->kw.len && !n->lambda->is_class) {
    KlNode dict = {.kind = KL_N_DICT, .loc = n->loc};
    dict.list.len = 2 * n->kw.len;
    dict.list.items = kl_alloc(e->ctx, sizeof(KlNode *) * (size_t)dict.list.len);
    for (int i = 0; i < n->kw.len; i++) {
      KlNode *key = kl_alloc(e->ctx, sizeof *key);
      *key = (KlNode){.kind = KL_N_STR, .loc = n->kw.items[i]->loc, .str = n->kw.items[i]->name,
                      .slen = strlen(n->kw.items[i]->name)};
      dict.list.items[2 * i] = key;
      dict.list.items[2 * i + 1] = n->kw.items[i]->a;
    }
    kwdefs = display(e, &dict);
  }
  Val annotations = n->c ? display(e, n->c) : val(KL_T_OBJECT, false, "NULL");
  Val cells = val(KL_T_OBJECT, false, "NULL");
  if (n->lambda->nfree) {
    cells = temp(e, KL_T_OBJECT);
    kl_buf_printf(e->out, "%*s%s = PyTuple_Pack(%d", e->indent * 2, "", cells.s, n->lambda->nfree);
    for (int i = 0; i < n->lambda->nfree; i++) kl_buf_printf(e->out, ", lv_%d", n->lambda->free_slots[i]);
    kl_buf_puts(e->out, ");\n");
    fail_if(e, L, "!%s", cells.s);
  }
  Val r = temp(e, KL_T_OBJECT);
  line(e, "%s = kr->make_lambda(&kl_lambdas[%d], kg_globals, %s, %s, %s);", r.s, lambda_index(e, n), defs.s, kwdefs.s,
       cells.s);
  release(e, defs);
  release(e, kwdefs);
  release(e, cells);
  fail_if(e, L, "!%s", r.s);
  if (n->lambda->is_genexpr) { /* the generator: the function called with its first iterable's iterator */
    Val it = get_iter(e, n->a, (int)n->ival);
    Val g = temp(e, KL_T_OBJECT);
    line(e, "%s = PyObject_CallOneArg(%s, %s);", g.s, r.s, it.s);
    release(e, it);
    release(e, r);
    fail_if(e, L, "!%s", g.s);
    return g;
  }
  if (n->lambda->is_class) { /* __build_class__(body, name, *bases, **keywords), as CALL_FUNCTION_EX */
    Val pre[2] = {r, val(KL_T_OBJECT, false, "ks[%d]", str_index(e, n->lambda->name))};
    Val cls = call_unpacking(e, builder, pre, 2, n->list, n->kw, L);
    release(e, r);
    r = cls;
  }
  if (n->c) {
    line(e, "if (PyFunction_SetAnnotations(%s, %s) < 0) KL_FAIL(%d);", r.s, annotations.s, L);
    release(e, annotations);
  }
  for (int i = n->b ? n->b->list.len - 1 : -1; i >= 0; i--) { /* the decorators, innermost first */
    Val t = temp(e, KL_T_OBJECT);
    line(e, "%s = PyObject_CallOneArg(PyTuple_GET_ITEM(%s, %d), %s);", t.s, decorators.s, i, r.s);
    line(e, "Py_CLEAR(%s); %s = %s; %s = NULL;", r.s, r.s, t.s, t.s);
    /* the traceback line: the decorator's from 3.11, the def's before */
    line(e, "if (!%s) KL_FAIL(PY_VERSION_HEX >= 0x030B0000 ? %d : %d);", r.s, start_line(n->b->list.items[i]), L);
  }
  release(e, decorators);
  return r;
}

/* A MATCHOP: one of CPython's pattern-matching instructions on a hidden
 * local of a match statement (parse.c). */
static Val match_op(E *e, KlNode *n) {
  const int L = n->loc.line;
  Val s = to_object(e, ev(e, n->a), L);
  Val r;
  if (n->op == KL_MATCH_SEQUENCE || n->op == KL_MATCH_MAPPING) {
    r = temp(e, KL_T_BOOL);
    line(e, "%s = (PyType_GetFlags(Py_TYPE(%s)) & %s) != 0;", r.s, s.s,
         n->op == KL_MATCH_SEQUENCE ? "Py_TPFLAGS_SEQUENCE" : "Py_TPFLAGS_MAPPING");
    release(e, s);
    return r;
  }
  if (n->op == KL_MATCH_FOUND) {
    r = temp(e, KL_T_BOOL);
    line(e, "%s = %s != Py_None;", r.s, s.s);
    release(e, s);
    return r;
  }
  if (n->op == KL_MATCH_LEN) {
    r = temp(e, KL_T_INT);
    line(e, "%s = PyObject_Length(%s);", r.s, s.s);
    release(e, s);
    fail_if(e, L, "%s < 0", r.s);
    after_python(e, L);
    return r;
  }
  r = temp(e, KL_T_OBJECT);
  if (n->op == KL_MATCH_INDEX) {
    line(e, "%s = kr->match_index(%s, %lld);", r.s, s.s, (long long)n->ival);
    release(e, s);
  } else {
    Val b = to_object(e, ev(e, n->b), L);
    if (n->op == KL_MATCH_CLASS)
      line(e, "%s = kr->match_class(%s, %s, %lld, %s);", r.s, s.s, b.s, (long long)n->ival,
           n->kw.len ? names_constant(e, n->kw) : "NULL");
    else
      line(e, "%s = kr->match_%s(%s, %s);", r.s, n->op == KL_MATCH_KEYS ? "keys" : "rest", s.s, b.s);
    release(e, b);
    release(e, s);
  }
  if (n->line310 && n->line310 != L) { /* 3.10 and 3.11 report it where their compiler last was */
    line(e, "#if PY_VERSION_HEX < 0x030C0000");
    fail_if(e, n->line310, "!%s", r.s);
    line(e, "#endif");
  }
  fail_if(e, L, "!%s", r.s);
  after_python(e, L);
  return r;
}

static Val ev(E *e, KlNode *n) {
  int L = n->loc.line;
  if ((n->kind == KL_N_CALL || n->kind == KL_N_BINOP || n->kind == KL_N_UNARY) && n->site &&
      n->site->outcome == KL_SITE_CLAIMED) {
    KlFusion fu;
    if (kl_plan_fusion(e->ctx, e->f, n, &fu)) return fused(e, &fu);
    KlEwise ew;
    if (kl_plan_ewise(e->ctx, e->f, n, &ew)) return ewise(e, &ew);
  }
  switch (n->kind) {
  case KL_N_INT:
    if (n->big) return constant(e, "PyLong_FromString(\"%s\", NULL, 0)", c_str(e->ctx, n->str));
    return n->ival == INT64_MIN ? val(KL_T_INT, false, "INT64_MIN") : val(KL_T_INT, false, "INT64_C(%lld)", (long long)n->ival);
  case KL_N_FLOAT: return val(KL_T_FLOAT, false, "%s", double_literal(e, n->fval));
  case KL_N_IMAG: return constant(e, "PyComplex_FromDoubles(0.0, %s)", double_literal(e, n->fval));
  case KL_N_TRUE: return val(KL_T_BOOL, false, "1");
  case KL_N_FALSE: return val(KL_T_BOOL, false, "0");
  case KL_N_NONE: return val(KL_T_OBJECT, false, "Py_None");
  case KL_N_ELLIPSIS: return val(KL_T_OBJECT, false, "Py_Ellipsis");
  case KL_N_STR: return val(KL_T_OBJECT, false, "ks[%d]", intern(e->mod, n->str, n->slen));
  case KL_N_BYTES: {
    int k = intern(e->mod, n->str, n->slen);
    return constant(e, "PyBytes_FromStringAndSize(ks_text[%d], ks_len[%d])", k, k);
  }
  case KL_N_NAME: {
    if (n->binding == KL_B_LOCAL && e->f->locals[n->slot].fwd) return ev(e, e->f->locals[n->slot].fwd);
    if (n->binding == KL_B_LOCAL) return load_local(e, n);
    Val r = temp(e, KL_T_OBJECT);
    line(e, "%s = kr->load_global(kg_globals, ks[%d]);", r.s, str_index(e, n->name));
    fail_if(e, L, "!%s", r.s);
    return r;
  }
  case KL_N_ATTR: {
    if (kl_is_tensor_ndim(e->ctx, n)) { /* t.ndim: the rank its type proves */
      Val t = ev(e, n->a), r = temp(e, KL_T_INT);
      line(e, "%s = %d;", r.s, e->ctx->types[t.t].rank);
      release(e, t);
      return r;
    }
    Val o = to_object(e, ev(e, n->a), L);
    Val r = temp(e, KL_T_OBJECT);
    line(e, "%s = PyObject_GetAttr(%s, ks[%d]);", r.s, o.s, str_index(e, n->name));
    release(e, o);
    fail_if(e, L, "!%s", r.s);
    after_python(e, L);
    return r;
  }
  case KL_N_SUBSCRIPT: {
    int dim;
    if (kl_is_tensor_dim(e->ctx, n, &dim)) { /* t.shape[k]: no Python */
      Val t = ev(e, n->a->a), r = temp(e, KL_T_INT);
      line(e, "%s = ((KrTensor *)%s)->shape[%d];", r.s, t.s, dim);
      release(e, t);
      return r;
    }
    if (n->site && n->site->outcome == KL_SITE_CLAIMED) return index_op(e, n, L);
    Val o = to_object(e, ev(e, n->a), L);
    Val i = to_object(e, ev(e, n->b), L);
    Val r = temp(e, KL_T_OBJECT);
    line(e, "%s = PyObject_GetItem(%s, %s);", r.s, o.s, i.s);
    release(e, o);
    release(e, i);
    fail_if(e, L, "!%s", r.s);
    after_python(e, L);
    return r;
  }
  case KL_N_SLICE: {
    Val parts[3];
    KlNode *ns[3] = {n->a, n->b, n->c};
    for (int i = 0; i < 3; i++) parts[i] = ns[i] ? to_object(e, ev(e, ns[i]), L) : val(KL_T_OBJECT, false, "Py_None");
    Val r = temp(e, KL_T_OBJECT);
    line(e, "%s = PySlice_New(%s, %s, %s);", r.s, parts[0].s, parts[1].s, parts[2].s);
    for (int i = 0; i < 3; i++) release(e, parts[i]);
    fail_if(e, L, "!%s", r.s);
    return r;
  }
  case KL_N_TUPLE: case KL_N_LIST: case KL_N_SET: case KL_N_DICT: return display(e, n);
  case KL_N_JOINEDSTR: return joined_str(e, n);
  case KL_N_CALL: return call(e, n);
  case KL_N_BINOP: {
    Val a = ev(e, kl_site_arg(n->site, 0, n->a));
    Val b = ev(e, kl_site_arg(n->site, 1, n->b));
    return binop_vals(e, n->site, n->op, n->type, a, b, false, start_line(n));
  }
  case KL_N_UNARY: {
    Val a = ev(e, n->a);
    if (n->site->outcome == KL_SITE_CLAIMED) return tensor_op(e, n->site, &a, 1, L);
    if (n->site->outcome == KL_SITE_SCALAR) {
      Val r = temp(e, n->type);
      if (n->op == KL_UOP_NEG && n->type == KL_T_INT) {
        overflow_check(e, kl_fmt(e->ctx, "(int64_t)%s == INT64_MIN", a.s), L);
        line(e, "%s = -(int64_t)%s;", r.s, a.s);
      } else if (n->op == KL_UOP_NEG) {
        line(e, "%s = -%s;", r.s, a.s);
      } else if (n->op == KL_UOP_POS) {
        line(e, "%s = %s;", r.s, a.s);
      } else {
        if (a.t == KL_T_BOOL) {
          /* 3.12 deprecated ~ on a bool: Python's own bool.__invert__
           * says so in the running version's words (a warning filter may
           * make it an error, and a later Python may refuse) */
          Val w = temp(e, KL_T_OBJECT);
          line(e, "#if PY_VERSION_HEX >= 0x030C0000");
          line(e, "%s = PyNumber_Invert(Py_True);", w.s);
          fail_if(e, L, "!%s", w.s);
          release(e, w);
          line(e, "#endif");
        }
        line(e, "%s = ~(int64_t)%s;", r.s, a.s);
      }
      return r;
    }
    Val o = to_object(e, a, L);
    Val r = temp(e, KL_T_OBJECT);
    static const char *const fn[] = {"PyNumber_Negative", "PyNumber_Positive", "PyNumber_Invert"};
    line(e, "%s = %s(%s);", r.s, fn[n->op], o.s);
    release(e, o);
    fail_if(e, L, "!%s", r.s);
    return r;
  }
  case KL_N_NOT: {
    const char *t = cond(e, n->a);
    Val r = temp(e, KL_T_BOOL);
    line(e, "%s = !%s;", r.s, t);
    return r;
  }
  case KL_N_BOOLOP: return boolop(e, n);
  case KL_N_COMPARE: return compare(e, n);
  case KL_N_IFEXP: return ifexp(e, n);
  case KL_N_COMP: return comprehension(e, n);
  case KL_N_LAMBDA: return lambda(e, n);
  case KL_N_MATCHOP: return match_op(e, n);
  case KL_N_NAMEDEXPR: { /* stores the value, then is it */
    Val v = own(e, ev(e, n->b));
    store(e, n->a, val(v.t, false, "%s", v.s), n->loc.line);
    return v;
  }
  default:
    kl_fatal(e->ctx, KL_KILN050, n->loc, "cannot emit expression kind %d", n->kind);
  }
}

/* ---- statements ---- */

static void store(E *e, KlNode *target, Val v, int L);

static void store_local(E *e, int slot, Val v, int L) {
  KlLocal *l = &e->f->locals[slot];
  v = coerce(e, v, l->type, L);
  if (l->cell) {
    line(e, "PyCell_Set(lv_%d, %s);", slot, v.s); /* releases the old value after storing, as STORE_DEREF */
    release(e, v);
  } else if (is_obj(e, l->type)) {
    if (v.owned) line(e, "Py_XSETREF(lv_%d, %s); %s = NULL;", slot, v.s, v.s);
    else line(e, "Py_INCREF(%s); Py_XSETREF(lv_%d, %s);", v.s, slot, v.s);
  } else {
    line(e, "lv_%d = %s; lb_%d = 1;", slot, v.s, slot);
  }
}

/* A store to a name. Python's rebinding releases the old value now: where
 * the old value is another web's slot (resolve.c), that slot is dead from
 * here on and released. */
static void store_name(E *e, KlNode *target, Val v, int L) {
  store_local(e, target->slot, v, L);
  for (int i = 0; i < target->nclear; i++) {
    KlLocal *o = &e->f->locals[target->clear[i]];
    if (is_obj(e, o->type) && !o->fwd) unbind_slot(e, target->clear[i]);
  }
}

/* a, b = v; a, *b, c = v (the starred target gets a list of the rest). */
static void store_unpack(E *e, KlNode *target, Val v, int L) {
  int n = target->list.len, star = -1;
  for (int i = 0; i < n; i++)
    if (target->list.items[i]->kind == KL_N_STARRED) star = i;
  Val o = to_object(e, v, L);
  Val *parts = kl_alloc(e->ctx, sizeof(Val) * (size_t)n);
  for (int i = 0; i < n; i++) parts[i] = temp(e, KL_T_OBJECT);
  line(e, "{ PyObject *kl_u[%d];", n);
  if (star < 0) line(e, "  if (kr->unpack(%s, %d, kl_u) < 0) KL_FAIL(%d);", o.s, n, L);
  else line(e, "  if (kr->unpack_starred(%s, %d, %d, kl_u) < 0) KL_FAIL(%d);", o.s, star, n - star - 1, L);
  for (int i = 0; i < n; i++) line(e, "  %s = kl_u[%d];", parts[i].s, i);
  line(e, "}");
  release(e, o);
  for (int i = 0; i < n; i++) {
    KlNode *t = target->list.items[i];
    store(e, t->kind == KL_N_STARRED ? t->a : t, parts[i], L);
    release(e, parts[i]);
  }
}

/* Stores v (not consumed unless moved) into a target. */
static void store(E *e, KlNode *target, Val v, int L) {
  switch (target->kind) {
  case KL_N_NAME:
    if (target->binding == KL_B_LOCAL) {
      store_name(e, target, v, L);
    } else if (kl_declared_global(e->f, target->name)) { /* STORE_GLOBAL */
      Val o = to_object(e, v, L);
      line(e, "if (PyDict_SetItem(kg_globals, ks[%d], %s) < 0) KL_FAIL(%d);", str_index(e, target->name), o.s, L);
      if (o.owned && strcmp(o.s, v.s)) release(e, o);
    } else {
      kl_fatal(e->ctx, KL_KILN050, target->loc, "store to a non-local");
    }
    return;
  case KL_N_ATTR: {
    Val val_o = to_object(e, v, L);
    Val o = to_object(e, ev(e, target->a), L);
    line(e, "if (PyObject_SetAttr(%s, ks[%d], %s) < 0) KL_FAIL(%d);", o.s, str_index(e, target->name), val_o.s, L);
    release(e, o);
    if (val_o.owned && !v.owned) release(e, val_o);
    else if (val_o.owned && strcmp(val_o.s, v.s)) release(e, val_o);
    return;
  }
  case KL_N_SUBSCRIPT: {
    Val val_o = to_object(e, v, L);
    Val o = to_object(e, ev(e, target->a), L);
    Val i = to_object(e, ev(e, target->b), L);
    line(e, "if (PyObject_SetItem(%s, %s, %s) < 0) KL_FAIL(%d);", o.s, i.s, val_o.s, L);
    after_python(e, L);
    release(e, o);
    release(e, i);
    if (val_o.owned && strcmp(val_o.s, v.s)) release(e, val_o);
    return;
  }
  case KL_N_TUPLE:
  case KL_N_LIST: store_unpack(e, target, v, L); return;
  default: kl_fatal(e->ctx, KL_KILN050, target->loc, "cannot assign to this target");
  }
}

static void stmts(E *e, KlNodeList body);

static void loop_begin(E *e, Loop *lp) {
  lp->outer = e->loop;
  lp->id = e->nloops++;
  lp->used_break = lp->used_continue = false;
  lp->with = e->with;
  lp->tried = e->tried;
  lp->iter = NULL;
  e->loop = lp;
}

static void assign_stmt(E *e, KlNode *s) {
  int L = s->loc.line;
  if (s->list.len == 1 && kl_is_parallel_assign(s->list.items[0], s->b)) {
    KlNode *t = s->list.items[0];
    Val *vals = kl_alloc(e->ctx, sizeof(Val) * (size_t)t->list.len);
    for (int i = 0; i < t->list.len; i++) vals[i] = own(e, ev(e, s->b->list.items[i]));
    for (int i = 0; i < t->list.len; i++) {
      store(e, t->list.items[i], vals[i], L);
      release(e, vals[i]);
    }
    return;
  }
  Val v = ev(e, s->b);
  for (int i = 0; i < s->list.len; i++) {
    KlNode *t = s->list.items[i];
    /* an owned value moves into the last local target; otherwise it is shared */
    if (i + 1 == s->list.len) {
      store(e, t, v, L);
    } else {
      Val copy = v.owned ? val(v.t, false, "%s", v.s) : v;
      store(e, t, copy, L);
    }
  }
  release(e, v);
}

static void augassign_stmt(E *e, KlNode *s) {
  int L = s->loc.line;
  KlNode *t = s->a;
  KlSiteInfo *site = s->site;
  bool native = site->outcome == KL_SITE_SCALAR && kl_is_scalar(s->type);
  if (t->kind == KL_N_NAME) {
    Val cur = t->binding == KL_B_LOCAL ? load_slot(e, s->slot, t->loc, s->maybe_unbound) : ev(e, t);
    Val rhs = ev(e, s->b);
    Val r = native ? scalar_binop(e, s->op, s->type, cur, rhs, L) : object_binop(e, s->op, cur, rhs, true, L);
    release(e, rhs);
    store(e, t, r, L);
    release(e, r);
    return;
  }
  Val o = to_object(e, ev(e, t->a), L);
  Val idx = {0};
  Val cur = temp(e, KL_T_OBJECT);
  if (t->kind == KL_N_ATTR) {
    line(e, "%s = PyObject_GetAttr(%s, ks[%d]);", cur.s, o.s, str_index(e, t->name));
  } else {
    idx = to_object(e, ev(e, t->b), L);
    line(e, "%s = PyObject_GetItem(%s, %s);", cur.s, o.s, idx.s);
  }
  fail_if(e, L, "!%s", cur.s);
  Val rhs = ev(e, s->b);
  Val r = object_binop(e, s->op, cur, rhs, true, L);
  release(e, cur);
  release(e, rhs);
  if (t->kind == KL_N_ATTR)
    line(e, "if (PyObject_SetAttr(%s, ks[%d], %s) < 0) KL_FAIL(%d);", o.s, str_index(e, t->name), r.s, L);
  else
    line(e, "if (PyObject_SetItem(%s, %s, %s) < 0) KL_FAIL(%d);", o.s, idx.s, r.s, L);
  release(e, r);
  release(e, o);
  release(e, idx);
}

/* A native `range(...)` loop: its bounds, evaluated in Python's order (a
 * zero step raises), then `for (it = start; it < stop (or >);) {`. */
typedef struct Range {
  Val start, stop, step, it;
} Range;

static Range range_bounds(E *e, KlNode *call, int L) {
  Range rg = {.start = val(KL_T_INT, false, "0"), .step = val(KL_T_INT, false, "1")};
  Val a0 = own(e, ev(e, call->list.items[0]));
  if (call->list.len == 1) {
    rg.stop = a0;
  } else {
    rg.start = a0;
    rg.stop = own(e, ev(e, call->list.items[1]));
    if (call->list.len == 3) rg.step = own(e, ev(e, call->list.items[2]));
  }
  if (call->list.len == 3)
    line(e, "if (%s == 0) { PyErr_SetString(PyExc_ValueError, \"range() arg 3 must not be zero\"); KL_FAIL(%d); }",
         rg.step.s, L);
  return rg;
}

/* The top of each iteration of a native loop, where CPython's loop jumps
 * back: every few iterations KrApi.tick runs pending signal handlers and
 * lets waiting threads run, so Python code may have run. */
static void loop_tick(E *e, int L) {
  e->nticks++;
  line(e, "if (--kl_tick < 0) {");
  e->indent++;
  line(e, "if (kr->tick(&kl_tick) < 0) KL_FAIL(%d);", L);
  after_python(e, L);
  e->indent--;
  line(e, "}");
}

static void range_open(E *e, Range *rg, int L) {
  rg->it = temp(e, KL_T_INT);
  const char *it = rg->it.s, *stop = rg->stop.s;
  line(e, "for (%s = %s; %s > 0 ? %s < %s : %s > %s;) {", it, rg->start.s, rg->step.s, it, stop, it, stop);
  e->indent++;
  loop_tick(e, L);
}

/* Ends the loop's body: the increment stops at int64's end. */
static void range_close(E *e, const Range *rg) {
  line(e, "if (__builtin_add_overflow(%s, (int64_t)%s, &%s)) break;", rg->it.s, rg->step.s, rg->it.s);
  e->indent--;
  line(e, "}");
}

/* iter(x) of an evaluated iterable, as an owned temporary. */
static Val get_iter(E *e, KlNode *iterable, int L) {
  Val src = to_object(e, ev(e, iterable), L);
  Val iter = temp(e, KL_T_OBJECT);
  line(e, "%s = PyObject_GetIter(%s);", iter.s, src.s);
  release(e, src);
  fail_if(e, L, "!%s", iter.s);
  return iter;
}

/* Opens `for (;;) {` over iter, storing each item into target. */
static void iter_open(E *e, Val iter, KlNode *target, int L) {
  Val item = temp(e, KL_T_OBJECT);
  line(e, "for (;;) {");
  e->indent++;
  loop_tick(e, L);
  line(e, "%s = PyIter_Next(%s);", item.s, iter.s);
  line(e, "if (!%s) { if (PyErr_Occurred()) KL_FAIL(%d); break; }", item.s, L);
  after_python(e, L);
  store(e, target, item, L);
  release(e, item);
}

static void iter_close(E *e, Val iter) {
  e->indent--;
  line(e, "}");
  line(e, "Py_CLEAR(%s);", iter.s);
}

static void for_range(E *e, KlNode *s, Loop *lp) {
  int L = s->loc.line;
  Range rg = range_bounds(e, s->b, L);
  range_open(e, &rg, L);
  store(e, s->a, rg.it, L);
  stmts(e, s->body);
  if (lp->used_continue) line(e, "kl_cont_%d:;", lp->id);
  comment_line(e, L); /* the increment belongs to the `for` line (HTML report) */
  range_close(e, &rg);
}

static void for_iter(E *e, KlNode *s, Loop *lp, Val *iter_out) {
  int L = s->loc.line;
  Val iter = get_iter(e, s->b, L);
  if (iter.owned) lp->iter = kl_strdup(e->ctx, iter.s);
  iter_open(e, iter, s->a, L);
  stmts(e, s->body);
  if (lp->used_continue) line(e, "kl_cont_%d:;", lp->id);
  iter_close(e, iter);
  *iter_out = iter;
}

/* Unbinds a comprehension's variables once it is done: like Python's
 * comprehension scope, it keeps no item alive, and a clause reading a later
 * clause's variable finds it unbound on the next run. */
static void unbind_targets(E *e, KlNode *t) {
  if (t->kind == KL_N_STARRED) {
    unbind_targets(e, t->a);
    return;
  }
  if (t->kind != KL_N_NAME) {
    for (int i = 0; i < t->list.len; i++) unbind_targets(e, t->list.items[i]);
    return;
  }
  unbind_slot(e, t->slot);
}

/* A comprehension's variables that closures read (resolve.c) are cells,
 * new ones each time it starts, as CPython's frame makes them. */
static void new_cells(E *e, KlNode *t, int L) {
  if (t->kind == KL_N_STARRED) {
    new_cells(e, t->a, L);
    return;
  }
  for (int i = 0; t->kind != KL_N_NAME && i < t->list.len; i++) new_cells(e, t->list.items[i], L);
  if (t->kind != KL_N_NAME || !e->f->locals[t->slot].cell) return;
  line(e, "Py_XSETREF(lv_%d, PyCell_New(NULL));", t->slot);
  fail_if(e, L, "!%s", kl_fmt(e->ctx, "lv_%d", t->slot));
}

/* Where KL_FAIL goes from here on in the emitted text: label, or NULL for
 * the function's kl_error. Generator regions redefine the macro. */
static void fail_to(E *e, const char *label) {
  if (!label && !e->fail_label) return;
  if (label && e->fail_label && !strcmp(label, e->fail_label)) return;
  e->fail_label = label;
  kl_buf_puts(e->out, "#undef KL_FAIL\n");
  kl_buf_printf(e->out, "#define KL_FAIL(l) do { kl_line = (l); goto %s; } while (0)\n", label ? label : "kl_error");
}

/* A comprehension's variables at its end, in the order the running CPython
 * releases them (resolve.c release_order). */
static void unbind_generator_vars(E *e, const KlNode *n) {
  bool same = true;
  for (int i = 0; i < n->nrelease && same; i++) same = n->release[0][i] == n->release[1][i];
  if (!same) line(e, "#if PY_VERSION_HEX >= 0x030C0000");
  for (int i = 0; i < n->nrelease; i++) unbind_targets(e, n->release[1][i]);
  if (same) return;
  line(e, "#else");
  for (int i = 0; i < n->nrelease; i++) unbind_targets(e, n->release[0][i]);
  line(e, "#endif");
}

/* What a closed generator releases, in the running CPython's order: up to
 * 3.12 its stack (the iterators, innermost first), then its variables; from
 * 3.13 its variables, then the iterators, outermost first. */
static void close_generator(E *e, const KlNode *n, const Val *iters) {
  KlNodeList clauses = n->list;
  line(e, "#if PY_VERSION_HEX >= 0x030D0000");
  for (int i = 0; i < n->nrelease; i++) unbind_targets(e, n->release[1][i]);
  for (int i = 0; i < clauses.len; i++)
    if (iters[i].owned) line(e, "Py_CLEAR(%s);", iters[i].s); /* a range() clause has none */
  line(e, "#else");
  for (int i = clauses.len - 1; i >= 0; i--)
    if (iters[i].owned) line(e, "Py_CLEAR(%s);", iters[i].s); /* a range() clause has none */
  unbind_generator_vars(e, n);
  line(e, "#endif");
}

/* ---- sum(), min(), max() and sorted() of a consumed generator ----
 * Their other arguments (sum's start, min and max's key and default,
 * sorted's key and reverse) are evaluated after the generator's first
 * iterable, before its first item.
 * The total (or the best item) lives in C when the types allow (an int
 * total, a float total from a float start, the best of scalar items) and
 * otherwise in objects the runtime updates as CPython's builtin does. */

typedef struct {
  Val args[4]; /* the other arguments, owned, in the order evaluated (then a boxed key or default) */
  Val kwobj[2]; /* sorted: its keywords' values as objects */
  int nargs;
  Val key, dflt; /* min/max: .s empty when not given */
  Val acc;       /* sum of objects: the total; min/max of objects: the best item's key */
  Val best;      /* min/max of objects: the best item; sorted: the list */
  Val have;      /* min/max of scalars: an item is kept */
  int sum;       /* kl_sum_<sum> */
} Reduce;

static bool reduces(const KlNode *n) { return n->op == KL_COMP_SUM || n->op == KL_COMP_MIN || n->op == KL_COMP_MAX; }

static bool takes_args(const KlNode *n) {
  return reduces(n) || (n->op == KL_COMP_SORTED && n->kw.len) || (n->op == KL_COMP_NEXT && n->c);
}

/* The other arguments of sum, min, max and sorted, evaluated (an error
 * fails to kl_gstart_<id>, which drops them and the unstarted generator)
 * and owned; sorted's keywords and a key as objects, a default as an object
 * when the result is one. */
static void consumer_args(E *e, KlNode *n, Reduce *rd, Val r, int L) {
  if (n->op == KL_COMP_SUM && n->c) rd->args[rd->nargs++] = own(e, ev(e, n->c));
  for (int i = 0; i < n->kw.len; i++) {
    Val v = own(e, ev(e, n->kw.items[i]->a));
    rd->args[rd->nargs++] = v;
    if (n->op == KL_COMP_SORTED) rd->kwobj[i] = v;
    else if (!strcmp(n->kw.items[i]->name, "key")) rd->key = v;
    else rd->dflt = v;
  }
  for (int i = 0; n->op == KL_COMP_SORTED && i < n->kw.len; i++)
    if (!is_obj(e, rd->kwobj[i].t)) rd->args[rd->nargs++] = rd->kwobj[i] = to_object(e, rd->kwobj[i], L);
  if (rd->key.s[0] && !is_obj(e, rd->key.t)) rd->args[rd->nargs++] = rd->key = to_object(e, rd->key, L);
  if (rd->dflt.s[0] && is_obj(e, r.t) && !is_obj(e, rd->dflt.t)) rd->args[rd->nargs++] = rd->dflt = to_object(e, rd->dflt, L);
}

/* sorted(gen, key=..., reverse=...): the list's sort method with them, as
 * the builtin calls it; on an error the list goes, then the arguments. */
static void sort_with_keywords(E *e, KlNode *n, Reduce *rd, Val list, int L) {
  KlBuf b = {0};
  for (int i = 0; i < n->kw.len; i++) kl_buf_printf(&b, ", %s", rd->kwobj[i].s);
  Val res = temp(e, KL_T_OBJECT);
  line(e, "{ PyObject *kl_av[%d] = {%s%s};", n->kw.len + 1, list.s, b.data);
  line(e, "  %s = PyObject_VectorcallMethod(ks[%d], kl_av, 1, %s); }", res.s, str_index(e, "sort"),
       names_constant(e, n->kw));
  kl_buf_free(&b);
  line(e, "if (!%s) {", res.s);
  release(e, list);
  for (int i = 0; i < rd->nargs; i++) release(e, rd->args[i]);
  line(e, "KL_FAIL(%d); }", L);
  release(e, res);
  for (int i = 0; i < rd->nargs; i++) release(e, rd->args[i]);
}

static void reduce_start(E *e, KlNode *n, Reduce *rd, Val r, Val iter0, int id, int L) {
  const char *outer = e->fail_label;
  fail_to(e, kl_fmt(e->ctx, "kl_gstart_%d", id));
  consumer_args(e, n, rd, r, L);
  if (n->op == KL_COMP_SUM) {
    Val start = n->c ? rd->args[0] : val(KL_T_INT, false, "0");
    if (r.t != KL_T_INT) rd->sum = e->nsums++;
    if (r.t == KL_T_INT) {
      line(e, "%s = %s;", r.s, start.s);
    } else if (r.t == KL_T_FLOAT) {
      line(e, "kl_sum_%d = (KrSum){.mode = KR_SUM_FLOAT, .f = %s};", rd->sum, as_double(e, start));
    } else {
      rd->acc = temp(e, KL_T_OBJECT);
      Val so = n->c ? to_object(e, start, L) : val(KL_T_OBJECT, false, "NULL");
      line(e, "if (kr->sum_start(&kl_sum_%d, &%s, %s) < 0) {%s KL_FAIL(%d); }", rd->sum, rd->acc.s, so.s,
           iter0.owned ? kl_fmt(e->ctx, " Py_CLEAR(%s);", iter0.s) : "", L); /* sum() drops the generator first */
      if (so.owned && strcmp(so.s, start.s)) release(e, so);
    }
  } else if (kl_is_scalar(r.t)) {
    rd->have = temp(e, KL_T_BOOL);
    line(e, "%s = 0;", rd->have.s);
  } else {
    rd->acc = temp(e, KL_T_OBJECT);
    rd->best = r;
    line(e, "%s = NULL; /* the best item's key; %s the item */", rd->acc.s, r.s);
  }
  fail_to(e, outer);
}

/* One item v (inside the generator); what can fail after it is the consumer's. */
static void reduce_step(E *e, KlNode *n, Reduce *rd, Val r, Val v, const char *consumer, int L) {
  if (n->op == KL_COMP_SUM && r.t == KL_T_INT) {
    fail_to(e, consumer);
    overflow_check(e, kl_fmt(e->ctx, "__builtin_add_overflow(%s, (int64_t)%s, &%s)", r.s, v.s, r.s), L);
    return;
  }
  if (n->op == KL_COMP_SUM) {
    const char *add = v.t == KL_T_FLOAT ? "kr_sum_float" : "kr_sum_int";
    if (r.t == KL_T_FLOAT) { /* the float mode takes every scalar */
      line(e, "(void)%s(&kl_sum_%d, %s);", add, rd->sum, v.s);
      return;
    }
    if (kl_is_scalar(v.t)) line(e, "if (!%s(&kl_sum_%d, %s)) {", add, rd->sum, v.s);
    Val o = to_object(e, v, L);
    fail_to(e, consumer);
    line(e, "if (kr->sum_add(&kl_sum_%d, &%s, %s) < 0) KL_FAIL(%d);", rd->sum, rd->acc.s,
         o.owned ? kl_fmt(e->ctx, "kr_take(&%s)", o.s) : kl_fmt(e->ctx, "Py_NewRef(%s)", o.s), L);
    if (kl_is_scalar(v.t)) line(e, "}");
    return;
  }
  const bool is_max = n->op == KL_COMP_MAX;
  if (kl_is_scalar(r.t)) { /* CPython's float comparison is C's, NaN included */
    v = own(e, v);
    line(e, "if (!%s || %s %s %s) { %s = %s; %s = 1; }", rd->have.s, v.s, is_max ? ">" : "<", r.s, r.s, v.s,
         rd->have.s);
    return;
  }
  Val o = to_object(e, v, L);
  fail_to(e, consumer);
  line(e, "if (kr->best_step(&%s, &%s, %s, %s, %s) < 0) KL_FAIL(%d);", r.s, rd->acc.s,
       o.owned ? kl_fmt(e->ctx, "kr_take(&%s)", o.s) : kl_fmt(e->ctx, "Py_NewRef(%s)", o.s),
       rd->key.s[0] ? rd->key.s : "NULL", is_max ? "Py_GT" : "Py_LT", L);
}

/* What an error leaves to release once the generator is closed: the total,
 * or the best key and item (already released when the consumer failed), then the other
 * arguments, which the caller drops after the call. */
static void reduce_release(E *e, const Reduce *rd) {
  if (rd->acc.s[0]) line(e, "Py_CLEAR(%s);", rd->acc.s);
  if (rd->best.s[0]) line(e, "Py_CLEAR(%s);", rd->best.s);
  for (int i = 0; i < rd->nargs; i++) release(e, rd->args[i]);
}

/* After the last item. */
static Val reduce_finish(E *e, KlNode *n, Reduce *rd, Val r, int L) {
  if (n->op == KL_COMP_SUM && r.t == KL_T_FLOAT) {
    line(e, "%s = kr_sum_float_value(&kl_sum_%d);", r.s, rd->sum);
  } else if (n->op == KL_COMP_SUM && r.t == KL_T_OBJECT) {
    line(e, "%s = kr->sum_total(&kl_sum_%d, &%s);", r.s, rd->sum, rd->acc.s);
    fail_if(e, L, "!%s", r.s);
  } else if (n->op != KL_COMP_SUM) {
    const bool is_max = n->op == KL_COMP_MAX;
    if (rd->acc.s[0]) line(e, "Py_CLEAR(%s);", rd->acc.s);
    const char *none = kl_is_scalar(r.t) ? kl_fmt(e->ctx, "!%s", rd->have.s) : kl_fmt(e->ctx, "!%s", r.s);
    if (rd->dflt.s[0])
      line(e, "if (%s) %s = %s%s%s;", none, r.s, is_obj(e, r.t) ? "Py_NewRef(" : "", rd->dflt.s,
           is_obj(e, r.t) ? ")" : "");
    else
      line(e, "if (%s) { kr->best_empty(%d); KL_FAIL(%d); }", none, is_max, L);
  }
  for (int i = 0; i < rd->nargs; i++) release(e, rd->args[i]);
  return r;
}

/* A comprehension (KlCompKind): one C loop per clause, in Python's order:
 * the first iterable (and iter() of it) before the result exists; a failed
 * condition goes on with its clause's next item; a dict's key before its
 * value. tuple, sorted and join finish the list.
 *
 * A generator expression a consumer takes (n->consumed) is the same loops,
 * and what no one can see is all that differs: the code inside the
 * generator (iteration, conditions, the element) fails to kl_gfail_<id>,
 * where a StopIteration becomes RuntimeError (PEP 479); the consumer's own
 * steps (the truth test of any/all, the set's hashing) fail to
 * kl_gclose_<id>. Both, and any/all stopping early, release what the
 * closed generator would, in its order. */
static Val comprehension(E *e, KlNode *n) {
  int L = n->loc.line;
  KlNodeList clauses = n->list;
  Range *ranges = kl_alloc(e->ctx, sizeof(Range) * (size_t)clauses.len);
  Val *iters = kl_alloc(e->ctx, sizeof(Val) * (size_t)clauses.len);
  int *ids = kl_alloc(e->ctx, sizeof(int) * (size_t)clauses.len);
  const bool decides = n->op == KL_COMP_ANY || n->op == KL_COMP_ALL;
  const bool first = n->op == KL_COMP_NEXT; /* stops at the first item too */
  Reduce rd = {.nargs = 0};
  const int id = e->nloops++;
  const char *outer_fail = e->fail_label;
  /* An error inside (from the first item on) passes the frame CPython runs
   * the comprehension in: a generator's (any version), a list, set or dict
   * comprehension's up to 3.11 (3.12 inlines them). */
  const char *inside = kl_fmt(e->ctx, n->consumed ? "kl_gfail_%d" : "kl_cframe_%d", id);
  const char *consumer = n->consumed ? kl_fmt(e->ctx, "kl_gclose_%d", id) : outer_fail;
  Val r = temp(e, decides ? KL_T_BOOL : reduces(n) || first ? n->type : KL_T_OBJECT);
  for (int i = 0; i < clauses.len; i++) {
    KlNode *c = clauses.items[i];
    int CL = c->loc.line;
    bool ranged = kl_is_native_range(e->ctx, c->b);
    ids[i] = e->nloops++;
    iters[i] = val(KL_T_OBJECT, false, "NULL");
    if (ranged) ranges[i] = range_bounds(e, c->b, CL);
    else iters[i] = get_iter(e, c->b, CL);
    if (!i && decides) {
      line(e, "%s = %d;", r.s, n->op == KL_COMP_ALL);
    } else if (!i && reduces(n)) {
      reduce_start(e, n, &rd, r, iters[0], id, L);
    } else if (!i && first) {
      if (n->c) { /* the default, evaluated before the generator runs */
        fail_to(e, kl_fmt(e->ctx, "kl_gstart_%d", id));
        rd.args[rd.nargs++] = rd.dflt = own(e, coerce(e, ev(e, n->c), r.t, L));
        fail_to(e, outer_fail);
      }
    } else if (!i) {
      const char *make = n->op == KL_COMP_SET ? "PySet_New(NULL)" : n->op == KL_COMP_DICT ? "PyDict_New()" : "PyList_New(0)";
      if (takes_args(n)) { /* sorted's keywords; on an error the list goes before them */
        fail_to(e, kl_fmt(e->ctx, "kl_gstart_%d", id));
        consumer_args(e, n, &rd, r, L);
        fail_to(e, outer_fail);
        rd.best = r;
      }
      line(e, "%s = %s;", r.s, make);
      fail_if(e, L, "!%s", r.s);
    }
    if (!i) {
      fail_to(e, inside); /* from here on, the generator runs */
      for (int j = 0; j < clauses.len; j++) new_cells(e, clauses.items[j]->a, L);
    }
    if (ranged) {
      range_open(e, &ranges[i], CL);
      store(e, c->a, ranges[i].it, CL);
    } else {
      iter_open(e, iters[i], c->a, CL);
    }
    for (int j = 0; j < c->list.len; j++) {
      const char *t = cond(e, c->list.items[j]);
      line(e, "if (!%s) goto kl_cnext_%d;", t, ids[i]);
    }
  }
  if (decides) {
    Val v = ev(e, n->a);
    fail_to(e, consumer);
    const char *t = truth(e, v, L);
    release(e, v);
    line(e, "if (%s%s) { %s = %d; goto kl_cdone_%d; }", n->op == KL_COMP_ANY ? "" : "!", t, r.s, n->op == KL_COMP_ANY,
         id);
  } else if (reduces(n)) {
    reduce_step(e, n, &rd, r, ev(e, n->a), consumer, L);
  } else if (first) {
    Val v = own(e, coerce(e, ev(e, n->a), r.t, L));
    line(e, "%s = %s;%s", r.s, v.s, v.owned ? kl_fmt(e->ctx, " %s = NULL;", v.s) : "");
    line(e, "goto kl_cdone_%d;", id);
  } else {
    Val k = to_object(e, ev(e, n->a), L);
    if (n->op == KL_COMP_DICT) {
      Val v = to_object(e, ev(e, n->b), L);
      line(e, "if (PyDict_SetItem(%s, %s, %s) < 0) KL_FAIL(%d);", r.s, k.s, v.s, L);
      release(e, v);
    } else {
      fail_to(e, consumer);
      line(e, "if (%s(%s, %s) < 0) KL_FAIL(%d);", n->op == KL_COMP_SET ? "PySet_Add" : "PyList_Append", r.s, k.s, L);
    }
    release(e, k);
  }
  fail_to(e, inside); /* the loops' next items */
  for (int i = clauses.len - 1; i >= 0; i--) {
    KlNode *c = clauses.items[i];
    if (c->list.len) line(e, "kl_cnext_%d:;", ids[i]);
    if (kl_is_native_range(e->ctx, c->b)) range_close(e, &ranges[i]);
    else iter_close(e, iters[i]);
  }
  fail_to(e, outer_fail);
  if (n->consumed) {
    unbind_generator_vars(e, n);
    if (first && n->c) /* exhausted: the default */
      line(e, "%s = %s;%s", r.s, rd.dflt.s, is_obj(e, r.t) ? kl_fmt(e->ctx, " Py_INCREF(%s);", r.s) : "");
    else if (first)
      line(e, "PyErr_SetNone(PyExc_StopIteration); KL_FAIL(%d);", L);
    line(e, "goto kl_gend_%d;", id);
    if (decides || first) {
      line(e, "kl_cdone_%d:;", id);
      if (first && rd.nargs && rd.dflt.owned) { /* 3.10's CALL_FUNCTION drops its last argument first */
        line(e, "#if PY_VERSION_HEX < 0x030B0000");
        line(e, "Py_CLEAR(%s);", rd.dflt.s);
        line(e, "#endif");
      }
      close_generator(e, n, iters);
      line(e, "goto kl_gend_%d;", id);
    }
    line(e, "kl_gfail_%d: __attribute__((unused));", id);
    line(e, "kr->add_traceback(\"<genexpr>\", kl_file, kl_line); kl_line = %d;", L);
    line(e, "kr->generator_raised(); /* a StopIteration, with that entry, becomes the RuntimeError's cause */");
    line(e, "kl_gclose_%d: __attribute__((unused));", id);
    close_generator(e, n, iters);
    reduce_release(e, &rd);
    line(e, "KL_FAIL(kl_line);");
    if (takes_args(n)) { /* an error before the first item: the arguments evaluated, last first, then the generator */
      line(e, "kl_gstart_%d: __attribute__((unused));", id);
      for (int i = rd.nargs - 1; i >= 0; i--) release(e, rd.args[i]);
      if (iters[0].owned) line(e, "Py_CLEAR(%s);", iters[0].s);
      line(e, "KL_FAIL(kl_line);");
    }
    line(e, "kl_gend_%d:;", id);
  } else {
    unbind_generator_vars(e, n);
    line(e, "goto kl_cend_%d;", id);
    line(e, "kl_cframe_%d: __attribute__((unused));", id);
    line(e, "#if PY_VERSION_HEX < 0x030C0000");
    line(e, "kr->add_traceback(\"%s\", kl_file, kl_line); kl_line = %d;",
         n->op == KL_COMP_SET ? "<setcomp>" : n->op == KL_COMP_DICT ? "<dictcomp>" : "<listcomp>", L);
    line(e, "#endif");
    line(e, "goto %s;", outer_fail ? outer_fail : "kl_error");
    line(e, "kl_cend_%d:;", id);
  }
  Val out = r;
  if (reduces(n)) return reduce_finish(e, n, &rd, r, L);
  for (int i = 0; first && i < rd.nargs; i++) release(e, rd.args[i]);
  switch (n->op) {
  case KL_COMP_TUPLE:
    out = temp(e, KL_T_OBJECT);
    line(e, "%s = PyList_AsTuple(%s);", out.s, r.s);
    release(e, r);
    fail_if(e, L, "!%s", out.s);
    break;
  case KL_COMP_SORTED:
    if (n->kw.len) sort_with_keywords(e, n, &rd, r, L);
    else line(e, "if (PyList_Sort(%s) < 0) KL_FAIL(%d);", r.s, L);
    break;
  case KL_COMP_JOIN: {
    Val sep = to_object(e, ev(e, n->c), L);
    out = temp(e, KL_T_OBJECT);
    line(e, "%s = PyUnicode_Join(%s, %s);", out.s, sep.s, r.s);
    release(e, sep);
    release(e, r);
    fail_if(e, L, "!%s", out.s);
    break;
  }
  default: break;
  }
  return out;
}

/* ---- try statements ----
 *
 * The body's KL_FAIL goes to kl_exc_<id> (or, without handlers, to the
 * finally's kl_fexc_<id>): there the exception gets this function's
 * traceback entry, as CPython adds one where an exception enters a frame;
 * the temporaries and guard blocks the body left are released; and the
 * exception becomes the handled one (sys.exc_info(), and the __context__ of
 * what the handler raises) until the handler ends. Every fail label of a
 * try has a twin <label>_r, entered by a re-raise (bare `raise`, no handler
 * matched, a finally's end), which adds no traceback entry: CPython's
 * RERAISE neither. kl_error's twin is kl_reraise. */

static const char *reraise_label(E *e, const char *fail_label) {
  return fail_label ? kl_fmt(e->ctx, "%s_r", fail_label) : "kl_reraise";
}

/* A label gotos may or may not use (generated code compiles with -Wall). */
static void label(E *e, const char *name) { line(e, "%s: __attribute__((unused));", name); }

/* `except ... as n` ends with `n = None; del n`, however it ends: every
 * variable the name was split into (resolve.c) is unbound. */
static void unbind_as_name(E *e, const KlNode *n) {
  if (n->binding != KL_B_LOCAL) { /* a declared global: `name = None; del name` in the module's dict */
    line(e, "kr->unbind_global(kg_globals, ks[%d]);", str_index(e, n->name));
    return;
  }
  for (int i = 0; i < e->f->nlocals; i++) {
    const KlLocal *l = &e->f->locals[i];
    if (l->comp || strcmp(l->name, n->name)) continue;
    unbind_slot(e, i);
  }
}

/* A handler's end: the exception it handled stops being handled (CPython's
 * POP_EXCEPT), then its `as` name is deleted. */
static void handler_leave(E *e, const Try *t) {
  line(e, "kr->exc_uncatch(&kl_esave_%d); Py_CLEAR(kl_exc_%d);", t->id, t->id);
  if (t->as_name) unbind_as_name(e, t->as_name);
}

/* Leaving a finally block early: what it was running for (an exception, a
 * return value) is dropped. */
static void finally_drop(E *e, const Try *t) {
  line(e, "if (kl_why_%d == %d) { kr->exc_uncatch(&kl_esave_%d); Py_CLEAR(kl_exc_%d); }", t->id, WHY_EXC, t->id,
       t->id);
  line(e, "Py_CLEAR(kl_rv_%d); kl_why_%d = %d;", t->id, t->id, WHY_NONE);
}

/* return (value: an owned object to return), break, continue: leaves every
 * block between here and its target (the function, or the loop), innermost
 * first. A loop a return leaves drops its iterator, guard blocks are
 * restored, handlers end, finally blocks being run drop what they ran for; a
 * try with a finally block jumps into it, and the finally's end goes on from
 * there (finally_end). */
static void leave(E *e, int why, const char *value, int L) {
  Loop *lp = why == WHY_RETURN ? NULL : e->loop;
  Try *stop = lp ? lp->tried : NULL;
  const char *here = e->fail_label;
  With *w = e->with;
  Loop *crossed = why == WHY_RETURN ? e->loop : NULL;
  for (Try *t = e->tried;; t = t->outer) {
    for (; crossed && crossed->tried == t; crossed = crossed->outer)
      if (crossed->iter) line(e, "Py_CLEAR(%s);", crossed->iter);
    if (t == stop) break;
    for (; w != t->with; w = w->outer) with_leave(e, w, L);
    if (t->part == TRY_HANDLER) handler_leave(e, t);
    else if (t->part == TRY_FINALLY) finally_drop(e, t);
    else if (t->part == TRY_WITH) { /* __exit__(None, None, None), whose error is raised outside */
      fail_to(e, t->outer_fail);
      line(e, "if (kr->with_exit(&kl_wx_%d) < 0) KL_FAIL(%s);", t->id, t->line);
    }
    if (t->has_finally && t->part != TRY_FINALLY) {
      if (value) line(e, "kl_rv_%d = %s; %s = NULL;", t->id, value, value);
      line(e, "kl_why_%d = %d; goto kl_fin_%d;", t->id, why, t->id);
      t->exits |= 1u << why;
      fail_to(e, here);
      return;
    }
    fail_to(e, t->outer_fail); /* what follows runs outside t */
  }
  if (why == WHY_RETURN) { /* guard blocks left open are restored at kl_exit */
    line(e, "kl_ret = %s; %s = NULL;", value, value);
    line(e, "goto kl_exit;");
  } else {
    for (; w != lp->with; w = w->outer) with_leave(e, w, L);
    if (why == WHY_BREAK) lp->used_break = true;
    else lp->used_continue = true;
    line(e, "goto kl_%s_%d;", why == WHY_BREAK ? "brk" : "cont", lp->id);
  }
  fail_to(e, here);
}

/* Where an exception enters a handler or a finally block: the traceback
 * entry (unless re-raised), then what the code it left behind holds (object
 * temporaries from temps0, guard blocks from withs0), then the exception is
 * taken and becomes the handled one. */
/* Where an error that reached the labels `name` (this function's traceback
 * entry added) or `name`_r (a re-raise) goes on from: the temporaries and
 * guard blocks opened since temps0/withs0 given up. */
static void unwind_point(E *e, const char *name, int temps0, int withs0) {
  label(e, name);
  line(e, "kr->add_traceback(\"%s\", kl_file, kl_line);", c_str(e->ctx, e->f->name));
  label(e, kl_fmt(e->ctx, "%s_r", name));
  for (int i = temps0; i < e->ntemps; i++)
    if (e->temps[i] == 'o') line(e, "Py_CLEAR(t%d);", i);
  for (int i = e->nwiths - 1; i >= withs0; i--) line(e, "if (kl_wg_%d.kind) kr->grad_guard_exit(&kl_wg_%d);", i, i);
}

static void catch_point(E *e, const char *name, int id, int temps0, int withs0) {
  unwind_point(e, name, temps0, withs0);
  line(e, "kr->exc_catch(&kl_esave_%d, &kl_exc_%d);", id, id);
}

/* hfail and its re-raise twin: an error while exception kl_exc_<id> was
 * being handled ends the handling and goes on to outward. */
static void handling_failed(E *e, int id, const char *hfail, const char *outward) {
  for (int r = 0; r < 2; r++) {
    label(e, r ? kl_fmt(e->ctx, "%s_r", hfail) : hfail);
    line(e, "kr->exc_uncatch(&kl_esave_%d); Py_CLEAR(kl_exc_%d);", id, id);
    line(e, "goto %s;", r ? reraise_label(e, outward) : outward ? outward : "kl_error");
  }
}

/* The handlers, after the body's kl_exc_<id>. Each `except` type is
 * evaluated and matched in turn; no match re-raises. An error inside a
 * handler (kl_hfail_<id>[_<k>]) deletes its `as` name, ends the handling
 * and goes on outward (to the finally, if any). */
static void handlers(E *e, KlNode *s, Try *t, int temps0, int withs0, const char *outward) {
  const int id = t->id;
  const char *hfail = kl_fmt(e->ctx, "kl_hfail_%d", id);
  catch_point(e, kl_fmt(e->ctx, "kl_exc_%d", id), id, temps0, withs0);
  t->part = TRY_HANDLER;
  fail_to(e, hfail);
  after_python(e, s->loc.line);
  for (int k = 0; k < s->list.len; k++) {
    KlNode *h = s->list.items[k];
    int HL = h->loc.line;
    comment_line(e, HL);
    if (h->a) {
      Val type = to_object(e, ev(e, h->a), HL);
      Val m = temp(e, KL_T_BOOL);
      line(e, "%s = kr->exc_match(kl_exc_%d, %s);", m.s, id, type.s);
      release(e, type);
      line(e, "if (%s < 0) KL_FAIL(%d);", m.s, HL);
      line(e, "if (%s) {", m.s);
    } else {
      line(e, "{");
    }
    e->indent++;
    if (h->b) {
      store(e, h->b, val(KL_T_OBJECT, false, "kl_exc_%d", id), HL);
      t->as_name = h->b;
      fail_to(e, kl_fmt(e->ctx, "kl_hfail_%d_%d", id, k));
    }
    stmts(e, h->body);
    handler_leave(e, t);
    line(e, "goto kl_tend_%d;", id);
    t->as_name = NULL;
    fail_to(e, hfail);
    e->indent--;
    line(e, "}");
  }
  line(e, "kr->exc_rethrow(&kl_esave_%d, kr_take(&kl_exc_%d));", id, id);
  line(e, "goto %s;", reraise_label(e, outward));
  for (int k = 0; k < s->list.len; k++) {
    const KlNode *h = s->list.items[k];
    if (!h->b) continue;
    for (int r = 0; r < 2; r++) {
      label(e, kl_fmt(e->ctx, "kl_hfail_%d_%d%s", id, k, r ? "_r" : ""));
      unbind_as_name(e, h->b);
      line(e, "goto %s%s;", hfail, r ? "_r" : "");
    }
  }
  handling_failed(e, id, hfail, outward);
}

/* After the finally block: on to what entered it. */
static void finally_end(E *e, Try *t, int L) {
  const int id = t->id;
  line(e, "if (kl_why_%d == %d) {", id, WHY_EXC);
  line(e, "  kl_why_%d = %d;", id, WHY_NONE);
  line(e, "  kr->exc_rethrow(&kl_esave_%d, kr_take(&kl_exc_%d));", id, id);
  line(e, "  goto %s;", reraise_label(e, t->outer_fail));
  line(e, "}");
  for (int why = WHY_RETURN; why <= WHY_CONTINUE; why++) {
    if (!(t->exits & 1u << why)) continue;
    line(e, "if (kl_why_%d == %d) {", id, why);
    e->indent++;
    line(e, "kl_why_%d = %d;", id, WHY_NONE);
    leave(e, why, why == WHY_RETURN ? kl_fmt(e->ctx, "kl_rv_%d", id) : NULL, L);
    e->indent--;
    line(e, "}");
  }
}

/* `with EXPR [as T]:` of any manager, as CPython runs it: EXPR, then
 * type(m).__enter__ and __exit__ looked up, __enter__ called, T stored,
 * the body; __exit__(None, None, None) on every way out but an exception,
 * __exit__(type, exc, tb) for an exception (the handled one meanwhile),
 * which a true result suppresses (the code after the `with` runs on). */
/* Where an item's __enter__ and __exit__ errors are reported: the `with`
 * statement's line up to 3.12, the item's from 3.13 (a C expression). */
static const char *with_line(E *e, const KlNode *s) {
  const int stmt = (int)s->ival, item = start_line(s->a);
  if (stmt == item) return kl_fmt(e->ctx, "%d", stmt);
  return kl_fmt(e->ctx, "(PY_VERSION_HEX >= 0x030D0000 ? %d : %d)", item, stmt);
}

static void with_stmt(E *e, KlNode *s) {
  int L = s->loc.line;
  const char *WL = with_line(e, s);
  Try t = {.outer = e->tried, .id = e->ntries++, .part = TRY_WITH, .with = e->with, .loop = e->loop,
           .outer_fail = e->fail_label, .line = WL};
  const int id = t.id, temps0 = e->ntemps, withs0 = e->nwiths;
  const char *hfail = kl_fmt(e->ctx, "kl_hfail_%d", id);
  Val m = to_object(e, ev(e, s->a), L);
  Val v = temp(e, KL_T_OBJECT);
  line(e, "%s = kr->with_enter(%s, &kl_wx_%d);", v.s, m.s, id);
  release(e, m);
  line(e, "if (!%s) KL_FAIL(%s);", v.s, WL);
  e->tried = &t;
  fail_to(e, kl_fmt(e->ctx, "kl_exc_%d", id));
  if (s->b) store(e, s->b, v, L); /* inside: __exit__ sees its error */
  release(e, v);
  stmts(e, s->body);
  e->tried = t.outer;
  fail_to(e, t.outer_fail);
  line(e, "if (kr->with_exit(&kl_wx_%d) < 0) KL_FAIL(%s);", id, WL);
  line(e, "goto kl_tend_%d;", id);
  catch_point(e, kl_fmt(e->ctx, "kl_exc_%d", id), id, temps0, withs0);
  fail_to(e, hfail);
  Val r = temp(e, KL_T_BOOL);
  line(e, "%s = kr->with_exit_exc(&kl_wx_%d, kl_exc_%d);", r.s, id, id);
  line(e, "if (%s < 0) KL_FAIL(%s);", r.s, WL);
  line(e, "if (!%s) {", r.s);
  line(e, "  kr->exc_rethrow(&kl_esave_%d, kr_take(&kl_exc_%d));", id, id);
  line(e, "  goto %s;", reraise_label(e, t.outer_fail));
  line(e, "}");
  line(e, "kr->exc_uncatch(&kl_esave_%d); Py_CLEAR(kl_exc_%d); /* suppressed */", id, id);
  line(e, "goto kl_tend_%d;", id);
  handling_failed(e, id, hfail, t.outer_fail);
  line(e, "kl_tend_%d:;", id);
  fail_to(e, t.outer_fail);
}

/* A match statement's try (parse.c, op 1): its finally only drops hidden
 * values, which every way out but an exception has dropped already. An
 * exception drops them while it is still being raised, before any handler
 * runs, as CPython's unwinding pops its stack (a __del__ then sees the
 * exception handled around it, not this one), and goes on. */
static void cleanup_stmt(E *e, KlNode *s) {
  const int id = s->id, temps0 = e->ntemps, withs0 = e->nwiths;
  const char *outer = e->fail_label, *lbl = kl_fmt(e->ctx, "kl_mexc_%d", id);
  fail_to(e, lbl);
  stmts(e, s->body);
  fail_to(e, outer);
  stmts(e, s->kw);
  line(e, "goto kl_mend_%d;", id);
  unwind_point(e, lbl, temps0, withs0);
  stmts(e, s->kw);
  line(e, "goto %s;", reraise_label(e, outer));
  line(e, "kl_mend_%d:;", id);
}

static void try_stmt(E *e, KlNode *s) {
  if (s->op == 1) {
    cleanup_stmt(e, s);
    return;
  }
  int L = s->loc.line;
  Try t = {.outer = e->tried, .id = e->ntries++, .part = TRY_BODY, .has_finally = s->kw.len > 0,
           .with = e->with, .loop = e->loop, .outer_fail = e->fail_label};
  const int id = t.id, temps0 = e->ntemps, withs0 = e->nwiths;
  const char *fexc = kl_fmt(e->ctx, "kl_fexc_%d", id);
  const char *outward = t.has_finally ? fexc : t.outer_fail; /* errors of the handlers and the else block */
  e->tried = &t;
  fail_to(e, s->list.len ? kl_fmt(e->ctx, "kl_exc_%d", id) : fexc);
  stmts(e, s->body);
  t.part = TRY_ELSE;
  fail_to(e, outward);
  stmts(e, s->orelse);
  line(e, "goto kl_tend_%d;", id);
  /* (the else block's temporaries and guards, cleared there too, are NULL) */
  if (s->list.len) handlers(e, s, &t, temps0, withs0, outward);
  if (t.has_finally) {
    catch_point(e, fexc, id, temps0, withs0);
    line(e, "kl_why_%d = %d;", id, WHY_EXC);
    line(e, "goto kl_fin_%d;", id);
    for (int r = 0; r < 2; r++) { /* an error inside the finally block */
      label(e, kl_fmt(e->ctx, "kl_ffail_%d%s", id, r ? "_r" : ""));
      finally_drop(e, &t);
      line(e, "goto %s;", r ? reraise_label(e, t.outer_fail) : t.outer_fail ? t.outer_fail : "kl_error");
    }
    line(e, "kl_tend_%d:", id);
    line(e, "kl_why_%d = %d;", id, WHY_NONE);
    line(e, "kl_fin_%d:;", id);
    t.part = TRY_FINALLY;
    fail_to(e, kl_fmt(e->ctx, "kl_ffail_%d", id));
    stmts(e, s->kw);
    e->tried = t.outer;
    fail_to(e, t.outer_fail);
    finally_end(e, &t, L);
  } else {
    line(e, "kl_tend_%d:;", id);
    e->tried = t.outer;
    fail_to(e, t.outer_fail);
  }
}

/* `import a.b.c` binds what __import__ returns (a); `import a.b.c as d`
 * gets b then c from it, as IMPORT_FROM does; `from m import x, y` imports m
 * with the fromlist ('x', 'y') and binds each, in order. */
static void import_stmt(E *e, KlNode *s) {
  int L = s->loc.line;
  if (s->kind == KL_N_IMPORTFROM) {
    Val m = temp(e, KL_T_OBJECT);
    const char *fromlist = names_constant(e, s->kw);
    line(e, "%s = kr->import_name(kg_globals, ks[%d], %s, %d);", m.s, str_index(e, s->name ? s->name : ""), fromlist,
         s->op);
    fail_if(e, L, "!%s", m.s);
    for (int i = 0; i < s->kw.len; i++) {
      Val v = temp(e, KL_T_OBJECT);
      line(e, "%s = kr->import_from(%s, ks[%d]);", v.s, m.s, str_index(e, s->kw.items[i]->name));
      fail_if(e, L, "!%s", v.s);
      store(e, s->list.items[i], v, L);
      release(e, v);
    }
    release(e, m);
    return;
  }
  for (int i = 0; i < s->kw.len; i++) {
    const char *path = s->kw.items[i]->name;
    Val m = temp(e, KL_T_OBJECT);
    line(e, "%s = kr->import_name(kg_globals, ks[%d], Py_None, 0);", m.s, str_index(e, path));
    fail_if(e, L, "!%s", m.s);
    for (const char *dot = strchr(path, '.'); s->kw.items[i]->op && dot; dot = strchr(dot + 1, '.')) {
      size_t len = strcspn(dot + 1, ".");
      line(e, "Py_SETREF(%s, kr->import_from(%s, ks[%d]));", m.s, m.s, intern(e->mod, dot + 1, len));
      fail_if(e, L, "!%s", m.s);
    }
    store(e, s->list.items[i], m, L);
    release(e, m);
  }
}

static void stmt(E *e, KlNode *s) {
  int L = s->loc.line;
  comment_line(e, L);
  if (s->forwarded) {
    line(e, "/* (computed as part of the next statement) */");
    return;
  }
  switch (s->kind) {
  case KL_N_PASS: return;
  case KL_N_EXPR_STMT: release(e, ev(e, s->a)); return;
  case KL_N_ASSIGN: assign_stmt(e, s); return;
  case KL_N_ANNASSIGN:
    if (s->b) {
      Val v = ev(e, s->b);
      store(e, s->a, v, L);
      release(e, v);
    }
    return;
  case KL_N_AUGASSIGN: augassign_stmt(e, s); return;
  case KL_N_RETURN: {
    Val v = s->a ? ev(e, s->a) : val(KL_T_OBJECT, false, "Py_None");
    Val o = own(e, to_object(e, v, L));
    leave(e, WHY_RETURN, o.s, L);
    return;
  }
  case KL_N_IF: {
    const char *c = cond(e, s->a);
    line(e, "if (%s) {", c);
    e->indent++;
    stmts(e, s->body);
    e->indent--;
    if (s->orelse.len) {
      line(e, "} else {");
      e->indent++;
      stmts(e, s->orelse);
      e->indent--;
    }
    line(e, "}");
    return;
  }
  case KL_N_WHILE: {
    Loop lp;
    loop_begin(e, &lp);
    line(e, "for (;;) {");
    e->indent++;
    loop_tick(e, L);
    const char *c = cond(e, s->a);
    line(e, "if (!%s) break;", c);
    stmts(e, s->body);
    if (lp.used_continue) line(e, "kl_cont_%d:;", lp.id);
    e->indent--;
    line(e, "}");
    e->loop = lp.outer;
    stmts(e, s->orelse);
    if (lp.used_break) line(e, "kl_brk_%d:;", lp.id);
    return;
  }
  case KL_N_FOR: {
    Loop lp;
    Val iter = {0};
    bool native = kl_is_native_range(e->ctx, s->b);
    /* the iterable is evaluated outside the loop's own break/continue scope */
    if (native) {
      loop_begin(e, &lp);
      for_range(e, s, &lp);
    } else {
      loop_begin(e, &lp);
      for_iter(e, s, &lp, &iter);
    }
    e->loop = lp.outer;
    stmts(e, s->orelse);
    if (lp.used_break) {
      line(e, "kl_brk_%d:;", lp.id);
      if (!native) line(e, "Py_CLEAR(%s);", iter.s);
    }
    return;
  }
  case KL_N_BREAK:
  case KL_N_CONTINUE:
    if (!e->loop) kl_fatal(e->ctx, KL_KILN001, s->loc, "'%s' outside loop", s->kind == KL_N_BREAK ? "break" : "continue");
    leave(e, s->kind == KL_N_BREAK ? WHY_BREAK : WHY_CONTINUE, NULL, L);
    return;
  case KL_N_RAISE: {
    if (!s->a) { /* re-raises the exception being handled: no new traceback entry */
      line(e, "if (kr->reraise()) goto %s;", reraise_label(e, e->fail_label));
      line(e, "KL_FAIL(%d);", L);
      return;
    }
    Val v = to_object(e, ev(e, s->a), L);
    Val cause = s->b ? to_object(e, ev(e, s->b), L) : val(KL_T_OBJECT, false, "NULL");
    line(e, "kr->raise(%s, %s);", v.s, cause.s);
    release(e, v);
    release(e, cause);
    line(e, "KL_FAIL(%d);", L);
    return;
  }
  case KL_N_TRY: try_stmt(e, s); return;
  case KL_N_IMPORT: case KL_N_IMPORTFROM: import_stmt(e, s); return;
  case KL_N_ASSERT: { /* compiled away under -O, as CPython compiles the original */
    line(e, "if (kr->asserts_enabled()) {");
    e->indent++;
    const char *c = cond(e, s->a);
    line(e, "if (!%s) {", c);
    e->indent++;
    if (s->b) {
      Val m = to_object(e, ev(e, s->b), L);
      line(e, "kl_assert_fail(%s);", m.s);
      release(e, m);
    } else {
      line(e, "kl_assert_fail(NULL);");
    }
    line(e, "KL_FAIL(%d);", L);
    e->indent--;
    line(e, "}");
    e->indent--;
    line(e, "}");
    return;
  }
  case KL_N_DEL:
    for (int i = 0; i < s->list.len; i++) {
      KlNode *t = s->list.items[i];
      if (t->kind == KL_N_NAME && t->binding != KL_B_LOCAL) { /* a declared global: DELETE_GLOBAL */
        line(e, "if (kr->delete_global(kg_globals, ks[%d]) < 0) KL_FAIL(%d);", str_index(e, t->name), L);
      } else if (t->kind == KL_N_NAME) {
        if (!s->op) { /* op 1: a match statement's hidden value, dropped whether bound or not */
          Val cur = load_local(e, t); /* raises when unbound */
          release(e, cur);
        }
        unbind_slot(e, t->slot);
      } else if (t->kind == KL_N_ATTR) {
        Val o = to_object(e, ev(e, t->a), L);
        line(e, "if (PyObject_DelAttr(%s, ks[%d]) < 0) KL_FAIL(%d);", o.s, str_index(e, t->name), L);
        release(e, o);
      } else {
        Val o = to_object(e, ev(e, t->a), L);
        Val k = to_object(e, ev(e, t->b), L);
        line(e, "if (PyObject_DelItem(%s, %s) < 0) KL_FAIL(%d);", o.s, k.s, L);
        release(e, o);
        release(e, k);
      }
    }
    return;
  case KL_N_WITH: {
    if (!s->op) {
      with_stmt(e, s);
      return;
    }
    With w = {.outer = e->with, .id = e->nwiths++, .kind = s->op};
    if (w.kind == KL_GUARD_INFERENCE) pin_tensor_locals(e, L);
    line(e, "if (kr->grad_guard_enter(&kl_wg_%d, %s) < 0) KL_FAIL(%d);", w.id, guard_name(w.kind), L);
    e->with = &w;
    stmts(e, s->body);
    e->with = w.outer;
    with_leave(e, &w, L);
    return;
  }
  default: kl_fatal(e->ctx, KL_KILN050, s->loc, "cannot emit statement kind %d", s->kind);
  }
}

static void stmts(E *e, KlNodeList body) {
  for (int i = 0; i < body.len; i++) stmt(e, body.items[i]);
}

/* ---- functions ---- */

static const char *c_type(char kind) {
  return kind == 'o' ? "PyObject *" : kind == 'i' ? "int64_t " : kind == 'd' ? "double " : "int ";
}

static void param_entry(E *e, KlParam *p, int i) {
  int L = p->loc.line;
  KlLocal *l = &e->f->locals[p->slot];
  const char *fname = c_str(e->ctx, e->f->name), *pname = c_str(e->ctx, p->name);
  if (kl_is_tensor(e->ctx, p->type)) {
    Val t = temp(e, p->type);
    line(e, "%s = (PyObject *)kr->tensor_unbox(kl_argv[%d], %d, %d, \"%s\");", t.s, i, framework_id(e, p->type),
         e->ctx->types[p->type].rank, pname);
    fail_if(e, L, "!%s", t.s);
    if (l->type == p->type) line(e, "lv_%d = %s; %s = NULL;", p->slot, t.s, t.s);
    else line(e, "Py_CLEAR(%s); lv_%d = kl_argv[%d]; Py_INCREF(lv_%d);", t.s, p->slot, i, p->slot);
    return;
  }
  if (kl_is_scalar(p->type)) {
    static const char *const fn[] = {[KL_T_INT] = "unbox_int", [KL_T_FLOAT] = "unbox_float", [KL_T_BOOL] = "unbox_bool"};
    Val t = temp(e, p->type);
    line(e, "if (kr->%s(kl_argv[%d], \"%s\", \"%s\", &%s) < 0) KL_FAIL(%d);", fn[p->type], i, fname, pname, t.s, L);
    if (l->type == p->type) line(e, "lv_%d = %s; lb_%d = 1;", p->slot, t.s, p->slot);
    else line(e, "lv_%d = kl_argv[%d]; Py_INCREF(lv_%d);", p->slot, i, p->slot);
    return;
  }
  line(e, "lv_%d = kl_argv[%d]; Py_INCREF(lv_%d);", p->slot, i, p->slot);
}

static void emit_function(Module *mod, KlFunc *f, KlBuf *out) {
  KlCtx *ctx = mod->ctx;
  KlBuf *body = kl_tracked_buf(ctx);
  E e = {.mod = mod, .ctx = ctx, .f = f, .out = body, .indent = 1};
  kl_plan_forwarding(ctx, f);
  /* *args and **kwargs first: bind_args made them (new references), so
   * they are the locals' before any entry check can fail */
  for (int i = f->nparams - f->nstar; i < f->nparams; i++) line(&e, "lv_%d = kl_argv[%d];", f->params[i].slot, i);
  for (int i = 0; i < f->nparams - f->nstar; i++) param_entry(&e, &f->params[i], i);
  /* the cells, as CPython's MAKE_CELL makes them: a parameter's holds its argument */
  for (int i = 0; i < f->nlocals; i++)
    if (f->locals[i].cell && !f->locals[i].comp) { /* a comprehension's are made as it starts */
      line(&e, "{ PyObject *kl_c = PyCell_New(lv_%d); Py_XDECREF(lv_%d); lv_%d = kl_c; }", i, i, i);
      line(&e, "if (!lv_%d) KL_FAIL(%d);", i, f->loc.line);
    }
  stmts(&e, f->body);
  line(&e, "kl_ret = Py_None; Py_INCREF(Py_None);");

  kl_buf_printf(out, "\n/* def %s — %s:%d */\n", c_str(ctx, f->name), "line", f->loc.line);
  kl_buf_printf(out,
                "static PyObject *kf_%d(PyObject *kl_self, PyObject *const *kl_args, Py_ssize_t kl_nargs, "
                "PyObject *kl_kwnames) {\n",
                f->index);
  kl_buf_printf(out, "  PyObject *kl_argv[%d];\n  PyObject *kl_ret = NULL;\n  int kl_line = %d;\n  (void)kl_self;\n",
                f->nparams ? f->nparams : 1, f->loc.line);
  for (int i = 0; i < f->nlocals; i++) {
    KlLocal *l = &f->locals[i];
    char k = kind_of(&e, l->type == KL_T_NONE_YET ? KL_T_OBJECT : l->type);
    if (k == 'o') kl_buf_printf(out, "  PyObject *lv_%d = NULL; /* %s */\n", i, c_str(ctx, l->name));
    else
      kl_buf_printf(out, "  %slv_%d = 0; int lb_%d = 0; (void)lv_%d; (void)lb_%d; /* %s */\n", c_type(k), i, i, i, i,
                    c_str(ctx, l->name));
  }
  for (int i = 0; i < e.ntemps; i++)
    kl_buf_printf(out, "  %s%c%d = %s; (void)%c%d;\n", c_type(e.temps[i]), e.temps[i] == 'o' ? 't' : e.temps[i], i,
                  e.temps[i] == 'o' ? "NULL" : "0", e.temps[i] == 'o' ? 't' : e.temps[i], i);
  for (int i = 0; i < e.nwiths; i++) kl_buf_printf(out, "  KrGradGuard kl_wg_%d = {0};\n", i);
  for (int i = 0; i < e.nsums; i++) kl_buf_printf(out, "  KrSum kl_sum_%d = {0};\n", i);
  if (e.nticks) kl_buf_puts(out, "  int kl_tick = *kr->tick_period;\n");
  for (int i = 0; i < e.ntries; i++)
    kl_buf_printf(out,
                  "  PyObject *kl_exc_%d = NULL, *kl_rv_%d = NULL, *kl_wx_%d = NULL; KrExcSave kl_esave_%d = {0};\n"
                  "  int kl_why_%d = 0; (void)kl_rv_%d; (void)kl_wx_%d; (void)kl_esave_%d; (void)kl_why_%d;\n",
                  i, i, i, i, i, i, i, i, i);
  if (f->grad_guard) /* @torch.no_grad() / @torch.inference_mode(): left at kl_exit, on every path */
    kl_buf_printf(out, "  KrGradGuard kl_guard = {0};\n  if (kr->grad_guard_enter(&kl_guard, %s) < 0) KL_FAIL(%d);\n",
                  guard_name(f->grad_guard), f->loc.line);
  /* an argument error comes before the function runs: no traceback entry of its own, as in CPython */
  kl_buf_printf(out, "  if (kr->bind_args(&ksig_%d, kl_args, kl_nargs, kl_kwnames, kl_argv) < 0) goto kl_reraise;\n",
                f->index);
  kl_buf_put(out, body->data ? body->data : "", body->len);
  kl_buf_puts(out, "kl_exit:\n");
  for (int i = e.nwiths - 1; i >= 0; i--) /* blocks a return or an error left: innermost first */
    kl_buf_printf(out, "  if (kl_wg_%d.kind) kr->grad_guard_exit(&kl_wg_%d);\n", i, i);
  for (int i = 0; i < f->nlocals; i++)
    if (kind_of(&e, f->locals[i].type == KL_T_NONE_YET ? KL_T_OBJECT : f->locals[i].type) == 'o')
      kl_buf_printf(out, "  Py_XDECREF(lv_%d);\n", i);
  for (int i = 0; i < e.ntemps; i++)
    if (e.temps[i] == 'o') kl_buf_printf(out, "  Py_XDECREF(t%d);\n", i);
  for (int i = 0; i < e.ntries; i++)
    kl_buf_printf(out, "  Py_XDECREF(kl_exc_%d);\n  Py_XDECREF(kl_rv_%d);\n  Py_XDECREF(kl_wx_%d);\n", i, i, i);
  if (f->grad_guard) kl_buf_puts(out, "  kr->grad_guard_exit(&kl_guard);\n");
  kl_buf_printf(out,
                "  return kl_ret;\n"
                "kl_error: __attribute__((unused));\n"
                "  kr->add_traceback(\"%s\", kl_file, kl_line);\n"
                "kl_reraise: __attribute__((unused));\n"
                "  Py_CLEAR(kl_ret);\n"
                "  goto kl_exit;\n"
                "}\n",
                c_str(ctx, f->name));
  kl_buf_free(body);
}

/* ---- the module ---- */

static const char preamble[] =
    "#include \"kiln_runtime.h\"\n"
    "#include <math.h>\n"
    "\n"
    "static const KrApi *kr;\n"
    "static PyObject *kg_globals; /* module dict, or the dict given to _kiln_bind */\n"
    "#define KL_FAIL(l) do { kl_line = (l); goto kl_error; } while (0)\n"
    "\n"
    "/* libm through pointers the C compiler cannot constant-fold: Python calls\n"
    " * libm at run time, and a folded (correctly rounded) value can differ from\n"
    " * libm's in the last bit. */\n"
    "__attribute__((unused)) static double (*volatile kl_libm[7])(double) = {exp, log, sin, cos, tan, tanh, atan};\n"
    "\n"
    "/* a == b or a != b (op) where one side is a str literal (an exact str) and\n"
    " * other the other side: an exact str is compared by its text, as str.__eq__\n"
    " * does, without the call; anything else through PyObject_RichCompare. */\n"
    "__attribute__((unused)) static inline PyObject *kl_str_compare(PyObject *a, PyObject *b, PyObject *other, int op) {\n"
    "  if (!PyUnicode_CheckExact(other)) return PyObject_RichCompare(a, b, op);\n"
    "  const Py_ssize_t n = PyUnicode_GET_LENGTH(a);\n"
    "  const int eq = a == b || (n == PyUnicode_GET_LENGTH(b) && PyUnicode_KIND(a) == PyUnicode_KIND(b) &&\n"
    "                           !memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * PyUnicode_KIND(a)));\n"
    "  return Py_NewRef(eq == (op == Py_EQ) ? Py_True : Py_False);\n"
    "}\n"
    "\n"
    "/* Python's floor division and modulo on int64, inline for the common\n"
    " * case; division by zero and INT64_MIN // -1 go to the runtime, which raises. */\n"
    "__attribute__((unused)) static inline int kl_floordiv(int64_t a, int64_t b, int64_t *r, const char *file, int line) {\n"
    "  if (b == 0 || (b == -1 && a == INT64_MIN)) return kr->int_floordiv(a, b, r, file, line);\n"
    "  int64_t q = a / b;\n"
    "  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;\n"
    "  *r = q;\n"
    "  return 0;\n"
    "}\n"
    "__attribute__((unused)) static inline int kl_mod(int64_t a, int64_t b, int64_t *r) {\n"
    "  if (b == 0) return kr->int_mod(a, b, r);\n"
    "  if (b == -1) { *r = 0; return 0; }\n"
    "  int64_t m = a % b;\n"
    "  if (m != 0 && ((m < 0) != (b < 0))) m += b;\n"
    "  *r = m;\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "__attribute__((unused)) static void kl_assert_fail(PyObject *msg) {\n"
    "  if (!msg) { PyErr_SetNone(PyExc_AssertionError); return; }\n"
    "  PyObject *inst = PyObject_CallOneArg(PyExc_AssertionError, msg);\n"
    "  if (!inst) return;\n"
    "  PyErr_SetObject(PyExc_AssertionError, inst);\n"
    "  Py_DECREF(inst);\n"
    "}\n";

/* ---- where CPython 3.10 compiled each lambda ----
 * 3.10's code objects have no columns, so the runtime tells a line's
 * lambdas apart by the order its compiler met them (KrLambda.nth). That is
 * the order of evaluation, but for two things: a comprehension's body is
 * compiled (as a function of its own) before its first iterable, and a
 * `for` loop's target after its iterable. A lambda comes after its
 * defaults; its body is its own code's. */
typedef struct Nth {
  const KlNode *target;
  int count;
  bool found;
} Nth;

static void order_node(const KlNode *n, Nth *q);
static void order_nodes(KlNodeList l, Nth *q) {
  for (int i = 0; i < l.len && !q->found; i++) order_node(l.items[i], q);
}

static void order_node(const KlNode *n, Nth *q) {
  if (!n || q->found) return;
  switch (n->kind) {
  case KL_N_LAMBDA:
    order_node(n->b, q);
    if (!n->lambda->is_class) { /* a function's defaults come first; a class's bases after its body's function */
      order_nodes(n->list, q);
      order_nodes(n->kw, q);
    }
    order_node(n->c, q);
    if (n == q->target) q->found = true;
    else if (!q->found) q->count += n->lambda->line == q->target->lambda->line;
    order_node(n->a, q); /* a generator's first iterable: after its code */
    if (n->lambda->is_class) {
      order_nodes(n->list, q);
      order_nodes(n->kw, q);
    }
    return;
  case KL_N_COMP:
    for (int i = 0; i < n->list.len; i++) {
      const KlNode *c = n->list.items[i];
      if (i) order_node(c->b, q);
      order_node(c->a, q);
      order_nodes(c->list, q);
    }
    order_node(n->a, q);
    order_node(n->b, q);
    order_node(n->list.items[0]->b, q);
    order_node(n->c, q);
    order_nodes(n->kw, q);
    return;
  case KL_N_FOR:
    order_node(n->b, q);
    order_node(n->a, q);
    break;
  case KL_N_ASSIGN:
    order_node(n->b, q);
    order_nodes(n->list, q);
    return;
  case KL_N_ANNASSIGN: /* a function does not evaluate a variable's annotation */
    order_node(n->b, q);
    order_node(n->a, q);
    return;
  case KL_N_TRY:
    order_nodes(n->body, q);
    order_nodes(n->list, q);
    order_nodes(n->orelse, q);
    order_nodes(n->kw, q);
    return;
  default:
    order_node(n->a, q);
    order_node(n->b, q);
    order_node(n->c, q);
    order_nodes(n->list, q);
    order_nodes(n->kw, q);
    break;
  }
  order_nodes(n->body, q);
  order_nodes(n->orelse, q);
}

/* n's place among the lambdas 3.10 compiled on its line before it. */
static int lambda_nth(const KlFunc *f, const KlNode *n) {
  Nth q = {.target = n};
  order_nodes(f->body, &q);
  return q.count;
}

static bool valid_identifier(const char *s) {
  if (!s || !*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
  return true;
}

void kl_emit_module(KlCtx *ctx, KlModule *m, KlBuf *out) {
  if (!valid_identifier(ctx->modname)) {
    kl_diag(ctx, KL_SEV_ERROR, KL_KILN050, (KlLoc){0, 0},
            "module name '%s' is not a Python identifier; rename the file", ctx->modname);
    return;
  }
  Module mod = {.ctx = ctx, .m = m};
  KlBuf *funcs = kl_tracked_buf(ctx);
  mod.consts = kl_tracked_buf(ctx);
  for (int i = 0; i < m->nfuncs; i++)
    if (!m->funcs[i]->unsupported) emit_function(&mod, m->funcs[i], funcs);

  kl_buf_printf(out, "/* Generated by kiln %s from ", KILN_VERSION);
  kl_buf_puts(out, "the source named in kl_file. Do not edit. */\n");
  kl_buf_puts(out, preamble);
  kl_buf_puts(out, "static const char kl_file[] = \"");
  kl_buf_c_string(out, ctx->filename, strlen(ctx->filename));
  kl_buf_puts(out, "\";\n");
  /* interned strings */
  int nstrs = mod.nstrs ? mod.nstrs : 1;
  kl_buf_printf(out, "static const char *const ks_text[%d] = {\n", nstrs);
  for (int i = 0; i < mod.nstrs; i++) {
    kl_buf_puts(out, "  \"");
    kl_buf_c_string(out, mod.strs[i].s, mod.strs[i].len);
    kl_buf_puts(out, "\",\n");
  }
  if (!mod.nstrs) kl_buf_puts(out, "  \"\",\n");
  kl_buf_printf(out, "};\nstatic const Py_ssize_t ks_len[%d] = {", nstrs);
  for (int i = 0; i < mod.nstrs; i++) kl_buf_printf(out, "%s%zu", i ? ", " : "", mod.strs[i].len);
  if (!mod.nstrs) kl_buf_puts(out, "0");
  kl_buf_printf(out, "};\nstatic PyObject *ks[%d];\n", nstrs);
  kl_buf_printf(out, "static PyObject *kc[%d];\n", mod.nconsts ? mod.nconsts : 1);
  /* lambdas: their code objects are found at bind */
  kl_buf_printf(out, "__attribute__((unused)) static KrLambda kl_lambdas[%d] = {\n", mod.nlambdas ? mod.nlambdas : 1);
  for (int i = 0; i < mod.nlambdas; i++) {
    const KlLambda *l = mod.lambdas[i].n->lambda;
    kl_buf_printf(out, "  {%d, %d, %d, %d, %d, \"", l->line, l->col,
                  lambda_nth(m->funcs[mod.lambdas[i].func], mod.lambdas[i].n), l->npos, l->nkwonly);
    const char *name = l->name ? l->name : l->is_genexpr ? "<genexpr>" : "<lambda>";
    kl_buf_c_string(out, name, strlen(name));
    kl_buf_puts(out, "\", \"");
    for (int j = 0; j < l->nnames; j++) {
      if (j) kl_buf_puts(out, ",");
      kl_buf_c_string(out, l->names[j], strlen(l->names[j]));
    }
    kl_buf_puts(out, "\", \"");
    for (int j = 0; j < l->nfree; j++) {
      const char *name = m->funcs[mod.lambdas[i].func]->locals[l->free_slots[j]].name;
      if (j) kl_buf_puts(out, ",");
      kl_buf_c_string(out, name, strlen(name));
    }
    kl_buf_puts(out, "\", NULL, NULL, NULL},\n");
  }
  if (!mod.nlambdas) kl_buf_puts(out, "  {0, 0, 0, 0, 0, \"\", \"\", \"\", NULL, NULL, NULL},\n");
  kl_buf_puts(out, "};\n");
  /* signatures */
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    if (f->unsupported) continue;
    int np = f->nparams ? f->nparams : 1;
    kl_buf_printf(out, "static const char *const kpn_%d[%d] = {", i, np);
    for (int j = 0; j < f->nparams; j++) kl_buf_printf(out, "%s\"%s\"", j ? ", " : "", c_str(ctx, f->params[j].name));
    if (!f->nparams) kl_buf_puts(out, "NULL");
    kl_buf_printf(out, "};\nstatic PyObject *kpnames_%d[%d], *kpdef_%d[%d];\n", i, np, i, np);
    bool varargs = f->nstar && f->params[f->nparams - f->nstar].star == 1;
    kl_buf_printf(out, "static KrSig ksig_%d = {\"%s\", %d, %d, kpn_%d, kpnames_%d, kpdef_%d, %d, %d, %d};\n", i,
                  c_str(ctx, f->name), f->nparams - f->nstar, f->nposparams, i, i, i, f->nposonly, varargs,
                  f->nstar - varargs);
  }
  kl_buf_put(out, funcs->data ? funcs->data : "", funcs->len);
  kl_buf_free(funcs);
  /* constants */
  kl_buf_puts(out, "\nstatic int kl_init_constants(void) {\n");
  kl_buf_put(out, mod.consts->data ? mod.consts->data : "", mod.consts->len);
  kl_buf_free(mod.consts);
  kl_buf_puts(out, "  return 0;\n}\n\n");
  /* import guards (KlGlobal.guarded), then the function table */
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    if (f->unsupported || !f->nimport_guards) continue;
    kl_buf_printf(out, "static const char *const kgd_%d[] = {", i);
    for (int j = 0; j < f->nimport_guards; j++) kl_buf_printf(out, "\"%s\", ", c_str(ctx, f->import_guards[j]));
    kl_buf_puts(out, "NULL};\n");
  }
  kl_buf_printf(out, "static KrFuncDef kl_funcs[%d] = {\n", m->nfuncs ? m->nfuncs : 1);
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    if (f->unsupported)
      kl_buf_printf(out, "  {\"%s\", NULL, NULL, \"python\", \"%s: %s at line %d\", {0}, NULL, 0, %d, %d, NULL},\n",
                    c_str(ctx, f->name), kl_code_name(f->why_code), c_str(ctx, f->why), f->why_loc.line, f->first_line,
                    f->loc.line);
    else {
      int first = 0, n = 0;
      for (int j = mod.nlambdas - 1; j >= 0; j--)
        if (mod.lambdas[j].func == f->index) first = j, n++;
      kl_buf_printf(out, "  {\"%s\", (PyCFunction)(void (*)(void))kf_%d, &ksig_%d, \"native\", NULL, {0}, ",
                    c_str(ctx, f->name), i, i);
      if (n) kl_buf_printf(out, "kl_lambdas + %d, %d, ", first, n);
      else kl_buf_puts(out, "NULL, 0, ");
      kl_buf_printf(out, "%d, %d, ", f->first_line, f->loc.line);
      if (f->nimport_guards) kl_buf_printf(out, "kgd_%d},\n", i);
      else kl_buf_puts(out, "NULL},\n");
    }
  }
  if (!m->nfuncs) kl_buf_puts(out, "  {NULL, NULL, NULL, NULL, NULL, {0}, NULL, 0, 0, 0, NULL},\n");
  kl_buf_puts(out, "};\n\n");
  /* the original source, executed at import */
  kl_buf_puts(out, "static const char kl_source[] =\n");
  const char *p = ctx->src, *end = ctx->src + ctx->srclen;
  if (p == end) kl_buf_puts(out, "  \"\"\n");
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e2 = nl ? nl + 1 : end;
    kl_buf_puts(out, "  \"");
    kl_buf_c_string(out, p, (size_t)(e2 - p));
    kl_buf_puts(out, "\"\n");
    p = e2;
  }
  kl_buf_puts(out, ";\n\n");
  kl_buf_printf(out,
                "static KrModuleDef kl_module_def = {\n"
                "  kl_file, kl_source, (Py_ssize_t)sizeof kl_source - 1, kl_funcs, %d,\n"
                "  ks_text, ks_len, %d, ks, &kg_globals, %d,\n"
                "};\n\n",
                m->nfuncs, mod.nstrs, (ctx->flags & KL_FLAG_BIND_GLOBALS) ? 1 : 0);
  kl_buf_printf(out,
                "static struct PyModuleDef kl_pymodule = {PyModuleDef_HEAD_INIT, \"%s\", NULL, -1, NULL, NULL, NULL, NULL, NULL};\n\n"
                "PyMODINIT_FUNC PyInit_%s(void) {\n"
                "  kr = kr_import();\n"
                "  if (!kr) return NULL;\n"
                "  PyObject *m = PyModule_Create(&kl_pymodule);\n"
                "  if (!m) return NULL;\n"
                "  if (kr->module_init(m, &kl_module_def) < 0 || kl_init_constants() < 0) {\n"
                "    Py_DECREF(m);\n"
                "    return NULL;\n"
                "  }\n"
                "  return m;\n"
                "}\n",
                ctx->modname, ctx->modname);
}
