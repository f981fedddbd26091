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
 *    applied one after another to one value, run as one pass (kl_plan_ewise).
 * Only chains whose extra operands are plain locals or literals are fused,
 * so evaluation order and exceptions are exactly those of the op-by-op code. */
#include "kiln.h"

#include <string.h>

KlNode *kl_site_operand(KlNode *n, int k) {
  switch (n->kind) {
  case KL_N_BINOP: return kl_site_arg(n->site, k, k == 0 ? n->a : n->b);
  case KL_N_UNARY: return k == 0 ? n->a : NULL;
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
    if (!use || !pure_tensor_expr(use) || !reads_local(use, t->slot)) continue;
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

bool kl_plan_ewise(KlCtx *ctx, KlFunc *f, KlNode *root, KlEwise *out) {
  memset(out, 0, sizeof *out);
  KlNode *op[KL_EW_MAX], *operand[KL_EW_MAX];
  bool swap[KL_EW_MAX];
  char clamp[KL_EW_MAX] = {0};
  int n = 0;
  KlNode *src = root, *cur = root; /* the node as written, and what it stands for */
  for (;;) {
    int o = op_of(cur);
    KlFusion fu;
    KlNode *lo = NULL, *hi = NULL, *slope = NULL;
    bool is_clamp = (o == KL_TOP_CLAMP || o == KL_TOP_CLAMP_ORDERED) && clamp_leaves(ctx, f, cur, &lo, &hi);
    bool is_leaky = o == KL_TOP_LEAKY_RELU && leaky_leaf(ctx, f, cur, &slope);
    bool ew = (is_unary_ew(o) || is_arith(o) || is_clamp || is_leaky) && kl_is_tensor(ctx, cur->type);
    int need = is_clamp ? (lo != NULL) + (hi != NULL) : 1; /* steps this op takes */
    if (!ew || n + need > KL_EW_MAX || (cur != root && kl_plan_fusion(ctx, f, cur, &fu))) {
      out->first = src; /* a GEMM chain, another op or any expression: evaluated on its own */
      break;
    }
    if (is_clamp) { /* its steps innermost first once reversed: max(lo, v), then min(hi, v) */
      if (hi) op[n] = cur, operand[n] = hi, swap[n] = false, clamp[n++] = 'h';
      if (lo) op[n] = cur, operand[n] = lo, swap[n] = false, clamp[n++] = !hi ? 'l' : o == KL_TOP_CLAMP ? 'L' : 'O';
      src = kl_site_operand(cur, cur->site->lowered.operands[0]);
      cur = kl_forwarded(f, src);
      continue;
    }
    if (is_unary_ew(o) || is_leaky) {
      op[n] = cur, operand[n] = slope, swap[n++] = false;
      src = kl_site_operand(cur, cur->site->lowered.operands[0]);
      cur = kl_forwarded(f, src);
      continue;
    }
    KlNode *x = kl_site_operand(cur, 0), *y = kl_site_operand(cur, 1);
    bool lx = ew_leaf(ctx, f, x), ly = ew_leaf(ctx, f, y);
    if (lx && ly) { /* the innermost op: the chain starts from its tensor operand */
      bool tx = kl_is_tensor(ctx, x->type);
      op[n] = cur, operand[n] = tx ? y : x, swap[n++] = !tx;
      out->first = tx ? x : y;
      break;
    }
    if (!lx && !ly) {
      out->first = src;
      break;
    }
    op[n] = cur, operand[n] = lx ? x : y, swap[n++] = lx;
    src = lx ? y : x;
    cur = kl_forwarded(f, src);
  }
  /* one op (or one clamp's two bounds) runs as itself */
  if (n < 2 || (n == 2 && (clamp[1] == 'L' || clamp[1] == 'O'))) return false;
  out->nsteps = n;
  for (int k = 0; k < n; k++) { /* innermost first */
    out->op[k] = op[n - 1 - k];
    out->operand[k] = operand[n - 1 - k];
    out->swap[k] = swap[n - 1 - k];
    out->clamp[k] = clamp[n - 1 - k];
  }
  return kl_is_tensor(ctx, out->first->type);
}
