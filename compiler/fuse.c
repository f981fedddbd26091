/* fuse.c — finds chains of claimed tensor ops that run as one kernel call.
 *
 * Three steps, all decided on the typed AST:
 *  - forwarding: a tensor local assigned once from a claimed op and read
 *    once, in the next statement of the same block, stands for its value
 *    there (`even = h @ w + b` / `h = even.relu()` is one expression);
 *  - fusion: matmul/linear, then optionally a bias row (+), an activation,
 *    a row added to the activation's result (+) and a row reduction, become
 *    one GEMM with a fused epilogue;
 *  - elementwise chains: + - * / with a local or literal, activations and -x,
 *    applied one after another to one value, run as one pass (kl_plan_ewise);
 *    so do trees of them, `0.9 * m + 0.1 * (x - y).abs()`, where the operand
 *    evaluated second is a whole chain from a local of cheap ops (a stack
 *    program; ew_costly).
 * Only chains whose extra operands are plain locals or literals are fused,
 * so evaluation order and exceptions are exactly those of the op-by-op code. */
#include "kiln.h"

#include <string.h>

KlNode *kl_site_operand(KlNode *n, int k) {
  switch (n->kind) {
  case KL_N_BINOP: return kl_site_arg(n->site, k, k == 0 ? n->a : n->b);
  case KL_N_UNARY: return k == 0 ? n->a : NULL;
  case KL_N_SUBSCRIPT: /* the tensor, then its indexes (a slice is a node of its own) */
    if (k == 0) return n->a;
    if (n->b->kind != KL_N_TUPLE) return k == 1 ? n->b : NULL;
    return k - 1 < n->b->list.len ? n->b->list.items[k - 1] : NULL;
  case KL_N_CALL:
    if (n->site && n->site->meta.kind == KL_SK_METHOD)
      return k == 0 ? n->a->a : kl_site_arg(n->site, k - 1, n->list.items[k - 1]);
    return kl_site_arg(n->site, k, n->list.items[k]);
  default: return NULL;
  }
}

/* Operand k of a claimed call as its lowering counts them: the receiver, the
 * positionals, then the keywords' values (clamp's bounds, leaky_relu's slope). */
static KlNode *clamp_operand(KlNode *n, int k) {
  int npos = (n->site->meta.kind == KL_SK_METHOD) + n->list.len;
  return k < npos ? kl_site_operand(n, k) : n->kw.items[k - npos]->a;
}

static bool claimed(KlNode *n) { return n && n->site && n->site->outcome == KL_SITE_CLAIMED; }

static int op_of(KlNode *n) { return claimed(n) ? (int)n->site->lowered.op : -1; }

KlNode *kl_forwarded(KlFunc *f, KlNode *n) {
  while (n && n->kind == KL_N_NAME && n->binding == KL_B_LOCAL && f->locals[n->slot].fwd) n = f->locals[n->slot].fwd;
  return n;
}

/* ---- forwarding ---- */

static void count(KlFunc *f, KlNode *n, bool store);

static void count_list(KlFunc *f, KlNodeList l, bool store) {
  for (int i = 0; i < l.len; i++) count(f, l.items[i], store);
}

/* Counts reads and writes of locals; `store` marks assignment targets. */
static void count(KlFunc *f, KlNode *n, bool store) {
  if (!n) return;
  switch (n->kind) {
  case KL_N_NAME:
    if (n->binding == KL_B_LOCAL) {
      if (store) f->locals[n->slot].stores++;
      else f->locals[n->slot].loads++;
    }
    return;
  case KL_N_TUPLE: case KL_N_LIST:
    count_list(f, n->list, store);
    return;
  case KL_N_STARRED: count(f, n->a, store); return;
  case KL_N_NAMEDEXPR: count(f, n->b, false); count(f, n->a, true); return;
  case KL_N_ATTR: count(f, n->a, false); return;
  case KL_N_SUBSCRIPT: count(f, n->a, false); count(f, n->b, false); return;
  case KL_N_ASSIGN: count_list(f, n->list, true); count(f, n->b, false); return;
  case KL_N_ANNASSIGN: count(f, n->a, true); count(f, n->b, false); return;
  case KL_N_AUGASSIGN:
    count(f, n->a, true);
    if (n->a->kind == KL_N_NAME && n->a->binding == KL_B_LOCAL) f->locals[n->slot].loads++;
    else count(f, n->a, false);
    count(f, n->b, false);
    return;
  case KL_N_FOR:
    count(f, n->a, true);
    count(f, n->b, false);
    count_list(f, n->body, false);
    count_list(f, n->orelse, false);
    return;
  case KL_N_DEL: count_list(f, n->list, false); count_list(f, n->list, true); return;
  case KL_N_IMPORT: case KL_N_IMPORTFROM: count_list(f, n->list, true); return;
  case KL_N_EXCEPT:
  case KL_N_WITH: count(f, n->a, false); count(f, n->b, true); count_list(f, n->body, false); return;
  case KL_N_COMPFOR:
    count(f, n->a, true);
    count(f, n->b, false);
    count_list(f, n->list, false);
    return;
  default:
    count(f, n->a, false);
    count(f, n->b, false);
    count(f, n->c, false);
    count_list(f, n->list, false);
    count_list(f, n->kw, false);
    count_list(f, n->body, false);
    count_list(f, n->orelse, false);
  }
}

static bool is_literal(KlNode *n) {
  switch (n->kind) {
  case KL_N_INT: case KL_N_FLOAT: case KL_N_TRUE: case KL_N_FALSE: case KL_N_NONE: case KL_N_STR: return !n->big;
  case KL_N_UNARY: return n->a->kind == KL_N_INT || n->a->kind == KL_N_FLOAT;
  default: return false;
  }
}

/* Evaluating n can do nothing observable but tensor-op errors. */
static bool pure_tensor_expr(KlNode *n) {
  if (n->kind == KL_N_NAME) return n->binding == KL_B_LOCAL;
  if (is_literal(n)) return true;
  if (!claimed(n)) return false;
  KlSite *s = &n->site->meta;
  int nops = s->nargs + (s->has_receiver ? 1 : 0);
  for (int k = 0; k < nops; k++)
    if (!pure_tensor_expr(kl_site_operand(n, k))) return false;
  for (int i = 0; i < n->kw.len; i++)
    if (!is_literal(n->kw.items[i]->a)) return false;
  return true;
}

static bool reads_local(KlNode *n, int slot) {
  if (!n) return false;
  if (n->kind == KL_N_NAME) return n->binding == KL_B_LOCAL && n->slot == slot;
  if (reads_local(n->a, slot) || reads_local(n->b, slot) || reads_local(n->c, slot)) return true;
  for (int i = 0; i < n->list.len; i++)
    if (reads_local(n->list.items[i], slot)) return true;
  for (int i = 0; i < n->kw.len; i++)
    if (reads_local(n->kw.items[i], slot)) return true;
  return false;
}

/* Whether the read of local `slot` in n comes before anything else of n
 * that could raise: every operand evaluated before it is a local or a
 * literal. Moving the local's value to that read then keeps the order of
 * the ops, and so which error is raised first. */
static bool read_first(KlNode *n, int slot) {
  if (n->kind == KL_N_NAME) return n->binding == KL_B_LOCAL && n->slot == slot;
  if (!claimed(n)) return false;
  KlSite *s = &n->site->meta;
  int nops = s->nargs + (s->has_receiver ? 1 : 0);
  for (int k = 0; k < nops; k++) {
    KlNode *o = kl_site_operand(n, k);
    if (reads_local(o, slot)) return read_first(o, slot);
    if (o->kind != KL_N_NAME && !is_literal(o)) return false;
  }
  return false;
}

static KlNode *statement_value(KlNode *s) {
  if (s->kind == KL_N_ASSIGN && s->list.len == 1 && s->list.items[0]->kind == KL_N_NAME) return s->b;
  if (s->kind == KL_N_RETURN || s->kind == KL_N_EXPR_STMT) return s->a;
  return NULL;
}

static void forward_block(KlCtx *ctx, KlFunc *f, KlNodeList body) {
  for (int i = 0; i < body.len; i++) {
    KlNode *s = body.items[i];
    forward_block(ctx, f, s->body);
    forward_block(ctx, f, s->orelse);
    if (s->kind == KL_N_TRY) {
      for (int j = 0; j < s->list.len; j++) forward_block(ctx, f, s->list.items[j]->body);
      forward_block(ctx, f, s->kw);
    }
    if (s->kind != KL_N_ASSIGN || s->list.len != 1 || s->list.items[0]->kind != KL_N_NAME || i + 1 == body.len)
      continue;
    KlNode *t = s->list.items[0];
    if (t->binding != KL_B_LOCAL) continue;
    KlLocal *l = &f->locals[t->slot];
    if (l->is_param || l->loads != 1 || l->stores != 1 || !kl_is_tensor(ctx, l->type)) continue;
    if (!claimed(s->b) || s->b->type != l->type || !pure_tensor_expr(s->b)) continue;
    KlNode *use = statement_value(body.items[i + 1]);
    if (!use || !pure_tensor_expr(use) || !read_first(use, t->slot)) continue;
    l->fwd = s->b;
    s->forwarded = true;
  }
}

void kl_plan_forwarding(KlCtx *ctx, KlFunc *f) {
  for (int i = 0; i < f->nlocals; i++) {
    f->locals[i].loads = f->locals[i].stores = 0;
    f->locals[i].fwd = NULL;
  }
  for (int i = 0; i < f->nparams; i++) f->locals[f->params[i].slot].stores++;
  count_list(f, f->body, false);
  forward_block(ctx, f, f->body);
}

/* ---- fusion ---- */

/* An elementwise function of one operand the GEMM epilogue applies (kk_act). */
static bool is_act(int op) {
  switch (op) {
  case KL_TOP_RELU: case KL_TOP_SIGMOID: case KL_TOP_TANH: case KL_TOP_ABS: case KL_TOP_SQRT: case KL_TOP_SQUARE:
  case KL_TOP_EXP: case KL_TOP_SILU: case KL_TOP_LOG: case KL_TOP_RSQRT: case KL_TOP_RELU6:
  case KL_TOP_HARDTANH: case KL_TOP_GELU: case KL_TOP_GELU_TANH: return true;
  default: return false;
  }
}

/* An elementwise op of one operand: an activation, or -x. */
static bool is_unary_ew(int op) { return is_act(op) || op == KL_TOP_NEG; }

/* A name that may be unbound raises when read: only where Python reads it. */
static bool leaf_ok(KlNode *n) {
  return n->kind == KL_N_NAME ? n->binding == KL_B_LOCAL && !n->maybe_unbound : is_literal(n);
}

/* + of a row to a matrix: ADD, or tf.nn.bias_add's stricter BIAS_ADD (its row is its second operand). */
static bool is_row_add(int op) { return op == KL_TOP_ADD || op == KL_TOP_BIAS_ADD; }

/* A product a bias row can join: a matmul, or a linear without its own bias. */
static bool unbiased_gemm(KlNode *n) {
  return op_of(n) == KL_TOP_MATMUL || (op_of(n) == KL_TOP_LINEAR && n->site->lowered.noperands == 2);
}

bool kl_plan_fusion(KlCtx *ctx, KlFunc *f, KlNode *root, KlFusion *out) {
  memset(out, 0, sizeof *out);
  KlNode *n = root;
  int ops = 0;
  if (op_of(n) == KL_TOP_ROWSUM || op_of(n) == KL_TOP_ROWMEAN) {
    out->reduce_node = n;
    n = kl_forwarded(f, kl_site_operand(n, n->site->lowered.operands[0]));
    ops++;
  }
  if (is_row_add(op_of(n))) { /* act(...) + row, or row + act(...) */
    KlNode *x = kl_site_operand(n, 0), *y = kl_site_operand(n, 1);
    KlNode *fx = kl_forwarded(f, x), *fy = kl_forwarded(f, y);
    int rank_x = ctx->types[x->type].rank, rank_y = ctx->types[y->type].rank;
    if (is_act(op_of(fx)) && rank_y == 1) {
      out->post_node = n;
      out->leaf[4] = y;
      n = fx;
      ops++;
    } else if (is_act(op_of(fy)) && rank_x == 1) {
      out->post_node = n;
      out->post_first = true;
      out->leaf[4] = x;
      n = fy;
      ops++;
    }
  }
  if (is_act(op_of(n))) {
    out->act_node = n;
    n = kl_forwarded(f, kl_site_operand(n, n->site->lowered.operands[0]));
    ops++;
  }
  if (is_row_add(op_of(n))) {
    KlNode *x = kl_site_operand(n, 0), *y = kl_site_operand(n, 1);
    KlNode *fx = kl_forwarded(f, x), *fy = kl_forwarded(f, y);
    int rank_x = ctx->types[x->type].rank, rank_y = ctx->types[y->type].rank;
    if (unbiased_gemm(fx) && rank_y == 1) {
      out->bias_node = n;
      out->leaf[3] = y;
      n = fx;
      ops++;
    } else if (unbiased_gemm(fy) && rank_x == 1) {
      out->bias_node = n;
      out->bias_first = true;
      out->leaf[3] = x;
      n = fy;
      ops++;
    }
  }
  if (op_of(n) != KL_TOP_MATMUL && op_of(n) != KL_TOP_LINEAR) return false;
  out->base = n->site->lowered.op;
  out->base_node = n;
  ops++;
  if (ops < 2) return false;
  for (int i = 0; i < n->site->lowered.noperands; i++) out->leaf[i] = kl_site_operand(n, n->site->lowered.operands[i]);
  /* Every operand but the first one Python evaluates must be side-effect free. */
  KlNode *first = out->post_first ? out->leaf[4] : out->bias_first ? out->leaf[3] : out->leaf[0];
  for (int i = 0; i < 5; i++)
    if (out->leaf[i] && out->leaf[i] != first && !leaf_ok(out->leaf[i])) return false;
  return true;
}

/* ---- elementwise chains ---- */

static bool is_arith(int op) { return op == KL_TOP_ADD || op == KL_TOP_SUB || op == KL_TOP_MUL || op == KL_TOP_DIV; }

/* An operand the chain may evaluate out of Python's order, because doing so
 * is unobservable: a literal number, or a local that is surely bound and is
 * not standing for a forwarded expression. */
static bool ew_leaf(KlCtx *ctx, KlFunc *f, KlNode *n) {
  if (!kl_is_tensor(ctx, n->type) && !kl_is_scalar(n->type)) return false;
  if (is_literal(n)) return true;
  return n->kind == KL_N_NAME && n->binding == KL_B_LOCAL && !n->maybe_unbound && kl_forwarded(f, n) == n;
}

/* A clamp whose bounds a chain may read out of Python's order (ew_leaf): its
 * bounds' nodes (NULL: absent) in lo / hi. */
static bool clamp_leaves(KlCtx *ctx, KlFunc *f, KlNode *n, KlNode **lo, KlNode **hi) {
  const int *k = n->site->lowered.operands;
  *lo = k[1] >= 0 ? clamp_operand(n, k[1]) : NULL;
  *hi = k[2] >= 0 ? clamp_operand(n, k[2]) : NULL;
  return (!*lo || ew_leaf(ctx, f, *lo)) && (!*hi || ew_leaf(ctx, f, *hi));
}

/* A leaky_relu whose slope a chain may read out of Python's order: its slope's
 * node in *slope (NULL: the default). */
static bool leaky_leaf(KlCtx *ctx, KlFunc *f, KlNode *n, KlNode **slope) {
  int k = n->site->lowered.operands[1];
  *slope = k >= 0 ? clamp_operand(n, k) : NULL;
  return !*slope || ew_leaf(ctx, f, *slope);
}

/* Steps being planned, and what the plan may read. */
typedef struct {
  KlCtx *ctx;
  KlFunc *f;
  KlNode *root;
  KlEwise *out;
} EwPlan;

static bool ew_put(KlEwise *w, KlNode *op, KlNode *operand, bool swap, char clamp, char form) {
  if (w->nsteps == KL_EW_MAX) return false;
  int k = w->nsteps++;
  w->op[k] = op, w->operand[k] = operand, w->swap[k] = swap, w->clamp[k] = clamp, w->form[k] = form;
  return true;
}

/* What a chain can make of cur: 'c' a clamp, 'u' an activation, -x or a
 * leaky_relu, 'a' + - * /, or 0 (it is a value to start from). A GEMM
 * chain below the root runs as itself (kl_plan_fusion). */
static char ew_kind(EwPlan *p, KlNode *cur, KlNode **lo, KlNode **hi, KlNode **slope) {
  int o = op_of(cur);
  KlFusion fu;
  if (!kl_is_tensor(p->ctx, cur->type) || (cur != p->root && kl_plan_fusion(p->ctx, p->f, cur, &fu))) return 0;
  if ((o == KL_TOP_CLAMP || o == KL_TOP_CLAMP_ORDERED) && clamp_leaves(p->ctx, p->f, cur, lo, hi)) return 'c';
  if (is_unary_ew(o) || (o == KL_TOP_LEAKY_RELU && leaky_leaf(p->ctx, p->f, cur, slope))) return 'u';
  return is_arith(o) ? 'a' : 0;
}

/* Whether src holds an op that costs far more than a load (an exp, a
 * tanh, a square root: KL_TOP_* whose kk_act is a polynomial or a divide).
 * A pushed subtree does not: fused, such an op saves nothing over its own
 * kernel, and where the result stretches the subtree (an rsqrt of a row)
 * the pass would compute it once per element of the result. */
static bool ew_costly(EwPlan *p, KlNode *src) {
  KlNode *cur = kl_forwarded(p->f, src), *lo = NULL, *hi = NULL, *slope = NULL;
  switch (ew_kind(p, cur, &lo, &hi, &slope)) {
  case 'c': return ew_costly(p, kl_site_operand(cur, cur->site->lowered.operands[0]));
  case 'u':
    switch (op_of(cur)) {
    case KL_TOP_RELU: case KL_TOP_ABS: case KL_TOP_SQUARE: case KL_TOP_NEG: case KL_TOP_RELU6: case KL_TOP_HARDTANH:
    case KL_TOP_LEAKY_RELU: return ew_costly(p, kl_site_operand(cur, cur->site->lowered.operands[0]));
    default: return true;
    }
  case 'a': return ew_costly(p, kl_site_operand(cur, 0)) || ew_costly(p, kl_site_operand(cur, 1));
  default: return false;
  }
}

/* A clamp's step for its lower bound (KlEwise.clamp). */
static char clamp_lo_part(KlNode *cur, KlNode *hi) { return !hi ? 'l' : op_of(cur) == KL_TOP_CLAMP ? 'L' : 'O'; }

/* Appends a clamp's steps: max(lo, v), then min(hi, v). */
static bool ew_put_clamp(KlEwise *w, KlNode *cur, KlNode *lo, KlNode *hi) {
  return (!lo || ew_put(w, cur, lo, false, clamp_lo_part(cur, hi), 0)) && (!hi || ew_put(w, cur, hi, false, 'h', 0));
}

/* Appends, in Python's evaluation order, the steps of src: a subtree that
 * starts from a tensor local, pushed (the value set aside is `depth` - 1
 * deep), every op in it one the chain takes. */
static bool ew_subtree(EwPlan *p, KlNode *src, int depth, KlEwise *w) {
  KlNode *cur = kl_forwarded(p->f, src), *lo = NULL, *hi = NULL, *slope = NULL;
  switch (ew_kind(p, cur, &lo, &hi, &slope)) {
  case 'c':
    return ew_subtree(p, kl_site_operand(cur, cur->site->lowered.operands[0]), depth, w) && ew_put_clamp(w, cur, lo, hi);
  case 'u':
    return ew_subtree(p, kl_site_operand(cur, cur->site->lowered.operands[0]), depth, w) && ew_put(w, cur, slope, false, 0, 0);
  case 'a': {
    KlNode *x = kl_site_operand(cur, 0), *y = kl_site_operand(cur, 1);
    bool lx = ew_leaf(p->ctx, p->f, x), ly = ew_leaf(p->ctx, p->f, y);
    if (lx && ly) {
      bool tx = kl_is_tensor(p->ctx, x->type);
      return ew_subtree(p, tx ? x : y, depth, w) && ew_put(w, cur, tx ? y : x, !tx, 0, 0);
    }
    if (lx) return ew_subtree(p, y, depth, w) && ew_put(w, cur, x, true, 0, 0);
    if (ly) return ew_subtree(p, x, depth, w) && ew_put(w, cur, y, false, 0, 0);
    return ew_subtree(p, x, depth, w) && ew_subtree(p, y, depth + 1, w) && ew_put(w, cur, NULL, true, 0, 's');
  }
  default:
    return depth <= KL_EW_DEPTH && kl_is_tensor(p->ctx, src->type) && ew_leaf(p->ctx, p->f, src) &&
           ew_put(w, NULL, src, false, 0, 'p');
  }
}

/* The chain is planned from the root down its spine, the operand Python
 * evaluates first that is not a leaf, as far as the ops go or the steps
 * last; where both operands of + - * / are more than leaves, the second
 * joins as a pushed subtree, whole or not at all. What is left of the
 * spine is the first value, evaluated on its own before the chain. */
bool kl_plan_ewise(KlCtx *ctx, KlFunc *f, KlNode *root, KlEwise *out) {
  memset(out, 0, sizeof *out);
  EwPlan p = {ctx, f, root, out};
  /* the spine's steps outermost first, each pushed subtree's steps
   * reversed after its pop: the whole is reversed at the end */
  KlEwise rev = {0};
  KlNode *src = root, *cur = root; /* the node as written, and what it stands for */
  for (;;) {
    KlNode *lo = NULL, *hi = NULL, *slope = NULL;
    char kind = ew_kind(&p, cur, &lo, &hi, &slope);
    int need = kind == 'c' ? (lo != NULL) + (hi != NULL) : 1; /* steps this op takes */
    if (!kind || rev.nsteps + need > KL_EW_MAX) {
      out->first = src; /* a GEMM chain, another op or any expression: evaluated on its own */
      break;
    }
    if (kind == 'c' || kind == 'u') {
      if (kind == 'c') { /* reversed: min(hi, v), then max(lo, v) */
        if (hi) ew_put(&rev, cur, hi, false, 'h', 0);
        if (lo) ew_put(&rev, cur, lo, false, clamp_lo_part(cur, hi), 0);
      } else {
        ew_put(&rev, cur, slope, false, 0, 0);
      }
      src = kl_site_operand(cur, cur->site->lowered.operands[0]);
      cur = kl_forwarded(f, src);
      continue;
    }
    KlNode *x = kl_site_operand(cur, 0), *y = kl_site_operand(cur, 1);
    bool lx = ew_leaf(ctx, f, x), ly = ew_leaf(ctx, f, y);
    if (lx && ly) { /* the innermost op: the chain starts from its tensor operand */
      bool tx = kl_is_tensor(ctx, x->type);
      ew_put(&rev, cur, tx ? y : x, !tx, 0, 0);
      out->first = tx ? x : y;
      break;
    }
    if (!lx && !ly) { /* x op (a subtree of y): its steps, then the pop */
      KlEwise sub = {0};
      if (ew_costly(&p, y) || !ew_subtree(&p, y, 1, &sub) || rev.nsteps + sub.nsteps + 1 > KL_EW_MAX) {
        out->first = src;
        break;
      }
      ew_put(&rev, cur, NULL, true, 0, 's');
      for (int k = sub.nsteps - 1; k >= 0; k--)
        ew_put(&rev, sub.op[k], sub.operand[k], sub.swap[k], sub.clamp[k], sub.form[k]);
      src = x;
    } else {
      ew_put(&rev, cur, lx ? x : y, lx, 0, 0);
      src = lx ? y : x;
    }
    cur = kl_forwarded(f, src);
  }
  /* one op (or one clamp's two bounds) runs as itself */
  int n = rev.nsteps, pushes = 0;
  for (int k = 0; k < n; k++) pushes += rev.form[k] == 'p';
  if (n - pushes < 2 || (n == 2 && (rev.clamp[1] == 'L' || rev.clamp[1] == 'O'))) return false;
  for (int k = 0; k < n; k++) /* innermost first */
    ew_put(out, rev.op[n - 1 - k], rev.operand[n - 1 - k], rev.swap[n - 1 - k], rev.clamp[n - 1 - k], rev.form[n - 1 - k]);
  return kl_is_tensor(ctx, out->first->type);
}
