/* plugins/torch.c — the PyTorch surface: linear (with or without a bias),
 * relu/sigmoid/tanh (methods, torch.* and F.* functions), abs/sqrt/rsqrt/square/exp/log
 * (methods and torch.*), t ** 2, F.silu, F.gelu (both forms), F.relu6, F.hardtanh, clamp / clip with
 * scalar bounds, F.leaky_relu with a scalar slope, F.layer_norm, F.normalize, matmul (@,
 * torch.matmul, .matmul, torch.mm, .mm), + - * / (between tensors, or a
 * tensor and an int/float/bool), torch.maximum / minimum of two tensors, torch.cat and torch.stack of tensors written out in the call, unary -, softmax and log_softmax over the last dim, and
 * the mean and sum over dim 1 or 0, keepdim or not (methods and torch.*), view / reshape /
 * flatten / squeeze / unsqueeze to rank 1 or 2, x.contiguous() / clone() / detach() / float() / cpu(),
 * indexing with ints and slices, x.size(d) / x.dim() /
 * x.numel() (ints read from the tensor), on float32 CPU
 * tensors of rank 1 and 2 (linear and matmul also of a vector and a
 * matrix). Everything else with torch operands
 * is rejected (recognised, wrong shape) or not covered, and runs on eager
 * PyTorch through the Python fallback. */
#include "plugin_util.h"

enum { T1, T2 };

static const KlTypeDecl torch_types[] = {
    {"kiln.torch.TensorF32Cpu1D", "kiln-torch/tensor-f32-cpu-1d", 1},
    {"kiln.torch.TensorF32Cpu2D", "kiln-torch/tensor-f32-cpu-2d", 2},
    {NULL, NULL, 0},
};

static const char *const torch_coverage[] = {"torch", NULL};

static const char *activation_rule(const char *name, int rank) {
  static const char *const rules[3][2] = {
      {"kiln-torch/tensor-relu-f32-cpu-1d", "kiln-torch/tensor-relu-f32-cpu-2d"},
      {"kiln-torch/tensor-sigmoid-f32-cpu-1d", "kiln-torch/tensor-sigmoid-f32-cpu-2d"},
      {"kiln-torch/tensor-tanh-f32-cpu-1d", "kiln-torch/tensor-tanh-f32-cpu-2d"},
  };
  int i = pu_eq(name, "relu") ? 0 : pu_eq(name, "sigmoid") ? 1 : pu_eq(name, "tanh") ? 2 : -1;
  return i < 0 || rank < 1 ? NULL : rules[i][rank - 1];
}

/* torch.relu / F.relu and the like: the activation's name, or NULL. */
static const char *function_activation(const char *target) {
  static const char *const names[][2] = {
      {"torch.relu", "relu"}, {"torch.nn.functional.relu", "relu"},
      {"torch.sigmoid", "sigmoid"}, {"torch.nn.functional.sigmoid", "sigmoid"},
      {"torch.tanh", "tanh"}, {"torch.nn.functional.tanh", "tanh"},
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (pu_eq(target, names[i][0])) return names[i][1];
  return NULL;
}

static const char *function_rule(const char *name, int rank) {
  static const char *const rules[3][2] = {
      {"kiln-torch/function-relu-f32-cpu-1d", "kiln-torch/function-relu-f32-cpu-2d"},
      {"kiln-torch/function-sigmoid-f32-cpu-1d", "kiln-torch/function-sigmoid-f32-cpu-2d"},
      {"kiln-torch/function-tanh-f32-cpu-1d", "kiln-torch/function-tanh-f32-cpu-2d"},
  };
  return rules[pu_eq(name, "relu") ? 0 : pu_eq(name, "sigmoid") ? 1 : 2][rank - 1];
}

/* Elementwise functions of one tensor, as torch.F(x) and x.M(): the op's
 * name in the rule and its two rules (ranks 1, 2). */
typedef struct {
  const char *function, *method, *op, *rules[2];
} MathFn;

static const MathFn math_fns[] = {
    {"torch.abs", "abs", "abs", {"kiln-torch/tensor-abs-f32-cpu-1d", "kiln-torch/tensor-abs-f32-cpu-2d"}},
    {"torch.sqrt", "sqrt", "sqrt", {"kiln-torch/tensor-sqrt-f32-cpu-1d", "kiln-torch/tensor-sqrt-f32-cpu-2d"}},
    {"torch.square", "square", "square", {"kiln-torch/tensor-square-f32-cpu-1d", "kiln-torch/tensor-square-f32-cpu-2d"}},
    {"torch.exp", "exp", "exp", {"kiln-torch/tensor-exp-f32-cpu-1d", "kiln-torch/tensor-exp-f32-cpu-2d"}},
    {"torch.log", "log", "log", {"kiln-torch/tensor-log-f32-cpu-1d", "kiln-torch/tensor-log-f32-cpu-2d"}},
    {"torch.rsqrt", "rsqrt", "rsqrt", {"kiln-torch/tensor-rsqrt-f32-cpu-1d", "kiln-torch/tensor-rsqrt-f32-cpu-2d"}},
    {"torch.nn.functional.silu", NULL, "silu", {"kiln-torch/function-silu-f32-cpu-1d", "kiln-torch/function-silu-f32-cpu-2d"}},
    {"torch.nn.functional.relu6", NULL, "relu6", {"kiln-torch/function-relu6-f32-cpu-1d", "kiln-torch/function-relu6-f32-cpu-2d"}},
    {"torch.nn.functional.hardtanh", NULL, "hardtanh",
     {"kiln-torch/function-hardtanh-f32-cpu-1d", "kiln-torch/function-hardtanh-f32-cpu-2d"}},
};

static const MathFn *math_fn(const KlSite *s) {
  for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++) {
    const MathFn *m = &math_fns[i];
    if (s->kind == KL_SK_CALL ? pu_eq(s->target, m->function) : m->method && pu_eq(s->target, m->method)) return m;
  }
  return NULL;
}

/* torch.F(x) / x.M() with nothing else (the F.* ones: also inplace=False;
 * F.hardtanh with its default bounds only); other arguments (out=,
 * inplace=True, bounds) are eager's. */
static KlClaim math_claim(const KlSite *s, const MathFn *m, const KlType *tids) {
  bool method = s->kind == KL_SK_METHOD;
  int rank = pu_rank(method ? s->receiver : (s->nargs >= 1 ? s->args[0] : KL_T_OBJECT), tids);
  const KlSiteKeyword *inplace = pu_kw(s, "inplace");
  bool functional = !strncmp(m->function, "torch.nn.functional.", 20);
  bool kw_ok = s->nkw == 0 || (s->nkw == 1 && functional && inplace && pu_lit_false(inplace));
  if (!rank || s->nargs != (method ? 0 : 1) || !kw_ok) return pu_not_covered();
  return pu_claimed(m->rules[rank - 1], method ? s->receiver : s->args[0]);
}

/* t ** 2, t.pow(2), torch.pow(t, 2): the exponent the literal int 2, which
 * eager computes as t * t. */
static KlClaim pow_two_claim(const KlSite *s, const KlType *tids) {
  bool method = s->kind == KL_SK_METHOD;
  bool pow = (s->kind == KL_SK_BINOP && pu_eq(s->target, "**")) || (method && pu_eq(s->target, "pow")) ||
             (s->kind == KL_SK_CALL && pu_eq(s->target, "torch.pow"));
  int e = method ? 0 : 1; /* the exponent's position */
  if (!pow || s->nkw || s->nargs != e + 1) return pu_not_covered();
  int rank = pu_rank(method ? s->receiver : s->args[0], tids);
  if (!rank || s->arg_lit[e] != KL_LIT_INT || s->arg_ival[e] != 2) return pu_not_covered();
  return pu_claimed(rank == 1 ? "kiln-torch/tensor-pow-two-f32-cpu-1d" : "kiln-torch/tensor-pow-two-f32-cpu-2d",
                    method ? s->receiver : s->args[0]);
}

/* softmax over the last dim: x (the receiver, or the first positional of
 * torch.softmax / F.softmax) then the dim, positional or dim=, a literal
 * naming the last dimension; nothing else. */
static bool softmax_dim_ok(const KlSite *s, int first, int rank) {
  const KlSiteKeyword *dim = pu_kw(s, "dim");
  bool lit_last;
  if (s->nargs == first + 1 && s->nkw == 0) {
    lit_last = s->arg_lit[first] == KL_LIT_INT && (s->arg_ival[first] == rank - 1 || s->arg_ival[first] == -1);
  } else if (s->nargs == first && s->nkw == 1 && dim) {
    lit_last = pu_lit_int(dim, rank - 1) || pu_lit_int(dim, -1);
  } else {
    return false;
  }
  return lit_last;
}

static const char *const softmax_message =
    "softmax and log_softmax are native only over the last dimension of a rank-1 or rank-2 tensor; write "
    "`torch.softmax(x, dim=-1)`, `F.log_softmax(x, dim=1)` or `x.softmax(-1)`: the dim a literal, no dtype= or other "
    "arguments";

/* torch.softmax / F.softmax / x.softmax and the log_softmax spellings: the
 * rule (by rank), or NULL. */
static const char *softmax_rule(const KlSite *s, int rank) {
  bool method = s->kind == KL_SK_METHOD;
  bool soft = method ? pu_eq(s->target, "softmax")
                     : pu_eq(s->target, "torch.softmax") || pu_eq(s->target, "torch.nn.functional.softmax");
  bool log = method ? pu_eq(s->target, "log_softmax")
                    : pu_eq(s->target, "torch.log_softmax") || pu_eq(s->target, "torch.nn.functional.log_softmax");
  if (!soft && !log) return NULL;
  static const char *const rules[2][2] = {{"kiln-torch/softmax-f32-cpu-1d", "kiln-torch/softmax-f32-cpu-2d"},
                                          {"kiln-torch/log-softmax-f32-cpu-1d", "kiln-torch/log-softmax-f32-cpu-2d"}};
  return rules[log][rank == 2];
}

/* A mean or sum over one dim of a rank-2 x (the receiver, or the first
 * positional of torch.mean / torch.sum): then the dim, positional or dim=,
 * a literal, and keepdim, positional or keepdim=, a literal bool or left
 * out; nothing else. Returns the dim (1: over each row, 0: over each
 * column), or -1; *keepdim: keepdim=True (a rank-2 result). */
static int reduction_dim(const KlSite *s, int first, bool *keepdim) {
  const KlSiteKeyword *dim = pu_kw(s, "dim"), *keep = pu_kw(s, "keepdim");
  int npos = s->nargs - first;
  if (npos < 0 || npos > 2 || s->nkw != (dim != NULL) + (keep != NULL)) return -1;
  if (npos >= 1 ? dim != NULL : dim == NULL) return -1; /* the dim once: positional or keyword */
  if (npos == 2 && keep) return -1;
  if (npos == 2 ? s->arg_lit[first + 1] != KL_LIT_BOOL : keep && keep->lit != KL_LIT_BOOL) return -1;
  *keepdim = npos == 2 ? s->arg_ival[first + 1] != 0 : keep && keep->ival != 0;
  for (int d = 0; d < 2; d++) { /* dim d, also written d - 2 */
    if (npos >= 1 ? s->arg_lit[first] == KL_LIT_INT && (s->arg_ival[first] == d || s->arg_ival[first] == d - 2)
                  : pu_lit_int(dim, d) || pu_lit_int(dim, d - 2))
      return d;
  }
  return -1;
}

/* The rule of a claimed torch.mean / torch.sum / .mean / .sum over dim d. */
static const char *reduction_rule(bool mean, int d, bool keepdim) {
  static const char *const rules[2][2][2] = {
      {{"kiln-torch/tensor-sum-dim0-f32-cpu-2d", "kiln-torch/tensor-sum-dim1-f32-cpu-2d"},
       {"kiln-torch/tensor-sum-dim0-keepdim-f32-cpu-2d", "kiln-torch/tensor-sum-dim1-keepdim-f32-cpu-2d"}},
      {{"kiln-torch/tensor-mean-dim0-f32-cpu-2d", "kiln-torch/tensor-mean-dim1-f32-cpu-2d"},
       {"kiln-torch/tensor-mean-dim0-keepdim-f32-cpu-2d", "kiln-torch/tensor-mean-dim1-keepdim-f32-cpu-2d"}}};
  return rules[mean][keepdim][d];
}

static const char *const reduction_message =
    "reductions are native only on rank 2 over one dim; write `x.mean(dim=1)`, `x.sum(0, keepdim=True)` or "
    "`torch.mean(x, dim=-1)`: the dim a literal (0, 1, -1 or -2), keepdim (if given) a literal bool, no dtype= or "
    "other arguments";

static const char matmul_vec_rule[] = "kiln-torch/tensor-matmul-vec-f32-cpu";

/* The rule of a matmul of ranks ra, rb (2,2: `rule2`; a vector and a
 * matrix, 1,2 or 2,1: a rank-1 result), or NULL (1,1 is a 0-d tensor). */
static const char *matmul_rule(int ra, int rb, const char *rule2) {
  if (ra == 2 && rb == 2) return rule2;
  if ((ra == 1 && rb == 2) || (ra == 2 && rb == 1)) return matmul_vec_rule;
  return NULL;
}

/* A matmul whose right operand is written `b.T` or `b.t()` (KlSite.transposed):
 * `a @ b.T`, torch.matmul / torch.mm(a, b.T), a.matmul / a.mm(b.T), ranks
 * 2, 2 or 1, 2: b is read transposed in place, the layout of linear's weight. */
static KlClaim transposed_claim(const KlSite *s, const KlType *tids) {
  bool method = s->kind == KL_SK_METHOD;
  bool matmul = (s->kind == KL_SK_BINOP && pu_eq(s->target, "@")) ||
                (s->kind == KL_SK_CALL && (pu_eq(s->target, "torch.matmul") || pu_eq(s->target, "torch.mm"))) ||
                (method && (pu_eq(s->target, "matmul") || pu_eq(s->target, "mm")));
  int n = method ? 1 : 2;
  if (!matmul || s->nkw || s->nargs != n || s->transposed != (method ? 1u : 2u)) return pu_not_covered();
  int ra = pu_rank(method ? s->receiver : s->args[0], tids), rb = pu_rank(s->args[n - 1], tids);
  if (ra == 2 && rb == 2) return pu_claimed("kiln-torch/tensor-matmul-bt-f32-cpu-2d", tids[T2]);
  bool mm = pu_eq(s->target, "torch.mm") || pu_eq(s->target, "mm"); /* mm takes matrices only: eager raises */
  if (ra == 1 && rb == 2 && !mm) return pu_claimed("kiln-torch/tensor-matmul-vec-bt-f32-cpu", tids[T1]);
  return pu_not_covered();
}

/* torch.clamp / torch.clip(x, min, max), x.clamp / x.clip(min, max),
 * torch.clamp_min(x, min) / x.clamp_min(min), torch.clamp_max(x, max) /
 * x.clamp_max(max): each bound positional or by name, an int, float or bool
 * or None (absent), at least one given; nothing else (out=, a tensor bound:
 * eager's). F.hardtanh(x, min_val, max_val) (*ordered): both bounds given
 * and not None, inplace=False optional. Returns the bounds' operand indexes
 * (-1: absent) in lo/hi, or false. */
static bool clamp_bounds(const KlSite *s, const KlType *tids, int *lo, int *hi, bool *ordered) {
  bool method = s->kind == KL_SK_METHOD;
  const char *name = method ? s->target : s->target && !strncmp(s->target, "torch.", 6) ? s->target + 6 : NULL;
  if (!name) return false;
  const char *params[2] = {"min", "max"};
  int np = 2, *slot[2] = {lo, hi};
  *ordered = !method && pu_eq(name, "nn.functional.hardtanh");
  if (*ordered) params[0] = "min_val", params[1] = "max_val";
  else if (pu_eq(name, "clamp_min")) np = 1;
  else if (pu_eq(name, "clamp_max")) np = 1, params[0] = "max", slot[0] = hi;
  else if (!pu_eq(name, "clamp") && !pu_eq(name, "clip")) return false;
  int first = method ? 0 : 1, nrecv = method ? 1 : 0; /* s->args index and operand index of the first bound */
  if (!pu_rank(method ? s->receiver : s->nargs ? s->args[0] : KL_T_OBJECT, tids) || s->nargs - first > np ||
      s->nargs < first)
    return false;
  *lo = *hi = -1;
  bool any = false;
  for (int b = 0; b < np; b++) {
    KlType t;
    KlLitKind lit;
    int index;
    const KlSiteKeyword *k = pu_kw(s, params[b]);
    if (first + b < s->nargs) {
      if (k) return false; /* given twice: eager's TypeError */
      t = s->args[first + b], lit = s->arg_lit[first + b], index = nrecv + first + b;
    } else if (k) {
      t = k->type, lit = k->lit, index = nrecv + s->nargs + (int)(k - s->kw);
    } else {
      continue;
    }
    if (lit == KL_LIT_NONE) continue;
    if (!pu_scalar(t)) return false;
    *slot[b] = index;
    any = true;
  }
  int named = (pu_kw(s, params[0]) != NULL) + (np == 2 && pu_kw(s, params[1]) != NULL);
  if (*ordered) /* hardtanh compares its bounds in Python: None there is eager's TypeError */
    return *lo >= 0 && *hi >= 0 && (s->nkw == named || (s->nkw == named + 1 && pu_lit_false(pu_kw(s, "inplace"))));
  return any && s->nkw == named; /* no out= or other keywords */
}

/* F.leaky_relu(x[, negative_slope][, inplace]): the slope positional or by
 * name, an int, float or bool (absent: eager's 0.01), inplace a literal
 * False; nothing else. Returns the slope's operand index (-1: absent) in
 * *slope, or false. */
static bool leaky_relu_slope(const KlSite *s, const KlType *tids, int *slope) {
  if (s->kind != KL_SK_CALL || !pu_eq(s->target, "torch.nn.functional.leaky_relu") || s->nargs < 1 || s->nargs > 3 ||
      !pu_rank(s->args[0], tids))
    return false;
  const KlSiteKeyword *ks = pu_kw(s, "negative_slope"), *ki = pu_kw(s, "inplace");
  if ((ks && s->nargs >= 2) || (ki && s->nargs == 3) || s->nkw != (ks != NULL) + (ki != NULL)) return false;
  if (s->nargs == 3 ? !(s->arg_lit[2] == KL_LIT_BOOL && s->arg_ival[2] == 0) : ki && !pu_lit_false(ki)) return false;
  *slope = -1;
  if (s->nargs >= 2) {
    if (!pu_scalar(s->args[1]) || s->arg_lit[1] == KL_LIT_NONE) return false;
    *slope = 1;
  } else if (ks) {
    if (!pu_scalar(ks->type) || ks->lit == KL_LIT_NONE) return false;
    *slope = s->nargs + (int)(ks - s->kw);
  }
  return true;
}

/* F.gelu(x) and F.gelu(x, approximate='none' | 'tanh'), the string a
 * literal (approximate is keyword-only in eager: a second positional is its
 * TypeError). The rule, or NULL: other strings and values are eager's. */
static const char *gelu_rule(const KlSite *s, const KlType *tids) {
  static const char *const rules[2][2] = {{"kiln-torch/function-gelu-f32-cpu-1d", "kiln-torch/function-gelu-f32-cpu-2d"},
                                          {"kiln-torch/function-gelu-tanh-f32-cpu-1d",
                                           "kiln-torch/function-gelu-tanh-f32-cpu-2d"}};
  if (s->kind != KL_SK_CALL || !pu_eq(s->target, "torch.nn.functional.gelu") || s->nargs != 1) return NULL;
  int rank = pu_rank(s->args[0], tids);
  const KlSiteKeyword *k = pu_kw(s, "approximate");
  if (!rank || s->nkw != (k != NULL)) return NULL;
  if (!k) return rules[0][rank - 1];
  if (k->lit != KL_LIT_STR || !(pu_eq(k->sval, "none") || pu_eq(k->sval, "tanh"))) return NULL;
  return rules[pu_eq(k->sval, "tanh")][rank - 1];
}

/* F.layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5): x
 * rank 1 or 2 and positional; normalized_shape any non-tensor value (the
 * runtime checks it, and hands every form but one int matching x's last dim
 * to eager); weight and bias absent, None or rank-1 tensors; eps an int or
 * float; each positional or by name, nothing else. Operand indexes (-1:
 * absent or None) of shape, weight, bias and eps in k[0..3], or false. */
static bool layer_norm_args(const KlSite *s, const KlType *tids, int k[4]) {
  static const char *const names[4] = {"normalized_shape", "weight", "bias", "eps"};
  if (s->kind != KL_SK_CALL || !pu_eq(s->target, "torch.nn.functional.layer_norm") || s->nargs < 1 ||
      s->nargs > 5 || !pu_rank(s->args[0], tids))
    return false;
  int named = 0;
  for (int p = 0; p < 4; p++) {
    const KlSiteKeyword *kw = pu_kw(s, names[p]);
    KlType t;
    KlLitKind lit;
    if (p + 1 < s->nargs) {
      if (kw) return false; /* given twice: eager's TypeError */
      t = s->args[p + 1], lit = s->arg_lit[p + 1], k[p] = p + 1;
    } else if (kw) {
      t = kw->type, lit = kw->lit, k[p] = s->nargs + (int)(kw - s->kw), named++;
    } else {
      if (p == 0) return false; /* no normalized_shape: eager's TypeError */
      k[p] = -1;
      continue;
    }
    bool ok = p == 0   ? !pu_rank(t, tids) && lit != KL_LIT_NONE
              : p == 3 ? t == KL_T_INT || t == KL_T_FLOAT
                       : lit == KL_LIT_NONE || pu_rank(t, tids) == 1;
    if (!ok) return false;
    if (lit == KL_LIT_NONE) k[p] = -1;
  }
  return s->nkw == named;
}

/* F.normalize(x, p=2.0, dim=1, eps=1e-12) over x's last dim: p the literal
 * 2 (positional: the int 2; by name also 2.0), dim a literal naming the
 * last dim (absent: 1, so x rank 2), eps an int or float; each positional
 * or by name, no out=. eps's operand index (-1: absent) in *eps, or false. */
static bool normalize_args(const KlSite *s, const KlType *tids, int *eps) {
  if (s->kind != KL_SK_CALL || !pu_eq(s->target, "torch.nn.functional.normalize") || s->nargs < 1 || s->nargs > 4)
    return false;
  int rank = pu_rank(s->args[0], tids);
  const KlSiteKeyword *kp = pu_kw(s, "p"), *kd = pu_kw(s, "dim"), *ke = pu_kw(s, "eps");
  if (!rank || s->nkw != (kp != NULL) + (kd != NULL) + (ke != NULL) || (kp && s->nargs > 1) || (kd && s->nargs > 2) ||
      (ke && s->nargs > 3))
    return false;
  bool p2 = s->nargs > 1 ? s->arg_lit[1] == KL_LIT_INT && s->arg_ival[1] == 2
          : !kp || (kp->lit == KL_LIT_INT && kp->ival == 2) || (kp->lit == KL_LIT_FLOAT && kp->fval == 2.0);
  int64_t dim = 1;
  if (s->nargs > 2) {
    if (s->arg_lit[2] != KL_LIT_INT) return false;
    dim = s->arg_ival[2];
  } else if (kd) {
    if (kd->lit != KL_LIT_INT) return false;
    dim = kd->ival;
  }
  if (!p2 || (dim != rank - 1 && dim != -1)) return false;
  *eps = -1;
  if (s->nargs > 3) {
    if (s->args[3] != KL_T_INT && s->args[3] != KL_T_FLOAT) return false;
    *eps = 3;
  } else if (ke) {
    if (ke->type != KL_T_INT && ke->type != KL_T_FLOAT) return false;
    *eps = s->nargs + (int)(ke - s->kw);
  }
  return true;
}

/* x.size(d) / x.size(dim=d) with d a literal naming one of x's dims (out
 * of range: eager's IndexError), x.dim() / x.ndimension(), x.numel() /
 * x.nelement(): Python ints read from the tensor. The rule, or NULL. */
static const char *int_query_rule(const KlSite *s, const KlType *tids) {
  static const char *const rules[3][2] = {
      {"kiln-torch/tensor-size-f32-cpu-1d", "kiln-torch/tensor-size-f32-cpu-2d"},
      {"kiln-torch/tensor-ndim-f32-cpu-1d", "kiln-torch/tensor-ndim-f32-cpu-2d"},
      {"kiln-torch/tensor-numel-f32-cpu-1d", "kiln-torch/tensor-numel-f32-cpu-2d"}};
  int rank = s->kind == KL_SK_METHOD ? pu_rank(s->receiver, tids) : 0;
  if (!rank) return NULL;
  if (pu_eq(s->target, "size")) {
    const KlSiteKeyword *k = pu_kw(s, "dim");
    int64_t d;
    if (s->nargs == 1 && s->nkw == 0 && s->arg_lit[0] == KL_LIT_INT) d = s->arg_ival[0];
    else if (s->nargs == 0 && s->nkw == 1 && k && k->lit == KL_LIT_INT) d = k->ival;
    else return NULL;
    return d >= -rank && d < rank ? rules[0][rank - 1] : NULL;
  }
  if (s->nargs || s->nkw) return NULL;
  if (pu_eq(s->target, "dim") || pu_eq(s->target, "ndimension")) return rules[1][rank - 1];
  if (pu_eq(s->target, "numel") || pu_eq(s->target, "nelement")) return rules[2][rank - 1];
  return NULL;
}

/* torch.maximum / torch.minimum(a, b), a.maximum / a.minimum(b), and their
 * two-tensor spellings torch.max / torch.min(a, b), a.max / a.min(b): both
 * operands kiln tensors, positional, nothing else (a number, out=, or a dim
 * makes another function: eager's), none written `t.T` / `t.t()` (a site
 * offered again with such an operand as t itself, KlSite.transposed: only
 * matmul reads t transposed). 1: maximum, 0: minimum, -1: neither. */
static int minmax_form(const KlSite *s, const KlType *tids) {
  bool method = s->kind == KL_SK_METHOD;
  if ((!method && s->kind != KL_SK_CALL) || s->nkw || s->nargs != (method ? 1 : 2) || s->transposed) return -1;
  const char *name = method ? s->target : s->target && !strncmp(s->target, "torch.", 6) ? s->target + 6 : NULL;
  if (!name || !pu_rank(method ? s->receiver : s->args[0], tids) || !pu_rank(s->args[s->nargs - 1], tids)) return -1;
  if (pu_eq(name, "maximum") || pu_eq(name, "max")) return 1;
  if (pu_eq(name, "minimum") || pu_eq(name, "min")) return 0;
  return -1;
}

/* torch.cat and its aliases; the dim positional, dim= or axis= (pu_join_dim). */
static bool is_cat(const KlSite *s) {
  return s->kind == KL_SK_CALL &&
         (pu_eq(s->target, "torch.cat") || pu_eq(s->target, "torch.concat") || pu_eq(s->target, "torch.concatenate"));
}
static const char *const cat_dim_names[] = {"dim", "axis", NULL}; /* torch.stack's too */

/* Shape ops: x.view / x.reshape(sizes) and torch.reshape(x, sizes)
 * (pu_reshape_rank), x.flatten / torch.flatten(x[, start_dim[, end_dim]])
 * (literal dims; start == end is x itself, as eager returns it), x.squeeze(d)
 * / torch.squeeze(x, d) of rank 2 (dim d must have size 1 at run time) and
 * x.unsqueeze(d) / torch.unsqueeze(x, d) of rank 1, d a literal. */
typedef struct {
  const char *rule; /* NULL: a form of these left to eager */
  KlTensorOp op;
  int flags;        /* RESHAPE's KL_RESHAPE_* */
  int rank;         /* RESHAPE's result rank */
  int dim;          /* SQUEEZE's and UNSQUEEZE's */
  KlType x;         /* the operand's type */
} ShapeForm;

static const char *const squeeze_dim_names[] = {"dim", NULL};

/* flatten's start_dim and end_dim (literal ints, positional from `pos` or
 * by name) counted from 0 in rank; false for any other argument. */
static bool flatten_dims(const KlSite *s, int pos, int rank, int *start, int *end) {
  int64_t d[2] = {0, -1};
  bool given[2] = {false, false};
  if (s->nargs - pos > 2) return false;
  for (int i = pos; i < s->nargs; i++) {
    if (s->arg_lit[i] != KL_LIT_INT) return false;
    d[i - pos] = s->arg_ival[i];
    given[i - pos] = true;
  }
  for (int i = 0; i < s->nkw; i++) {
    int k = pu_eq(s->kw[i].name, "start_dim") ? 0 : pu_eq(s->kw[i].name, "end_dim") ? 1 : -1;
    if (k < 0 || given[k] || s->kw[i].lit != KL_LIT_INT) return false;
    d[k] = s->kw[i].ival;
    given[k] = true;
  }
  for (int k = 0; k < 2; k++)
    if (d[k] < -rank || d[k] >= rank) return false;
  *start = (int)(d[0] < 0 ? d[0] + rank : d[0]);
  *end = (int)(d[1] < 0 ? d[1] + rank : d[1]);
  return *start <= *end; /* else eager raises */
}

/* Whether s is one of the shape ops on a kiln tensor; f->rule says whether
 * the form is native. */
static bool shape_form(const KlSite *s, const KlType *tids, ShapeForm *f) {
  static const char *const rules[2][2] = {{"kiln-torch/tensor-reshape-f32-cpu-1d", "kiln-torch/tensor-reshape-f32-cpu-2d"},
                                          {"kiln-torch/tensor-view-f32-cpu-1d", "kiln-torch/tensor-view-f32-cpu-2d"}};
  bool method = s->kind == KL_SK_METHOD;
  if (!method && (s->kind != KL_SK_CALL || !s->target || strncmp(s->target, "torch.", 6))) return false;
  if (s->transposed) return false; /* offered again with `w.T` as w: only matmul reads it so */
  const char *name = method ? s->target : s->target + 6;
  const int pos = method ? 0 : 1; /* the first argument after the tensor */
  KlType x = method ? s->receiver : s->nargs >= 1 ? s->args[0] : KL_T_OBJECT;
  int rank = pu_rank(x, tids);
  bool view = method && pu_eq(name, "view");
  static const char *const copies[] = {"contiguous", "clone", "detach", NULL}; /* KR_SHAPE_CONTIGUOUS.. in order */
  int copy = -1;
  for (int i = 0; method && copies[i]; i++)
    if (pu_eq(name, copies[i])) copy = i;
  bool same = method && (pu_eq(name, "float") || pu_eq(name, "cpu"));
  if (!(view || copy >= 0 || same || pu_eq(name, "reshape") || pu_eq(name, "flatten") || pu_eq(name, "squeeze") ||
        pu_eq(name, "unsqueeze")))
    return false;
  *f = (ShapeForm){.x = x};
  if (!rank) return method ? false : pu_any_ours(s, tids);
  if (copy >= 0 || same) { /* no arguments (memory_format=, a device, a dtype: eager's) */
    if (s->nargs || s->nkw) return true;
    static const char *const rules[] = {"kiln-torch/tensor-contiguous-f32-cpu", "kiln-torch/tensor-clone-f32-cpu",
                                        "kiln-torch/tensor-detach-f32-cpu"};
    *f = same ? (ShapeForm){"kiln-torch/tensor-same-f32-cpu", KL_TOP_RESHAPE, KL_RESHAPE_SAME, rank, 0, x}
              : (ShapeForm){rules[copy], KL_TOP_COPY, 0, rank, copy, x};
    return true;
  }
  if (view || pu_eq(name, "reshape")) {
    bool seq = false;
    int r = pu_reshape_rank(s, pos, !method, method ? NULL : "shape", &seq);
    if (r) *f = (ShapeForm){rules[view][r - 1], KL_TOP_RESHAPE, (view ? KL_RESHAPE_VIEW : 0) | (seq ? KL_RESHAPE_SEQ : 0), r, 0, x};
  } else if (pu_eq(name, "flatten")) {
    int start, end;
    if (flatten_dims(s, pos, rank, &start, &end))
      *f = start == end ? (ShapeForm){"kiln-torch/tensor-flatten-same-f32-cpu", KL_TOP_RESHAPE, KL_RESHAPE_SAME, rank, 0, x}
                        : (ShapeForm){"kiln-torch/tensor-flatten-f32-cpu-2d", KL_TOP_RESHAPE, KL_RESHAPE_FLATTEN, 1, 0, x};
  } else {
    bool squeeze = pu_eq(name, "squeeze");
    int d;
    if (rank == (squeeze ? 2 : 1) && pu_one_dim(s, pos, squeeze_dim_names, 2, &d))
      *f = squeeze ? (ShapeForm){"kiln-torch/tensor-squeeze-f32-cpu-2d", KL_TOP_SQUEEZE, 0, 1, d, x}
                   : (ShapeForm){"kiln-torch/tensor-unsqueeze-f32-cpu-1d", KL_TOP_UNSQUEEZE, 0, 2, d, x};
  }
  return true;
}

static const char *const shape_message =
    "view / reshape / flatten / squeeze / unsqueeze are native only for a rank-1 or rank-2 result: write "
    "`x.view(-1)`, `x.reshape(n, -1)`, `torch.reshape(x, (a, b))` (1 or 2 int sizes), `x.flatten()`, "
    "`x.squeeze(1)` of a matrix or `x.unsqueeze(0)` of a vector (dims literal ints; no dtype, no tuple of dims); "
    "x.contiguous(), x.clone(), x.detach(), x.float() and x.cpu() are native without arguments";

static KlClaim torch_claim(const KlSite *s, const KlType *tids) {
  if (s->has_star_args) return pu_not_covered();
  int mm = minmax_form(s, tids);
  if (mm >= 0) { /* broadcast as +: the higher rank's type */
    int ra = pu_rank(s->kind == KL_SK_METHOD ? s->receiver : s->args[0], tids), rb = pu_rank(s->args[s->nargs - 1], tids);
    return pu_claimed(mm ? "kiln-torch/tensor-maximum-f32-cpu" : "kiln-torch/tensor-minimum-f32-cpu",
                      tids[(ra > rb ? ra : rb) - 1]);
  }
  const char *query = int_query_rule(s, tids);
  if (query) return pu_claimed(query, KL_T_INT);
  ShapeForm sf;
  if (shape_form(s, tids, &sf)) {
    if (!sf.rule) return pu_rejected(KL_KILN_TORCH_008, shape_message);
    return pu_claimed(sf.rule, (sf.op == KL_TOP_RESHAPE && (sf.flags & KL_RESHAPE_SAME)) || sf.op == KL_TOP_COPY
                                   ? sf.x
                                   : tids[sf.rank - 1]);
  }
  if (s->transposed) return transposed_claim(s, tids);
  if (s->kind == KL_SK_CALL || s->kind == KL_SK_METHOD) {
    const MathFn *m = math_fn(s);
    KlClaim mc = m ? math_claim(s, m, tids) : pu_not_covered();
    if (m && (mc.kind == KL_CLAIM_CLAIMED || !pu_eq(m->op, "hardtanh"))) return mc;
    int lo, hi;
    bool ordered;
    if (clamp_bounds(s, tids, &lo, &hi, &ordered)) {
      KlType x = s->kind == KL_SK_METHOD ? s->receiver : s->args[0];
      static const char *const rules[2][2] = {
          {"kiln-torch/tensor-clamp-f32-cpu-1d", "kiln-torch/tensor-clamp-f32-cpu-2d"},
          {"kiln-torch/function-hardtanh-bounds-f32-cpu-1d", "kiln-torch/function-hardtanh-bounds-f32-cpu-2d"}};
      return pu_claimed(rules[ordered][pu_rank(x, tids) - 1], x);
    }
    if (m) return mc;
    int eps;
    if (normalize_args(s, tids, &eps)) {
      static const char *const rules[2] = {"kiln-torch/function-normalize-f32-cpu-1d",
                                           "kiln-torch/function-normalize-f32-cpu-2d"};
      return pu_claimed(rules[pu_rank(s->args[0], tids) - 1], s->args[0]);
    }
    int ln[4];
    if (layer_norm_args(s, tids, ln)) {
      static const char *const rules[2] = {"kiln-torch/function-layer-norm-f32-cpu-1d",
                                           "kiln-torch/function-layer-norm-f32-cpu-2d"};
      return pu_claimed(rules[pu_rank(s->args[0], tids) - 1], s->args[0]);
    }
    const char *gelu = gelu_rule(s, tids);
    if (gelu) return pu_claimed(gelu, s->args[0]);
    int slope;
    if (leaky_relu_slope(s, tids, &slope)) {
      static const char *const rules[2] = {"kiln-torch/function-leaky-relu-f32-cpu-1d",
                                           "kiln-torch/function-leaky-relu-f32-cpu-2d"};
      return pu_claimed(rules[pu_rank(s->args[0], tids) - 1], s->args[0]);
    }
  }
  {
    KlClaim c = pow_two_claim(s, tids);
    if (c.kind == KL_CLAIM_CLAIMED) return c;
  }
  switch (s->kind) {
  case KL_SK_CALL:
    if (pu_eq(s->target, "torch.nn.functional.linear")) {
      if (!pu_any_ours(s, tids)) return pu_not_covered();
      /* x rank 2 (a batch) or 1 (one sample, a rank-1 result) */
      int rx = s->nargs >= 2 ? pu_rank(s->args[0], tids) : 0;
      if (rx && s->nargs == 3 && s->nkw == 0 && pu_rank(s->args[1], tids) == 2 && pu_rank(s->args[2], tids) == 1)
        return pu_claimed(rx == 2 ? "kiln-torch/functional-linear-f32-cpu-2d" : "kiln-torch/functional-linear-f32-cpu-1d",
                          tids[rx - 1]);
      if (rx && s->nargs == 2 && s->nkw == 0 && pu_rank(s->args[1], tids) == 2)
        return pu_claimed(rx == 2 ? "kiln-torch/functional-linear-nobias-f32-cpu-2d"
                                  : "kiln-torch/functional-linear-nobias-f32-cpu-1d",
                          tids[rx - 1]);
      return pu_rejected(KL_KILN_TORCH_001, "linear is native only with positional tensors and no keywords; write `F.linear(x, w, b)` or `F.linear(x, w)` with x rank 2 or 1, w rank 2 and b rank 1");
    }
    {
      const char *fn = function_activation(s->target);
      if (fn) {
        if (!pu_any_ours(s, tids)) return pu_not_covered();
        int rank = s->nargs == 1 ? pu_rank(s->args[0], tids) : 0;
        if (rank && s->nkw == 0) return pu_claimed(function_rule(fn, rank), s->args[0]);
        return pu_rejected(KL_KILN_TORCH_002, "activation functions are native only on one tensor without keywords; write `torch.relu(x)`, `F.relu(x)`, `torch.sigmoid(x)` or `torch.tanh(x)` (no inplace=, no out=)");
      }
    }
    if (softmax_rule(s, 1)) {
      if (!pu_any_ours(s, tids)) return pu_not_covered();
      int rank = s->nargs >= 1 ? pu_rank(s->args[0], tids) : 0;
      if (rank && softmax_dim_ok(s, 1, rank)) return pu_claimed(softmax_rule(s, rank), s->args[0]);
      return pu_rejected(KL_KILN_TORCH_006, softmax_message);
    }
    if (pu_eq(s->target, "torch.neg") || pu_eq(s->target, "torch.negative")) {
      if (!pu_any_ours(s, tids)) return pu_not_covered();
      int rank = s->nargs == 1 ? pu_rank(s->args[0], tids) : 0;
      if (rank && s->nkw == 0)
        return pu_claimed(rank == 1 ? "kiln-torch/tensor-neg-f32-cpu-1d" : "kiln-torch/tensor-neg-f32-cpu-2d", s->args[0]);
      return pu_not_covered(); /* out= and the like: eager's */
    }
    if (pu_eq(s->target, "torch.mean") || pu_eq(s->target, "torch.sum")) {
      if (!pu_any_ours(s, tids)) return pu_not_covered();
      bool keep = false;
      int d = s->nargs >= 1 && pu_rank(s->args[0], tids) == 2 ? reduction_dim(s, 1, &keep) : -1;
      if (d >= 0) return pu_claimed(reduction_rule(pu_eq(s->target, "torch.mean"), d, keep), tids[keep ? T2 : T1]);
      return pu_rejected(KL_KILN_TORCH_005, reduction_message);
    }
    if (pu_eq(s->target, "torch.matmul")) {
      if (!pu_any_ours(s, tids)) return pu_not_covered();
      const char *rule = s->nargs == 2 && s->nkw == 0 ? matmul_rule(pu_rank(s->args[0], tids), pu_rank(s->args[1], tids),
                                                                   "kiln-torch/tensor-matmul-call-f32-cpu-2d")
                                                      : NULL;
      if (rule) return pu_claimed(rule, rule == matmul_vec_rule ? tids[T1] : tids[T2]);
      return pu_rejected(KL_KILN_TORCH_003, "torch.matmul is native only for ranks 2,2, 1,2 and 2,1; write `torch.matmul(a, b)` without keywords");
    }
    if (is_cat(s)) {
      int rank;
      if (pu_join_dim(s, tids, cat_dim_names, true, false, &rank) >= 0)
        return pu_claimed(rank == 1 ? "kiln-torch/cat-f32-cpu-1d" : "kiln-torch/cat-f32-cpu-2d", tids[rank - 1]);
      if (!pu_join_ours(s, tids)) return pu_not_covered();
      return pu_rejected(KL_KILN_TORCH_007, "torch.cat is native only for a list or tuple display of 1 to 16 tensors of one rank and a literal dim; write `torch.cat([a, b], dim=1)` or `torch.cat((a, b), -1)` (each tensor a kiln value written out in the call, not `t.T`, all rank 1 or all rank 2; no out=)");
    }
    if (pu_eq(s->target, "torch.stack")) {
      int rank;
      if (pu_join_dim(s, tids, cat_dim_names, true, true, &rank) >= 0)
        return pu_claimed("kiln-torch/stack-f32-cpu-1d", tids[T2]);
      if (!pu_join_ours(s, tids)) return pu_not_covered();
      return pu_rejected(KL_KILN_TORCH_007, "torch.stack is native only for a list or tuple display of 1 to 16 rank-1 tensors and a literal dim; write `torch.stack([a, b], dim=1)` (each tensor a kiln value written out in the call, not `t.T`, all rank 1; no out=)");
    }
    if (pu_eq(s->target, "torch.mm")) { /* torch.mm takes only matrices: other ranks are eager's error */
      if (s->nargs == 2 && s->nkw == 0 && pu_rank(s->args[0], tids) == 2 && pu_rank(s->args[1], tids) == 2)
        return pu_claimed("kiln-torch/tensor-mm-f32-cpu-2d", tids[T2]);
      return pu_not_covered();
    }
    return pu_not_covered();
  case KL_SK_METHOD: {
    int rank = pu_rank(s->receiver, tids);
    if (!rank) return pu_not_covered();
    const char *rule = activation_rule(s->target, rank);
    if (rule) {
      if (s->nargs == 0 && s->nkw == 0) return pu_claimed(rule, s->receiver);
      return pu_rejected(KL_KILN_TORCH_002, "activation methods are native only without arguments; write `x.relu()`, `x.sigmoid()` or `x.tanh()` (no inplace=, no out=)");
    }
    if (pu_eq(s->target, "mm")) {
      if (rank == 2 && s->nargs == 1 && s->nkw == 0 && pu_rank(s->args[0], tids) == 2)
        return pu_claimed("kiln-torch/tensor-mm-f32-cpu-2d", tids[T2]);
      return pu_not_covered();
    }
    if (pu_eq(s->target, "matmul")) {
      const char *rule = s->nargs == 1 && s->nkw == 0
                             ? matmul_rule(rank, pu_rank(s->args[0], tids), "kiln-torch/tensor-matmul-call-f32-cpu-2d")
                             : NULL;
      if (rule) return pu_claimed(rule, rule == matmul_vec_rule ? tids[T1] : tids[T2]);
      return pu_rejected(KL_KILN_TORCH_003, ".matmul is native only for ranks 2,2, 1,2 and 2,1; write `a.matmul(b)` without keywords");
    }
    if ((pu_eq(s->target, "neg") || pu_eq(s->target, "negative")) && s->nargs == 0 && s->nkw == 0)
      return pu_claimed(rank == 1 ? "kiln-torch/tensor-neg-f32-cpu-1d" : "kiln-torch/tensor-neg-f32-cpu-2d", s->receiver);
    if (softmax_rule(s, rank)) {
      if (softmax_dim_ok(s, 0, rank)) return pu_claimed(softmax_rule(s, rank), s->receiver);
      return pu_rejected(KL_KILN_TORCH_006, softmax_message);
    }
    if (pu_eq(s->target, "mean") || pu_eq(s->target, "sum")) {
      bool keep = false;
      int d = rank == 2 ? reduction_dim(s, 0, &keep) : -1;
      if (d >= 0) return pu_claimed(reduction_rule(pu_eq(s->target, "mean"), d, keep), tids[keep ? T2 : T1]);
      return pu_rejected(KL_KILN_TORCH_005, reduction_message);
    }
    return pu_not_covered();
  }
  case KL_SK_UNARYOP: {
    int r = pu_rank(s->args[0], tids);
    if (!r || !pu_eq(s->target, "-")) return pu_not_covered();
    return pu_claimed(r == 1 ? "kiln-torch/tensor-neg-f32-cpu-1d" : "kiln-torch/tensor-neg-f32-cpu-2d", s->args[0]);
  }
  case KL_SK_SUBSCRIPT: {
    if (!pu_rank(s->receiver, tids)) return pu_not_covered();
    int r = pu_index_rank(s, tids);
    if (r) return pu_claimed(r == 1 ? "kiln-torch/index-f32-cpu-1d" : "kiln-torch/index-f32-cpu-2d", tids[r - 1]);
    return pu_rejected(KL_KILN_TORCH_009, "indexing is native only with ints and slices giving a rank-1 or rank-2 tensor; write `x[i]` or `x[:, j]` of a matrix, `x[a:b]`, `x[:, a:b]` or `v[a:b]` (ints or None as bounds, a positive literal step; no None / ... / tensor indexes, and `v[i]` of a vector is a 0-d tensor)");
  }
  case KL_SK_BINOP: {
    int ra = pu_rank(s->args[0], tids), rb = pu_rank(s->args[1], tids);
    const char *arith = pu_arith_name(s->target);
    /* torch refuses `-` with a bool (eager raises RuntimeError): left to eager */
    bool bool_sub = pu_eq(s->target, "-") && (s->args[0] == KL_T_BOOL || s->args[1] == KL_T_BOOL);
    if (arith && !bool_sub && ((ra && !rb && pu_scalar(s->args[1])) || (rb && !ra && pu_scalar(s->args[0])))) {
      static const char *const rules[] = {"kiln-torch/tensor-add-scalar-f32-cpu", "kiln-torch/tensor-sub-scalar-f32-cpu",
                                          "kiln-torch/tensor-mul-scalar-f32-cpu", "kiln-torch/tensor-div-scalar-f32-cpu"};
      int k = arith[0] == 'a' ? 0 : arith[0] == 's' ? 1 : arith[0] == 'm' ? 2 : 3;
      return pu_claimed(rules[k], ra ? s->args[0] : s->args[1]);
    }
    if (!ra || !rb) return pu_not_covered();
    if (pu_eq(s->target, "@")) {
      const char *rule = matmul_rule(ra, rb, "kiln-torch/tensor-matmul-f32-cpu-2d");
      if (rule) return pu_claimed(rule, rule == matmul_vec_rule ? tids[T1] : tids[T2]);
      return pu_rejected(KL_KILN_TORCH_003, "@ is native only for ranks 2,2, 1,2 and 2,1 (two vectors make a 0-d tensor); write `a @ b` with a matrix on at least one side");
    }
    if (pu_eq(s->target, "+")) {
      if (ra == rb) return pu_claimed("kiln-torch/tensor-add-f32-cpu-same-rank", s->args[0]);
      return pu_claimed("kiln-torch/tensor-add-f32-cpu-2d-1d-broadcast", tids[T2]);
    }
    if (arith) { /* - * / */
      static const char *const rules[] = {"kiln-torch/tensor-sub-f32-cpu", "kiln-torch/tensor-mul-f32-cpu",
                                          "kiln-torch/tensor-div-f32-cpu"};
      return pu_claimed(rules[arith[0] == 's' ? 0 : arith[0] == 'm' ? 1 : 2], ra >= rb ? s->args[0] : s->args[1]);
    }
    return pu_not_covered();
  }
  default: return pu_not_covered();
  }
}

/* Re-derives the native op from the metadata and checks it against the claim. */
static bool torch_lower(const KlSite *s, const KlClaim *c, const KlType *tids, KlLowered *out) {
  KlClaim again = torch_claim(s, tids);
  if (again.kind != KL_CLAIM_CLAIMED || !pu_eq(again.rule, c->rule) || again.result != c->result) return false;
  const char *r = c->rule;
  if (strstr(r, "/cat-") || strstr(r, "/stack-")) {
    if (!pu_lower_join(s, tids, cat_dim_names, true, strstr(r, "/stack-") != NULL, c->result, out)) return false;
  } else if (strstr(r, "/tensor-view-") || strstr(r, "/tensor-reshape-") || strstr(r, "/tensor-flatten-") ||
             strstr(r, "/tensor-squeeze-") || strstr(r, "/tensor-unsqueeze-") || strstr(r, "/tensor-contiguous-") ||
             strstr(r, "/tensor-clone-") || strstr(r, "/tensor-detach-") || strstr(r, "/tensor-same-")) {
    ShapeForm sf;
    if (!shape_form(s, tids, &sf) || !sf.rule) return false;
    if (sf.op == KL_TOP_RESHAPE) *out = pu_lower_reshape(sf.rank, sf.flags, c->result);
    else *out = (KlLowered){.op = sf.op, .operands = {0}, .noperands = 1, .result = c->result, .ival = sf.dim};
  } else if (strstr(r, "/index-")) {
    if (!pu_index_rank(s, tids)) return false;
    *out = pu_op(KL_TOP_INDEX, 1, c->result);
  } else if (strstr(r, "/tensor-size-"))
    *out = (KlLowered){.op = KL_TOP_SIZE, .operands = {0, 1}, .noperands = 2, .result = c->result};
  else if (strstr(r, "/tensor-ndim-")) *out = pu_op(KL_TOP_NDIM, 1, c->result);
  else if (strstr(r, "/tensor-numel-")) *out = pu_op(KL_TOP_NUMEL, 1, c->result);
  else if (strstr(r, "-normalize-")) {
    int eps;
    if (!normalize_args(s, tids, &eps)) return false;
    *out = (KlLowered){.op = KL_TOP_NORMALIZE, .operands = {0, eps}, .noperands = 2, .result = c->result};
  } else if (strstr(r, "-layer-norm-")) {
    int k[4];
    if (!layer_norm_args(s, tids, k)) return false;
    *out = (KlLowered){.op = KL_TOP_LAYER_NORM, .operands = {0, k[0], k[1], k[2], k[3]}, .noperands = 5,
                       .result = c->result};
  } else if (strstr(r, "-leaky-relu-")) { /* before -relu- */
    int slope;
    if (!leaky_relu_slope(s, tids, &slope)) return false;
    *out = (KlLowered){.op = KL_TOP_LEAKY_RELU, .operands = {0, slope}, .noperands = 2, .result = c->result};
  } else if (strstr(r, "-gelu-tanh-")) *out = pu_op(KL_TOP_GELU_TANH, 1, c->result); /* before -tanh- */
  else if (strstr(r, "-gelu-")) *out = pu_op(KL_TOP_GELU, 1, c->result);
  else if (!strncmp(r, "kiln-torch/functional-linear-f32-cpu-", 37)) *out = pu_op(KL_TOP_LINEAR, 3, c->result);
  else if (!strncmp(r, "kiln-torch/functional-linear-nobias-", 36) || strstr(r, "-bt-f32-cpu"))
    *out = pu_op(KL_TOP_LINEAR, 2, c->result); /* a @ w.T */
  else if (strstr(r, "-matmul-") || strstr(r, "-mm-")) *out = pu_op(KL_TOP_MATMUL, 2, c->result);
  else if (strstr(r, "-maximum-")) *out = pu_op(KL_TOP_MAXIMUM, 2, c->result);
  else if (strstr(r, "-minimum-")) *out = pu_op(KL_TOP_MINIMUM, 2, c->result);
  else if (strstr(r, "-add-")) *out = pu_op(KL_TOP_ADD, 2, c->result);
  else if (strstr(r, "-sub-")) *out = pu_op(KL_TOP_SUB, 2, c->result);
  else if (strstr(r, "-mul-")) *out = pu_op(KL_TOP_MUL, 2, c->result);
  else if (strstr(r, "-div-")) *out = pu_op(KL_TOP_DIV, 2, c->result);
  else if (strstr(r, "-relu-")) *out = pu_op(KL_TOP_RELU, 1, c->result);
  else if (strstr(r, "-sigmoid-")) *out = pu_op(KL_TOP_SIGMOID, 1, c->result);
  else if (strstr(r, "-tanh-")) *out = pu_op(KL_TOP_TANH, 1, c->result);
  else if (strstr(r, "-mean-dim0-")) *out = pu_op(KL_TOP_COLMEAN, 1, c->result);
  else if (strstr(r, "-sum-dim0-")) *out = pu_op(KL_TOP_COLSUM, 1, c->result);
  else if (strstr(r, "-mean-")) *out = pu_op(KL_TOP_ROWMEAN, 1, c->result);
  else if (strstr(r, "-sum-")) *out = pu_op(KL_TOP_ROWSUM, 1, c->result);
  else if (strstr(r, "/softmax-")) *out = pu_op(KL_TOP_SOFTMAX, 1, c->result);
  else if (strstr(r, "/log-softmax-")) *out = pu_op(KL_TOP_LOG_SOFTMAX, 1, c->result);
  else if (strstr(r, "-neg-")) *out = pu_op(KL_TOP_NEG, 1, c->result);
  else if (strstr(r, "-abs-")) *out = pu_op(KL_TOP_ABS, 1, c->result);
  else if (strstr(r, "-sqrt-")) *out = pu_op(KL_TOP_SQRT, 1, c->result);
  else if (strstr(r, "-square-") || strstr(r, "-pow-two-")) *out = pu_op(KL_TOP_SQUARE, 1, c->result);
  else if (strstr(r, "-exp-")) *out = pu_op(KL_TOP_EXP, 1, c->result);
  else if (strstr(r, "-silu-")) *out = pu_op(KL_TOP_SILU, 1, c->result);
  else if (strstr(r, "-log-")) *out = pu_op(KL_TOP_LOG, 1, c->result);
  else if (strstr(r, "-rsqrt-")) *out = pu_op(KL_TOP_RSQRT, 1, c->result);
  else if (strstr(r, "-relu6-")) *out = pu_op(KL_TOP_RELU6, 1, c->result);
  else if (strstr(r, "-clamp-") || strstr(r, "-hardtanh-bounds-")) {
    int lo, hi;
    bool ordered;
    if (!clamp_bounds(s, tids, &lo, &hi, &ordered)) return false;
    *out = (KlLowered){.op = ordered ? KL_TOP_CLAMP_ORDERED : KL_TOP_CLAMP, .operands = {0, lo, hi}, .noperands = 3,
                       .result = c->result};
  } else if (strstr(r, "-hardtanh-")) *out = pu_op(KL_TOP_HARDTANH, 1, c->result);

  else return false;
  return true;
}

static const KlRuleRecord torch_rules[] = {
    {"kiln-torch/functional-linear-f32-cpu-2d", "torch.nn.functional.linear(x, w, b) ranks 2,2,1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/functional-linear-nobias-f32-cpu-2d", "torch.nn.functional.linear(x, w) ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/functional-linear-f32-cpu-1d", "torch.nn.functional.linear(x, w, b) ranks 1,2,1 (one sample)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/functional-linear-nobias-f32-cpu-1d", "torch.nn.functional.linear(x, w) ranks 1,2 (one sample)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-relu-f32-cpu-1d", "x.relu() rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-relu-f32-cpu-2d", "x.relu() rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sigmoid-f32-cpu-1d", "x.sigmoid() rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sigmoid-f32-cpu-2d", "x.sigmoid() rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-tanh-f32-cpu-1d", "x.tanh() rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-tanh-f32-cpu-2d", "x.tanh() rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-relu-f32-cpu-1d", "torch.relu(x) / F.relu(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-relu-f32-cpu-2d", "torch.relu(x) / F.relu(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-sigmoid-f32-cpu-1d", "torch.sigmoid(x) / F.sigmoid(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-sigmoid-f32-cpu-2d", "torch.sigmoid(x) / F.sigmoid(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-tanh-f32-cpu-1d", "torch.tanh(x) / F.tanh(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-tanh-f32-cpu-2d", "torch.tanh(x) / F.tanh(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-matmul-f32-cpu-2d", "a @ b ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-maximum-f32-cpu", "torch.maximum(a, b) / a.maximum(b), torch.max(a, b) / a.max(b) of two tensors, ranks 1 or 2 (broadcast as +)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-minimum-f32-cpu", "torch.minimum(a, b) / a.minimum(b), torch.min(a, b) / a.min(b) of two tensors, ranks 1 or 2 (broadcast as +)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-matmul-call-f32-cpu-2d", "torch.matmul(a, b) / a.matmul(b) ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mm-f32-cpu-2d", "torch.mm(a, b) / a.mm(b) ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-matmul-bt-f32-cpu-2d", "a @ b.T, torch.matmul / torch.mm(a, b.T), a.matmul / a.mm(b.T) ranks 2,2; also b.t()", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-matmul-vec-f32-cpu", "a @ b, torch.matmul(a, b) / a.matmul(b) ranks 1,2 and 2,1 (a rank-1 result)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-matmul-vec-bt-f32-cpu", "v @ b.T, torch.matmul(v, b.T), v.matmul(b.T) ranks 1,2; also b.t()", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-add-f32-cpu-same-rank", "a + b ranks 1+1, 2+2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-add-f32-cpu-2d-1d-broadcast", "a + b ranks 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sub-f32-cpu", "a - b ranks 1-1, 2-2, 2-1, 1-2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mul-f32-cpu", "a * b ranks 1*1, 2*2, 2*1, 1*2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-div-f32-cpu", "a / b ranks 1/1, 2/2, 2/1, 1/2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-add-scalar-f32-cpu", "a + s, s + a; s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sub-scalar-f32-cpu", "a - s, s - a; s an int or float (eager refuses a bool)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mul-scalar-f32-cpu", "a * s, s * a; s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-div-scalar-f32-cpu", "a / s, s / a (as a.reciprocal() * s); s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mean-dim0-f32-cpu-2d", "x.mean(dim=0) / x.mean(0) / torch.mean(x, dim=0) rank 2; dim 0 or -2, keepdim=False if given", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sum-dim0-f32-cpu-2d", "x.sum(dim=0) / x.sum(0) / torch.sum(x, dim=0) rank 2; dim 0 or -2, keepdim=False if given", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mean-dim1-f32-cpu-2d", "x.mean(dim=1) / x.mean(1) / torch.mean(x, dim=1) rank 2; dim 1 or -1, keepdim=False if given", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sum-dim1-f32-cpu-2d", "x.sum(dim=1) / x.sum(1) / torch.sum(x, dim=1) rank 2; dim 1 or -1, keepdim=False if given", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mean-dim1-keepdim-f32-cpu-2d", "x.mean(dim=1, keepdim=True) / x.mean(-1, True) / torch.mean(x, 1, keepdim=True) rank 2: an [M, 1] result", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sum-dim1-keepdim-f32-cpu-2d", "x.sum(dim=1, keepdim=True) / torch.sum(x, -1, True) rank 2: an [M, 1] result", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-mean-dim0-keepdim-f32-cpu-2d", "x.mean(dim=0, keepdim=True) / torch.mean(x, 0, keepdim=True) rank 2: a [1, N] result", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sum-dim0-keepdim-f32-cpu-2d", "x.sum(dim=0, keepdim=True) / torch.sum(x, -2, True) rank 2: a [1, N] result", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-neg-f32-cpu-1d", "-x, x.neg(), torch.neg(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-neg-f32-cpu-2d", "-x, x.neg(), torch.neg(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-abs-f32-cpu-1d", "x.abs(), torch.abs(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-abs-f32-cpu-2d", "x.abs(), torch.abs(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sqrt-f32-cpu-1d", "x.sqrt(), torch.sqrt(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-sqrt-f32-cpu-2d", "x.sqrt(), torch.sqrt(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-square-f32-cpu-1d", "x.square(), torch.square(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-square-f32-cpu-2d", "x.square(), torch.square(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-pow-two-f32-cpu-1d", "x ** 2, x.pow(2), torch.pow(x, 2) rank 1, the exponent the literal 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-pow-two-f32-cpu-2d", "x ** 2, x.pow(2), torch.pow(x, 2) rank 2, the exponent the literal 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-exp-f32-cpu-1d", "x.exp(), torch.exp(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-exp-f32-cpu-2d", "x.exp(), torch.exp(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-log-f32-cpu-1d", "x.log(), torch.log(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-log-f32-cpu-2d", "x.log(), torch.log(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-rsqrt-f32-cpu-1d", "x.rsqrt(), torch.rsqrt(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-rsqrt-f32-cpu-2d", "x.rsqrt(), torch.rsqrt(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-relu6-f32-cpu-1d", "F.relu6(x) rank 1 (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-relu6-f32-cpu-2d", "F.relu6(x) rank 2 (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-hardtanh-f32-cpu-1d", "F.hardtanh(x) rank 1, default bounds (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-hardtanh-f32-cpu-2d", "F.hardtanh(x) rank 2, default bounds (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-clamp-f32-cpu-1d", "torch.clamp / torch.clip / x.clamp / x.clip(x, min, max), clamp_min, clamp_max rank 1; bounds int, float, bool or None", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-clamp-f32-cpu-2d", "torch.clamp / torch.clip / x.clamp / x.clip(x, min, max), clamp_min, clamp_max rank 2; bounds int, float, bool or None", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-hardtanh-bounds-f32-cpu-1d", "F.hardtanh(x, min_val, max_val) rank 1, both bounds an int, float or bool (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-hardtanh-bounds-f32-cpu-2d", "F.hardtanh(x, min_val, max_val) rank 2, both bounds an int, float or bool (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-normalize-f32-cpu-1d", "F.normalize(x[, p][, dim][, eps]) rank 1: p 2, dim 0 or -1 given, eps an int or float", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-normalize-f32-cpu-2d", "F.normalize(x[, p][, dim][, eps]) rank 2: p 2, dim 1 or -1 (the default), eps an int or float", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-layer-norm-f32-cpu-1d", "F.layer_norm(x, normalized_shape[, weight, bias, eps]) rank 1: weight and bias rank 1 or None, eps an int or float; a normalized_shape other than (N,) with N x's last dim runs eager's F.layer_norm", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-layer-norm-f32-cpu-2d", "F.layer_norm(x, normalized_shape[, weight, bias, eps]) rank 2: weight and bias rank 1 or None, eps an int or float; a normalized_shape other than (N,) with N x's last dim runs eager's F.layer_norm", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-leaky-relu-f32-cpu-1d", "F.leaky_relu(x[, negative_slope]) rank 1, the slope an int, float or bool (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-leaky-relu-f32-cpu-2d", "F.leaky_relu(x[, negative_slope]) rank 2, the slope an int, float or bool (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-gelu-f32-cpu-1d", "F.gelu(x) rank 1 (approximate='none' if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-gelu-f32-cpu-2d", "F.gelu(x) rank 2 (approximate='none' if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-gelu-tanh-f32-cpu-1d", "F.gelu(x, approximate='tanh') rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-gelu-tanh-f32-cpu-2d", "F.gelu(x, approximate='tanh') rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-silu-f32-cpu-1d", "F.silu(x) rank 1 (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/function-silu-f32-cpu-2d", "F.silu(x) rank 2 (inplace=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/softmax-f32-cpu-1d", "torch.softmax / F.softmax(x, dim) / x.softmax(dim) rank 1, dim 0 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/softmax-f32-cpu-2d", "torch.softmax / F.softmax(x, dim) / x.softmax(dim) rank 2, dim 1 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/log-softmax-f32-cpu-1d", "torch.log_softmax / F.log_softmax(x, dim) / x.log_softmax(dim) rank 1, dim 0 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/log-softmax-f32-cpu-2d", "torch.log_softmax / F.log_softmax(x, dim) / x.log_softmax(dim) rank 2, dim 1 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-size-f32-cpu-1d", "x.size(d) / x.size(dim=d) rank 1, d a literal 0 or -1: an int", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-size-f32-cpu-2d", "x.size(d) / x.size(dim=d) rank 2, d a literal in -2..1: an int", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-ndim-f32-cpu-1d", "x.dim() / x.ndimension() rank 1: the int 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-ndim-f32-cpu-2d", "x.dim() / x.ndimension() rank 2: the int 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-numel-f32-cpu-1d", "x.numel() / x.nelement() rank 1: an int", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-numel-f32-cpu-2d", "x.numel() / x.nelement() rank 2: an int", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/cat-f32-cpu-1d", "torch.cat / torch.concat / torch.concatenate([a, b, ...][, dim]) rank 1: a list or tuple display of 1-16 tensors, dim a literal 0 or -1 (positional, dim= or axis=)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/cat-f32-cpu-2d", "torch.cat / torch.concat / torch.concatenate([a, b, ...][, dim]) rank 2: a list or tuple display of 1-16 tensors, dim a literal in -2..1 (positional, dim= or axis=)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/stack-f32-cpu-1d", "torch.stack([a, b, ...][, dim]) of rank-1 tensors: a list or tuple display of 1-16 tensors, dim a literal in -2..1 (positional, dim= or axis=): a rank-2 result", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/linear-other-forms", "linear with other ranks or keywords", "rejected", KL_KILN_TORCH_001, true},
    {"kiln-torch/activation-with-arguments", ".relu/.sigmoid/.tanh, torch.relu/F.relu/... with arguments", "rejected", KL_KILN_TORCH_002, true},
    {"kiln-torch/matmul-other-ranks", "matmul forms with ranks 1,1 (a 0-d result) or keywords", "rejected", KL_KILN_TORCH_003, true},
    {"kiln-torch/reduction-other-forms", ".mean/.sum, torch.mean/torch.sum over no dim, a tuple or a dim not literal, keepdim not a literal, dtype= or not rank 2", "rejected", KL_KILN_TORCH_005, true},
    {"kiln-torch/tensor-view-f32-cpu-1d", "x.view(n) / x.view((n,)) to rank 1 (of rank 1 or 2; n an int, -1 inferred): a new tensor; eager's RuntimeError where no view of x's strides exists", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-view-f32-cpu-2d", "x.view(a, b) / x.view((a, b)) to rank 2 (of rank 1 or 2; ints, one may be -1): a new tensor; eager's RuntimeError where no view of x's strides exists", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-reshape-f32-cpu-1d", "x.reshape(n), x.reshape((n,)), torch.reshape(x, (n,)) to rank 1 (of rank 1 or 2; n an int, -1 inferred)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-reshape-f32-cpu-2d", "x.reshape(a, b), x.reshape((a, b)), torch.reshape(x, (a, b)) to rank 2 (of rank 1 or 2; ints, one may be -1)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-flatten-f32-cpu-2d", "x.flatten() / torch.flatten(x) of rank 2 (start_dim 0, end_dim 1 or -1 if given, literals): rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-flatten-same-f32-cpu", "x.flatten() of rank 1, x.flatten(1) of rank 2 (start_dim == end_dim, literals): x itself, as eager returns it", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-squeeze-f32-cpu-2d", "x.squeeze(d) / torch.squeeze(x, d) of rank 2, d a literal in -2..1 (positional or dim=): rank 1; RuntimeError when dim d is not of size 1 (eager would keep the rank-2 tensor)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-unsqueeze-f32-cpu-1d", "x.unsqueeze(d) / torch.unsqueeze(x, d) of rank 1, d a literal in -2..1 (positional or dim=): rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/index-f32-cpu-1d", "x[i] / x[i, a:b] / x[:, j] of a matrix, v[a:b] of a vector: ints and slices (int or None bounds, a positive literal step) giving rank 1; eager's IndexError for an int out of range; a new tensor", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/index-f32-cpu-2d", "x[a:b] / x[a:b, c:d] / x[:, a:b] of a matrix: slices (int or None bounds, a positive literal step); a new tensor", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/index-other-forms", "indexing a kiln-torch tensor with a result of rank 0 (v[i], x[i, j]), None, ..., a bool, a tensor or a list, a step not a positive literal, or bounds that are not ints", "rejected", KL_KILN_TORCH_009, true},
    {"kiln-torch/tensor-contiguous-f32-cpu", "x.contiguous() (no arguments): x itself when row-major, as eager's, else a row-major copy", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-clone-f32-cpu", "x.clone() (no arguments): a copy, with x's strides when x is dense (eager's preserve_format)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-detach-f32-cpu", "x.detach() (no arguments): a copy laid out as x (eager's is a view of x)", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/tensor-same-f32-cpu", "x.float(), x.cpu() (no arguments) of a float32 CPU tensor: x itself, as eager returns it", "claimed", KL_NUM_CODES, true},
    {"kiln-torch/shape-other-forms", "view / reshape / flatten / squeeze / unsqueeze of a kiln-torch tensor with a result of another rank, sizes not ints, a dim not literal or out of range, x.squeeze() without a dim, or a dtype; contiguous / clone / detach / float / cpu with arguments", "rejected", KL_KILN_TORCH_008, true},
    {"kiln-torch/cat-other-forms", "torch.cat / torch.stack of a display holding a kiln-torch tensor beside other values or ranks, of more than 16 tensors, with a dim not literal or out of range, or out=", "rejected", KL_KILN_TORCH_007, true},
    {"kiln-torch/softmax-other-forms", "softmax / log_softmax over another dim, a dim not literal, or with dtype= / other arguments", "rejected", KL_KILN_TORCH_006, true},
    {"kiln-torch/other-torch-calls", "any other torch call or tensor method", "not-covered", KL_NUM_CODES, true},
    {NULL, NULL, NULL, KL_NUM_CODES, false},
};

const KlPlugin kl_plugin_torch = {
    .api_version = KL_PLUGIN_API_VERSION,
    .name = "torch",
    .framework = "torch",
    .types = torch_types,
    .coverage = torch_coverage,
    .claim = torch_claim,
    .lower = torch_lower,
    .rules = torch_rules,
    .transposed_operands = true,
};
