/* claim.c — decides every site: a native scalar operation of the core, a
 * plugin claim (lowered to a native tensor op), a plugin rejection, or not
 * covered (Python fallback). Claims are pure functions of the site
 * metadata built here; lowering re-validates them. */
#include "kiln.h"

#include <string.h>

/* A subscript is reported as the method it calls, x.__getitem__ (DESIGN.md's kinds). */
const char *const kl_site_kind_text[] = {"call", "method", "binop", "compare", "unaryop", "method"};
const char *const kl_binop_text[KL_NUM_BINOPS] = {
#define X(name, text, capi, capi_inplace) text,
    KL_BINOPS(X)
#undef X
};
const char *const kl_cmpop_text[] = {"<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"};
/* math functions of one float argument the core runs natively (emit.c
 * reproduces CPython's domain and range errors for each). */
const char *const kl_math_float_fns[] = {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "atan", "fabs", NULL};

const char *const kl_tensor_op_text[] = {
#define X(name, text) text,
    KL_TENSOR_OPS(X)
#undef X
};

static void literal_of(KlNode *n, KlLitKind *kind, int64_t *ival, double *fval, const char **sval) {
  *ival = 0;
  if (fval) *fval = 0;
  if (sval) *sval = NULL;
  switch (n->kind) {
  case KL_N_INT:
    if (n->big) { *kind = KL_LIT_DYNAMIC; return; }
    *kind = KL_LIT_INT; *ival = n->ival; return;
  case KL_N_UNARY:
    /* -1 is a literal too */
    if (n->op == KL_UOP_NEG && n->a->kind == KL_N_INT && !n->a->big && n->a->ival > INT64_MIN) {
      *kind = KL_LIT_INT; *ival = -n->a->ival; return;
    }
    *kind = KL_LIT_DYNAMIC; return;
  case KL_N_TRUE: *kind = KL_LIT_BOOL; *ival = 1; return;
  case KL_N_FALSE: *kind = KL_LIT_BOOL; *ival = 0; return;
  case KL_N_NONE: *kind = KL_LIT_NONE; return;
  case KL_N_FLOAT: *kind = KL_LIT_FLOAT; if (fval) *fval = n->fval; return;
  case KL_N_STR: *kind = KL_LIT_STR; if (sval) *sval = n->str; return;
  default: *kind = KL_LIT_DYNAMIC; return;
  }
}

static void add_arg(KlSite *s, KlNode *n) {
  if (s->nargs >= KL_SITE_MAX_ARGS) {
    s->has_star_args = true; /* too many to describe: never claimable */
    return;
  }
  s->args[s->nargs] = n->type;
  literal_of(n, &s->arg_lit[s->nargs], &s->arg_ival[s->nargs], NULL, NULL);
  s->nargs++;
}

/* Operand n (positional i, or keyword i - nargs) written as a list or tuple
 * display: its length and its first elements' types, for the first such
 * operand without `*x` (positionals first). */
static void add_seq(KlSite *s, int i, KlNode *n) {
  if (s->seq_arg >= 0 || (n->kind != KL_N_LIST && n->kind != KL_N_TUPLE)) return;
  for (int k = 0; k < n->list.len; k++)
    if (n->list.items[k]->kind == KL_N_STARRED) return;
  for (int k = 0; k < n->list.len && k < KL_SITE_MAX_SEQ; k++) s->seq[k] = n->list.items[k]->type;
  s->seq_len = n->list.len;
  s->seq_arg = i;
}

/* Builds the metadata a plugin sees. Returns false for nodes that are not sites. */
static bool build_site(KlNode *n, KlSite *s) {
  memset(s, 0, sizeof *s);
  s->seq_arg = -1;
  switch (n->kind) {
  case KL_N_BINOP:
  case KL_N_AUGASSIGN:
    s->kind = KL_SK_BINOP;
    s->target = kl_binop_text[n->op];
    add_arg(s, n->a);
    add_arg(s, n->b);
    return true;
  case KL_N_UNARY:
    s->kind = KL_SK_UNARYOP;
    s->target = n->op == KL_UOP_NEG ? "-" : n->op == KL_UOP_POS ? "+" : "~";
    add_arg(s, n->a);
    return true;
  case KL_N_COMPARE: {
    /* A chain is named by its first identity or membership operator if it
     * has one (rules that claim comparisons look at the target only), else
     * by its first operator. */
    int op = n->cmpops[0];
    for (int i = 0; i < n->list.len - 1; i++)
      if (n->cmpops[i] >= KL_CMP_IS) {
        op = n->cmpops[i];
        break;
      }
    s->kind = KL_SK_COMPARE;
    s->target = kl_cmpop_text[op];
    for (int i = 0; i < n->list.len; i++) add_arg(s, n->list.items[i]);
    return true;
  }
  case KL_N_SUBSCRIPT: { /* kl_decide_site offers only a tensor's */
    s->kind = KL_SK_SUBSCRIPT;
    s->target = "__getitem__";
    s->has_receiver = true;
    s->receiver = n->a->type;
    KlNode *one = n->b;
    KlNode *const *items = n->b->kind == KL_N_TUPLE ? n->b->list.items : &one;
    int k = n->b->kind == KL_N_TUPLE ? n->b->list.len : 1;
    for (int i = 0; i < k; i++) {
      KlNode *x = items[i];
      if (x->kind == KL_N_STARRED || s->nargs >= KL_SITE_MAX_ARGS) {
        s->has_star_args = true; /* never claimable */
        return true;
      }
      if (x->kind != KL_N_SLICE) {
        add_arg(s, x);
        continue;
      }
      const int at = s->nargs;
      s->slices |= 1u << at;
      s->args[at] = KL_T_OBJECT;
      s->arg_lit[at] = KL_LIT_DYNAMIC;
      s->nargs++;
      KlNode *part[2] = {x->a, x->b};
      for (int p = 0; p < 2; p++) s->slice_part[at][p] = part[p] && part[p]->kind != KL_N_NONE ? part[p]->type : KL_T_NONE_YET;
      KlLitKind lit = KL_LIT_NONE;
      int64_t step = 1;
      if (x->c) literal_of(x->c, &lit, &step, NULL, NULL);
      s->slice_step[at] = lit == KL_LIT_NONE ? 1 : lit == KL_LIT_INT ? step : 0;
    }
    return true;
  }
  case KL_N_CALL: {
    KlNode *fn = n->a;
    if (fn->kind == KL_N_ATTR && !fn->dotted) {
      s->kind = KL_SK_METHOD;
      s->target = fn->name;
      s->has_receiver = true;
      s->receiver = fn->a->type;
    } else {
      s->kind = KL_SK_CALL;
      s->target = fn->dotted;
    }
    if (kl_call_unpacks(n)) {
      s->has_star_args = true; /* what it passes is known only when it runs */
      return true;
    }
    for (int i = 0; i < n->list.len; i++) {
      add_arg(s, n->list.items[i]);
      add_seq(s, i, n->list.items[i]);
    }
    for (int i = 0; i < n->kw.len; i++) {
      if (s->nkw >= KL_SITE_MAX_KW) {
        s->has_star_args = true;
        break;
      }
      KlSiteKeyword *k = &s->kw[s->nkw++];
      KlNode *v = n->kw.items[i]->a;
      k->name = n->kw.items[i]->name;
      k->type = v->type;
      literal_of(v, &k->lit, &k->ival, &k->fval, &k->sval);
      add_seq(s, s->nargs + i, v); /* when no positional is a display */
    }
    return true;
  }
  default: return false;
  }
}

static bool is_intlike(KlType t) { return t == KL_T_INT || t == KL_T_BOOL; }

/* The core's native scalar rules. Returns KL_T_NONE_YET when not native. */
static KlType scalar_rule(const KlSite *s) {
  switch (s->kind) {
  case KL_SK_BINOP: {
    KlType a = s->args[0], b = s->args[1];
    if (!kl_is_scalar(a) || !kl_is_scalar(b)) return KL_T_NONE_YET;
    bool isf = a == KL_T_FLOAT || b == KL_T_FLOAT;
    const char *op = s->target;
    if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*") || !strcmp(op, "//") || !strcmp(op, "%"))
      return isf ? KL_T_FLOAT : KL_T_INT;
    if (!strcmp(op, "/")) return KL_T_FLOAT;
    if (!strcmp(op, "**")) {
      if (a == KL_T_FLOAT && is_intlike(b)) return KL_T_FLOAT; /* integral exponent: always real */
      if (is_intlike(a) && is_intlike(b) && s->arg_lit[1] == KL_LIT_INT && s->arg_ival[1] >= 0) return KL_T_INT;
      if (is_intlike(a) && s->arg_lit[1] == KL_LIT_BOOL) return KL_T_INT;
      return KL_T_NONE_YET;
    }
    if (isf) return KL_T_NONE_YET;
    if (!strcmp(op, "<<") || !strcmp(op, ">>")) return KL_T_INT;
    if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^"))
      return a == KL_T_BOOL && b == KL_T_BOOL ? KL_T_BOOL : KL_T_INT;
    return KL_T_NONE_YET;
  }
  case KL_SK_UNARYOP: {
    KlType a = s->args[0];
    if (!kl_is_scalar(a)) return KL_T_NONE_YET;
    if (!strcmp(s->target, "~")) return is_intlike(a) ? KL_T_INT : KL_T_NONE_YET;
    return a == KL_T_FLOAT ? KL_T_FLOAT : KL_T_INT;
  }
  case KL_SK_COMPARE: {
    /* the six rich comparisons; `is` and `in` on scalars stay Python's
     * (identity of the boxed values, membership needs a container) */
    static const char *const rich[] = {"<", "<=", ">", ">=", "==", "!="};
    bool ok = false;
    for (size_t i = 0; i < sizeof rich / sizeof *rich; i++) ok |= !strcmp(s->target, rich[i]);
    if (!ok) return KL_T_NONE_YET;
    for (int i = 0; i < s->nargs; i++)
      if (!kl_is_scalar(s->args[i])) return KL_T_NONE_YET;
    return KL_T_BOOL;
  }
  case KL_SK_CALL: {
    if (s->target && !strncmp(s->target, "math.", 5) && !s->nkw && !s->has_star_args && s->nargs == 1 &&
        kl_is_scalar(s->args[0])) {
      const char *fn = s->target + 5;
      for (int i = 0; kl_math_float_fns[i]; i++)
        if (!strcmp(fn, kl_math_float_fns[i])) return KL_T_FLOAT;
      if (!strcmp(fn, "floor") || !strcmp(fn, "ceil")) return KL_T_INT;
      return KL_T_NONE_YET;
    }
    if (!s->target || strncmp(s->target, "builtins.", 9) || s->nkw || s->has_star_args) return KL_T_NONE_YET;
    const char *name = s->target + 9;
    if (!strcmp(name, "len") && s->nargs == 1) return KL_T_INT;
    if (!strcmp(name, "range") && s->nargs >= 1 && s->nargs <= 3) {
      for (int i = 0; i < s->nargs; i++)
        if (!is_intlike(s->args[i])) return KL_T_NONE_YET;
      return KL_T_OBJECT; /* native in `for`; elsewhere the range object itself */
    }
    for (int i = 0; i < s->nargs; i++)
      if (!kl_is_scalar(s->args[i])) return KL_T_NONE_YET;
    if (s->nargs == 1) {
      KlType a = s->args[0];
      if (!strcmp(name, "abs")) return a == KL_T_FLOAT ? KL_T_FLOAT : KL_T_INT;
      if (!strcmp(name, "int")) return KL_T_INT;
      if (!strcmp(name, "float")) return KL_T_FLOAT;
      if (!strcmp(name, "bool")) return KL_T_BOOL;
    }
    if ((!strcmp(name, "min") || !strcmp(name, "max")) && s->nargs >= 2) {
      for (int i = 1; i < s->nargs; i++)
        if (s->args[i] != s->args[0]) return KL_T_NONE_YET;
      return s->args[0];
    }
    return KL_T_NONE_YET;
  }
  default: return KL_T_NONE_YET;
  }
}

/* Result type of a fallback site when Python guarantees it (is, in, not in). */
static KlType fallback_type(KlNode *n) {
  if (n->kind == KL_N_COMPARE && n->list.len == 2 && n->cmpops[0] >= KL_CMP_IS) return KL_T_BOOL;
  return KL_T_OBJECT;
}

/* `t.T`, or `t.t()` whose own site no plugin claims, with t a rank-2
 * tensor: t, else NULL. */
static KlNode *transposed_base(KlCtx *ctx, KlNode *n) {
  KlNode *t = NULL;
  if (n && n->kind == KL_N_ATTR && !strcmp(n->name, "T")) {
    t = n->a;
  } else if (n && n->kind == KL_N_CALL && n->a->kind == KL_N_ATTR && !n->a->dotted && !strcmp(n->a->name, "t") &&
             n->list.len == 0 && n->kw.len == 0 && n->site && n->site->outcome == KL_SITE_NOT_COVERED) {
    t = n->a->a;
  }
  return t && kl_is_tensor(ctx, t->type) && ctx->types[t->type].rank == 2 ? t : NULL;
}

KlNode *kl_site_arg(const KlSiteInfo *s, int i, KlNode *arg) {
  bool t = s && s->outcome == KL_SITE_CLAIMED && i >= 0 && i < 32 && ((s->meta.transposed >> i) & 1u);
  if (!t) return arg;
  return arg->kind == KL_N_CALL ? arg->a->a : arg->a; /* t.t() or t.T */
}

/* Records plugin p's claim c of the site and its lowering (drift: the
 * lowering disagrees with the claim). */
static void take_claim(KlCtx *ctx, KlSiteInfo *si, int p, KlClaim c) {
  si->plugin = p;
  si->claim = c;
  si->outcome = KL_SITE_CLAIMED;
  if (!ctx->plugins[p]->lower(&si->meta, &si->claim, ctx->plugin_tids[p], &si->lowered) ||
      si->lowered.result != c.result)
    si->drift = true;
}

/* A site not claimed as written, offered again with each `t.T` or `t.t()`
 * operand as t transposed (`x @ w.T`, `torch.matmul(x, w.t())`) to the
 * plugins that read KlSite.transposed; only a claim is taken from them. A
 * claimed site reads t in place: a `t.t()` is then no site of its own (it
 * is not evaluated, as `.T` is not; on a tensor neither has an effect a
 * compiled function could see). */
static void offer_transposed(KlCtx *ctx, KlNode *n, KlSiteInfo *si) {
  KlNode *items[KL_SITE_MAX_ARGS];
  int nitems = 0;
  if (n->kind == KL_N_BINOP) {
    items[nitems++] = n->a;
    items[nitems++] = n->b;
  } else if (n->kind == KL_N_CALL) {
    for (int i = 0; i < n->list.len && nitems < KL_SITE_MAX_ARGS; i++) items[nitems++] = n->list.items[i];
  } else {
    return;
  }
  KlSite meta = si->meta;
  for (int i = 0; i < nitems && i < meta.nargs; i++) {
    KlNode *base = transposed_base(ctx, items[i]);
    if (!base) continue;
    meta.args[i] = base->type;
    meta.transposed |= 1u << i;
  }
  if (!meta.transposed) return;
  for (int p = 0; p < ctx->nplugins; p++) {
    if (!ctx->plugins[p]->transposed_operands) continue;
    KlClaim c = ctx->plugins[p]->claim(&meta, ctx->plugin_tids[p]);
    if (c.kind != KL_CLAIM_CLAIMED) continue;
    si->meta = meta;
    si->conflict = 0;
    take_claim(ctx, si, p, c);
    for (int i = 0; i < nitems && i < 32; i++)
      if (((meta.transposed >> i) & 1u) && items[i]->kind == KL_N_CALL) items[i]->site->outcome = KL_SITE_NONE;
    return;
  }
}

KlSiteInfo *kl_decide_site(KlCtx *ctx, KlFunc *f, KlNode *n) {
  (void)f;
  KlSiteInfo *si = kl_alloc(ctx, sizeof *si);
  si->plugin = -1;
  si->claim.result = KL_T_OBJECT;
  /* a subscript is a site only on a native tensor (t.shape[k] and containers are the core's) */
  if ((n->kind == KL_N_SUBSCRIPT && !kl_is_tensor(ctx, n->a->type)) || !build_site(n, &si->meta)) {
    si->outcome = KL_SITE_NONE;
    return si;
  }
  KlType scalar = si->meta.has_star_args ? KL_T_NONE_YET : scalar_rule(&si->meta);
  if (scalar != KL_T_NONE_YET) {
    si->outcome = KL_SITE_SCALAR;
    si->claim.kind = KL_CLAIM_CLAIMED;
    si->claim.result = scalar;
    return si;
  }
  si->outcome = KL_SITE_NOT_COVERED;
  si->claim.result = fallback_type(n);
  if (si->meta.has_star_args) return si;
  /* x op= y on a tensor is Python's in-place operator (types.c): no plugin lowers it */
  if (n->kind == KL_N_AUGASSIGN && (kl_is_tensor(ctx, n->a->type) || kl_is_tensor(ctx, n->b->type))) return si;
  for (int p = 0; p < ctx->nplugins; p++) {
    KlClaim c = ctx->plugins[p]->claim(&si->meta, ctx->plugin_tids[p]);
    if (c.kind == KL_CLAIM_NOT_COVERED) continue;
    if (si->plugin >= 0) {
      si->conflict = p; /* reported by kl_claim_sites */
      continue;
    }
    if (c.kind == KL_CLAIM_CLAIMED) {
      take_claim(ctx, si, p, c);
    } else {
      si->plugin = p;
      si->claim = c;
      si->outcome = KL_SITE_REJECTED;
      si->claim.result = KL_T_OBJECT;
    }
  }
  if (si->outcome != KL_SITE_CLAIMED) offer_transposed(ctx, n, si);
  return si;
}

static void check_node(KlCtx *ctx, KlFunc *f, KlNode *n);

static void check_list(KlCtx *ctx, KlFunc *f, KlNodeList l) {
  for (int i = 0; i < l.len; i++) check_node(ctx, f, l.items[i]);
}

static void check_node(KlCtx *ctx, KlFunc *f, KlNode *n) {
  if (!n) return;
  KlSiteInfo *s = n->site;
  if (s && n->kind == KL_N_CALL && (s->outcome == KL_SITE_CLAIMED || s->outcome == KL_SITE_SCALAR))
    kl_note_import_guard(ctx, f, n->a);
  if (s && s->conflict > 0)
    kl_diag(ctx, KL_SEV_ERROR, KL_KILN040, n->loc, "plugins '%s' and '%s' both claim this site",
            ctx->plugins[s->plugin]->name, ctx->plugins[s->conflict]->name);
  if (s && s->drift)
    kl_diag(ctx, KL_SEV_ERROR, KL_KILN041, n->loc, "plugin '%s' lowering does not match its claim '%s'",
            ctx->plugins[s->plugin]->name, s->claim.rule ? s->claim.rule : "?");
  if (n->kind == KL_N_INT && n->big)
    kl_diag(ctx, KL_SEV_WARNING, KL_KILN030, n->loc,
            "integer literal %.40s%s does not fit in int64 (kiln's native int); what uses it runs on the Python "
            "fallback, with Python's arbitrary precision", n->str, strlen(n->str) > 40 ? "..." : "");
  if (s && s->outcome == KL_SITE_REJECTED)
    kl_diag(ctx, KL_SEV_WARNING, s->claim.code, n->loc, "%s; runs on the Python fallback",
            s->claim.message ? s->claim.message : kl_code_title(s->claim.code));
  check_node(ctx, f, n->a);
  check_node(ctx, f, n->b);
  check_node(ctx, f, n->c);
  check_list(ctx, f, n->list);
  check_list(ctx, f, n->kw);
  check_list(ctx, f, n->body);
  check_list(ctx, f, n->orelse);
}

void kl_claim_sites(KlCtx *ctx, KlModule *m) {
  for (int i = 0; i < m->nfuncs; i++)
    if (!m->funcs[i]->unsupported) check_list(ctx, m->funcs[i], m->funcs[i]->body);
}
