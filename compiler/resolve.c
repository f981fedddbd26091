/* resolve.c — binds every name: local (with a slot), module global, or builtin,
 * and records what module path an expression statically denotes
 * (`F.linear` -> "torch.nn.functional.linear"). Python's rule: a name
 * assigned anywhere in a function is local in all of it. */
#include "kiln.h"

#include <string.h>

/* Builtins the compiler may treat natively when not shadowed. Every other
 * builtin is still found at run time through the globals-then-builtins lookup. */
static const char *const native_builtins[] = {
    "range", "abs", "int", "float", "bool", "min", "max", "len", "print", "isinstance", NULL,
};

KlGlobal *kl_find_global(KlModule *m, const char *name) {
  for (int i = 0; i < m->nglobals; i++)
    if (!strcmp(m->globals[i].name, name)) return &m->globals[i];
  return NULL;
}

int kl_func_local(KlCtx *ctx, KlFunc *f, const char *name) {
  for (int i = 0; i < f->nlocals; i++)
    if (!strcmp(f->locals[i].name, name)) return i;
  if (f->nlocals == f->caplocals) {
    int cap = f->caplocals ? f->caplocals * 2 : 16;
    KlLocal *ls = kl_alloc(ctx, sizeof(KlLocal) * (size_t)cap);
    if (f->nlocals) memcpy(ls, f->locals, sizeof(KlLocal) * (size_t)f->nlocals);
    f->locals = ls;
    f->caplocals = cap;
  }
  f->locals[f->nlocals] = (KlLocal){.name = kl_strdup(ctx, name)};
  return f->nlocals++;
}

static void collect_target(KlCtx *ctx, KlFunc *f, KlNode *t) {
  if (!t) return;
  if (t->kind == KL_N_NAME) kl_func_local(ctx, f, t->name);
  else if (t->kind == KL_N_TUPLE || t->kind == KL_N_LIST)
    for (int i = 0; i < t->list.len; i++) collect_target(ctx, f, t->list.items[i]);
}

static void collect_locals(KlCtx *ctx, KlFunc *f, KlNodeList body) {
  for (int i = 0; i < body.len; i++) {
    KlNode *s = body.items[i];
    switch (s->kind) {
    case KL_N_ASSIGN:
      for (int j = 0; j < s->list.len; j++) collect_target(ctx, f, s->list.items[j]);
      break;
    case KL_N_AUGASSIGN:
    case KL_N_ANNASSIGN: collect_target(ctx, f, s->a); break;
    case KL_N_FOR: collect_target(ctx, f, s->a); break;
    case KL_N_DEL:
      for (int j = 0; j < s->list.len; j++) collect_target(ctx, f, s->list.items[j]);
      break;
    default: break;
    }
    collect_locals(ctx, f, s->body);
    collect_locals(ctx, f, s->orelse);
  }
}

bool kl_is_native_builtin(KlModule *m, const char *name) {
  if (m->star_import || kl_find_global(m, name)) return false;
  for (int i = 0; native_builtins[i]; i++)
    if (!strcmp(native_builtins[i], name)) return true;
  return false;
}

static void resolve_expr(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n);

static void resolve_list(KlCtx *ctx, KlModule *m, KlFunc *f, KlNodeList l) {
  for (int i = 0; i < l.len; i++) resolve_expr(ctx, m, f, l.items[i]);
}

static void resolve_expr(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n) {
  if (!n) return;
  switch (n->kind) {
  case KL_N_NAME: {
    for (int i = 0; f && i < f->nlocals; i++)
      if (!strcmp(f->locals[i].name, n->name)) {
        n->binding = KL_B_LOCAL;
        n->slot = i;
        return;
      }
    KlGlobal *g = kl_find_global(m, n->name);
    if (g) {
      n->binding = KL_B_GLOBAL;
      n->dotted = g->dotted;
    } else if (kl_is_native_builtin(m, n->name)) {
      n->binding = KL_B_BUILTIN;
      n->dotted = kl_fmt(ctx, "builtins.%s", n->name);
    } else {
      n->binding = KL_B_GLOBAL; /* looked up at run time (globals, then builtins) */
    }
    return;
  }
  case KL_N_ATTR:
    resolve_expr(ctx, m, f, n->a);
    if (n->a->dotted && strncmp(n->a->dotted, "builtins.", 9))
      n->dotted = kl_fmt(ctx, "%s.%s", n->a->dotted, n->name);
    return;
  default:
    resolve_expr(ctx, m, f, n->a);
    resolve_expr(ctx, m, f, n->b);
    resolve_expr(ctx, m, f, n->c);
    resolve_list(ctx, m, f, n->list);
    resolve_list(ctx, m, f, n->kw);
    resolve_list(ctx, m, f, n->body);
    resolve_list(ctx, m, f, n->orelse);
  }
}

void kl_resolve(KlCtx *ctx, KlModule *m) {
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    if (f->unsupported) continue;
    for (int j = 0; j < f->nparams; j++) {
      /* annotations and defaults are evaluated in the module scope */
      resolve_expr(ctx, m, NULL, f->params[j].annotation);
      f->params[j].slot = kl_func_local(ctx, f, f->params[j].name);
      f->locals[f->params[j].slot].is_param = true;
    }
    resolve_expr(ctx, m, NULL, f->returns);
    collect_locals(ctx, f, f->body);
    resolve_list(ctx, m, f, f->body);
  }
}
