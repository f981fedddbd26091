/* plugins/tensorflow.c — the TensorFlow surface: tf.matmul / tf.linalg.matmul
 * (and @), tf.nn.relu, tf.nn.leaky_relu, tf.nn.sigmoid, tf.nn.tanh, tf.negative (and -x), tf.abs, tf.sqrt,
 * tf.square, tf.exp, tf.math.log, tf.math.rsqrt, tf.nn.silu, tf.nn.relu6, tf.nn.gelu, tf.nn.softmax / log_softmax over the last axis,
 * tf.nn.bias_add, tf.concat and tf.stack of tensors written out in the call, tf.reshape / tf.squeeze / tf.expand_dims
 * to rank 1 or 2, indexing with ints and slices, tf.maximum / tf.minimum (two tensors, or a tensor and a
 * number), tf.clip_by_value with number bounds, tf.add / tf.subtract /
 * tf.multiply / tf.divide between tensors, the operators + - * / between
 * tensors or a tensor and an int/float/bool, and
 * tf.reduce_mean(x, axis=1) (keepdims or not) on float32 CPU:0 EagerTensors of rank 1 and 2.
 * Covered symbols with other shapes or keywords are rejected; other
 * TensorFlow calls are not covered. Both run on eager TensorFlow. */
#include "plugin_util.h"

enum { T1, T2 };

static const KlTypeDecl tf_types[] = {
    {"kiln.tensorflow.TensorF32Cpu1D", "kiln-tensorflow/tensor-f32-cpu-1d", 1},
    {"kiln.tensorflow.TensorF32Cpu2D", "kiln-tensorflow/tensor-f32-cpu-2d", 2},
    {NULL, NULL, 0},
};

static const char *const tf_coverage[] = {"tensorflow", NULL};

static bool is_any(const char *target, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (pu_eq(target, names[i])) return true;
  return false;
}

static const char *const matmul_names[] = {"tensorflow.matmul", "tensorflow.linalg.matmul", NULL};
static const char *const relu_names[] = {"tensorflow.nn.relu", NULL};
static const char *const leaky_relu_names[] = {"tensorflow.nn.leaky_relu", NULL};
static const char *const sigmoid_names[] = {"tensorflow.nn.sigmoid", "tensorflow.sigmoid", "tensorflow.math.sigmoid", NULL};
static const char *const add_names[] = {"tensorflow.add", "tensorflow.math.add", NULL};
static const char *const bias_add_names[] = {"tensorflow.nn.bias_add", NULL};
static const char *const sub_names[] = {"tensorflow.subtract", "tensorflow.math.subtract", NULL};
static const char *const mul_names[] = {"tensorflow.multiply", "tensorflow.math.multiply", NULL};
static const char *const div_names[] = {"tensorflow.divide", "tensorflow.math.divide", "tensorflow.truediv",
                                        "tensorflow.math.truediv", NULL};
static const char *const neg_names[] = {"tensorflow.negative", "tensorflow.math.negative", NULL};
static const char *const maximum_names[] = {"tensorflow.maximum", "tensorflow.math.maximum", NULL};
static const char *const minimum_names[] = {"tensorflow.minimum", "tensorflow.math.minimum", NULL};
static const char *const clip_names[] = {"tensorflow.clip_by_value", NULL};
static const char *const concat_names[] = {"tensorflow.concat", NULL};
static const char *const concat_axis_names[] = {"axis", NULL}; /* tf.stack's too */
static const char *const stack_names[] = {"tensorflow.stack", NULL};
static const char *const tanh_names[] = {"tensorflow.nn.tanh", "tensorflow.tanh", "tensorflow.math.tanh", NULL};
static const char *const abs_names[] = {"tensorflow.abs", "tensorflow.math.abs", NULL};
static const char *const sqrt_names[] = {"tensorflow.sqrt", "tensorflow.math.sqrt", NULL};
static const char *const square_names[] = {"tensorflow.square", "tensorflow.math.square", NULL};
static const char *const exp_names[] = {"tensorflow.exp", "tensorflow.math.exp", NULL};
static const char *const log_names[] = {"tensorflow.math.log", NULL};
static const char *const silu_names[] = {"tensorflow.nn.silu", "tensorflow.nn.swish", NULL};
static const char *const relu6_names[] = {"tensorflow.nn.relu6", NULL};
static const char *const rsqrt_names[] = {"tensorflow.math.rsqrt", NULL};
static const char *const gelu_names[] = {"tensorflow.nn.gelu", NULL};
static const char *const softmax_names[] = {"tensorflow.nn.softmax", "tensorflow.math.softmax", NULL};
static const char *const log_softmax_names[] = {"tensorflow.nn.log_softmax", "tensorflow.math.log_softmax", NULL};

/* tf.nn.softmax(x[, axis]) / log_softmax: axis positional or by name, None
 * or a literal naming x's last dim; nothing else (no name=). */
static bool softmax_axis_ok(const KlSite *s, int rank) {
  const KlSiteKeyword *k = pu_kw(s, "axis");
  KlLitKind lit;
  int64_t v;
  if (s->nargs == 1 && s->nkw == 0) return true;
  if (s->nargs == 2 && s->nkw == 0) lit = s->arg_lit[1], v = s->arg_ival[1];
  else if (s->nargs == 1 && s->nkw == 1 && k) lit = k->lit, v = k->ival;
  else return false;
  return lit == KL_LIT_NONE || (lit == KL_LIT_INT && (v == -1 || v == rank - 1));
}
static const char *const mean_names[] = {"tensorflow.reduce_mean", "tensorflow.math.reduce_mean", NULL};
static const char *const sum_names[] = {"tensorflow.reduce_sum", "tensorflow.math.reduce_sum", NULL};

/* tf.matmul's keywords: transpose_a the literal False and transpose_b a
 * literal bool, each optional, nothing else; *bt: transpose_b is True. */
static bool matmul_keywords_ok(const KlSite *s, bool *bt) {
  const KlSiteKeyword *ta = pu_kw(s, "transpose_a"), *tb = pu_kw(s, "transpose_b");
  *bt = tb && tb->lit == KL_LIT_BOOL && tb->ival != 0;
  return s->nkw == (ta != NULL) + (tb != NULL) && (!ta || pu_lit_false(ta)) && (!tb || tb->lit == KL_LIT_BOOL);
}

/* Operands outside the vocabulary: untyped (object) stays not covered,
 * anything typed otherwise (scalars, other frameworks' tensors) is rejected. */
static bool untyped_operands(const KlSite *s, const KlType *tids) {
  for (int i = 0; i < s->nargs; i++)
    if (!pu_rank(s->args[i], tids) && s->args[i] != KL_T_OBJECT) return false;
  return !pu_any_ours(s, tids); /* tf.matmul(a=x, b=w) too: operands by keyword */
}

static bool add_ranks_ok(int a, int b) { return a && b; }

/* tf.nn.leaky_relu(x[, alpha]): alpha positional or by name, an int, float
 * or bool (absent: TF's 0.2); nothing else. Returns alpha's operand index
 * (-1: absent) in *alpha, or false. */
static bool leaky_relu_alpha(const KlSite *s, const KlType *tids, int *alpha) {
  const KlSiteKeyword *ka = pu_kw(s, "alpha");
  if (s->nargs < 1 || s->nargs > 2 || !pu_rank(s->args[0], tids) || s->nkw != (ka != NULL) || (ka && s->nargs == 2))
    return false;
  *alpha = -1;
  if (s->nargs == 2) {
    if (!pu_scalar(s->args[1])) return false;
    *alpha = 1;
  } else if (ka) {
    if (!pu_scalar(ka->type)) return false;
    *alpha = s->nargs; /* the first keyword's value */
  }
  return true;
}

/* tf.reshape(x, [a, b]) (pu_reshape_rank: a display of 1 or 2 ints),
 * tf.squeeze(x, axis) of rank 2 (the axis' size must be 1) and
 * tf.expand_dims(x, axis) of rank 1, the axis a literal int, positional or
 * axis=. The rule (NULL: a form left to eager) and the lowering, or false
 * when s is none of them on a kiln tensor. */
static bool shape_form(const KlSite *s, const KlType *tids, const char **rule, KlLowered *out) {
  static const char *const axis_names[] = {"axis", NULL};
  if (s->kind != KL_SK_CALL) return false;
  bool reshape = pu_eq(s->target, "tensorflow.reshape"), squeeze = pu_eq(s->target, "tensorflow.squeeze");
  if (!reshape && !squeeze && !pu_eq(s->target, "tensorflow.expand_dims")) return false;
  if (!pu_any_ours(s, tids)) return false;
  *rule = NULL;
  int rank = s->nargs >= 1 ? pu_rank(s->args[0], tids) : 0, d;
  bool seq;
  if (reshape) {
    int r = rank ? pu_reshape_rank(s, 1, true, "shape", &seq) : 0;
    if (r) {
      *rule = r == 1 ? "kiln-tensorflow/reshape-f32-cpu-1d" : "kiln-tensorflow/reshape-f32-cpu-2d";
      *out = pu_lower_reshape(r, KL_RESHAPE_SEQ, tids[r - 1]);
    }
  } else if (rank == (squeeze ? 2 : 1) && pu_one_dim(s, 1, axis_names, 2, &d)) {
    *rule = squeeze ? "kiln-tensorflow/squeeze-f32-cpu-2d" : "kiln-tensorflow/expand-dims-f32-cpu-1d";
    *out = (KlLowered){.op = squeeze ? KL_TOP_SQUEEZE : KL_TOP_UNSQUEEZE, .operands = {0}, .noperands = 1,
                       .result = tids[squeeze ? T1 : T2], .ival = d};
  }
  return true;
}

static KlClaim tf_claim(const KlSite *s, const KlType *tids) {
  if (s->has_star_args) return pu_not_covered();
  if (s->kind == KL_SK_UNARYOP) {
    int r = pu_rank(s->args[0], tids);
    if (!r || !pu_eq(s->target, "-")) return pu_not_covered();
    return pu_claimed(r == 1 ? "kiln-tensorflow/neg-f32-cpu-1d" : "kiln-tensorflow/neg-f32-cpu-2d", s->args[0]);
  }
  if (s->kind == KL_SK_BINOP) {
    int ra = pu_rank(s->args[0], tids), rb = pu_rank(s->args[1], tids);
    const char *arith = pu_arith_name(s->target);
    if (arith && ((ra && !rb && pu_scalar(s->args[1])) || (rb && !ra && pu_scalar(s->args[0])))) {
      static const char *const rules[] = {"kiln-tensorflow/add-scalar-binop-f32-cpu", "kiln-tensorflow/sub-scalar-binop-f32-cpu",
                                          "kiln-tensorflow/mul-scalar-binop-f32-cpu", "kiln-tensorflow/div-scalar-binop-f32-cpu"};
      int k = arith[0] == 'a' ? 0 : arith[0] == 's' ? 1 : arith[0] == 'm' ? 2 : 3;
      return pu_claimed(rules[k], ra ? s->args[0] : s->args[1]);
    }
    if (!ra || !rb) return pu_not_covered();
    if (pu_eq(s->target, "+")) return pu_claimed("kiln-tensorflow/add-binop-f32-cpu", ra >= rb ? s->args[0] : s->args[1]);
    if (arith) { /* - * / */
      static const char *const rules[] = {"kiln-tensorflow/sub-binop-f32-cpu", "kiln-tensorflow/mul-binop-f32-cpu",
                                          "kiln-tensorflow/div-binop-f32-cpu"};
      return pu_claimed(rules[arith[0] == 's' ? 0 : arith[0] == 'm' ? 1 : 2], ra >= rb ? s->args[0] : s->args[1]);
    }
    if (pu_eq(s->target, "@")) {
      if (ra == 2 && rb == 2) return pu_claimed("kiln-tensorflow/matmul-binop-f32-cpu-2d", tids[T2]);
      return pu_rejected(KL_KILN_TF_001, "@ is native only for two rank-2 tensors; write `a @ b` with a and b both TensorF32Cpu2D");
    }
    return pu_not_covered();
  }
  if (s->kind == KL_SK_SUBSCRIPT) {
    if (!pu_rank(s->receiver, tids)) return pu_not_covered();
    int r = pu_index_rank(s, tids);
    if (r) return pu_claimed(r == 1 ? "kiln-tensorflow/index-f32-cpu-1d" : "kiln-tensorflow/index-f32-cpu-2d", tids[r - 1]);
    return pu_rejected(KL_KILN_TF_009, "indexing is native only with ints and slices giving a rank-1 or rank-2 tensor; write `x[i]` or `x[:, j]` of a matrix, `x[a:b]`, `x[:, a:b]` or `v[a:b]` (ints or None as bounds, a positive literal step; no tf.newaxis / ... / tensor indexes, and `v[i]` of a vector is a scalar tensor)");
  }
  if (s->kind != KL_SK_CALL || !s->target) return pu_not_covered();
  const char *t = s->target;
  if (is_any(t, maximum_names) || is_any(t, minimum_names)) { /* two tensors, or a tensor and an int, float or bool */
    bool max = is_any(t, maximum_names);
    int ra = s->nargs == 2 ? pu_rank(s->args[0], tids) : 0, rb = s->nargs == 2 ? pu_rank(s->args[1], tids) : 0;
    if (s->nkw == 0 && ra && rb)
      return pu_claimed(max ? "kiln-tensorflow/maximum-f32-cpu" : "kiln-tensorflow/minimum-f32-cpu",
                        ra >= rb ? s->args[0] : s->args[1]);
    if (s->nkw == 0 && ((ra && !rb && pu_scalar(s->args[1])) || (rb && !ra && pu_scalar(s->args[0]))))
      return pu_claimed(max ? "kiln-tensorflow/maximum-scalar-f32-cpu" : "kiln-tensorflow/minimum-scalar-f32-cpu",
                        ra ? s->args[0] : s->args[1]);
    if (untyped_operands(s, tids)) return pu_not_covered();
    if (s->nkw == 0 && s->nargs == 2) /* another framework's tensor, or two numbers */
      return pu_rejected(KL_KILN_TF_010, "an operand of tf.maximum / tf.minimum is neither a kiln-tensorflow tensor nor, beside one, an int, float or bool; pass TensorF32Cpu1D/TensorF32Cpu2D operands (one of them may be a number)");
    return pu_rejected(KL_KILN_TF_003, "tf.maximum / tf.minimum are native only for two tensors, or a tensor and an int, float or bool, without keywords; write `tf.maximum(x, 0.0)` or `tf.minimum(a, b)` with ranks 1+1, 2+2, 2+1 or 1+2");
  }
  {
    const char *rule;
    KlLowered l;
    if (shape_form(s, tids, &rule, &l)) {
      if (rule) return pu_claimed(rule, l.result);
      return pu_rejected(KL_KILN_TF_008, "tf.reshape / tf.squeeze / tf.expand_dims are native only for a rank-1 or rank-2 result; write `tf.reshape(x, [-1])` or `tf.reshape(x, (a, b))` (a list or tuple of 1 or 2 ints written in the call), `tf.squeeze(x, 1)` of a matrix or `tf.expand_dims(x, 0)` of a vector (the axis a literal int; no name=)");
    }
  }
  if (is_any(t, concat_names)) { /* tf.concat(values, axis): values a display, axis a literal */
    int rank;
    if (pu_join_dim(s, tids, concat_axis_names, false, false, &rank) >= 0)
      return pu_claimed(rank == 1 ? "kiln-tensorflow/concat-f32-cpu-1d" : "kiln-tensorflow/concat-f32-cpu-2d", tids[rank - 1]);
    if (!pu_join_ours(s, tids)) return pu_not_covered();
    return pu_rejected(KL_KILN_TF_007, "tf.concat is native only for a list or tuple display of 1 to 16 tensors of one rank and a literal axis; write `tf.concat([a, b], 1)` or `tf.concat((a, b), axis=-1)` (each tensor a kiln value written out in the call, all rank 1 or all rank 2; no name=)");
  }
  if (is_any(t, stack_names)) { /* tf.stack(values[, axis]) of rank-1 tensors */
    int rank;
    if (pu_join_dim(s, tids, concat_axis_names, true, true, &rank) >= 0)
      return pu_claimed("kiln-tensorflow/stack-f32-cpu-1d", tids[T2]);
    if (!pu_join_ours(s, tids)) return pu_not_covered();
    return pu_rejected(KL_KILN_TF_007, "tf.stack is native only for a list or tuple display of 1 to 16 rank-1 tensors and a literal axis; write `tf.stack([a, b])` or `tf.stack((a, b), axis=1)` (each tensor a kiln value written out in the call, all rank 1; no name=)");
  }
  if (is_any(t, clip_names)) { /* tf.clip_by_value(t, lo, hi): both bounds numbers, positional */
    int r = s->nargs == 3 ? pu_rank(s->args[0], tids) : 0;
    if (r && s->nkw == 0 && pu_scalar(s->args[1]) && pu_scalar(s->args[2]))
      return pu_claimed(r == 1 ? "kiln-tensorflow/clip-by-value-f32-cpu-1d" : "kiln-tensorflow/clip-by-value-f32-cpu-2d",
                        s->args[0]);
    if (untyped_operands(s, tids)) return pu_not_covered();
    return pu_rejected(KL_KILN_TF_003, "tf.clip_by_value is native only for a tensor and two numbers, positional; write `tf.clip_by_value(x, -1.0, 1.0)` with x rank 1 or 2 and each bound an int, float or bool (no tensor bounds, no name=)");
  }
  bool arith = is_any(t, sub_names) || is_any(t, mul_names) || is_any(t, div_names);
  const char *math = is_any(t, abs_names) ? "abs" : is_any(t, sqrt_names) ? "sqrt"
                   : is_any(t, square_names) ? "square" : is_any(t, exp_names) ? "exp"
                   : is_any(t, log_names) ? "log" : is_any(t, silu_names) ? "silu"
                   : is_any(t, relu6_names) ? "relu6" : is_any(t, rsqrt_names) ? "rsqrt" : NULL;
  bool known = math || is_any(t, matmul_names) || is_any(t, relu_names) || is_any(t, sigmoid_names) ||
               is_any(t, tanh_names) || is_any(t, neg_names) || is_any(t, add_names) || is_any(t, mean_names) ||
               is_any(t, sum_names) || is_any(t, bias_add_names) || is_any(t, leaky_relu_names) ||
               is_any(t, gelu_names) || is_any(t, softmax_names) || is_any(t, log_softmax_names) || arith;
  if (!known) return pu_not_covered();
  if (untyped_operands(s, tids)) return pu_not_covered();
  /* the tensor operands only: an extra argument (`tf.nn.relu(x, "name")`)
   * gets the op's own message below */
  const int operands = is_any(t, matmul_names) || is_any(t, add_names) || is_any(t, bias_add_names) || arith ? 2 : 1;
  for (int i = 0; i < s->nargs && i < operands; i++)
    if (!pu_rank(s->args[i], tids))
      return pu_rejected(KL_KILN_TF_010, "an operand is not a kiln-tensorflow tensor (a Python scalar or another framework's tensor); pass only TensorF32Cpu1D/TensorF32Cpu2D operands");
  if (is_any(t, matmul_names)) {
    bool bt;
    if (s->nargs == 2 && matmul_keywords_ok(s, &bt) && pu_rank(s->args[0], tids) == 2 && pu_rank(s->args[1], tids) == 2)
      return pu_claimed(bt ? "kiln-tensorflow/matmul-transpose-b-f32-cpu-2d" : "kiln-tensorflow/matmul-f32-cpu-2d",
                        tids[T2]);
    return pu_rejected(KL_KILN_TF_001, "tf.matmul is native only for two rank-2 tensors; write `tf.matmul(a, b)` or `tf.matmul(a, b, transpose_b=True)` with a and b rank 2 (no transpose_a=True, no adjoint_*, no other keywords)");
  }
  if (is_any(t, neg_names)) {
    if (s->nargs == 1 && s->nkw == 0)
      return pu_claimed(pu_rank(s->args[0], tids) == 1 ? "kiln-tensorflow/neg-f32-cpu-1d" : "kiln-tensorflow/neg-f32-cpu-2d",
                        s->args[0]);
    return pu_rejected(KL_KILN_TF_005, "tf.negative is native only with one tensor; write `tf.negative(x)` or `-x` with x rank 1 or 2 and no keywords");
  }
  if (math) { /* tf.abs / tf.sqrt / tf.square / tf.exp, their tf.math names, tf.math.log, tf.nn.silu,
               * tf.nn.relu6, tf.math.rsqrt */
    static const char *const rules[8][2] = {
        {"kiln-tensorflow/abs-f32-cpu-1d", "kiln-tensorflow/abs-f32-cpu-2d"},
        {"kiln-tensorflow/sqrt-f32-cpu-1d", "kiln-tensorflow/sqrt-f32-cpu-2d"},
        {"kiln-tensorflow/square-f32-cpu-1d", "kiln-tensorflow/square-f32-cpu-2d"},
        {"kiln-tensorflow/exp-f32-cpu-1d", "kiln-tensorflow/exp-f32-cpu-2d"},
        {"kiln-tensorflow/log-f32-cpu-1d", "kiln-tensorflow/log-f32-cpu-2d"},
        {"kiln-tensorflow/silu-f32-cpu-1d", "kiln-tensorflow/silu-f32-cpu-2d"},
        {"kiln-tensorflow/relu6-f32-cpu-1d", "kiln-tensorflow/relu6-f32-cpu-2d"},
        {"kiln-tensorflow/rsqrt-f32-cpu-1d", "kiln-tensorflow/rsqrt-f32-cpu-2d"},
    };
    int k = math[0] == 'a' ? 0 : pu_eq(math, "sqrt") ? 1 : pu_eq(math, "square") ? 2 : math[0] == 'e' ? 3
          : math[0] == 'l' ? 4 : pu_eq(math, "silu") ? 5 : pu_eq(math, "relu6") ? 6 : 7;
    if (s->nargs == 1 && s->nkw == 0) return pu_claimed(rules[k][pu_rank(s->args[0], tids) - 1], s->args[0]);
    return pu_rejected(KL_KILN_TF_005, "tf.abs, tf.sqrt, tf.square, tf.exp, tf.math.log, tf.math.rsqrt, tf.nn.silu and tf.nn.relu6 are native only with one tensor; write `tf.exp(x)` with x rank 1 or 2 and no keywords (no beta= for silu)");
  }
  if (is_any(t, softmax_names) || is_any(t, log_softmax_names)) {
    static const char *const rules[2][2] = {
        {"kiln-tensorflow/softmax-f32-cpu-1d", "kiln-tensorflow/softmax-f32-cpu-2d"},
        {"kiln-tensorflow/log-softmax-f32-cpu-1d", "kiln-tensorflow/log-softmax-f32-cpu-2d"}};
    int rank = pu_rank(s->args[0], tids);
    if (softmax_axis_ok(s, rank)) return pu_claimed(rules[is_any(t, log_softmax_names)][rank - 1], s->args[0]);
    return pu_rejected(KL_KILN_TF_005, "tf.nn.softmax and tf.nn.log_softmax are native only over the last axis; write `tf.nn.softmax(x)` or `tf.nn.softmax(x, axis=-1)` with x rank 1 or 2 (the axis a literal, no name=)");
  }
  if (is_any(t, gelu_names)) { /* tf.nn.gelu(x[, approximate]): approximate a literal bool */
    const KlSiteKeyword *k = pu_kw(s, "approximate");
    bool ok = (s->nargs == 1 && s->nkw == 0) || (s->nargs == 2 && s->nkw == 0 && s->arg_lit[1] == KL_LIT_BOOL) ||
              (s->nargs == 1 && s->nkw == 1 && k && k->lit == KL_LIT_BOOL);
    bool tanh = s->nargs == 2 ? s->arg_ival[1] != 0 : k && k->ival != 0;
    static const char *const rules[2][2] = {{"kiln-tensorflow/gelu-f32-cpu-1d", "kiln-tensorflow/gelu-f32-cpu-2d"},
                                            {"kiln-tensorflow/gelu-tanh-f32-cpu-1d", "kiln-tensorflow/gelu-tanh-f32-cpu-2d"}};
    if (ok) return pu_claimed(rules[tanh][pu_rank(s->args[0], tids) - 1], s->args[0]);
    return pu_rejected(KL_KILN_TF_005, "tf.nn.gelu is native only with one tensor and approximate a literal True or False; write `tf.nn.gelu(x)` or `tf.nn.gelu(x, approximate=True)` with x rank 1 or 2 (no name=)");
  }
  if (is_any(t, tanh_names)) {
    if (s->nargs == 1 && s->nkw == 0)
      return pu_claimed(pu_rank(s->args[0], tids) == 1 ? "kiln-tensorflow/tanh-f32-cpu-1d" : "kiln-tensorflow/tanh-f32-cpu-2d",
                        s->args[0]);
    return pu_rejected(KL_KILN_TF_005, "tf.nn.tanh is native only with one tensor; write `tf.nn.tanh(x)` with x rank 1 or 2 and no keywords");
  }
  if (arith) {
    int ra = s->nargs == 2 ? pu_rank(s->args[0], tids) : 0, rb = s->nargs == 2 ? pu_rank(s->args[1], tids) : 0;
    const char *rule = is_any(t, sub_names) ? "kiln-tensorflow/subtract-call-f32-cpu"
                       : is_any(t, mul_names) ? "kiln-tensorflow/multiply-call-f32-cpu" : "kiln-tensorflow/divide-call-f32-cpu";
    if (s->nkw == 0 && ra && rb) return pu_claimed(rule, ra >= rb ? s->args[0] : s->args[1]);
    return pu_rejected(KL_KILN_TF_003, "tf.subtract / tf.multiply / tf.divide are native only for two tensors without keywords; write `tf.multiply(a, b)` with ranks 1+1, 2+2, 2+1 or 1+2");
  }
  if (is_any(t, relu_names) || is_any(t, sigmoid_names)) {
    bool relu = is_any(t, relu_names);
    if (s->nargs == 1 && s->nkw == 0) {
      int r = pu_rank(s->args[0], tids);
      static const char *const rules[2][2] = {
          {"kiln-tensorflow/relu-f32-cpu-1d", "kiln-tensorflow/relu-f32-cpu-2d"},
          {"kiln-tensorflow/sigmoid-f32-cpu-1d", "kiln-tensorflow/sigmoid-f32-cpu-2d"},
      };
      return pu_claimed(rules[relu ? 0 : 1][r - 1], s->args[0]);
    }
    return relu ? pu_rejected(KL_KILN_TF_002, "tf.nn.relu is native only with one tensor; write `tf.nn.relu(x)` with x rank 1 or 2 and no keywords")
                : pu_rejected(KL_KILN_TF_005, "tf.nn.sigmoid is native only with one tensor; write `tf.nn.sigmoid(x)` with x rank 1 or 2 and no keywords");
  }
  if (is_any(t, leaky_relu_names)) {
    int alpha;
    if (leaky_relu_alpha(s, tids, &alpha)) {
      static const char *const rules[2] = {"kiln-tensorflow/leaky-relu-f32-cpu-1d", "kiln-tensorflow/leaky-relu-f32-cpu-2d"};
      return pu_claimed(rules[pu_rank(s->args[0], tids) - 1], s->args[0]);
    }
    return pu_rejected(KL_KILN_TF_002, "tf.nn.leaky_relu is native only with one tensor and an int, float or bool alpha; write `tf.nn.leaky_relu(x)` or `tf.nn.leaky_relu(x, alpha=0.1)` with x rank 1 or 2 (no name=)");
  }
  if (is_any(t, bias_add_names)) { /* x + b, the row added to every row (TF's add, NaNs included) */
    if (s->nargs == 2 && s->nkw == 0 && pu_rank(s->args[0], tids) == 2 && pu_rank(s->args[1], tids) == 1)
      return pu_claimed("kiln-tensorflow/bias-add-f32-cpu-2d", tids[T2]);
    return pu_rejected(KL_KILN_TF_003, "tf.nn.bias_add is native only for a rank-2 tensor and a rank-1 bias without keywords; write `tf.nn.bias_add(x, b)`");
  }
  if (is_any(t, add_names)) {
    int ra = s->nargs == 2 ? pu_rank(s->args[0], tids) : 0, rb = s->nargs == 2 ? pu_rank(s->args[1], tids) : 0;
    if (s->nkw == 0 && add_ranks_ok(ra, rb))
      return pu_claimed("kiln-tensorflow/add-call-f32-cpu", ra >= rb ? s->args[0] : s->args[1]);
    return pu_rejected(KL_KILN_TF_003, "tf.add is native only for two tensors without keywords; write `tf.add(a, b)` with ranks 1+1, 2+2, 2+1 or 1+2");
  }
  /* reduce_mean / reduce_sum: rank 2, axis 1 or 0 (keyword or literal second positional; -1, -2 too),
   * keepdims absent or a literal bool (True: a rank-2 result) */
  {
    const KlSiteKeyword *axis = pu_kw(s, "axis"), *keep = pu_kw(s, "keepdims");
    bool axis_ok = false, ok = true;
    int ax = -1;
    for (int d = 0; d < 2 && !axis_ok; d++) {
      if (s->nargs == 2)
        axis_ok = !axis && s->arg_lit[1] == KL_LIT_INT && (s->arg_ival[1] == d || s->arg_ival[1] == d - 2);
      else
        axis_ok = s->nargs == 1 && (pu_lit_int(axis, d) || pu_lit_int(axis, d - 2));
      ax = d;
    }
    int expected_kw = (axis ? 1 : 0) + (keep ? 1 : 0);
    if (s->nkw != expected_kw) ok = false;
    if (keep && keep->lit != KL_LIT_BOOL) ok = false;
    bool sum = is_any(t, sum_names), kd = keep && keep->ival != 0;
    static const char *const rules[2][2][2] = {
        {{"kiln-tensorflow/reduce-mean-axis0-f32-cpu-2d", "kiln-tensorflow/reduce-mean-axis1-f32-cpu-2d"},
         {"kiln-tensorflow/reduce-mean-axis0-keepdims-f32-cpu-2d", "kiln-tensorflow/reduce-mean-axis1-keepdims-f32-cpu-2d"}},
        {{"kiln-tensorflow/reduce-sum-axis0-f32-cpu-2d", "kiln-tensorflow/reduce-sum-axis1-f32-cpu-2d"},
         {"kiln-tensorflow/reduce-sum-axis0-keepdims-f32-cpu-2d", "kiln-tensorflow/reduce-sum-axis1-keepdims-f32-cpu-2d"}}};
    if (ok && axis_ok && pu_rank(s->args[0], tids) == 2) return pu_claimed(rules[sum][kd][ax], tids[kd ? T2 : T1]);
    return pu_rejected(KL_KILN_TF_004, sum ? "tf.reduce_sum is native only on rank 2 over one axis; write `tf.reduce_sum(x, axis=1)`: `axis` must be a literal (1, 0, -1 or -2) and `keepdims`, if given, a literal bool"
                                           : "tf.reduce_mean is native only on rank 2 over one axis; write `tf.reduce_mean(x, axis=1)`: `axis` must be a literal (1, 0, -1 or -2) and `keepdims`, if given, a literal bool");
  }
}

static bool tf_lower(const KlSite *s, const KlClaim *c, const KlType *tids, KlLowered *out) {
  KlClaim again = tf_claim(s, tids);
  if (again.kind != KL_CLAIM_CLAIMED || !pu_eq(again.rule, c->rule) || again.result != c->result) return false;
  const char *r = c->rule;
  if (strstr(r, "/index-")) {
    if (!pu_index_rank(s, tids)) return false;
    *out = pu_op(KL_TOP_INDEX, 1, c->result);
    return true;
  }
  if (strstr(r, "/reshape-") || strstr(r, "/squeeze-") || strstr(r, "/expand-dims-")) {
    const char *rule;
    return shape_form(s, tids, &rule, out) && pu_eq(rule, r) && out->result == c->result;
  }
  if (strstr(r, "/concat-") || strstr(r, "/stack-")) { /* tf.concat's axis is required, tf.stack's 0 by default */
    bool stack = strstr(r, "/stack-") != NULL;
    if (!pu_lower_join(s, tids, concat_axis_names, stack, stack, c->result, out)) return false;
  } else if (strstr(r, "/matmul-transpose-b-")) *out = pu_op(KL_TOP_LINEAR, 2, c->result); /* a @ b.T */
  else if (strstr(r, "/bias-add-")) *out = pu_op(KL_TOP_BIAS_ADD, 2, c->result);
  else if (strstr(r, "/matmul-")) *out = pu_op(KL_TOP_MATMUL, 2, c->result);
  else if (strstr(r, "/add-")) *out = pu_op(KL_TOP_ADD, 2, c->result);
  else if (strstr(r, "/clip-by-value-"))
    *out = (KlLowered){.op = KL_TOP_CLIP_BY_VALUE, .operands = {0, 1, 2}, .noperands = 3, .result = c->result};
  else if (strstr(r, "/maximum-")) *out = pu_op(KL_TOP_MAXIMUM, 2, c->result);
  else if (strstr(r, "/minimum-")) *out = pu_op(KL_TOP_MINIMUM, 2, c->result);
  else if (strstr(r, "/sub-") || strstr(r, "/subtract-")) *out = pu_op(KL_TOP_SUB, 2, c->result);
  else if (strstr(r, "/mul-") || strstr(r, "/multiply-")) *out = pu_op(KL_TOP_MUL, 2, c->result);
  else if (strstr(r, "/div-") || strstr(r, "/divide-")) *out = pu_op(KL_TOP_DIV, 2, c->result);
  else if (strstr(r, "/tanh-")) *out = pu_op(KL_TOP_TANH, 1, c->result);
  else if (strstr(r, "/softmax-")) *out = pu_op(KL_TOP_SOFTMAX, 1, c->result);
  else if (strstr(r, "/log-softmax-")) *out = pu_op(KL_TOP_LOG_SOFTMAX, 1, c->result);
  else if (strstr(r, "/gelu-tanh-")) *out = pu_op(KL_TOP_GELU_TANH, 1, c->result);
  else if (strstr(r, "/gelu-")) *out = pu_op(KL_TOP_GELU, 1, c->result);
  else if (strstr(r, "/neg-")) *out = pu_op(KL_TOP_NEG, 1, c->result);
  else if (strstr(r, "/abs-")) *out = pu_op(KL_TOP_ABS, 1, c->result);
  else if (strstr(r, "/sqrt-")) *out = pu_op(KL_TOP_SQRT, 1, c->result);
  else if (strstr(r, "/square-")) *out = pu_op(KL_TOP_SQUARE, 1, c->result);
  else if (strstr(r, "/exp-")) *out = pu_op(KL_TOP_EXP, 1, c->result);
  else if (strstr(r, "/log-")) *out = pu_op(KL_TOP_LOG, 1, c->result);
  else if (strstr(r, "/silu-")) *out = pu_op(KL_TOP_SILU, 1, c->result);
  else if (strstr(r, "/relu6-")) *out = pu_op(KL_TOP_RELU6, 1, c->result); /* before /relu- */
  else if (strstr(r, "/rsqrt-")) *out = pu_op(KL_TOP_RSQRT, 1, c->result);
  else if (strstr(r, "/leaky-relu-")) {
    int alpha;
    if (!leaky_relu_alpha(s, tids, &alpha)) return false;
    *out = (KlLowered){.op = KL_TOP_LEAKY_RELU, .operands = {0, alpha}, .noperands = 2, .result = c->result};
  } else if (strstr(r, "/relu-")) *out = pu_op(KL_TOP_RELU, 1, c->result);
  else if (strstr(r, "/sigmoid-")) *out = pu_op(KL_TOP_SIGMOID, 1, c->result);
  else if (strstr(r, "/reduce-mean-axis0-")) *out = pu_op(KL_TOP_COLMEAN, 1, c->result);
  else if (strstr(r, "/reduce-sum-axis0-")) *out = pu_op(KL_TOP_COLSUM, 1, c->result);
  else if (strstr(r, "/reduce-mean-")) *out = pu_op(KL_TOP_ROWMEAN, 1, c->result);
  else if (strstr(r, "/reduce-sum-")) *out = pu_op(KL_TOP_ROWSUM, 1, c->result);
  else return false;
  return true;
}

static const KlRuleRecord tf_rules[] = {
    {"kiln-tensorflow/matmul-f32-cpu-2d", "tf.matmul / tf.linalg.matmul(a, b) ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/matmul-transpose-b-f32-cpu-2d", "tf.matmul / tf.linalg.matmul(a, b, transpose_b=True) ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/matmul-binop-f32-cpu-2d", "a @ b ranks 2,2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/bias-add-f32-cpu-2d", "tf.nn.bias_add(x, b) ranks 2, 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/relu-f32-cpu-1d", "tf.nn.relu(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/relu-f32-cpu-2d", "tf.nn.relu(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/leaky-relu-f32-cpu-1d", "tf.nn.leaky_relu(x[, alpha]) rank 1, alpha an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/leaky-relu-f32-cpu-2d", "tf.nn.leaky_relu(x[, alpha]) rank 2, alpha an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/sigmoid-f32-cpu-1d", "tf.nn.sigmoid(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/sigmoid-f32-cpu-2d", "tf.nn.sigmoid(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/add-call-f32-cpu", "tf.add / tf.math.add(a, b) ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/add-binop-f32-cpu", "a + b ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/neg-f32-cpu-1d", "-x, tf.negative / tf.math.negative(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/neg-f32-cpu-2d", "-x, tf.negative / tf.math.negative(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/abs-f32-cpu-1d", "tf.abs / tf.math.abs(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/abs-f32-cpu-2d", "tf.abs / tf.math.abs(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/sqrt-f32-cpu-1d", "tf.sqrt / tf.math.sqrt(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/sqrt-f32-cpu-2d", "tf.sqrt / tf.math.sqrt(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/square-f32-cpu-1d", "tf.square / tf.math.square(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/square-f32-cpu-2d", "tf.square / tf.math.square(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/exp-f32-cpu-1d", "tf.exp / tf.math.exp(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/exp-f32-cpu-2d", "tf.exp / tf.math.exp(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/log-f32-cpu-1d", "tf.math.log(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/log-f32-cpu-2d", "tf.math.log(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/silu-f32-cpu-1d", "tf.nn.silu / tf.nn.swish(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/silu-f32-cpu-2d", "tf.nn.silu / tf.nn.swish(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/relu6-f32-cpu-1d", "tf.nn.relu6(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/relu6-f32-cpu-2d", "tf.nn.relu6(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/rsqrt-f32-cpu-1d", "tf.math.rsqrt(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/rsqrt-f32-cpu-2d", "tf.math.rsqrt(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/softmax-f32-cpu-1d", "tf.nn.softmax / tf.math.softmax(x[, axis]) rank 1, axis None, 0 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/softmax-f32-cpu-2d", "tf.nn.softmax / tf.math.softmax(x[, axis]) rank 2, axis None, 1 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/log-softmax-f32-cpu-1d", "tf.nn.log_softmax / tf.math.log_softmax(x[, axis]) rank 1, axis None, 0 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/log-softmax-f32-cpu-2d", "tf.nn.log_softmax / tf.math.log_softmax(x[, axis]) rank 2, axis None, 1 or -1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/gelu-f32-cpu-1d", "tf.nn.gelu(x[, approximate=False]) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/gelu-f32-cpu-2d", "tf.nn.gelu(x[, approximate=False]) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/gelu-tanh-f32-cpu-1d", "tf.nn.gelu(x, approximate=True) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/gelu-tanh-f32-cpu-2d", "tf.nn.gelu(x, approximate=True) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/tanh-f32-cpu-1d", "tf.nn.tanh / tf.tanh / tf.math.tanh(x) rank 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/tanh-f32-cpu-2d", "tf.nn.tanh / tf.tanh / tf.math.tanh(x) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/subtract-call-f32-cpu", "tf.subtract / tf.math.subtract(a, b) ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/multiply-call-f32-cpu", "tf.multiply / tf.math.multiply(a, b) ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/divide-call-f32-cpu", "tf.divide / tf.math.divide / tf.truediv(a, b) ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/sub-binop-f32-cpu", "a - b ranks 1-1, 2-2, 2-1, 1-2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/mul-binop-f32-cpu", "a * b ranks 1*1, 2*2, 2*1, 1*2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/div-binop-f32-cpu", "a / b ranks 1/1, 2/2, 2/1, 1/2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/add-scalar-binop-f32-cpu", "a + s, s + a; s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/maximum-f32-cpu", "tf.maximum / tf.math.maximum(a, b) ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/minimum-f32-cpu", "tf.minimum / tf.math.minimum(a, b) ranks 1+1, 2+2, 2+1, 1+2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/clip-by-value-f32-cpu-1d", "tf.clip_by_value(x, lo, hi) rank 1, lo and hi an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/clip-by-value-f32-cpu-2d", "tf.clip_by_value(x, lo, hi) rank 2, lo and hi an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/maximum-scalar-f32-cpu", "tf.maximum(a, s), tf.maximum(s, a); s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/minimum-scalar-f32-cpu", "tf.minimum(a, s), tf.minimum(s, a); s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/sub-scalar-binop-f32-cpu", "a - s, s - a; s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/mul-scalar-binop-f32-cpu", "a * s, s * a; s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/div-scalar-binop-f32-cpu", "a / s, s / a; s an int, float or bool", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-mean-axis0-f32-cpu-2d", "tf.reduce_mean(x, axis=0) rank 2 (axis 0 or -2, keepdims=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-sum-axis0-f32-cpu-2d", "tf.reduce_sum(x, axis=0) rank 2 (axis 0 or -2, keepdims=False if given)", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-mean-axis1-f32-cpu-2d", "tf.reduce_mean(x, axis=1[, keepdims=False]) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-sum-axis1-f32-cpu-2d", "tf.reduce_sum / tf.math.reduce_sum(x, axis=1[, keepdims=False]) rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-mean-axis1-keepdims-f32-cpu-2d", "tf.reduce_mean(x, axis=1, keepdims=True) rank 2 (axis 1 or -1): an [M, 1] result", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-sum-axis1-keepdims-f32-cpu-2d", "tf.reduce_sum(x, axis=1, keepdims=True) rank 2 (axis 1 or -1): an [M, 1] result", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-mean-axis0-keepdims-f32-cpu-2d", "tf.reduce_mean(x, axis=0, keepdims=True) rank 2 (axis 0 or -2): a [1, N] result", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reduce-sum-axis0-keepdims-f32-cpu-2d", "tf.reduce_sum(x, axis=0, keepdims=True) rank 2 (axis 0 or -2): a [1, N] result", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/concat-f32-cpu-1d", "tf.concat([a, b, ...], axis) rank 1: a list or tuple display of 1-16 tensors, axis a literal 0 or -1 (positional or axis=)", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/concat-f32-cpu-2d", "tf.concat([a, b, ...], axis) rank 2: a list or tuple display of 1-16 tensors, axis a literal in -2..1 (positional or axis=)", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/stack-f32-cpu-1d", "tf.stack([a, b, ...][, axis]) of rank-1 tensors: a list or tuple display of 1-16 tensors, axis a literal in -2..1 (positional or axis=): a rank-2 result", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/matmul-other-forms", "matmul with other ranks, transpose_a=True or other keywords", "rejected", KL_KILN_TF_001, true},
    {"kiln-tensorflow/relu-other-forms", "tf.nn.relu with keywords or extra arguments, tf.nn.leaky_relu with name= or a non-scalar alpha", "rejected", KL_KILN_TF_002, true},
    {"kiln-tensorflow/add-other-forms", "tf.add / tf.subtract / tf.multiply / tf.divide with keywords", "rejected", KL_KILN_TF_003, true},
    {"kiln-tensorflow/reduce-mean-other-forms", "reduce_mean / reduce_sum without a literal axis (0, 1, -1, -2), or keepdims not a literal bool", "rejected", KL_KILN_TF_004, true},
    {"kiln-tensorflow/sigmoid-other-forms", "tf.nn.sigmoid / tf.nn.tanh / tf.negative / tf.abs / tf.sqrt / tf.square / tf.exp / tf.math.log / tf.math.rsqrt / tf.nn.silu / tf.nn.relu6 with keywords or extra arguments, tf.nn.gelu with name= or approximate not a literal bool, tf.nn.softmax / log_softmax over another axis or with name=", "rejected", KL_KILN_TF_005, true},
    {"kiln-tensorflow/reshape-f32-cpu-1d", "tf.reshape(x, [n]) / tf.reshape(x, (n,)) to rank 1 (of rank 1 or 2; n an int, -1 inferred): a list or tuple display written in the call", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/reshape-f32-cpu-2d", "tf.reshape(x, [a, b]) / tf.reshape(x, (a, b)) to rank 2 (of rank 1 or 2; ints, one may be -1): a list or tuple display written in the call", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/squeeze-f32-cpu-2d", "tf.squeeze(x, axis) of rank 2, axis a literal in -2..1 (positional or axis=): rank 1; RuntimeError when that dim is not of size 1", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/expand-dims-f32-cpu-1d", "tf.expand_dims(x, axis) of rank 1, axis a literal in -2..1 (positional or axis=): rank 2", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/index-f32-cpu-1d", "x[i] / x[i, a:b] / x[:, j] of a matrix, v[a:b] of a vector: ints and slices (int or None bounds, a positive literal step) giving rank 1; IndexError in TF's words for an int out of range; a new tensor", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/index-f32-cpu-2d", "x[a:b] / x[a:b, c:d] / x[:, a:b] of a matrix: slices (int or None bounds, a positive literal step)", "claimed", KL_NUM_CODES, true},
    {"kiln-tensorflow/index-other-forms", "indexing a kiln-tensorflow tensor with a result of rank 0 (v[i], x[i, j]), tf.newaxis, ..., a bool, a tensor or a list, a step not a positive literal, or bounds that are not ints", "rejected", KL_KILN_TF_009, true},
    {"kiln-tensorflow/shape-other-forms", "tf.reshape / tf.squeeze / tf.expand_dims of a kiln-tensorflow tensor with a result of another rank, a shape not written as a display of ints, an axis missing, not literal or out of range, or name=", "rejected", KL_KILN_TF_008, true},
    {"kiln-tensorflow/concat-other-forms", "tf.concat / tf.stack of a display holding a kiln-tensorflow tensor beside other values or ranks, of more than 16 tensors, with an axis missing (tf.concat), not literal or out of range, or name=", "rejected", KL_KILN_TF_007, true},
    {"kiln-tensorflow/unsupported-tensor-surface", "covered symbols with operand types outside the vocabulary", "rejected", KL_KILN_TF_010, true},
    {"kiln-tensorflow/other-calls", "any other TensorFlow call", "not-covered", KL_NUM_CODES, true},
    {NULL, NULL, NULL, KL_NUM_CODES, false},
};

const KlPlugin kl_plugin_tensorflow = {
    .api_version = KL_PLUGIN_API_VERSION,
    .name = "tensorflow",
    .framework = "tensorflow",
    .types = tf_types,
    .coverage = tf_coverage,
    .claim = tf_claim,
    .lower = tf_lower,
    .rules = tf_rules,
};
