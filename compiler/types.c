/* types.c — the type of every expression and local.
 *
 * Types: int (int64), float (double), bool, plugin tensor types, and object
 * (anything else: Python fallback). A local has one type for the whole
 * function: the join of everything assigned to it, iterated to a fixpoint.
 * Differing types join to object, never to a wrong native type. */
#include "kiln.h"

#include <string.h>

bool kl_is_tensor(KlCtx *ctx, KlType t) { return t >= KL_T_FIRST_TENSOR && t < ctx->ntypes; }
bool kl_is_scalar(KlType t) { return t == KL_T_INT || t == KL_T_FLOAT || t == KL_T_BOOL; }

const char *kl_type_name(KlCtx *ctx, KlType t) {
  if (t >= 0 && t < ctx->ntypes) return ctx->types[t].key;
  return "?";
}

KlType kl_join(KlType a, KlType b) {
  if (a == KL_T_NONE_YET) return b;
  if (b == KL_T_NONE_YET) return a;
  return a == b ? a : KL_T_OBJECT;
}

/* What an alias (`Mat = kt.TensorF32Cpu2D`, the global's only binding)
 * stands for: "builtins.int" or an import's dotted path, through at most 8
 * aliases; NULL when its root is neither. */
static const char *alias_target(KlCtx *ctx, KlModule *m, KlGlobal *g) {
  for (int hop = 0; hop < 8 && g && g->alias && g->nbind == 1; hop++) {
    KlGlobal *root;
    const char *path = kl_spelled_path(ctx, m, g->alias, &root);
    if (path || root) {
      if (path || strchr(g->alias, '.')) return path;
      g = root; /* Weights = Mat */
    } else {
      const char *a = g->alias;
      bool builtin = !m->star_import && (!strcmp(a, "int") || !strcmp(a, "float") || !strcmp(a, "bool"));
      return builtin ? kl_fmt(ctx, "builtins.%s", a) : NULL;
    }
  }
  return NULL;
}

/* `int`, `float`, `bool`, or a plugin marker, by the path the annotation
 * denotes (an unshadowed `int` resolves to "builtins.int"), also through an
 * alias. */
KlType kl_annotation_type(KlCtx *ctx, KlNode *ann) {
  if (!ann) return KL_T_OBJECT;
  const char *path = ann->dotted;
  if (!path && ann->kind == KL_N_NAME && ann->binding == KL_B_GLOBAL)
    path = alias_target(ctx, ctx->module, kl_find_global(ctx->module, ann->name));
  if (!path) return KL_T_OBJECT;
  if (!strcmp(path, "builtins.int")) return KL_T_INT;
  if (!strcmp(path, "builtins.float")) return KL_T_FLOAT;
  if (!strcmp(path, "builtins.bool")) return KL_T_BOOL;
  for (KlType t = KL_T_FIRST_TENSOR; t < ctx->ntypes; t++)
    if (ctx->types[t].annotation && !strcmp(ctx->types[t].annotation, path)) return t;
  return KL_T_OBJECT;
}

typedef struct Infer {
  KlCtx *ctx;
  KlFunc *f;
  bool changed;
} Infer;

static KlType expr_type(Infer *in, KlNode *n);
static void assign_type(Infer *in, KlNode *target, KlType t);

static void set_local(Infer *in, int slot, KlType t) {
  KlLocal *l = &in->f->locals[slot];
  KlType j = kl_join(l->type, t);
  if (j != l->type) {
    l->type = j;
    in->changed = true;
  }
}

bool kl_call_unpacks(const KlNode *call) {
  for (int i = 0; i < call->list.len; i++)
    if (call->list.items[i]->kind == KL_N_STARRED) return true;
  for (int i = 0; i < call->kw.len; i++)
    if (!call->kw.items[i]->name) return true;
  return false;
}

/* Is this call `range(...)` with 1-3 int arguments and no keywords? */
bool kl_is_native_range(KlCtx *ctx, KlNode *call) {
  (void)ctx;
  if (call->kind != KL_N_CALL || call->kw.len || call->list.len < 1 || call->list.len > 3) return false;
  KlNode *fn = call->a;
  if (fn->kind != KL_N_NAME || fn->binding != KL_B_BUILTIN || strcmp(fn->name, "range")) return false;
  for (int i = 0; i < call->list.len; i++) {
    KlType t = call->list.items[i]->type;
    if (t != KL_T_INT && t != KL_T_BOOL) return false;
  }
  return true;
}

bool kl_is_tensor_dim(KlCtx *ctx, const KlNode *n, int *dim) {
  if (n->kind != KL_N_SUBSCRIPT || n->a->kind != KL_N_ATTR || strcmp(n->a->name, "shape") ||
      !kl_is_tensor(ctx, n->a->a->type))
    return false;
  const KlNode *k = n->b;
  bool neg = k->kind == KL_N_UNARY && k->op == KL_UOP_NEG;
  if (neg) k = k->a;
  if (k->kind != KL_N_INT || k->big) return false;
  int rank = ctx->types[n->a->a->type].rank;
  int64_t i = neg ? -k->ival : k->ival;
  if (i < -rank || i >= rank) return false; /* out of range: Python's IndexError */
  *dim = (int)(i < 0 ? i + rank : i);
  return true;
}

bool kl_is_tensor_ndim(KlCtx *ctx, const KlNode *n) {
  return n->kind == KL_N_ATTR && !strcmp(n->name, "ndim") && kl_is_tensor(ctx, n->a->type);
}

static KlType site_type(Infer *in, KlNode *n) {
  KlSiteInfo *s = kl_decide_site(in->ctx, in->f, n);
  n->site = s;
  switch (s->outcome) {
  case KL_SITE_SCALAR:
  case KL_SITE_CLAIMED: return s->claim.result;
  default: return KL_T_OBJECT;
  }
}

/* What a comprehension makes: any/all a bool; sum an int when the items are
 * ints or bools and the start (if any) an int, a float when the start is a
 * float and the items ints, floats or bools (CPython adds those in C), else
 * an object (no items: the start, or 0); min/max an item of a scalar type
 * when there is no key and any default has that type; else an object. */
static KlType comprehension_type(const KlNode *n) {
  const KlType item = n->a->type;
  switch (n->op) {
  case KL_COMP_ANY: case KL_COMP_ALL: return KL_T_BOOL;
  case KL_COMP_SUM: {
    const KlType start = n->c ? n->c->type : KL_T_INT;
    if (start == KL_T_INT && (item == KL_T_INT || item == KL_T_BOOL)) return KL_T_INT;
    if (start == KL_T_FLOAT && kl_is_scalar(item)) return KL_T_FLOAT;
    return KL_T_OBJECT;
  }
  case KL_COMP_MIN: case KL_COMP_MAX:
    for (int i = 0; i < n->kw.len; i++) {
      const KlNode *k = n->kw.items[i];
      if (!strcmp(k->name, "key") || k->a->type != item) return KL_T_OBJECT;
    }
    return kl_is_scalar(item) ? item : KL_T_OBJECT;
  case KL_COMP_NEXT: /* the first item, or the default */
    return kl_is_scalar(item) && (!n->c || n->c->type == item) ? item : KL_T_OBJECT;
  default: return KL_T_OBJECT;
  }
}

static KlType expr_type(Infer *in, KlNode *n) {
  KlType t = KL_T_OBJECT;
  switch (n->kind) {
  case KL_N_INT: t = n->big ? KL_T_OBJECT : KL_T_INT; break;
  case KL_N_FLOAT: t = KL_T_FLOAT; break;
  case KL_N_TRUE: case KL_N_FALSE: t = KL_T_BOOL; break;
  case KL_N_NAME:
    if (n->binding == KL_B_LOCAL) {
      t = in->f->locals[n->slot].type;
      if (t == KL_T_NONE_YET) t = KL_T_OBJECT;
    }
    break;
  case KL_N_NOT: expr_type(in, n->a); t = KL_T_BOOL; break;
  case KL_N_MATCHOP:
    expr_type(in, n->a);
    if (n->b) expr_type(in, n->b);
    t = n->op == KL_MATCH_SEQUENCE || n->op == KL_MATCH_MAPPING || n->op == KL_MATCH_FOUND ? KL_T_BOOL
        : n->op == KL_MATCH_LEN                                 ? KL_T_INT
                                                                : KL_T_OBJECT;
    break;
  case KL_N_STARRED: expr_type(in, n->a); break; /* an item unpacked: never a value of its own */
  case KL_N_NAMEDEXPR:
    t = expr_type(in, n->b);
    assign_type(in, n->a, t);
    break;
  case KL_N_BOOLOP: {
    t = KL_T_NONE_YET;
    for (int i = 0; i < n->list.len; i++) t = kl_join(t, expr_type(in, n->list.items[i]));
    if (!kl_is_scalar(t)) t = KL_T_OBJECT;
    break;
  }
  case KL_N_IFEXP: {
    expr_type(in, n->a);
    t = kl_join(expr_type(in, n->b), expr_type(in, n->c));
    break;
  }
  case KL_N_BINOP:
    expr_type(in, n->a);
    expr_type(in, n->b);
    t = site_type(in, n);
    break;
  case KL_N_UNARY:
    expr_type(in, n->a);
    t = site_type(in, n);
    break;
  case KL_N_COMPARE:
    for (int i = 0; i < n->list.len; i++) expr_type(in, n->list.items[i]);
    t = site_type(in, n);
    break;
  case KL_N_CALL:
    if (n->a->kind == KL_N_ATTR) expr_type(in, n->a->a);
    else expr_type(in, n->a);
    for (int i = 0; i < n->list.len; i++) expr_type(in, n->list.items[i]);
    for (int i = 0; i < n->kw.len; i++) expr_type(in, n->kw.items[i]->a);
    t = site_type(in, n);
    break;
  case KL_N_ATTR:
    expr_type(in, n->a);
    if (kl_is_tensor_ndim(in->ctx, n)) t = KL_T_INT;
    break;
  case KL_N_SUBSCRIPT: {
    int dim;
    expr_type(in, n->a);
    expr_type(in, n->b);
    if (kl_is_tensor_dim(in->ctx, n, &dim)) t = KL_T_INT;
    else t = site_type(in, n); /* a tensor indexed: a site (claim.c) */
    break;
  }
  case KL_N_SLICE:
    if (n->a) expr_type(in, n->a);
    if (n->b) expr_type(in, n->b);
    if (n->c) expr_type(in, n->c);
    break;
  case KL_N_TUPLE: case KL_N_LIST: case KL_N_SET: case KL_N_DICT: case KL_N_JOINEDSTR:
    for (int i = 0; i < n->list.len; i++) expr_type(in, n->list.items[i]);
    break;
  case KL_N_FORMAT:
    expr_type(in, n->a);
    if (n->b) expr_type(in, n->b);
    break;
  case KL_N_LAMBDA: /* a function; a generator's first iterable, decorators, defaults and annotations are
                       evaluated here */
    if (n->a) expr_type(in, n->a);
    if (n->b) expr_type(in, n->b);
    for (int i = 0; i < n->list.len; i++) expr_type(in, n->list.items[i]);
    for (int i = 0; i < n->kw.len; i++) expr_type(in, n->kw.items[i]->a);
    if (n->c) expr_type(in, n->c);
    break;
  case KL_N_COMP:
    for (int i = 0; i < n->list.len; i++) {
      KlNode *c = n->list.items[i];
      expr_type(in, c->b);
      if (!i && n->c) expr_type(in, n->c); /* a consumer's other arguments */
      for (int j = 0; !i && j < n->kw.len; j++) expr_type(in, n->kw.items[j]->a);
      assign_type(in, c->a, kl_is_native_range(in->ctx, c->b) ? KL_T_INT : KL_T_OBJECT);
      for (int j = 0; j < c->list.len; j++) expr_type(in, c->list.items[j]);
    }
    expr_type(in, n->a);
    if (n->b) expr_type(in, n->b);
    t = comprehension_type(n);
    break;
  default: break;
  }
  n->type = t;
  return t;
}

/* Assigns a value of type t to a target. */
static void assign_type(Infer *in, KlNode *target, KlType t) {
  switch (target->kind) {
  case KL_N_NAME:
    if (target->binding != KL_B_LOCAL) break; /* a declared global: an object in the module's dict */
    set_local(in, target->slot, t);
    target->type = in->f->locals[target->slot].type;
    break;
  case KL_N_ATTR: expr_type(in, target->a); break;
  case KL_N_SUBSCRIPT: expr_type(in, target->a); expr_type(in, target->b); break;
  case KL_N_TUPLE: case KL_N_LIST:
    for (int i = 0; i < target->list.len; i++) assign_type(in, target->list.items[i], KL_T_OBJECT);
    break;
  case KL_N_STARRED: assign_type(in, target->a, KL_T_OBJECT); break; /* a list */
  default: break;
  }
}

/* `a, b = x, y` with matching lengths assigns element-wise (types kept). */
bool kl_is_parallel_assign(KlNode *target, KlNode *value) {
  if ((target->kind != KL_N_TUPLE && target->kind != KL_N_LIST) || value->kind != KL_N_TUPLE) return false;
  if (target->list.len != value->list.len) return false;
  for (int i = 0; i < target->list.len; i++) {
    KlNodeKind k = target->list.items[i]->kind;
    if (k == KL_N_TUPLE || k == KL_N_LIST || k == KL_N_STARRED || value->list.items[i]->kind == KL_N_STARRED)
      return false;
  }
  return true;
}

static void stmts_type(Infer *in, KlNodeList body);

static void stmt_type(Infer *in, KlNode *s) {
  switch (s->kind) {
  case KL_N_EXPR_STMT: expr_type(in, s->a); break;
  case KL_N_ASSIGN: {
    KlType t = expr_type(in, s->b);
    for (int i = 0; i < s->list.len; i++) {
      KlNode *target = s->list.items[i];
      if (kl_is_parallel_assign(target, s->b)) {
        for (int j = 0; j < target->list.len; j++) assign_type(in, target->list.items[j], s->b->list.items[j]->type);
        target->type = KL_T_OBJECT;
      } else {
        assign_type(in, target, t);
      }
    }
    break;
  }
  case KL_N_ANNASSIGN:
    if (s->b) assign_type(in, s->a, expr_type(in, s->b));
    break;
  case KL_N_AUGASSIGN: {
    /* x op= y behaves as a binop site whose operands are the target's value and y */
    KlType vt = expr_type(in, s->b);
    KlType tt = KL_T_OBJECT;
    if (s->a->kind == KL_N_NAME && s->a->binding == KL_B_LOCAL) {
      tt = in->f->locals[s->slot].type; /* the value read, maybe another web than the one written */
      if (tt == KL_T_NONE_YET) tt = KL_T_OBJECT;
    } else if (s->a->kind != KL_N_NAME) { /* a NAME here is a declared global */
      expr_type(in, s->a->a);
      if (s->a->kind == KL_N_SUBSCRIPT) expr_type(in, s->a->b);
    }
    s->a->type = tt;
    (void)vt;
    KlType r = site_type(in, s);
    /* in-place operators on tensors keep Python's in-place semantics */
    if (kl_is_tensor(in->ctx, tt) || kl_is_tensor(in->ctx, vt)) r = KL_T_OBJECT;
    s->type = r;
    if (s->a->kind == KL_N_NAME && s->a->binding == KL_B_LOCAL) set_local(in, s->a->slot, r);
    break;
  }
  case KL_N_IF:
  case KL_N_WHILE:
    expr_type(in, s->a);
    stmts_type(in, s->body);
    stmts_type(in, s->orelse);
    break;
  case KL_N_WITH:
    if (s->a) expr_type(in, s->a);
    if (s->b) assign_type(in, s->b, KL_T_OBJECT); /* what __enter__ returned */
    stmts_type(in, s->body);
    break;
  case KL_N_TRY:
    stmts_type(in, s->body);
    for (int i = 0; i < s->list.len; i++) {
      KlNode *h = s->list.items[i];
      if (h->a) expr_type(in, h->a);
      if (h->b) assign_type(in, h->b, KL_T_OBJECT); /* the exception */
      stmts_type(in, h->body);
    }
    stmts_type(in, s->orelse);
    stmts_type(in, s->kw); /* finally */
    break;
  case KL_N_FOR: {
    expr_type(in, s->b);
    KlType elem = kl_is_native_range(in->ctx, s->b) ? KL_T_INT : KL_T_OBJECT;
    assign_type(in, s->a, elem);
    stmts_type(in, s->body);
    stmts_type(in, s->orelse);
    break;
  }
  case KL_N_RETURN:
    if (s->a) in->f->return_type = kl_join(in->f->return_type, expr_type(in, s->a));
    break;
  case KL_N_RAISE:
    if (s->a) expr_type(in, s->a);
    if (s->b) expr_type(in, s->b);
    break;
  case KL_N_ASSERT:
    expr_type(in, s->a);
    if (s->b) expr_type(in, s->b);
    break;
  case KL_N_IMPORT:
  case KL_N_IMPORTFROM:
    for (int i = 0; i < s->list.len; i++) assign_type(in, s->list.items[i], KL_T_OBJECT);
    break;
  case KL_N_DEL:
    for (int i = 0; i < s->list.len; i++) {
      KlNode *t = s->list.items[i];
      if (t->kind == KL_N_ATTR) expr_type(in, t->a);
      else if (t->kind == KL_N_SUBSCRIPT) {
        expr_type(in, t->a);
        expr_type(in, t->b);
      }
    }
    break;
  default: break;
  }
}

static void stmts_type(Infer *in, KlNodeList body) {
  for (int i = 0; i < body.len; i++) stmt_type(in, body.items[i]);
}

void kl_infer_types(KlCtx *ctx, KlModule *m) {
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    if (f->unsupported) continue;
    for (int j = 0; j < f->nparams; j++) {
      KlParam *p = &f->params[j];
      p->type = p->star ? KL_T_OBJECT : kl_annotation_type(ctx, p->annotation); /* *args: a tuple, **kwargs: a dict */
      /* a kiln marker that does not exist (TensorF64Cpu2D, TensorF32Cpu3D): say so */
      const char *ann = p->annotation ? p->annotation->dotted : NULL;
      if (p->type == KL_T_OBJECT && ann &&
          (!strncmp(ann, "kiln.", 5) || !strncmp(ann, "torch.", 6) || !strncmp(ann, "tensorflow.", 11)))
        kl_diag(ctx, KL_SEV_WARNING, KL_KILN021, p->annotation->loc,
                "'%s' is not a kiln type; parameter '%s' is a Python object (annotate tensors with "
                "kiln.torch / kiln.tensorflow TensorF32Cpu1D or TensorF32Cpu2D)",
                ann, p->name);
      f->locals[p->slot].type = p->type;
    }
    /* a variable a lambda or nested def reads lives in a cell: a Python object */
    for (int j = 0; j < f->nlocals; j++)
      if (f->locals[j].cell) f->locals[j].type = KL_T_OBJECT;
    Infer in = {.ctx = ctx, .f = f};
    /* Each local can only move up the lattice (none -> T -> object), so this terminates. */
    for (int round = 0; round < 4 * (f->nlocals + 2); round++) {
      in.changed = false;
      stmts_type(&in, f->body);
      if (!in.changed) break;
    }
    /* A local no assignment reaches is an (always unbound) object. */
    for (int j = 0; j < f->nlocals; j++)
      if (f->locals[j].type == KL_T_NONE_YET) f->locals[j].type = KL_T_OBJECT;
    /* One more pass so every node reflects the final local types. */
    stmts_type(&in, f->body);
  }
}
