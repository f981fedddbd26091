/* report.c — the JSON report: every function's status and every site's outcome. */
#include "kiln.h"

#include <string.h>

static const char *const outcome_text[] = {
    [KL_SITE_NONE] = NULL,
    [KL_SITE_SCALAR] = "scalar",
    [KL_SITE_CLAIMED] = "claimed",
    [KL_SITE_REJECTED] = "rejected",
    [KL_SITE_NOT_COVERED] = "not-covered",
};

static void json_str_or_null(KlBuf *out, const char *s) {
  if (!s) {
    kl_buf_puts(out, "null");
    return;
  }
  kl_buf_puts(out, "\"");
  kl_buf_json_string(out, s, strlen(s));
  kl_buf_puts(out, "\"");
}

/* A readable target for calls the resolver could not name statically. */
static const char *site_target(KlCtx *ctx, KlNode *n) {
  KlSiteInfo *s = n->site;
  if (s->meta.target) return s->meta.target;
  if (n->kind == KL_N_CALL) {
    KlNode *fn = n->a;
    if (fn->kind == KL_N_NAME) return fn->name;
    if (fn->kind == KL_N_ATTR) return kl_fmt(ctx, "?.%s", fn->name);
  }
  return NULL;
}

typedef struct Walk {
  KlCtx *ctx;
  KlBuf *out;
  int count;
} Walk;

static void walk_sites(Walk *w, KlNode *n);

static void walk_list(Walk *w, KlNodeList l) {
  for (int i = 0; i < l.len; i++) walk_sites(w, l.items[i]);
}

/* fn on each child of n, in the order the report lists them. */
static void each_child(Walk *w, KlNode *n, void (*fn)(Walk *, KlNode *)) {
  fn(w, n->a);
  fn(w, n->b);
  fn(w, n->c);
  const KlNodeList lists[] = {n->list, n->kw, n->body, n->orelse};
  for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
    for (int i = 0; i < lists[k].len; i++) fn(w, lists[k].items[i]);
}

static void emit_site(Walk *w, KlNode *n) {
  KlSiteInfo *s = n->site;
  KlBuf *out = w->out;
  kl_buf_printf(out, "%s\n        {\"line\": %d, \"col\": %d, \"kind\": \"%s\", \"target\": ", w->count ? "," : "",
                n->loc.line, n->loc.col, kl_site_kind_text[s->meta.kind]);
  json_str_or_null(out, site_target(w->ctx, n));
  kl_buf_printf(out, ", \"outcome\": \"%s\", \"plugin\": ", outcome_text[s->outcome]);
  json_str_or_null(out, s->plugin >= 0 ? w->ctx->plugins[s->plugin]->name : NULL);
  kl_buf_puts(out, ", \"rule\": ");
  json_str_or_null(out, s->outcome == KL_SITE_CLAIMED ? s->claim.rule : NULL);
  kl_buf_puts(out, ", \"code\": ");
  json_str_or_null(out, s->outcome == KL_SITE_REJECTED ? kl_code_name(s->claim.code) : NULL);
  kl_buf_puts(out, ", \"message\": ");
  json_str_or_null(out, s->outcome == KL_SITE_REJECTED ? s->claim.message : NULL);
  kl_buf_puts(out, "}");
  w->count++;
}

static void walk_sites(Walk *w, KlNode *n) {
  if (!n) return;
  /* the site, then the sites inside it */
  if (n->site && n->site->outcome != KL_SITE_NONE) emit_site(w, n);
  each_child(w, n, walk_sites);
}

/* The code inside a native function that CPython runs: nested defs and
 * classes, lambdas, generator expressions nobody consumes (each made from
 * the code object CPython compiled; see KlLambda). Not inside them: their
 * own nested code is part of their body. */
static void walk_python_bodies(Walk *w, KlNode *n) {
  if (!n) return;
  if (n->kind == KL_N_LAMBDA && n->lambda) {
    const KlLambda *l = n->lambda;
    const char *kind = l->is_class ? "class" : l->is_genexpr ? "genexpr" : l->name ? "def" : "lambda";
    kl_buf_printf(w->out, "%s\n        {\"kind\": \"%s\", \"name\": ", w->count ? "," : "", kind);
    json_str_or_null(w->out, l->name);
    kl_buf_printf(w->out, ", \"line\": %d, \"end_line\": %d}", l->line,
                  l->end_line > l->line ? l->end_line : l->line);
    w->count++;
  }
  /* a def's decorators, defaults and annotations, a generator's first
   * iterable: evaluated by the function itself, and may hold lambdas */
  each_child(w, n, walk_python_bodies);
}

void kl_emit_report(KlCtx *ctx, KlModule *m, KlBuf *out) {
  kl_buf_printf(out, "{\"kiln_version\": \"%s\", \"source\": ", KILN_VERSION);
  json_str_or_null(out, ctx->filename);
  kl_buf_puts(out, ",\n  \"functions\": [");
  for (int i = 0; i < m->nfuncs; i++) {
    KlFunc *f = m->funcs[i];
    kl_buf_printf(out, "%s\n    {\"name\": ", i ? "," : "");
    json_str_or_null(out, f->name);
    kl_buf_printf(out, ", \"line\": %d, \"status\": \"%s\", \"reason\": ", f->loc.line,
                  f->unsupported ? "python" : "native");
    if (f->unsupported) {
      const char *reason = kl_fmt(ctx, "%s: %s at line %d", kl_code_name(f->why_code), f->why, f->why_loc.line);
      json_str_or_null(out, reason);
      kl_buf_printf(out, ", \"code\": \"%s\", \"construct\": ", kl_code_name(f->why_code));
      json_str_or_null(out, f->why);
      kl_buf_printf(out, ", \"construct_line\": %d", f->why_loc.line);
    } else {
      kl_buf_puts(out, "null");
    }
    kl_buf_puts(out, ", \"sites\": [");
    Walk w = {ctx, out, 0};
    if (!f->unsupported) walk_list(&w, f->body);
    kl_buf_puts(out, "], \"python_bodies\": [");
    Walk pw = {ctx, out, 0};
    for (int j = 0; !f->unsupported && j < f->body.len; j++) walk_python_bodies(&pw, f->body.items[j]);
    /* guarded globals it resolved through (a conditional import, an alias
     * of a path): it runs as Python if one is not its path's object once
     * the module has run */
    kl_buf_puts(out, "], \"import_guards\": [");
    for (int j = 0; !f->unsupported && j + 1 < f->nimport_guards; j += 2) {
      kl_buf_puts(out, j ? ", {\"name\": " : "{\"name\": ");
      json_str_or_null(out, f->import_guards[j]);
      kl_buf_puts(out, ", \"path\": ");
      json_str_or_null(out, f->import_guards[j + 1]);
      kl_buf_puts(out, "}");
    }
    kl_buf_puts(out, "]}");
  }
  kl_buf_puts(out, "\n  ]\n}\n");
}

static int count_fallback(KlNode *n) {
  if (!n) return 0;
  int c = n->site && (n->site->outcome == KL_SITE_REJECTED || n->site->outcome == KL_SITE_NOT_COVERED);
  c += count_fallback(n->a) + count_fallback(n->b) + count_fallback(n->c);
  KlNodeList ls[] = {n->list, n->kw, n->body, n->orelse};
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < ls[k].len; i++) c += count_fallback(ls[k].items[i]);
  return c;
}

int kl_count_fallback_sites(KlCtx *ctx, KlModule *m) {
  (void)ctx;
  int c = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (!m->funcs[i]->unsupported)
      for (int j = 0; j < m->funcs[i]->body.len; j++) c += count_fallback(m->funcs[i]->body.items[j]);
  return c;
}
