/* plugin_util.h — small helpers shared by the plugins (header-only, static). */
#ifndef KILN_PLUGIN_UTIL_H
#define KILN_PLUGIN_UTIL_H

#include "../kiln.h"
#include <string.h>

/* Rank of t if it is one of this plugin's types (tids[0] = rank 1, tids[1] = rank 2), else 0. */
static inline int pu_rank(KlType t, const KlType *tids) {
  if (t == tids[0]) return 1;
  if (t == tids[1]) return 2;
  return 0;
}

static inline bool pu_eq(const char *a, const char *b) { return a && b && !strcmp(a, b); }

/* A native Python scalar (int, float or bool) meeting a tensor in + - * /. */
static inline bool pu_scalar(KlType t) { return t == KL_T_INT || t == KL_T_FLOAT || t == KL_T_BOOL; }

/* The arithmetic operator's name in rule ids ("add", "sub", "mul", "div"), or NULL. */
static inline const char *pu_arith_name(const char *op) {
  if (!op || !op[0] || op[1]) return NULL;
  switch (op[0]) {
  case '+': return "add";
  case '-': return "sub";
  case '*': return "mul";
  case '/': return "div";
  default: return NULL;
  }
}

static inline KlClaim pu_claimed(const char *rule, KlType result) {
  return (KlClaim){.kind = KL_CLAIM_CLAIMED, .rule = rule, .result = result};
}

static inline KlClaim pu_rejected(KlCode code, const char *message) {
  return (KlClaim){.kind = KL_CLAIM_REJECTED, .code = code, .message = message};
}

static inline KlClaim pu_not_covered(void) { return (KlClaim){.kind = KL_CLAIM_NOT_COVERED}; }

/* The keyword named `name`, or NULL. */
static inline const KlSiteKeyword *pu_kw(const KlSite *s, const char *name) {
  for (int i = 0; i < s->nkw; i++)
    if (!strcmp(s->kw[i].name, name)) return &s->kw[i];
  return NULL;
}

static inline bool pu_lit_int(const KlSiteKeyword *k, int64_t v) { return k && k->lit == KL_LIT_INT && k->ival == v; }
static inline bool pu_lit_false(const KlSiteKeyword *k) { return k && k->lit == KL_LIT_BOOL && k->ival == 0; }

/* Any operand (receiver, positional or keyword) of this plugin's types? A
 * call passing them all by keyword (F.linear(input=x, weight=w)) is one of
 * ours too, and gets the rule's diagnostic rather than silence. */
static inline bool pu_any_ours(const KlSite *s, const KlType *tids) {
  if (s->has_receiver && pu_rank(s->receiver, tids)) return true;
  for (int i = 0; i < s->nargs; i++)
    if (pu_rank(s->args[i], tids)) return true;
  for (int i = 0; i < s->nkw; i++)
    if (pu_rank(s->kw[i].type, tids)) return true;
  return false;
}

/* A join of tensors (torch.cat, tf.concat; torch.stack, tf.stack with
 * `stack`): positional 0 a list or tuple display of 1..KL_SITE_MAX_SEQ
 * tensors of this plugin, all of one rank (rank 1 with `stack`: its result
 * is rank 2); then the dim, a literal int naming one of the result's dims
 * (negative ones too), positional or by one of `names` (NULL-terminated),
 * or absent when `optional` (then 0); nothing else. The dim counted from 0
 * (their rank in *rank, set only then), or -1. */
static inline int pu_join_dim(const KlSite *s, const KlType *tids, const char *const *names, bool optional,
                              bool stack, int *rank) {
  if (s->kind != KL_SK_CALL || s->nargs < 1 || s->seq_arg != 0 || s->seq_len < 1 || s->seq_len > KL_SITE_MAX_SEQ ||
      s->nargs + s->nkw > 2) /* the display positional (a keyword display is also seq_arg 0 when nargs is 0) */
    return -1;
  int r = pu_rank(s->seq[0], tids);
  for (int k = 1; k < s->seq_len; k++)
    if (pu_rank(s->seq[k], tids) != r) return -1;
  int64_t d = 0;
  if (s->nargs == 2) {
    if (s->arg_lit[1] != KL_LIT_INT) return -1;
    d = s->arg_ival[1];
  } else if (s->nkw == 1) {
    bool named = false;
    for (int i = 0; names[i]; i++) named |= pu_eq(s->kw[0].name, names[i]);
    if (!named || s->kw[0].lit != KL_LIT_INT) return -1;
    d = s->kw[0].ival;
  } else if (!optional) {
    return -1;
  }
  const int out = r + (stack ? 1 : 0);
  if (!r || (stack && r != 1) || d < -out || d >= out) return -1;
  *rank = r;
  return (int)(d < 0 ? d + out : d);
}

/* Any tensor of this plugin among a join's operands or its display's
 * elements? Then a form pu_join_dim refuses is the plugin's to report. */
static inline bool pu_join_ours(const KlSite *s, const KlType *tids) {
  for (int k = 0; k < s->seq_len && k < KL_SITE_MAX_SEQ; k++)
    if (pu_rank(s->seq[k], tids)) return true;
  return pu_any_ours(s, tids);
}

/* The lowering of a join (KL_TOP_CAT, or KL_TOP_STACK with `stack`), as
 * pu_join_dim reads it again: its one operand is the display, not a tensor
 * (emit.c cat_op evaluates the elements). False: the site is no such join. */
static inline bool pu_lower_join(const KlSite *s, const KlType *tids, const char *const *names, bool optional,
                                 bool stack, KlType result, KlLowered *out) {
  int rank, d = pu_join_dim(s, tids, names, optional, stack, &rank);
  if (d < 0) return false;
  *out = (KlLowered){.op = stack ? KL_TOP_STACK : KL_TOP_CAT, .operands = {0}, .noperands = 1, .result = result,
                     .ival = d};
  return true;
}

/* A dim written as a literal int: positional `pos` (counting after a
 * method's receiver), or the one keyword, named by one of `names`
 * (NULL-terminated); nothing else after it. In [-rank, rank), it is counted
 * from 0 into *dim; false otherwise. */
static inline bool pu_one_dim(const KlSite *s, int pos, const char *const *names, int rank, int *dim) {
  int64_t d;
  if (s->nargs == pos + 1 && s->nkw == 0 && s->arg_lit[pos] == KL_LIT_INT) {
    d = s->arg_ival[pos];
  } else if (s->nargs == pos && s->nkw == 1 && s->kw[0].lit == KL_LIT_INT) {
    bool named = false;
    for (int i = 0; names[i]; i++) named |= pu_eq(s->kw[0].name, names[i]);
    if (!named) return false;
    d = s->kw[0].ival;
  } else {
    return false;
  }
  if (d < -rank || d >= rank) return false;
  *dim = (int)(d < 0 ? d + rank : d);
  return true;
}

/* The sizes of a reshape (x.view, x.reshape, torch.reshape, tf.reshape):
 * positional `pos` written as a list or tuple display of 1 or 2 native ints
 * and nothing after it (or, with kw, that display as the only keyword, so
 * named), or (unless display_only) the positionals from `pos` on, 1 or 2
 * native ints; no other keywords. The result's rank (1 or 2), and in *seq
 * whether the sizes are the display; 0 for any other form. */
static inline int pu_reshape_rank(const KlSite *s, int pos, bool display_only, const char *kw, bool *seq) {
  const bool by_kw = kw && s->nargs == pos && s->nkw == 1 && pu_eq(s->kw[0].name, kw) && s->seq_arg == pos;
  if (!by_kw && (s->nkw || s->nargs <= pos)) return 0;
  if (by_kw || (s->seq_arg == pos && s->nargs == pos + 1)) {
    if (s->seq_len < 1 || s->seq_len > 2) return 0;
    for (int k = 0; k < s->seq_len; k++)
      if (s->seq[k] != KL_T_INT) return 0;
    *seq = true;
    return s->seq_len;
  }
  if (display_only || s->nargs - pos > 2) return 0;
  for (int i = pos; i < s->nargs; i++)
    if (s->args[i] != KL_T_INT) return 0;
  *seq = false;
  return s->nargs - pos;
}

/* The lowering of a reshape of operand 0 (KL_TOP_RESHAPE, `flags` its
 * KL_RESHAPE_* bits): the sizes are operands 1.. (a method's positionals)
 * unless KL_RESHAPE_SEQ or KL_RESHAPE_FLATTEN says otherwise. */
static inline KlLowered pu_lower_reshape(int rank, int flags, KlType result) {
  int nsizes = flags & (KL_RESHAPE_SEQ | KL_RESHAPE_FLATTEN | KL_RESHAPE_SAME) ? 0 : rank;
  KlLowered l = {.op = KL_TOP_RESHAPE, .operands = {0}, .noperands = 1 + nsizes, .result = result, .ival = flags};
  for (int i = 1; i <= nsizes; i++) l.operands[i] = i;
  return l;
}

/* x[...] read (KL_SK_SUBSCRIPT) of this plugin's rank-1 or rank-2 tensor:
 * at most rank indexes, each a native int or a slice whose start and stop
 * are native ints or absent and whose step is absent or a positive literal
 * int. The result's rank (x's, less one per int index) when it is 1 or 2,
 * else 0. */
static inline int pu_index_rank(const KlSite *s, const KlType *tids) {
  const int rank = s->kind == KL_SK_SUBSCRIPT ? pu_rank(s->receiver, tids) : 0;
  if (!rank || s->has_star_args || s->nkw || s->nargs < 1 || s->nargs > rank) return 0;
  int out = rank;
  for (int i = 0; i < s->nargs; i++) {
    if (!((s->slices >> i) & 1u)) {
      if (s->args[i] != KL_T_INT) return 0;
      out--;
      continue;
    }
    for (int p = 0; p < 2; p++)
      if (s->slice_part[i][p] != KL_T_NONE_YET && s->slice_part[i][p] != KL_T_INT) return 0;
    if (s->slice_step[i] < 1) return 0;
  }
  return out;
}

static inline KlLowered pu_op(KlTensorOp op, int n, KlType result) {
  KlLowered l = {.op = op, .noperands = n, .result = result};
  for (int i = 0; i < n; i++) l.operands[i] = i;
  return l;
}

#endif
