/* resolve.c — binds every name: local (with a slot), module global, or builtin,
 * and records what module path an expression statically denotes
 * (`F.linear` -> "torch.nn.functional.linear"). Python's rule: a name
 * assigned anywhere in a function is local in all of it. */
#include "kiln.h"

#include <stdlib.h>
#include <string.h>

/* Builtins the compiler may treat natively when not shadowed. Every other
 * builtin is still found at run time through the globals-then-builtins lookup. */
static const char *const native_builtins[] = {
    "range", "abs", "int", "float", "bool", "min", "max", "len", "print", "isinstance",
    "any", "all", "list", "set", "tuple", "sorted", "sum", "next", NULL,
};

KlGlobal *kl_find_global(KlModule *m, const char *name) {
  for (int i = 0; i < m->nglobals; i++)
    if (!strcmp(m->globals[i].name, name)) return &m->globals[i];
  return NULL;
}

/* Appends a local without looking for one of the same name. */
static int new_local_slot(KlCtx *ctx, KlFunc *f, const char *name) {
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

/* The function's local of that name (a comprehension's variables are not
 * the function's), or -1. */
static int function_local(const KlFunc *f, const char *name) {
  for (int i = 0; i < f->nlocals; i++)
    if (!f->locals[i].comp && !strcmp(f->locals[i].name, name)) return i;
  return -1;
}

int kl_func_local(KlCtx *ctx, KlFunc *f, const char *name) {
  int slot = function_local(f, name);
  return slot >= 0 ? slot : new_local_slot(ctx, f, name);
}

bool kl_declared_global(const KlFunc *f, const char *name) {
  for (int i = 0; f && i < f->nglobal_names; i++)
    if (!strcmp(f->global_names[i], name)) return true;
  return false;
}

static void collect_target(KlCtx *ctx, KlFunc *f, KlNode *t) {
  if (!t) return;
  if (t->kind == KL_N_NAME && kl_declared_global(f, t->name)) return; /* stored in the module's dict */
  if (t->kind == KL_N_NAME) kl_func_local(ctx, f, t->name);
  else if (t->kind == KL_N_STARRED) collect_target(ctx, f, t->a);
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
    case KL_N_IMPORT:
    case KL_N_IMPORTFROM:
      for (int j = 0; j < s->list.len; j++) collect_target(ctx, f, s->list.items[j]);
      break;
    case KL_N_EXCEPT:
    case KL_N_WITH:
      if (s->b) collect_target(ctx, f, s->b);
      break;
    case KL_N_TRY:
      collect_locals(ctx, f, s->list); /* the handlers */
      collect_locals(ctx, f, s->kw);   /* finally */
      break;
    default: break;
    }
    collect_locals(ctx, f, s->body);
    collect_locals(ctx, f, s->orelse);
  }
}

/* The targets of `name := v` anywhere in the function (in a comprehension
 * too: it binds the function's variable; a lambda's body is not a child). */
static void collect_walrus(KlCtx *ctx, KlFunc *f, KlNode *n);
static void collect_walrus_list(KlCtx *ctx, KlFunc *f, KlNodeList l) {
  for (int i = 0; i < l.len; i++) collect_walrus(ctx, f, l.items[i]);
}
static void collect_walrus(KlCtx *ctx, KlFunc *f, KlNode *n) {
  if (!n) return;
  if (n->kind == KL_N_NAMEDEXPR) {
    collect_target(ctx, f, n->a);
    f->has_walrus = true;
    const char **names = kl_alloc(ctx, sizeof(char *) * (size_t)(f->nwalrus_names + 1));
    if (f->nwalrus_names) memcpy(names, f->walrus_names, sizeof(char *) * (size_t)f->nwalrus_names);
    names[f->nwalrus_names++] = n->a->name;
    f->walrus_names = names;
  }
  collect_walrus(ctx, f, n->a);
  collect_walrus(ctx, f, n->b);
  collect_walrus(ctx, f, n->c);
  collect_walrus_list(ctx, f, n->list);
  collect_walrus_list(ctx, f, n->kw);
  collect_walrus_list(ctx, f, n->body);
  collect_walrus_list(ctx, f, n->orelse);
}

/* Every name in builtins on CPython 3.10-3.13 (site's exit, quit, help,
 * copyright, credits, license included), and the globals every module has. */
static const char *const python_builtins[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
    "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
    "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
    "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
    "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError",
    "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
    "PythonFinalizationError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
    "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
    "SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
    "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError",
    "Warning", "ZeroDivisionError", "_IncompleteInputError", "__build_class__", "__debug__", "__doc__",
    "__import__", "__loader__", "__name__", "__package__", "__spec__", "abs", "aiter", "all", "anext", "any",
    "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile",
    "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit",
    "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
    "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
    "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range",
    "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super",
    "tuple", "type", "vars", "zip",
    "__file__", "__builtins__", "__cached__", "__annotations__", "__path__", NULL,
};

static bool is_python_builtin(const char *name) {
  for (int i = 0; python_builtins[i]; i++)
    if (!strcmp(python_builtins[i], name)) return true;
  return false;
}

/* KILN020, at a name's first use in the module: a name no statement of the
 * module binds and no builtin has. Python semantics are kept (looked up at
 * run time, NameError if still missing); the warning says so at build time. */
static void warn_unknown_name(KlCtx *ctx, KlModule *m, KlNode *n) {
  if (m->star_import || m->dynamic_names || is_python_builtin(n->name)) return;
  for (int i = 0; i < m->nunknown; i++)
    if (!strcmp(m->unknown[i], n->name)) return;
  if (m->nunknown == m->capunknown) {
    int cap = m->capunknown ? m->capunknown * 2 : 8;
    const char **u = kl_alloc(ctx, sizeof(char *) * (size_t)cap);
    if (m->nunknown) memcpy(u, m->unknown, sizeof(char *) * (size_t)m->nunknown);
    m->unknown = u;
    m->capunknown = cap;
  }
  m->unknown[m->nunknown++] = n->name;
  kl_diag(ctx, KL_SEV_WARNING, KL_KILN020, n->loc,
          "name '%s' is not defined in this module nor a builtin; it is looked up when the line runs "
          "(NameError if it is still missing)", n->name);
}

bool kl_is_native_builtin(KlModule *m, const char *name) {
  if (m->star_import || kl_find_global(m, name)) return false;
  for (int i = 0; native_builtins[i]; i++)
    if (!strcmp(native_builtins[i], name)) return true;
  return false;
}

const char *kl_spelled_path(KlCtx *ctx, KlModule *m, const char *spelling, KlGlobal **root) {
  const char *dot = strchr(spelling, '.');
  KlGlobal *g = kl_find_global(m, kl_strndup(ctx, spelling, dot ? (size_t)(dot - spelling) : strlen(spelling)));
  if (root) *root = g;
  if (!g || !g->dotted) return NULL;
  return dot ? kl_fmt(ctx, "%s%s", g->dotted, dot) : g->dotted;
}

int kl_grad_guard_path(const char *path) {
  static const char *const no_grad[] = {"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"};
  static const char *const inference[] = {"torch.inference_mode", "torch.autograd.inference_mode",
                                          "torch.autograd.grad_mode.inference_mode"};
  for (int i = 0; path && i < 3; i++) {
    if (!strcmp(path, no_grad[i])) return KL_GUARD_NO_GRAD;
    if (!strcmp(path, inference[i])) return KL_GUARD_INFERENCE;
  }
  return 0;
}

/* Whether a store spelled "root.rest" (dot at its first '.') has that root name. */
static bool root_is(const char *spelling, const char *dot, const char *name) {
  return strlen(name) == (size_t)(dot - spelling) && !strncmp(name, spelling, (size_t)(dot - spelling));
}

/* Attribute stores (`torch.backends.cudnn.benchmark = v`, anywhere in the
 * module) as the dotted paths they assign, once the module's imports are
 * known: through the module's global of the root's name, and through every
 * path an import anywhere binds that name to (a function's `import torch`
 * then `torch.relu = f`; a superset where two functions import different
 * paths as one name). A store whose root is no import changes nothing kiln
 * resolves. */
static void resolve_attr_stores(KlCtx *ctx, KlModule *m) {
  /* each store yields its global's path and one per import binding its root's name */
  int roots = 0;
  for (int i = 0; i < m->nattr_stores; i++) {
    const char *st = m->attr_stores[i], *dot = strchr(st, '.');
    if (!dot) continue;
    roots++;
    for (int j = 0; j + 1 < m->nimport_binds; j += 2)
      roots += root_is(st, dot, m->import_binds[j]);
  }
  const char **out = kl_alloc(ctx, sizeof(char *) * (size_t)(roots ? roots : 1));
  int n = 0;
  for (int i = 0; i < m->nattr_stores; i++) {
    const char *st = m->attr_stores[i], *dot = strchr(st, '.');
    if (!dot) continue;
    const char *global = kl_spelled_path(ctx, m, st, NULL);
    if (global) out[n++] = global;
    for (int j = 0; j + 1 < m->nimport_binds; j += 2)
      if (root_is(st, dot, m->import_binds[j]))
        out[n++] = kl_fmt(ctx, "%s%s", m->import_binds[j + 1], dot);
  }
  m->attr_stores = out;
  m->nattr_stores = m->capattr_stores = n;
}

/* Whether `base.name` is, or lies under, a path the module assigns: then it
 * is looked up at run time like any other attribute. */
static bool stored_over(KlModule *m, const char *base, const char *name) {
  const size_t nb = strlen(base), nn = strlen(name);
  for (int i = 0; i < m->nattr_stores; i++) {
    const char *st = m->attr_stores[i];
    if (!st) continue;
    const size_t ns = strlen(st);
    /* st is a prefix of base.name at a dot boundary (or all of it) */
    if (ns <= nb) {
      if (!strncmp(st, base, ns) && (base[ns] == '.' || base[ns] == '\0')) return true;
    } else if (ns <= nb + 1 + nn && !strncmp(st, base, nb) && st[nb] == '.' &&
               !strncmp(st + nb + 1, name, ns - nb - 1) && (ns == nb + 1 + nn || name[ns - nb - 1] == '.')) {
      return true;
    }
  }
  return false;
}

/* A name bound to a path by `from a import b` (a.b): whether the module
 * stores over a.b (or a prefix of it) anywhere. */
static bool path_stored_over(KlCtx *ctx, KlModule *m, const char *path) {
  const char *dot = path ? strrchr(path, '.') : NULL;
  return dot && stored_over(m, kl_strndup(ctx, path, (size_t)(dot - path)), dot + 1);
}

/* f relies on what it resolved through g, a guarded import (parse.c): the
 * runtime installs f only if g is its path's object once the module has
 * run. Only a path kiln acts on (a claimed or scalar call, a grad guard)
 * needs it: elsewhere the compiled code looks the global up as Python does. */
static void add_import_guard(KlCtx *ctx, KlFunc *f, const KlGlobal *g) {
  if (!f || !g || !g->guarded) return;
  for (int i = 0; i + 1 < f->nimport_guards; i += 2)
    if (!strcmp(f->import_guards[i], g->name)) return;
  const char **a = kl_alloc(ctx, sizeof(char *) * (size_t)(f->nimport_guards + 2));
  if (f->nimport_guards) memcpy(a, f->import_guards, sizeof(char *) * (size_t)f->nimport_guards);
  a[f->nimport_guards++] = g->name;
  a[f->nimport_guards++] = g->dotted;
  f->import_guards = a;
}

void kl_note_import_guard(KlCtx *ctx, KlFunc *f, const KlNode *path) {
  while (path && path->kind == KL_N_ATTR) path = path->a;
  if (path && path->kind == KL_N_NAME && path->binding == KL_B_GLOBAL && path->dotted)
    add_import_guard(ctx, f, kl_find_global(ctx->module, path->name));
}

/* `a.b` where a resolved to a path: a's path + ".b", unless a is a builtin
 * or the module stores over that path. */
static void attr_path(KlCtx *ctx, KlModule *m, KlNode *n) {
  if (n->a->dotted && strncmp(n->a->dotted, "builtins.", 9) && !stored_over(m, n->a->dotted, n->name))
    n->dotted = kl_fmt(ctx, "%s.%s", n->a->dotted, n->name);
}

static void resolve_expr(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n);
static void resolve_comprehension(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n);
static void consume_generator(KlNode *call);
static void consume_starred_generators(KlNode *n);
static void split_webs(KlCtx *ctx, KlFunc *f);
static void mark_static_path_targets(KlCtx *ctx, KlNodeList body);
static void resolve_static_paths_list(KlCtx *ctx, KlModule *m, KlFunc *f, KlNodeList l);

static void resolve_list(KlCtx *ctx, KlModule *m, KlFunc *f, KlNodeList l) {
  for (int i = 0; i < l.len; i++) resolve_expr(ctx, m, f, l.items[i]);
}

/* Binds a comprehension's target names to its own variables: new locals
 * found only through f->comp_scope (from `mark` on: this comprehension's). */
static void bind_comp_target(KlCtx *ctx, KlFunc *f, KlNode *t, int mark) {
  if (t->kind == KL_N_STARRED) {
    bind_comp_target(ctx, f, t->a, mark);
    return;
  }
  if (t->kind != KL_N_NAME) {
    for (int i = 0; i < t->list.len; i++) bind_comp_target(ctx, f, t->list.items[i], mark);
    return;
  }
  t->binding = KL_B_LOCAL;
  for (int i = mark; i < f->ncomp_scope; i++)
    if (!strcmp(f->locals[f->comp_scope[i]].name, t->name)) {
      t->slot = f->comp_scope[i];
      return;
    }
  t->slot = new_local_slot(ctx, f, t->name);
  f->locals[t->slot].comp = true;
  if (f->ncomp_scope == f->capcomp_scope) {
    int cap = f->capcomp_scope ? f->capcomp_scope * 2 : 8;
    int *sc = kl_alloc(ctx, sizeof(int) * (size_t)cap);
    if (f->ncomp_scope) memcpy(sc, f->comp_scope, sizeof(int) * (size_t)f->ncomp_scope);
    f->comp_scope = sc;
    f->capcomp_scope = cap;
  }
  f->comp_scope[f->ncomp_scope++] = t->slot;
}

/* ---- the order a generator's frame releases its variables ----
 * CPython clears a frame's variables in the order its code first names
 * them (targets and reads, in the order the code runs them: a clause's
 * target, its conditions, the next clause's iterable, ...), then its cell
 * variables, those a nested function reads, in name order. A nested
 * generator expression is such a function on every version, a nested list,
 * set or dict comprehension only up to 3.11 (3.12 inlines it: its reads
 * are the generator's own). Only what kiln can observe matters: the
 * generator's own target variables. */
typedef struct VarOrder {
  KlFunc *f;
  int first, last; /* the generator's variables: comp_scope[first..last) */
  int *rank;       /* per variable: first use, or -1 */
  bool *cell;
  int next;
  bool inlined;    /* 3.12 and later */
} VarOrder;

static void order_uses(VarOrder *o, KlNode *n, bool nested);
static void order_list(VarOrder *o, KlNodeList l, bool nested) {
  for (int i = 0; i < l.len; i++) order_uses(o, l.items[i], nested);
}

/* The generator's own variable n names, as an index from o->first, or -1. */
static int order_var(VarOrder *o, KlNode *n) {
  if (n->kind != KL_N_NAME || n->binding != KL_B_LOCAL) return -1;
  for (int i = o->first; i < o->last; i++)
    if (o->f->comp_scope[i] == n->slot) return i - o->first;
  return -1;
}

static void order_clauses(VarOrder *o, KlNode *comp, bool nested) {
  for (int i = 0; i < comp->list.len; i++) {
    KlNode *c = comp->list.items[i];
    if (i) order_uses(o, c->b, nested);
    order_uses(o, c->a, nested);
    order_list(o, c->list, nested);
  }
  order_uses(o, comp->a, nested);
  order_uses(o, comp->b, nested);
}

static void order_uses(VarOrder *o, KlNode *n, bool nested) {
  if (!n) return;
  for (int i = 0; n->kind == KL_N_LAMBDA && i < n->lambda->nfree; i++) /* the variables it closes over */
    for (int u = o->first; u < o->last; u++)
      if (o->f->comp_scope[u] == n->lambda->free_slots[i]) o->cell[u - o->first] = true;
  int v = order_var(o, n);
  if (v >= 0) {
    if (nested) o->cell[v] = true;
    else if (o->rank[v] < 0) o->rank[v] = o->next++;
    return;
  }
  if (n->kind == KL_N_COMP) {
    order_uses(o, n->list.items[0]->b, nested); /* its first iterable runs here */
    order_uses(o, n->c, nested);                /* and a consumer's other arguments */
    order_list(o, n->kw, nested);
    const bool generator = n->op == KL_COMP_GENERATOR || n->consumed; /* consumed: converted already */
    order_clauses(o, n, nested || generator || !o->inlined);
    return;
  }
  order_uses(o, n->a, nested);
  order_uses(o, n->b, nested);
  order_uses(o, n->c, nested);
  order_list(o, n->list, nested);
  order_list(o, n->kw, nested);
}

static void collect_targets(KlNode *t, KlNode **out, int *n);
static int count_targets(KlNode *t);

/* 3.12 inlines a list, set or dict comprehension (PEP 709): it saves its
 * variables at its start, in the order its symbol table first met them, and
 * restores them (unbound) at its end, the last saved first. The symbol table
 * meets a clause's target, its conditions, then each next clause's target,
 * iterable and conditions, a dict's value, the element; of a nested
 * comprehension only the first iterable is this one's. */
static void symtable_uses(VarOrder *o, KlNode *n) {
  if (!n) return;
  int v = order_var(o, n);
  if (v >= 0) {
    if (o->rank[v] < 0) o->rank[v] = o->next++;
    return;
  }
  if (n->kind == KL_N_COMP) {
    symtable_uses(o, n->list.items[0]->b);
    symtable_uses(o, n->c);
    for (int i = 0; i < n->kw.len; i++) symtable_uses(o, n->kw.items[i]);
    return;
  }
  symtable_uses(o, n->a);
  symtable_uses(o, n->b);
  symtable_uses(o, n->c);
  for (int i = 0; i < n->list.len; i++) symtable_uses(o, n->list.items[i]);
  for (int i = 0; i < n->kw.len; i++) symtable_uses(o, n->kw.items[i]);
}

/* The names 3.12 also saves for the nested comprehensions it inlines into
 * comp (their variables, after comp's own: the symbol table copies them in
 * after its own): names[n..] grows, without repeats. */
static bool is_inlined(const KlNode *n) {
  return n->kind == KL_N_COMP && n->op != KL_COMP_GENERATOR && !n->consumed;
}

static void add_name(const char **names, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(names[i], name)) return;
  names[(*n)++] = name;
}

static void inlined_names(KlCtx *ctx, KlNode *n, const char **names, int *count) {
  if (!n) return;
  if (n->kind == KL_N_COMP) {
    inlined_names(ctx, n->list.items[0]->b, names, count); /* evaluated in the enclosing scope */
    inlined_names(ctx, n->c, names, count);
    for (int i = 0; i < n->kw.len; i++) inlined_names(ctx, n->kw.items[i], names, count);
    if (!is_inlined(n)) return; /* a generator expression is a function of its own */
    int nt = 0;
    for (int i = 0; i < n->list.len; i++) nt += count_targets(n->list.items[i]->a);
    KlNode **targets = kl_alloc(ctx, sizeof(KlNode *) * (size_t)(nt + 1));
    nt = 0;
    for (int i = 0; i < n->list.len; i++) collect_targets(n->list.items[i]->a, targets, &nt);
    for (int i = 0; i < nt; i++) add_name(names, count, targets[i]->name);
    for (int i = 0; i < n->list.len; i++) {
      if (i) inlined_names(ctx, n->list.items[i]->b, names, count);
      for (int j = 0; j < n->list.items[i]->list.len; j++) inlined_names(ctx, n->list.items[i]->list.items[j], names, count);
    }
    inlined_names(ctx, n->b, names, count);
    inlined_names(ctx, n->a, names, count);
    return;
  }
  inlined_names(ctx, n->a, names, count);
  inlined_names(ctx, n->b, names, count);
  inlined_names(ctx, n->c, names, count);
  for (int i = 0; i < n->list.len; i++) inlined_names(ctx, n->list.items[i], names, count);
  for (int i = 0; i < n->kw.len; i++) inlined_names(ctx, n->kw.items[i], names, count);
}

static int count_names(const KlNode *n) {
  if (!n) return 0;
  int c = n->kind == KL_N_NAME;
  c += count_names(n->a) + count_names(n->b) + count_names(n->c);
  for (int i = 0; i < n->list.len; i++) c += count_names(n->list.items[i]);
  for (int i = 0; i < n->kw.len; i++) c += count_names(n->kw.items[i]);
  return c;
}

static void symtable_clauses(VarOrder *o, KlNode *comp) {
  for (int i = 0; i < comp->list.len; i++) {
    KlNode *c = comp->list.items[i];
    symtable_uses(o, c->a);
    if (i) symtable_uses(o, c->b);
    for (int j = 0; j < c->list.len; j++) symtable_uses(o, c->list.items[j]);
  }
  symtable_uses(o, comp->b);
  symtable_uses(o, comp->a);
}

static void collect_targets(KlNode *t, KlNode **out, int *n) {
  if (t->kind == KL_N_NAME) out[(*n)++] = t;
  else if (t->kind == KL_N_STARRED) collect_targets(t->a, out, n);
  else
    for (int i = 0; i < t->list.len; i++) collect_targets(t->list.items[i], out, n);
}

static int count_targets(KlNode *t) {
  if (t->kind == KL_N_STARRED) return count_targets(t->a);
  int n = t->kind == KL_N_NAME;
  for (int i = 0; t->kind != KL_N_NAME && i < t->list.len; i++) n += count_targets(t->list.items[i]);
  return n;
}

/* Fills gen->release[] (gen a comprehension whose variables are
 * comp_scope[first..last)): a generator expression's, or a list, set or dict
 * comprehension's up to 3.11, in its frame's order; from 3.12 a list, set or
 * dict comprehension's in its restore order. */
static void release_order(KlCtx *ctx, KlFunc *f, KlNode *gen, int first, int last) {
  const bool restored = gen->op != KL_COMP_GENERATOR; /* from 3.12 */
  int ntargets = 0;
  for (int i = 0; i < gen->list.len; i++) ntargets += count_targets(gen->list.items[i]->a);
  KlNode **targets = kl_alloc(ctx, sizeof(KlNode *) * (size_t)(ntargets + 1));
  int nt = 0;
  for (int i = 0; i < gen->list.len; i++) collect_targets(gen->list.items[i]->a, targets, &nt);
  const int nvars = last - first;
  for (int version = 0; version < 2; version++) {
    VarOrder o = {.f = f, .first = first, .last = last, .inlined = version == 1,
                  .rank = kl_alloc(ctx, sizeof(int) * (size_t)(nvars + 1)),
                  .cell = kl_alloc(ctx, sizeof(bool) * (size_t)(nvars + 1))};
    for (int v = 0; v < nvars; v++) o.rank[v] = -1;
    if (version == 1 && restored) {
      /* saved: its own variables (rank), then the inlined comprehensions'
       * names; restored last saved first, but when an assignment on its
       * line stores it straight into a local, the compiler swaps that store
       * with the first restore: the last saved then goes last */
      symtable_clauses(&o, gen);
      const char **names = kl_alloc(ctx, sizeof(char *) * (size_t)(nvars + count_names(gen) + 1));
      int np = 0;
      for (int v = 0; v < nvars; v++) names[np++] = f->locals[f->comp_scope[first + v]].name;
      for (int i = 0; i < gen->list.len; i++) {
        if (i) inlined_names(ctx, gen->list.items[i]->b, names, &np);
        for (int j = 0; j < gen->list.items[i]->list.len; j++)
          inlined_names(ctx, gen->list.items[i]->list.items[j], names, &np);
      }
      inlined_names(ctx, gen->b, names, &np);
      inlined_names(ctx, gen->a, names, &np);
      bool swapped = gen->stored_to != NULL;
      for (int i = 0; i < np && swapped; i++) swapped = strcmp(names[i], gen->stored_to) != 0;
      for (int v = 0; v < nvars; v++)
        o.rank[v] = swapped ? (o.rank[v] == np - 1 ? np - 1 : np - 2 - o.rank[v]) : np - 1 - o.rank[v];
    } else {
      order_clauses(&o, gen, false);
    }
    /* the sort key: first use for plain variables (every target is one),
     * after them the cells, by name */
    int *key = kl_alloc(ctx, sizeof(int) * (size_t)(nvars + 1));
    for (int v = 0; v < nvars; v++) {
      key[v] = o.rank[v];
      if (!o.cell[v]) continue;
      key[v] = nvars;
      for (int u = 0; u < nvars; u++)
        if (o.cell[u] &&
            strcmp(f->locals[f->comp_scope[first + u]].name, f->locals[f->comp_scope[first + v]].name) < 0)
          key[v]++;
    }
    KlNode **out = kl_alloc(ctx, sizeof(KlNode *) * (size_t)(ntargets + 1));
    for (int i = 0; i < nt; i++) out[i] = targets[i];
    for (int i = 1; i < nt; i++) /* stable insertion sort by the variable's key */
      for (int j = i; j > 0; j--) {
        int a = order_var(&o, out[j - 1]), b = order_var(&o, out[j]);
        if (key[a] <= key[b]) break;
        KlNode *tmp = out[j - 1];
        out[j - 1] = out[j];
        out[j] = tmp;
      }
    gen->release[version] = out;
  }
  gen->nrelease = nt;
}

/* A comprehension is a scope of its own, as in Python: its first iterable
 * is evaluated outside it; every target of every clause is its variable
 * throughout (also in an earlier clause's iterable); other names are the
 * function's, the module's or builtins. */
static void resolve_comprehension(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n) {
  KlNodeList clauses = n->list;
  resolve_expr(ctx, m, f, clauses.items[0]->b);
  if (!f) return; /* in a default or an annotation: Python evaluates it */
  const int mark = f->ncomp_scope, outer_mark = f->comp_mark, outer_gen = f->gen_mark;
  f->comp_depth++;
  for (int i = 0; i < clauses.len; i++) bind_comp_target(ctx, f, clauses.items[i]->a, mark);
  f->comp_mark = mark;
  if (n->op == KL_COMP_GENERATOR) f->gen_mark = mark;
  for (int i = 0; i < clauses.len; i++) {
    if (i) resolve_expr(ctx, m, f, clauses.items[i]->b);
    resolve_list(ctx, m, f, clauses.items[i]->list);
  }
  resolve_expr(ctx, m, f, n->a);
  resolve_expr(ctx, m, f, n->b);
  release_order(ctx, f, n, mark, f->ncomp_scope);
  f->ncomp_scope = mark;
  f->comp_mark = outer_mark;
  f->gen_mark = outer_gen;
  f->comp_depth--;
}

/* The names generator expressions in n read beyond their first iterables
 * (inside: n is in one), into f->genexp_names; counting only when names is NULL. */
static int genexp_names(const KlNode *n, bool inside, const char **names) {
  if (!n) return 0;
  if (n->kind == KL_N_NAME) {
    if (inside && names) names[0] = n->name;
    return inside;
  }
  int c = 0;
  const bool gen = n->kind == KL_N_COMP && (n->op == KL_COMP_GENERATOR || n->consumed);
#define NAMES(x, in) (c += genexp_names((x), (in), names ? names + c : NULL))
  if (gen) {
    NAMES(n->list.items[0]->b, inside);
    for (int i = 0; i < n->list.len; i++) {
      if (i) NAMES(n->list.items[i]->b, true);
      for (int j = 0; j < n->list.items[i]->list.len; j++) NAMES(n->list.items[i]->list.items[j], true);
    }
    NAMES(n->a, true);
    NAMES(n->b, true);
    return c;
  }
  NAMES(n->a, inside);
  NAMES(n->b, inside);
  NAMES(n->c, inside);
  KlNodeList ls[] = {n->list, n->kw, n->body, n->orelse};
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < ls[k].len; i++) NAMES(ls[k].items[i], inside);
#undef NAMES
  return c;
}

static void collect_genexp_names(KlCtx *ctx, KlFunc *f) {
  int n = 0;
  for (int i = 0; i < f->body.len; i++) n += genexp_names(f->body.items[i], false, NULL);
  f->genexp_names = kl_alloc(ctx, sizeof(char *) * (size_t)(n + 1));
  f->ngenexp_names = 0;
  for (int i = 0; i < f->body.len; i++)
    f->ngenexp_names += genexp_names(f->body.items[i], false, f->genexp_names + f->ngenexp_names);
}

/* `r = [...]` (or `r: T = [...]`) with r a plain local (no cell) on the
 * comprehension's line: 3.12 stores the result with STORE_FAST right after
 * the comprehension's restores, and its compiler swaps the two (see
 * release_order). */
static void mark_stored_comprehension(KlFunc *f, KlNode *s) {
  KlNode *target = s->kind == KL_N_ASSIGN && s->list.len == 1 ? s->list.items[0] : s->kind == KL_N_ANNASSIGN ? s->a : NULL;
  KlNode *value = s->b;
  if (!f || !target || !value || target->kind != KL_N_NAME || value->kind != KL_N_COMP ||
      value->op == KL_COMP_GENERATOR || target->loc.line != value->loc.line)
    return;
  for (int i = 0; i < f->ngenexp_names; i++)
    if (!strcmp(f->genexp_names[i], target->name)) return;
  if (kl_declared_global(f, target->name)) return; /* STORE_GLOBAL: no swap */
  const int slot = function_local(f, target->name);
  if (slot >= 0 && f->locals[slot].cell) return; /* STORE_DEREF: no swap */
  value->stored_to = target->name;
}

/* ---- lambdas ----
 * A lambda's body is CPython's to compile and run; kiln only finds what it
 * reads. Its own parameters, those of lambdas inside it and the variables
 * of comprehensions inside it are its own. Any other name that is a
 * variable of the function makes the lambda a closure: that variable then
 * lives in a cell object (one slot, split_webs keeps it whole), and the
 * lambda gets the cell, as CPython's closure does. A variable of a
 * comprehension around the lambda is a cell too, a new one each time the
 * comprehension starts (as CPython's comprehension frame, or from 3.12 its
 * inlined MAKE_CELL, makes it): emit.c comprehension. Globals and builtins
 * the body looks up itself. */
typedef struct Scope {
  const char *const *names;
  int n;
  const KlNodeList *targets; /* a comprehension's clauses: their targets bind */
  const struct Scope *up;
} Scope;

static bool target_binds(const KlNode *t, const char *name) {
  if (t->kind == KL_N_NAME) return !strcmp(t->name, name);
  if (t->kind == KL_N_STARRED) return target_binds(t->a, name);
  if (t->kind == KL_N_TUPLE || t->kind == KL_N_LIST)
    for (int i = 0; i < t->list.len; i++)
      if (target_binds(t->list.items[i], name)) return true;
  return false;
}

static bool scope_binds(const Scope *s, const char *name) {
  for (; s; s = s->up) {
    for (int i = 0; i < s->n; i++)
      if (!strcmp(s->names[i], name)) return true;
    for (int i = 0; s->targets && i < s->targets->len; i++)
      if (target_binds(s->targets->items[i]->a, name)) return true;
  }
  return false;
}

typedef struct FreeReads {
  const KlNode **names; /* one node per distinct name */
  int n, cap;
} FreeReads;

/* Adds each name in n (part of a lambda's body) that no scope of the
 * lambda binds and that the function or a comprehension around the lambda
 * does (f->comp_scope). */
/* Is name a variable of a comprehension around the node being resolved? */
static bool comp_variable(const KlFunc *f, const char *name) {
  for (int i = 0; i < f->ncomp_scope; i++)
    if (!strcmp(f->locals[f->comp_scope[i]].name, name)) return true;
  return false;
}

static void free_reads(KlCtx *ctx, const KlFunc *f, const KlNode *n, const Scope *s, FreeReads *out) {
  if (!n) return;
  switch (n->kind) {
  case KL_N_NAME: {
    if (scope_binds(s, n->name) || (!comp_variable(f, n->name) && function_local(f, n->name) < 0)) return;
    for (int i = 0; i < out->n; i++)
      if (!strcmp(out->names[i]->name, n->name)) return; /* one node per name */
    if (out->n == out->cap) {
      out->cap = out->cap ? 2 * out->cap : 8;
      const KlNode **ns = kl_alloc(ctx, sizeof(KlNode *) * (size_t)out->cap);
      if (out->n) memcpy(ns, out->names, sizeof(KlNode *) * (size_t)out->n);
      out->names = ns;
    }
    out->names[out->n++] = n;
    return;
  }
  case KL_N_LAMBDA: {
    for (int i = 0; i < n->list.len; i++) free_reads(ctx, f, n->list.items[i], s, out);
    for (int i = 0; i < n->kw.len; i++) free_reads(ctx, f, n->kw.items[i]->a, s, out);
    Scope inner = {n->lambda->names, n->lambda->nnames, NULL, s};
    free_reads(ctx, f, n->lambda->body, &inner, out);
    return;
  }
  case KL_N_COMP: {
    /* the first iterable is evaluated outside; the rest, and targets that
       are not plain names, inside */
    Scope inner = {NULL, 0, &n->list, s};
    for (int i = 0; i < n->list.len; i++) {
      const KlNode *c = n->list.items[i];
      free_reads(ctx, f, c->b, i ? &inner : s, out);
      if (c->a->kind != KL_N_NAME) free_reads(ctx, f, c->a, &inner, out);
      for (int j = 0; j < c->list.len; j++) free_reads(ctx, f, c->list.items[j], &inner, out);
    }
    free_reads(ctx, f, n->a, &inner, out);
    free_reads(ctx, f, n->b, &inner, out);
    return;
  }
  default: break;
  }
  free_reads(ctx, f, n->a, s, out);
  free_reads(ctx, f, n->b, s, out);
  free_reads(ctx, f, n->c, s, out);
  for (int i = 0; i < n->list.len; i++) free_reads(ctx, f, n->list.items[i], s, out);
  for (int i = 0; i < n->kw.len; i++) free_reads(ctx, f, n->kw.items[i], s, out);
}

static int by_name(const void *a, const void *b) {
  return strcmp((*(const KlNode *const *)a)->name, (*(const KlNode *const *)b)->name);
}

/* What a lambda (its parsed body) or nested def (every name its body
 * mentions but its parameters: a superset of what it reads, so the runtime
 * passes the cells its code wants) reads of f's variables. */
static FreeReads function_reads(KlCtx *ctx, const KlFunc *f, const KlNode *n) {
  Scope own = {n->lambda->names, n->lambda->nnames, NULL, NULL};
  FreeReads reads = {0};
  free_reads(ctx, f, n->lambda->body, &own, &reads);
  for (int i = 0; i < n->lambda->reads.len; i++) free_reads(ctx, f, n->lambda->reads.items[i], &own, &reads);
  return reads;
}

/* Before the body is resolved, every variable some lambda or nested def
 * reads is made a cell: what resolve.c decides about a statement (3.12's
 * release order, mark_stored_comprehension) may depend on it, and the
 * lambda can come after the statement. */
static void mark_cells(KlCtx *ctx, KlFunc *f, KlNode *n) {
  if (!n) return;
  if (n->kind == KL_N_LAMBDA) {
    FreeReads reads = function_reads(ctx, f, n);
    for (int i = 0; i < reads.n; i++) {
      const int slot = function_local(f, reads.names[i]->name);
      if (slot >= 0) f->locals[slot].cell = true;
    }
  }
  const KlNode *kids[3] = {n->a, n->b, n->c};
  for (int i = 0; i < 3; i++) mark_cells(ctx, f, (KlNode *)kids[i]);
  const KlNodeList lists[4] = {n->list, n->kw, n->body, n->orelse};
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < lists[j].len; i++) mark_cells(ctx, f, lists[j].items[i]);
}

static void resolve_lambda(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n) {
  resolve_expr(ctx, m, f, n->a);    /* a generator expression's first iterable, */
  resolve_expr(ctx, m, f, n->b);    /* a def's decorators, */
  resolve_list(ctx, m, f, n->list); /* the defaults, */
  resolve_list(ctx, m, f, n->kw);
  resolve_expr(ctx, m, f, n->c);    /* a def's annotations: all evaluated here */
  if (!f) return;
  FreeReads reads = function_reads(ctx, f, n);
  /* co_freevars order: by name (UTF-8 byte order is code point order) */
  if (reads.n) qsort(reads.names, (size_t)reads.n, sizeof(KlNode *), by_name);
  n->lambda->free_slots = kl_alloc(ctx, sizeof(int) * (size_t)(reads.n + 1));
  for (int i = 0; i < reads.n; i++) {
    const KlNode *r = reads.names[i];
    int slot = -1;
    for (int j = f->ncomp_scope - 1; j >= 0 && slot < 0; j--) /* the innermost comprehension's first */
      if (!strcmp(f->locals[f->comp_scope[j]].name, r->name)) slot = f->comp_scope[j];
    if (slot >= 0) f->locals[slot].cell = true;
    else slot = function_local(f, r->name); /* a cell already: mark_cells */
    n->lambda->free_slots[n->lambda->nfree++] = slot;
  }
}

/* A call of a builtin that reads the calling frame: locals(), vars(),
 * dir(), zero-argument super(), eval/exec without a globals argument. A
 * compiled function has no frame, so they would read its caller's: the
 * function stays Python. (globals() is the module's dict: kr->call_noargs.) */
static void check_frame_builtin(KlCtx *ctx, KlFunc *f, const KlNode *call) {
  const KlNode *fn = call->a;
  if (!f || f->unsupported || fn->kind != KL_N_NAME || fn->binding == KL_B_LOCAL) return;
  const int nargs = call->list.len + call->kw.len;
  const bool unpacks = kl_call_unpacks(call); /* may or may not pass what they need: assume not */
  bool reads = false;
  if (!strcmp(fn->name, "locals") || !strcmp(fn->name, "vars") || !strcmp(fn->name, "dir") ||
      !strcmp(fn->name, "super"))
    reads = nargs == 0 || unpacks;
  else if (!strcmp(fn->name, "globals")) /* without arguments: kr->call_noargs gives the module's */
    reads = unpacks;
  else if (!strcmp(fn->name, "eval") || !strcmp(fn->name, "exec")) {
    /* no globals, or None spelled out */
    const KlNode *g = call->list.len >= 2 ? call->list.items[1] : NULL;
    for (int i = 0; i < call->kw.len; i++)
      if (call->kw.items[i]->name && !strcmp(call->kw.items[i]->name, "globals")) g = call->kw.items[i]->a;
    reads = !g || g->kind == KL_N_NONE || unpacks;
  }
  if (!reads) return;
  f->unsupported = true;
  f->why_code = KL_KILN010;
  f->why = kl_fmt(ctx, "%s()%s (it reads the calling frame, which a compiled function does not have)", fn->name,
                  unpacks ? " with unpacked arguments" : nargs ? " without a globals argument" : "");
  f->why_loc = call->loc;
}

static void resolve_expr(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n) {
  if (!n) return;
  if (n->kind == KL_N_ASSIGN || n->kind == KL_N_ANNASSIGN) mark_stored_comprehension(f, n);
  switch (n->kind) {
  case KL_N_NAME: {
    for (int i = f ? f->ncomp_scope - 1 : -1; i >= 0; i--) /* innermost comprehension first */
      if (!strcmp(f->locals[f->comp_scope[i]].name, n->name)) {
        n->binding = KL_B_LOCAL;
        n->slot = f->comp_scope[i];
        if (i < f->comp_mark) n->enclosing = f->gen_mark > i ? 2 : 1; /* an outer comprehension's */
        return;
      }
    int slot = f ? function_local(f, n->name) : -1;
    if (slot >= 0) {
      n->binding = KL_B_LOCAL;
      n->slot = slot;
      if (f->comp_depth > 0) n->enclosing = f->gen_mark >= 0 ? 2 : 1;
      return;
    }
    KlGlobal *g = kl_find_global(m, n->name);
    if (g) {
      n->binding = KL_B_GLOBAL;
      n->dotted = path_stored_over(ctx, m, g->dotted) ? NULL : g->dotted;
    } else if (kl_is_native_builtin(m, n->name)) {
      n->binding = KL_B_BUILTIN;
      n->dotted = kl_fmt(ctx, "builtins.%s", n->name);
    } else {
      n->binding = KL_B_GLOBAL; /* looked up at run time (globals, then builtins) */
      warn_unknown_name(ctx, m, n);
    }
    return;
  }
  case KL_N_COMP: resolve_comprehension(ctx, m, f, n); return;
  case KL_N_LAMBDA: resolve_lambda(ctx, m, f, n); return;
  case KL_N_ATTR:
    resolve_expr(ctx, m, f, n->a);
    attr_path(ctx, m, n);
    return;
  default:
    resolve_expr(ctx, m, f, n->a);
    resolve_expr(ctx, m, f, n->b);
    resolve_expr(ctx, m, f, n->c);
    resolve_list(ctx, m, f, n->list);
    resolve_list(ctx, m, f, n->kw);
    resolve_list(ctx, m, f, n->body);
    resolve_list(ctx, m, f, n->orelse);
    if (n->kind == KL_N_CALL) consume_generator(n);
    if (n->kind == KL_N_CALL || n->kind == KL_N_TUPLE || n->kind == KL_N_LIST || n->kind == KL_N_SET)
      consume_starred_generators(n);
    if (n->kind == KL_N_CALL) check_frame_builtin(ctx, f, n);
  }
}

/* `any(x for ...)` and the like: when the callee is one of these builtins
 * (no module binding of the name) or a string literal's join, and the
 * generator its one argument, the call becomes the comprehension, which kiln
 * runs itself. Each of these consumers takes the items in order with no
 * other code between them (join and sorted make a list first) or stops at
 * the first deciding one, so no one can see that there was no generator.
 * sum, min, max, sorted and next also take their other arguments (sum's
 * start, min and max's key and default, sorted's key and reverse, next's
 * default), which are evaluated before the first item. consumer_kind says which consumer a
 * call is (a KlCompKind) and what else it takes, or -1; builtin_callee:
 * is its callee, a name, the builtin? */
static int consumer_kind(const KlNode *call, bool builtin_callee, KlNode **extra, KlNodeList *kw) {
  static const struct {
    const char *name;
    KlCompKind kind;
  } consumers[] = {{"list", KL_COMP_LIST}, {"set", KL_COMP_SET},   {"tuple", KL_COMP_TUPLE}, {"sorted", KL_COMP_SORTED},
                   {"any", KL_COMP_ANY},   {"all", KL_COMP_ALL},   {"sum", KL_COMP_SUM},     {"min", KL_COMP_MIN},
                   {"max", KL_COMP_MAX},   {"next", KL_COMP_NEXT}};
  *extra = NULL;
  *kw = (KlNodeList){0};
  if (call->list.len < 1 || kl_call_unpacks(call)) return -1;
  const KlNode *gen = call->list.items[0], *fn = call->a;
  if (gen->kind != KL_N_COMP || gen->op != KL_COMP_GENERATOR) return -1;
  int kind = -1;
  if (fn->kind == KL_N_NAME && builtin_callee) {
    for (size_t i = 0; i < sizeof consumers / sizeof consumers[0]; i++)
      if (!strcmp(fn->name, consumers[i].name)) kind = (int)consumers[i].kind;
  } else if (fn->kind == KL_N_ATTR && !strcmp(fn->name, "join") && fn->a->kind == KL_N_STR) {
    kind = KL_COMP_JOIN;
    *extra = fn->a;
  }
  if (kind == KL_COMP_SUM) { /* sum(gen), sum(gen, start), sum(gen, start=...) */
    if (call->list.len + call->kw.len > 2 || (call->kw.len && strcmp(call->kw.items[0]->name, "start"))) return -1;
    *extra = call->list.len == 2 ? call->list.items[1] : call->kw.len ? call->kw.items[0]->a : NULL;
  } else if (kind == KL_COMP_NEXT) { /* next(gen), next(gen, default): no keywords */
    if (call->list.len > 2 || call->kw.len) return -1;
    *extra = call->list.len == 2 ? call->list.items[1] : NULL;
  } else if (kind == KL_COMP_MIN || kind == KL_COMP_MAX || kind == KL_COMP_SORTED) {
    const char *second = kind == KL_COMP_SORTED ? "reverse" : "default"; /* and key= (repeats: a syntax error) */
    if (call->list.len != 1) return -1;
    for (int i = 0; i < call->kw.len; i++)
      if (strcmp(call->kw.items[i]->name, "key") && strcmp(call->kw.items[i]->name, second)) return -1;
    *kw = call->kw;
  } else if (call->list.len != 1 || call->kw.len) {
    return -1;
  }
  return kind;
}

static void consume_generator(KlNode *call) {
  KlNode *extra;
  KlNodeList kw;
  const int kind = consumer_kind(call, call->a->kind == KL_N_NAME && call->a->binding == KL_B_BUILTIN, &extra, &kw);
  if (kind < 0) return;
  const KlLoc loc = call->loc;
  *call = *call->list.items[0];
  call->loc = loc;
  call->op = kind;
  call->c = extra;
  call->kw = kw;
  call->consumed = true;
}

/* `f(*(x for ...))`, `[*(x for ...)]`: unpacking takes every item of the
 * generator with no code between them (CPython's LIST_EXTEND, SET_UPDATE),
 * so kiln makes the list (a set's items: a set) itself. Not `f(*gen, k=v)`:
 * there CPython evaluates the keywords before CALL_FUNCTION_EX iterates. */
static bool unpacking_consumes(const KlNode *n) {
  return (n->kind == KL_N_CALL && !(n->list.len == 1 && n->kw.len)) || n->kind == KL_N_TUPLE ||
         n->kind == KL_N_LIST || n->kind == KL_N_SET;
}

static void consume_starred_generators(KlNode *n) {
  if (!unpacking_consumes(n)) return;
  for (int i = 0; i < n->list.len; i++) {
    KlNode *s = n->list.items[i], *gen = s->a;
    if (s->kind != KL_N_STARRED || gen->kind != KL_N_COMP || gen->op != KL_COMP_GENERATOR) continue;
    gen->op = n->kind == KL_N_SET ? KL_COMP_SET : KL_COMP_LIST;
    gen->consumed = true;
  }
}

/* ---- generator expressions kiln does not consume ----
 * One that is not the argument of a consumer above (`g = (x for x in xs)`,
 * `dict((k, v) for ...)`, `f(*gen, k=v)`) is made as CPython makes it:
 * its first iterable evaluated and iter() taken here, then the function
 * CPython compiled for it (found at bind, like a lambda's) called with that
 * iterator: a real generator, whose body is CPython's. Which generators
 * the consumers will take is decided before names are resolved (their
 * variables become cells first: mark_cells), from what resolve_expr will
 * find: a consumer's name that is no variable of the function nor of the
 * module is the builtin. A generator that guess leaves to a consumer which
 * turns out not to be one stays a generator expression: find_generator. */
static bool callee_is_builtin(KlModule *m, const KlFunc *f, const KlNode *fn, const Scope *comps) {
  return fn->kind == KL_N_NAME && !scope_binds(comps, fn->name) && function_local(f, fn->name) < 0 &&
         !kl_find_global(m, fn->name) && kl_is_native_builtin(m, fn->name);
}

static bool has_walrus(const KlNode *n) {
  if (!n) return false;
  if (n->kind == KL_N_NAMEDEXPR) return true;
  if (has_walrus(n->a) || has_walrus(n->b) || has_walrus(n->c)) return true;
  for (int i = 0; i < n->list.len; i++)
    if (has_walrus(n->list.items[i])) return true;
  for (int i = 0; i < n->kw.len; i++)
    if (has_walrus(n->kw.items[i])) return true;
  return false; /* a lambda's body cannot hold one (parse.c) */
}

/* The generator expression n becomes a LAMBDA node (KlLambda.is_genexpr):
 * its first iterable in n->a, the rest its body. */
static void make_generator_function(KlCtx *ctx, KlFunc *f, KlNode *n) {
  KlNode *body = kl_alloc(ctx, sizeof *body), *first = kl_alloc(ctx, sizeof *first);
  *body = *n;
  *first = *n->list.items[0];
  first->b = NULL;
  body->list.items = kl_alloc(ctx, sizeof(KlNode *) * (size_t)n->list.len);
  memcpy(body->list.items, n->list.items, sizeof(KlNode *) * (size_t)n->list.len);
  body->list.items[0] = first;
  if (has_walrus(body) && !f->unsupported) { /* it would bind a variable kiln cannot see bound */
    f->unsupported = true;
    f->why_code = KL_KILN010;
    f->why = kl_strdup(ctx, "assignment expression (:=) in a generator expression that is not consumed "
                            "(by any, all, list, set, tuple, sorted, sum, min, max, next or a string's join)");
    f->why_loc = n->loc;
  }
  KlLambda *l = n->lambda;
  l->is_genexpr = true;
  l->body = body;
  l->names = kl_alloc(ctx, sizeof(char *));
  l->names[0] = ".0"; /* its one parameter, the iterator */
  l->nnames = l->npos = 1;
  KlNode *iterable = n->list.items[0]->b;
  const KlLoc loc = n->loc;
  const int iter_line = n->list.items[0]->loc.line;
  *n = (KlNode){.kind = KL_N_LAMBDA, .loc = loc, .a = iterable, .ival = iter_line, .lambda = l};
}

/* comps: the comprehensions around n, whose targets are the variables there. */
static void plan_generators(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n, const KlNode *parent, const KlNode *grand,
                            const Scope *comps) {
  if (!n) return;
  if (n->kind == KL_N_COMP && n->op == KL_COMP_GENERATOR) {
    KlNode *extra;
    KlNodeList kw;
    const bool consumed =
        (parent && parent->kind == KL_N_CALL && parent->list.len && parent->list.items[0] == n &&
         consumer_kind(parent, callee_is_builtin(m, f, parent->a, comps), &extra, &kw) >= 0) ||
        (parent && parent->kind == KL_N_STARRED && grand && unpacking_consumes(grand));
    if (!consumed) {
      make_generator_function(ctx, f, n);
      plan_generators(ctx, m, f, n->a, n, parent, comps);
      return;
    }
  }
  if (n->kind == KL_N_COMP) { /* its first iterable is evaluated outside it, the rest inside */
    const Scope inner = {NULL, 0, &n->list, comps};
    for (int i = 0; i < n->list.len; i++) {
      KlNode *c = n->list.items[i];
      plan_generators(ctx, m, f, c->b, c, n, i ? &inner : comps);
      plan_generators(ctx, m, f, c->a, c, n, &inner);
      for (int j = 0; j < c->list.len; j++) plan_generators(ctx, m, f, c->list.items[j], c, n, &inner);
    }
    plan_generators(ctx, m, f, n->a, n, parent, &inner);
    plan_generators(ctx, m, f, n->b, n, parent, &inner);
    return;
  }
  const KlNode *kids[3] = {n->a, n->b, n->c};
  for (int i = 0; i < 3; i++) plan_generators(ctx, m, f, (KlNode *)kids[i], n, parent, comps);
  const KlNodeList lists[4] = {n->list, n->kw, n->body, n->orelse};
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < lists[j].len; i++) plan_generators(ctx, m, f, lists[j].items[i], n, parent, comps);
}

/* The first generator expression left (not consumed as above), or NULL. */
static KlNode *find_generator(KlNode *n);
static KlNode *find_generator_in(KlNodeList l) {
  KlNode *g = NULL;
  for (int i = 0; i < l.len && !g; i++) g = find_generator(l.items[i]);
  return g;
}
static KlNode *find_generator(KlNode *n) {
  if (!n) return NULL;
  if (n->kind == KL_N_COMP && n->op == KL_COMP_GENERATOR) return n;
  KlNode *g = find_generator(n->a);
  if (!g) g = find_generator(n->b);
  if (!g) g = find_generator(n->c);
  if (!g) g = find_generator_in(n->list);
  if (!g) g = find_generator_in(n->kw);
  if (!g) g = find_generator_in(n->body);
  if (!g) g = find_generator_in(n->orelse);
  return g;
}

/* A guard-shaped decorator (parse.c) becomes the function's grad_guard
 * when its spelling resolves, through the module's imports and past any
 * module-level store over it, to torch.no_grad or torch.inference_mode;
 * any other leaves the function as Python (KILN012). */
static bool resolve_guard_decorator(KlCtx *ctx, KlModule *m, KlFunc *f) {
  if (!f->guard_spelling) return true;
  KlGlobal *root;
  const char *path = kl_spelled_path(ctx, m, f->guard_spelling, &root);
  if (path) add_import_guard(ctx, f, root);
  const char *dot = path ? strrchr(path, '.') : NULL;
  if (dot && stored_over(m, kl_strndup(ctx, path, (size_t)(dot - path)), dot + 1)) path = NULL;
  int kind = kl_grad_guard_path(path);
  if (kind && (!f->guard_mode_arg || kind == KL_GUARD_INFERENCE)) {
    f->grad_guard = kind;
    return true;
  }
  f->unsupported = true;
  f->why_code = KL_KILN012;
  f->why = kl_strdup(ctx, "decorator");
  f->why_loc = f->guard_loc;
  return false;
}

/* The guard a `with` item is: torch.no_grad() or torch.inference_mode()
 * (also (True) and (mode=True)) under any spelling that resolves to them,
 * else 0. Locals and module-level stores over the path resolve to nothing. */
static int with_guard(const KlNode *item) {
  if (item->kind != KL_N_CALL || !item->a->dotted) return 0;
  int kind = kl_grad_guard_path(item->a->dotted);
  if (!item->list.len && !item->kw.len) return kind;
  const KlNode *mode = NULL;
  if (item->list.len == 1 && !item->kw.len) mode = item->list.items[0];
  else if (!item->list.len && item->kw.len == 1 && item->kw.items[0]->name && !strcmp(item->kw.items[0]->name, "mode"))
    mode = item->kw.items[0]->a;
  return kind == KL_GUARD_INFERENCE && mode && mode->kind == KL_N_TRUE ? kind : 0;
}

/* A `with` of torch.no_grad() or torch.inference_mode() (no `as`) is a
 * guard the compiled function applies itself: its kind goes to op and the
 * context expression is not evaluated, as for the decorators. Any other
 * manager goes through its __enter__ and __exit__ (op 0). */
static bool resolve_withs(KlCtx *ctx, KlFunc *f, KlNodeList body) {
  for (int i = 0; i < body.len; i++) {
    KlNode *s = body.items[i];
    if (s->kind == KL_N_WITH && !s->op) { /* (run again after resolve_static_paths) */
      s->op = s->b ? 0 : with_guard(s->a);
      if (s->op) kl_note_import_guard(ctx, f, s->a->a);
      if (s->op) s->a = NULL;
    }
    if (!resolve_withs(ctx, f, s->body) || !resolve_withs(ctx, f, s->orelse)) return false;
    if (s->kind == KL_N_TRY && (!resolve_withs(ctx, f, s->list) || !resolve_withs(ctx, f, s->kw))) return false;
  }
  return true;
}

/* ---- locals that stand for a module path: imports in the function ----
 *
 * A module-level import gives its name a dotted path, so `torch.relu(x)`
 * is a call kiln can claim. A local every binding of which is an import
 * of one path (`import torch`, `import torch.nn.functional as F`, `from
 * torch import relu` in the function body) holds what that path names
 * wherever it is certainly bound: the same trust as the module-level
 * import (the statement still runs and binds what sys.modules holds). Its
 * loads there get the path, so the sites through it resolve as through
 * the module-level spelling; a load some path reaches unbound keeps
 * Python's UnboundLocalError. A path assigned to a variable (`nn =
 * tf.nn`, locally or at module level) stays a receiver, as the reference
 * plugins have it (not-covered). */

/* Before split_webs: each import target (a local) gets the path it binds,
 * in dotted: `import a.b` binds a, `import a.b as c` a.b, `from a import b
 * as c` a.b. Relative imports bind no known path. */
static void mark_static_path_targets(KlCtx *ctx, KlNodeList body) {
  for (int i = 0; i < body.len; i++) {
    KlNode *s = body.items[i];
    if (!s) continue;
    if (s->kind == KL_N_IMPORT || (s->kind == KL_N_IMPORTFROM && s->op == 0 && s->name)) {
      for (int j = 0; j < s->list.len && j < s->kw.len; j++) {
        KlNode *t = s->list.items[j];
        const KlNode *item = s->kw.items[j];
        if (t->binding != KL_B_LOCAL) continue; /* declared global: the module's name */
        if (s->kind == KL_N_IMPORTFROM) t->dotted = kl_fmt(ctx, "%s.%s", s->name, item->name);
        else t->dotted = item->op ? item->name : t->name; /* `import a.b` binds a */
      }
      continue;
    }
    mark_static_path_targets(ctx, s->body);
    mark_static_path_targets(ctx, s->orelse);
    if (s->kind == KL_N_TRY) {
      mark_static_path_targets(ctx, s->list); /* the handlers */
      mark_static_path_targets(ctx, s->kw);   /* finally */
    }
  }
}

/* After split_webs: loads of a static-path local that no path reaches
 * unbound take its path, and attributes over them the longer path (unless
 * the module stores over it), as resolve_expr gives module-level names. */
static void resolve_static_paths(KlCtx *ctx, KlModule *m, KlFunc *f, KlNode *n) {
  if (!n) return;
  if (n->kind == KL_N_LAMBDA) return; /* its body runs in CPython */
  if (n->kind == KL_N_NAME) {
    if (n->binding == KL_B_LOCAL && !n->dotted && !n->maybe_unbound && n->slot >= 0 && n->slot < f->nlocals &&
        !f->locals[n->slot].cell && f->locals[n->slot].static_path &&
        !path_stored_over(ctx, m, f->locals[n->slot].static_path))
      n->dotted = f->locals[n->slot].static_path;
    return;
  }
  resolve_static_paths(ctx, m, f, n->a);
  if (n->kind == KL_N_ATTR) {
    if (!n->dotted) attr_path(ctx, m, n);
    return;
  }
  resolve_static_paths(ctx, m, f, n->b);
  resolve_static_paths(ctx, m, f, n->c);
  resolve_static_paths_list(ctx, m, f, n->list);
  resolve_static_paths_list(ctx, m, f, n->kw);
  resolve_static_paths_list(ctx, m, f, n->body);
  resolve_static_paths_list(ctx, m, f, n->orelse);
}

static void resolve_static_paths_list(KlCtx *ctx, KlModule *m, KlFunc *f, KlNodeList l) {
  for (int i = 0; i < l.len; i++) resolve_static_paths(ctx, m, f, l.items[i]);
}

/* A module-level alias of a path (`F = torch.nn.functional`, `relu =
 * torch.relu`, `m = math`), the name's only binding, stands for the path as an import
 * would, under a guard (parse.c guard_conditional_imports): the functions
 * acting on it run natively only if, once the module has run, the name is
 * the object at the path. Not under kiln.compile, which binds while the
 * module runs. */
static void resolve_path_aliases(KlCtx *ctx, KlModule *m) {
  if (ctx->flags & KL_FLAG_BIND_GLOBALS) return;
  for (int i = 0; i < m->nglobals; i++) {
    KlGlobal *g = &m->globals[i];
    if (!g->alias || g->nbind != 1 || g->dotted) continue;
    const char *path = kl_spelled_path(ctx, m, g->alias, NULL);
    if (!path || !strncmp(path, "builtins.", 9) || path_stored_over(ctx, m, path)) continue;
    g->dotted = path;
    g->guarded = true;
  }
}

void kl_resolve(KlCtx *ctx, KlModule *m) {
  resolve_attr_stores(ctx, m);
  resolve_path_aliases(ctx, m);
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    if (f->unsupported || !resolve_guard_decorator(ctx, m, f)) continue;
    f->gen_mark = -1;
    for (int j = 0; j < f->nparams; j++) {
      /* annotations and defaults are evaluated in the module scope */
      resolve_expr(ctx, m, NULL, f->params[j].annotation);
      f->params[j].slot = kl_func_local(ctx, f, f->params[j].name);
      f->locals[f->params[j].slot].is_param = true;
    }
    resolve_expr(ctx, m, NULL, f->returns);
    collect_locals(ctx, f, f->body);
    collect_walrus_list(ctx, f, f->body);
    for (int j = 0; j < f->body.len; j++) plan_generators(ctx, m, f, f->body.items[j], NULL, NULL, NULL);
    collect_genexp_names(ctx, f);
    for (int j = 0; j < f->body.len; j++) mark_cells(ctx, f, f->body.items[j]);
    resolve_list(ctx, m, f, f->body);
    if (f->unsupported || !resolve_withs(ctx, f, f->body)) continue;
    KlNode *gen = find_generator_in(f->body);
    if (gen) {
      f->unsupported = true;
      f->why_code = KL_KILN010;
      /* plan_generators left it to a consumer (any, sum, next, ...) whose name resolved to something else */
      f->why = kl_strdup(ctx, "generator expression whose consumer's name is not the builtin it looked like");
      f->why_loc = gen->loc;
      continue;
    }
    mark_static_path_targets(ctx, f->body);
    split_webs(ctx, f);
    resolve_static_paths_list(ctx, m, f, f->body);
    resolve_withs(ctx, f, f->body); /* guards spelled through a local import */
  }
}

/* ---- webs: one variable per independent use of a name ----
 *
 * Types are per local and flow-insensitive (types.c). To still give
 * `x = x.mean(dim=1, keepdim=False)` a native type on both sides, each
 * local is split into webs: the definitions that reach a common use belong
 * together (reaching definitions over the AST, loops to a fixpoint), and
 * each web becomes its own local. A rebinding that no later use mixes with
 * the old value therefore gets its own type, while joins at control-flow
 * merges (if/else, loop back edges, break) stay joins. */

/* Definition ids are numbered twice. The counting pass numbers them in
 * source order; then each slot's definitions are made consecutive, so that
 * a state is one bit per definition (not per slot and definition: a
 * function of many comprehensions has thousands of both) and a slot's
 * definitions are a range of it. */
typedef struct Webs {
  KlCtx *ctx;
  KlFunc *f;
  int nslots, ndefs, words;
  KlNode **def_node; /* def id -> its NAME node (NULL for parameter defs) */
  int *parent;       /* union-find over def ids */
  int *def_slot;     /* def id -> original slot */
  int *slot_start;   /* slot s's def ids: slot_start[s] .. slot_start[s + 1] - 1 */
  int *order;        /* source-order number -> def id */
  int cap;           /* of def_slot and def_node while counting */
  struct WLoop *loop;
  struct St *exc;    /* where an exception raised here goes: the innermost try's handlers (or
                        finally) take every state of its body, or NULL */
  struct WFinally *fin; /* the innermost try with a finally block around here, or NULL */
  bool counting;     /* first pass: number the definitions */
} Webs;

typedef struct St {
  uint64_t *bits; /* words: definitions that may reach here */
  uint64_t *unb;  /* one bit per slot: may be unbound here */
  bool dead;
} St;

typedef struct WLoop {
  St brk, cont;
  struct WLoop *outer;
} WLoop;

/* A try statement with a finally block: the states of the return, break
 * and continue statements that run it on their way out. */
typedef struct WFinally {
  St jumps;
  WLoop *loop; /* the loop around the try: break/continue to it cross the finally */
  bool returns, breaks, continues;
} WFinally;

static int uf_find(Webs *w, int x) {
  while (w->parent[x] != x) x = w->parent[x] = w->parent[w->parent[x]];
  return x;
}

static void uf_union(Webs *w, int a, int b) {
  a = uf_find(w, a), b = uf_find(w, b);
  if (a != b) w->parent[a < b ? b : a] = a < b ? a : b;
}

static int unb_words(Webs *w) { return (w->nslots + 64) / 64; }

static St st_new(Webs *w) {
  St s = {kl_alloc(w->ctx, sizeof(uint64_t) * (size_t)(w->words + 1)),
          kl_alloc(w->ctx, sizeof(uint64_t) * (size_t)unb_words(w)), true};
  return s;
}

static St st_copy(Webs *w, St *s) {
  St c = st_new(w);
  memcpy(c.bits, s->bits, sizeof(uint64_t) * (size_t)w->words);
  memcpy(c.unb, s->unb, sizeof(uint64_t) * (size_t)unb_words(w));
  c.dead = s->dead;
  return c;
}

/* into |= from; returns whether into changed */
static bool st_join(Webs *w, St *into, St *from) {
  if (from->dead) return false;
  bool changed = into->dead;
  into->dead = false;
  for (int i = 0; i < w->words; i++) {
    uint64_t v = into->bits[i] | from->bits[i];
    if (v != into->bits[i]) changed = true;
    into->bits[i] = v;
  }
  for (int i = 0; i < unb_words(w); i++) {
    uint64_t v = into->unb[i] | from->unb[i];
    if (v != into->unb[i]) changed = true;
    into->unb[i] = v;
  }
  return changed;
}

/* The first definition of slot at or after def that may reach here, or -1:
 * a word at a time (a long function has many definitions of one name). */
static int st_next(Webs *w, const St *s, int slot, int def) {
  const int end = w->slot_start[slot + 1];
  while (def < end) {
    uint64_t m = s->bits[def / 64] >> (def % 64);
    if (m) {
      def += __builtin_ctzll(m);
      return def < end ? def : -1;
    }
    def = (def / 64 + 1) * 64;
  }
  return -1;
}

static void st_def(Webs *w, St *s, int slot, int def) {
  for (int d = w->slot_start[slot]; d < w->slot_start[slot + 1];) {
    if (d % 64 == 0 && d + 64 <= w->slot_start[slot + 1]) {
      s->bits[d / 64] = 0;
      d += 64;
    } else {
      s->bits[d / 64] &= ~((uint64_t)1 << (d % 64));
      d++;
    }
  }
  if (def >= 0) s->bits[def / 64] |= (uint64_t)1 << (def % 64);
  /* a definition binds the name; `del` (def -1) unbinds it */
  if (def >= 0) s->unb[slot / 64] &= ~((uint64_t)1 << (slot % 64));
  else s->unb[slot / 64] |= (uint64_t)1 << (slot % 64);
}

/* A use: all definitions that reach it become one web. The use remembers
 * one of them (def id + 1 in n->slot's place is resolved at the end). */
static void web_use(Webs *w, St *s, KlNode *n) {
  if (w->counting) return;
  if (s->dead) { /* unreachable code: a read of nothing */
    n->web = -1;
    n->maybe_unbound = true;
    return;
  }
  const int first = st_next(w, s, n->slot, w->slot_start[n->slot]);
  for (int i = first; i >= 0; i = st_next(w, s, n->slot, i + 1))
    if (i != first) uf_union(w, first, i);
  n->web = first; /* -1: no definition reaches (UnboundLocalError if run) */
  n->maybe_unbound = first < 0 || (s->unb[n->slot / 64] >> (n->slot % 64) & 1);
}

static void web_def(Webs *w, St *s, KlNode *n) {
  if (w->counting) {
    if (w->ndefs == w->cap) {
      w->cap *= 2;
      int *slots = kl_alloc(w->ctx, sizeof(int) * (size_t)w->cap);
      KlNode **nodes = kl_alloc(w->ctx, sizeof(KlNode *) * (size_t)w->cap);
      memcpy(slots, w->def_slot, sizeof(int) * (size_t)w->ndefs);
      memcpy(nodes, w->def_node, sizeof(KlNode *) * (size_t)w->ndefs);
      w->def_slot = slots, w->def_node = nodes;
    }
    w->def_slot[w->ndefs] = n->slot;
    w->def_node[w->ndefs] = n;
    n->web = w->ndefs++;
    return;
  }
  if (!s->dead) {
    /* the definitions this one kills: their webs are dead from here on
     * (turned into slots by split_webs; a later round sees more) */
    int k = 0;
    for (int i = st_next(w, s, n->slot, w->slot_start[n->slot]); i >= 0; i = st_next(w, s, n->slot, i + 1)) k++;
    n->nclear = 0;
    n->clear = k > n->nclear_cap ? kl_alloc(w->ctx, sizeof(int) * (size_t)k) : n->clear;
    if (k > n->nclear_cap) n->nclear_cap = k;
    for (int i = st_next(w, s, n->slot, w->slot_start[n->slot]); i >= 0; i = st_next(w, s, n->slot, i + 1))
      n->clear[n->nclear++] = i;
    st_def(w, s, n->slot, n->web);
  }
}

static void web_expr(Webs *w, St *s, KlNode *n);

static void web_expr_list(Webs *w, St *s, KlNodeList l) {
  for (int i = 0; i < l.len; i++) web_expr(w, s, l.items[i]);
}

static void web_comprehension(Webs *w, St *s, KlNode *n);

static void web_target(Webs *w, St *s, KlNode *t);

/* With a `:=` in the function, an expression can bind: its operands that
 * may not run (and/or, if-else, a comparison chain) are branches. */
static bool web_branches(Webs *w, St *s, KlNode *n) {
  switch (n->kind) {
  case KL_N_NAMEDEXPR:
    web_expr(w, s, n->b);
    web_target(w, s, n->a);
    if (w->exc) st_join(w, w->exc, s); /* an error later in the statement sees it bound */
    return true;
  case KL_N_BOOLOP:
  case KL_N_COMPARE: {
    St out = st_new(w);
    for (int i = 0; i < n->list.len; i++) {
      web_expr(w, s, n->list.items[i]);
      if (n->kind == KL_N_BOOLOP || i >= 1) st_join(w, &out, s); /* it may stop here */
    }
    *s = out;
    return true;
  }
  case KL_N_IFEXP: {
    web_expr(w, s, n->a);
    St other = st_copy(w, s);
    web_expr(w, s, n->b);
    web_expr(w, &other, n->c);
    st_join(w, s, &other);
    return true;
  }
  default: return false;
  }
}

static void web_expr(Webs *w, St *s, KlNode *n) {
  if (!n) return;
  if (n->kind == KL_N_NAME) {
    if (n->binding == KL_B_LOCAL) web_use(w, s, n);
    return;
  }
  if (n->kind == KL_N_COMP) {
    web_comprehension(w, s, n);
    return;
  }
  if (w->f->has_walrus && web_branches(w, s, n)) return;
  web_expr(w, s, n->a);
  web_expr(w, s, n->b);
  web_expr(w, s, n->c);
  web_expr_list(w, s, n->list);
  web_expr_list(w, s, n->kw);
}

static void web_target(Webs *w, St *s, KlNode *t) {
  switch (t->kind) {
  case KL_N_NAME:
    if (t->binding == KL_B_LOCAL) web_def(w, s, t);
    return;
  case KL_N_TUPLE: case KL_N_LIST:
    for (int i = 0; i < t->list.len; i++) web_target(w, s, t->list.items[i]);
    return;
  case KL_N_STARRED: web_target(w, s, t->a); return;
  case KL_N_ATTR: web_expr(w, s, t->a); return;
  case KL_N_SUBSCRIPT: web_expr(w, s, t->a); web_expr(w, s, t->b); return;
  default: return;
  }
}

/* A comprehension's clauses are nested loops. heads[i] is the state at
 * clause i's next item: reached from the clause before it (its iterable
 * evaluated), from a failed condition of its own, from the element (the
 * innermost clause) and from the clause after it running out. A later
 * clause may bind a target of an earlier one again, and its iterable then
 * reads that binding on the earlier clause's next round, so each head is
 * solved, not only the first. Only the comprehension's variables are
 * defined inside: the state after it is the state after its first iterable. */
static void web_comprehension(Webs *w, St *s, KlNode *n) {
  KlNodeList clauses = n->list;
  web_expr(w, s, clauses.items[0]->b);
  web_expr(w, s, n->c); /* a consumer's other arguments */
  web_expr_list(w, s, n->kw);
  St *heads = kl_alloc(w->ctx, sizeof(St) * (size_t)clauses.len);
  heads[0] = st_copy(w, s);
  for (int i = 1; i < clauses.len; i++) heads[i] = st_new(w); /* nothing reaches yet */
  for (int round = 0; round < 1000; round++) {
    bool changed = false;
    for (int i = 0; i < clauses.len; i++) {
      KlNode *c = clauses.items[i];
      St it = st_copy(w, &heads[i]);
      web_target(w, &it, c->a);
      for (int j = 0; j < c->list.len; j++) {
        web_expr(w, &it, c->list.items[j]);
        changed |= st_join(w, &heads[i], &it); /* a failed condition: this clause's next item */
      }
      if (i + 1 < clauses.len) {
        web_expr(w, &it, clauses.items[i + 1]->b);
        changed |= st_join(w, &heads[i + 1], &it);
      } else {
        web_expr(w, &it, n->a);
        web_expr(w, &it, n->b);
        changed |= st_join(w, &heads[i], &it);
      }
    }
    for (int i = clauses.len - 1; i > 0; i--) changed |= st_join(w, &heads[i - 1], &heads[i]); /* ran out */
    if (!changed || w->counting) break;
  }
  if (w->f->has_walrus) *s = st_copy(w, &heads[0]); /* what its `:=` bound, after any number of items */
}

static void web_stmts(Webs *w, St *s, KlNodeList body);
static void web_try(Webs *w, St *s, KlNode *n);
static void web_jump(Webs *w, St *s, KlNodeKind kind);

static void web_loop(Webs *w, St *s, KlNode *n) {
  bool is_for = n->kind == KL_N_FOR;
  if (is_for) web_expr(w, s, n->b);
  St head = st_copy(w, s), after_test = st_new(w);
  WLoop lp = {.outer = w->loop};
  for (int round = 0; round < 1000; round++) {
    St it = st_copy(w, &head);
    if (!is_for) web_expr(w, &it, n->a);
    after_test = st_copy(w, &it);
    lp.brk = st_new(w);
    lp.cont = st_new(w);
    w->loop = &lp;
    if (is_for) web_target(w, &it, n->a);
    web_stmts(w, &it, n->body);
    w->loop = lp.outer;
    bool changed = st_join(w, &head, &it);
    changed |= st_join(w, &head, &lp.cont);
    if (!changed || w->counting) break;
  }
  /* else: runs when the condition fails / the iterator is exhausted */
  St out = is_for ? st_copy(w, &head) : after_test;
  web_stmts(w, &out, n->orelse);
  st_join(w, &out, &lp.brk);
  *s = out;
}

/* A return, break or continue that runs the innermost finally block first
 * (a break or continue only when its loop is outside the try). */
static void web_jump(Webs *w, St *s, KlNodeKind kind) {
  WFinally *f = w->fin;
  if (!f || (kind != KL_N_RETURN && f->loop != w->loop)) return;
  st_join(w, &f->jumps, s);
  if (kind == KL_N_RETURN) f->returns = true;
  else if (kind == KL_N_BREAK) f->breaks = true;
  else f->continues = true;
}

static void web_stmt_kind(Webs *w, St *s, KlNode *n);

/* Every state inside a try body (before and after each statement, at any
 * depth) may be the one an exception leaves it in: the handlers start from
 * their union. A statement's partial effects lie between the two. */
static void web_stmt(Webs *w, St *s, KlNode *n) {
  if (w->exc) st_join(w, w->exc, s);
  web_stmt_kind(w, s, n);
  if (w->exc) st_join(w, w->exc, s);
}

/* try/except/else/finally. The handlers start from every state of the body;
 * an `as` name is deleted at a handler's end (also when it raises). With a
 * finally block, the finally starts from the union of the normal end, every
 * state an exception may leave the body, handlers or else block in, and the
 * states of the return/break/continue statements crossing it; after it, the
 * same union goes on to wherever those went. */
static void web_try(Webs *w, St *s, KlNode *n) {
  const bool has_finally = n->kw.len > 0;
  St *outer_exc = w->exc;
  WFinally *outer_fin = w->fin;
  WFinally fin = {.jumps = st_new(w), .loop = w->loop};
  St fin_exc = st_new(w); /* what reaches the finally by an exception */
  if (has_finally) w->fin = &fin;
  St exc = st_copy(w, s);
  w->exc = &exc;
  web_stmts(w, s, n->body);
  /* handlers and the else block raise to the finally, or out */
  w->exc = has_finally ? &fin_exc : outer_exc;
  St types = st_copy(w, &exc); /* a handler's type is evaluated after the earlier handlers' (a := there) */
  St handled = st_new(w);
  for (int i = 0; i < n->list.len; i++) {
    KlNode *h = n->list.items[i];
    web_expr(w, &types, h->a);
    St hs = st_copy(w, &types);
    if (h->b) {
      web_target(w, &hs, h->b);
      if (!w->counting && w->exc) { /* raising out of the handler deletes the name too */
        St gone = st_copy(w, &hs);
        st_def(w, &gone, h->b->slot, -1);
        st_join(w, w->exc, &gone);
      }
    }
    web_stmts(w, &hs, h->body);
    if (h->b && !w->counting && !hs.dead) st_def(w, &hs, h->b->slot, -1);
    st_join(w, &handled, &hs);
  }
  if (w->exc) st_join(w, w->exc, &types); /* an exception no handler matches */
  web_stmts(w, s, n->orelse);
  bool done_dead = s->dead && handled.dead;
  st_join(w, s, &handled);
  s->dead = done_dead;
  w->exc = outer_exc;
  w->fin = outer_fin;
  if (!has_finally) return;
  St f = st_copy(w, s);
  st_join(w, &f, &fin_exc);
  st_join(w, &f, &fin.jumps);
  web_stmts(w, &f, n->kw);
  /* after the finally: on to the pending exception, return, break, continue */
  if (outer_exc) st_join(w, outer_exc, &f);
  if (fin.returns) web_jump(w, &f, KL_N_RETURN);
  if (fin.breaks) {
    st_join(w, &w->loop->brk, &f);
    web_jump(w, &f, KL_N_BREAK);
  }
  if (fin.continues) {
    st_join(w, &w->loop->cont, &f);
    web_jump(w, &f, KL_N_CONTINUE);
  }
  done_dead = s->dead || f.dead;
  *s = f;
  s->dead = done_dead;
}

/* A `with` of any manager: __exit__ may suppress an exception of the body
 * (its `as` store included), and the code after it then runs from there. */
static void web_with(Webs *w, St *s, KlNode *n) {
  St *outer_exc = w->exc;
  web_expr(w, s, n->a);
  St exc = st_copy(w, s);
  w->exc = &exc;
  if (n->b) web_target(w, s, n->b);
  web_stmts(w, s, n->body);
  w->exc = outer_exc;
  if (outer_exc) st_join(w, outer_exc, &exc); /* not suppressed */
  bool dead = s->dead && exc.dead;
  st_join(w, s, &exc);
  s->dead = dead;
}

static void web_stmt_kind(Webs *w, St *s, KlNode *n) {
  switch (n->kind) {
  case KL_N_ASSIGN:
    web_expr(w, s, n->b);
    for (int i = 0; i < n->list.len; i++) web_target(w, s, n->list.items[i]);
    return;
  case KL_N_IMPORT:
  case KL_N_IMPORTFROM:
    for (int i = 0; i < n->list.len; i++) web_target(w, s, n->list.items[i]);
    return;
  case KL_N_ANNASSIGN:
    if (n->b) {
      web_expr(w, s, n->b);
      web_target(w, s, n->a);
    }
    return;
  case KL_N_AUGASSIGN:
    if (n->a->kind == KL_N_NAME) {
      /* the same node is read (before the value is evaluated: a := there
       * comes after) then written; the read (old value) and the write (new
       * value) may be different webs: the statement node carries the read,
       * the target the write */
      if (n->a->binding == KL_B_LOCAL && !w->counting) {
        n->slot = n->a->slot;
        web_use(w, s, n);
      }
      web_expr(w, s, n->b);
      if (n->a->binding == KL_B_LOCAL) web_def(w, s, n->a);
    } else {
      web_target(w, s, n->a);
      web_expr(w, s, n->b);
    }
    return;
  case KL_N_DEL:
    for (int i = 0; i < n->list.len; i++) {
      KlNode *t = n->list.items[i];
      if (t->kind == KL_N_NAME && t->binding == KL_B_LOCAL) {
        web_use(w, s, t);
        if (!w->counting && !s->dead) st_def(w, s, t->slot, -1);
      } else {
        web_expr(w, s, t);
      }
    }
    return;
  case KL_N_IF: {
    web_expr(w, s, n->a);
    St other = st_copy(w, s);
    web_stmts(w, s, n->body);
    web_stmts(w, &other, n->orelse);
    St out = st_copy(w, s);
    st_join(w, &out, &other);
    if (s->dead && other.dead) out.dead = true;
    *s = out;
    return;
  }
  case KL_N_WHILE:
  case KL_N_FOR: web_loop(w, s, n); return;
  case KL_N_WITH:
    if (n->op) { /* a guard: the body runs through or raises */
      web_stmts(w, s, n->body);
      return;
    }
    web_with(w, s, n);
    return;
  case KL_N_TRY: web_try(w, s, n); return;
  case KL_N_ASSERT: { /* the message runs only to fail; under -O nothing runs (a := in either) */
    St skipped = st_copy(w, s);
    web_expr(w, s, n->a);
    St failing = st_copy(w, s);
    web_expr(w, &failing, n->b);
    if (w->exc) st_join(w, w->exc, &failing);
    st_join(w, s, &skipped);
    return;
  }
  case KL_N_BREAK:
  case KL_N_CONTINUE:
    if (w->loop) st_join(w, n->kind == KL_N_BREAK ? &w->loop->brk : &w->loop->cont, s);
    web_jump(w, s, n->kind);
    s->dead = true;
    return;
  case KL_N_RETURN:
  case KL_N_RAISE:
    web_expr(w, s, n->a);
    web_expr(w, s, n->b);
    if (n->kind == KL_N_RETURN) web_jump(w, s, n->kind);
    s->dead = true;
    return;
  default:
    web_expr(w, s, n->a);
    web_expr(w, s, n->b);
    return;
  }
}

static void web_stmts(Webs *w, St *s, KlNodeList body) {
  for (int i = 0; i < body.len; i++) web_stmt(w, s, body.items[i]);
}

static void web_renumber(Webs *w, int *web_slot, KlNode *n);

static void web_renumber_list(Webs *w, int *web_slot, KlNodeList l) {
  for (int i = 0; i < l.len; i++) web_renumber(w, web_slot, l.items[i]);
}

static void web_renumber(Webs *w, int *web_slot, KlNode *n) {
  if (!n) return;
  bool aug_read = n->kind == KL_N_AUGASSIGN && n->a->kind == KL_N_NAME && n->a->binding == KL_B_LOCAL;
  if ((n->kind == KL_N_NAME && n->binding == KL_B_LOCAL) || aug_read) {
    if (n->web >= 0) {
      n->slot = web_slot[uf_find(w, n->web)];
    } else {
      /* read where no assignment reaches: a local that is never bound
         (a cell has one slot: every read and write goes to the cell) */
      if (!w->f->locals[n->slot].cell) n->slot = new_local_slot(w->ctx, w->f, w->f->locals[n->slot].name);
    }
  }
  web_renumber(w, web_slot, n->a);
  web_renumber(w, web_slot, n->b);
  web_renumber(w, web_slot, n->c);
  web_renumber_list(w, web_slot, n->list);
  web_renumber_list(w, web_slot, n->kw);
  web_renumber_list(w, web_slot, n->body);
  web_renumber_list(w, web_slot, n->orelse);
}

/* Each local (one web now) whose definitions are all import targets of one
 * path (mark_static_path_targets) gets it as static_path; a parameter or
 * any other binding of it rules it out. */
static void static_paths(Webs *w, const int *web_slot) {
  KlFunc *f = w->f;
  bool *mixed = kl_alloc(w->ctx, sizeof(bool) * (size_t)(f->nlocals + 1));
  for (int i = 0; i < f->nparams; i++) mixed[web_slot[uf_find(w, w->order[i])]] = true;
  for (int id = 0; id < w->ndefs; id++) {
    const KlNode *n = w->def_node[id];
    if (!n) continue; /* a parameter (above), or a number the counting pass gave up */
    const int slot = web_slot[uf_find(w, id)];
    if (mixed[slot]) continue;
    const char *path = n->kind == KL_N_NAME ? n->dotted : NULL;
    if (!path || (f->locals[slot].static_path && strcmp(f->locals[slot].static_path, path))) {
      mixed[slot] = true;
      f->locals[slot].static_path = NULL;
    } else {
      f->locals[slot].static_path = path;
    }
  }
}

static void split_webs(KlCtx *ctx, KlFunc *f) {
  Webs w = {.ctx = ctx, .f = f, .nslots = f->nlocals, .counting = true};
  /* pass 1: number definitions in source order (parameters first) */
  w.ndefs = f->nparams;
  w.cap = f->nparams + 64;
  w.def_slot = kl_alloc(ctx, sizeof(int) * (size_t)w.cap);
  w.def_node = kl_alloc(ctx, sizeof(KlNode *) * (size_t)w.cap);
  for (int i = 0; i < f->nparams; i++) w.def_slot[i] = f->params[i].slot;
  w.words = 1;
  St s = st_new(&w);
  s.dead = false;
  web_stmts(&w, &s, f->body);
  /* renumber: each slot's definitions consecutive, in source order */
  w.slot_start = kl_alloc(ctx, sizeof(int) * (size_t)(w.nslots + 2));
  for (int i = 0; i < w.ndefs; i++) w.slot_start[w.def_slot[i] + 1]++;
  for (int i = 0; i < w.nslots; i++) w.slot_start[i + 1] += w.slot_start[i];
  int *next = kl_alloc(ctx, sizeof(int) * (size_t)(w.nslots + 1));
  memcpy(next, w.slot_start, sizeof(int) * (size_t)w.nslots);
  w.order = kl_alloc(ctx, sizeof(int) * (size_t)(w.ndefs + 1));
  int *slots = kl_alloc(ctx, sizeof(int) * (size_t)(w.ndefs + 1));
  KlNode **nodes = kl_alloc(ctx, sizeof(KlNode *) * (size_t)(w.ndefs + 1));
  for (int i = 0; i < w.ndefs; i++) {
    const int id = w.order[i] = next[w.def_slot[i]]++;
    slots[id] = w.def_slot[i];
    if (i >= f->nparams && w.def_node[i]->web == i) nodes[id] = w.def_node[i]; /* its last number */
  }
  for (int id = 0; id < w.ndefs; id++)
    if (nodes[id]) nodes[id]->web = id;
  w.def_slot = slots, w.def_node = nodes;
  /* pass 2: reaching definitions and unions */
  w.counting = false;
  w.words = (w.ndefs + 64) / 64;
  w.parent = kl_alloc(ctx, sizeof(int) * (size_t)(w.ndefs + 1));
  for (int i = 0; i < w.ndefs; i++) w.parent[i] = i;
  s = st_new(&w);
  s.dead = false;
  for (int i = 0; i < w.nslots; i++) s.unb[i / 64] |= (uint64_t)1 << (i % 64);
  for (int i = 0; i < f->nparams; i++) st_def(&w, &s, f->params[i].slot, w.order[i]);
  web_stmts(&w, &s, f->body);
  /* a cell is one variable: every definition of it in one web */
  for (int slot = 0; slot < w.nslots; slot++)
    for (int id = w.slot_start[slot] + 1; f->locals[slot].cell && id < w.slot_start[slot + 1]; id++)
      uf_union(&w, w.slot_start[slot], id);
  /* one local per web: a parameter's web keeps the parameter's slot, the
   * first other web of a name keeps the name's slot, later ones are new */
  int *web_slot = kl_alloc(ctx, sizeof(int) * (size_t)(w.ndefs + 1));
  bool *slot_taken = kl_alloc(ctx, sizeof(bool) * (size_t)(w.nslots + 1));
  for (int i = 0; i < w.ndefs; i++) web_slot[i] = -1;
  for (int i = 0; i < f->nparams; i++) {
    web_slot[uf_find(&w, w.order[i])] = f->params[i].slot;
    slot_taken[f->params[i].slot] = true;
  }
  for (int k = 0; k < w.ndefs; k++) { /* in source order: new slots are numbered as before */
    const int i = w.order[k];
    int r = uf_find(&w, i);
    if (web_slot[r] >= 0) continue;
    int orig = w.def_slot[i];
    if (!slot_taken[orig]) {
      web_slot[r] = orig;
      slot_taken[orig] = true;
    } else {
      web_slot[r] = new_local_slot(ctx, f, f->locals[orig].name);
    }
  }
  /* each store's killed definitions -> the other slots it makes dead */
  for (int i = 0; i < w.ndefs; i++) {
    KlNode *n = w.def_node[i];
    if (!n) continue;
    const int own = web_slot[uf_find(&w, i)];
    int k = 0;
    for (int j = 0; j < n->nclear; j++) {
      const int slot = web_slot[uf_find(&w, n->clear[j])];
      bool seen = slot == own;
      for (int q = 0; q < k && !seen; q++) seen = n->clear[q] == slot;
      if (!seen) n->clear[k++] = slot;
    }
    n->nclear = k;
  }
  web_renumber_list(&w, web_slot, f->body);
  static_paths(&w, web_slot);
}
