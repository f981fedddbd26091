/* compile.c — the entry point: the pipeline in one function, under one setjmp. */
#include "kiln.h"

#include <stdlib.h>
#include <string.h>

static void register_plugin(KlCtx *ctx, const KlPlugin *p) {
  if (p->api_version != KL_PLUGIN_API_VERSION)
    kl_fatal(ctx, KL_KILN042, (KlLoc){0, 0}, "plugin '%s' has API %d, compiler has %d", p->name,
             p->api_version, KL_PLUGIN_API_VERSION);
  if (ctx->nplugins == KL_MAX_PLUGINS) kl_fatal(ctx, KL_KILN050, (KlLoc){0, 0}, "too many plugins");
  int idx = ctx->nplugins++;
  ctx->plugins[idx] = p;
  for (int i = 0; p->types[i].key; i++) {
    if (ctx->ntypes == KL_MAX_TYPES || i >= 8) kl_fatal(ctx, KL_KILN050, (KlLoc){0, 0}, "too many plugin types");
    KlType t = ctx->ntypes++;
    ctx->types[t] = (KlTypeInfo){p->types[i].key, idx, p->types[i].rank, p->types[i].annotation};
    ctx->plugin_tids[idx][i] = t;
  }
}

static void init_ctx(KlCtx *ctx, const char *src, size_t len, const char *filename, const char *modname,
                     unsigned flags, const KlNameHook *names) {
  memset(ctx, 0, sizeof *ctx);
  if (names) ctx->names = *names;
  ctx->src = src;
  ctx->srclen = len;
  ctx->filename = filename;
  ctx->modname = modname;
  ctx->flags = flags;
  ctx->diag_tail = &ctx->diags;
  static const char *const core[] = {"none", "int", "float", "bool", "object"};
  for (int i = 0; i < KL_T_FIRST_TENSOR; i++) ctx->types[i] = (KlTypeInfo){core[i], -1, 0, NULL};
  ctx->ntypes = KL_T_FIRST_TENSOR;
}

static void register_plugins(KlCtx *ctx) {
  register_plugin(ctx, &kl_plugin_torch);
  register_plugin(ctx, &kl_plugin_tensorflow);
  if (ctx->flags & KL_FLAG_TEST_PLUGIN) {
    register_plugin(ctx, &kl_plugin_test);
    register_plugin(ctx, &kl_plugin_test_twin);
  }
}

void kl_compile(const char *src, size_t len, const char *filename, const char *modname, unsigned flags,
                bool want_c, const KlNameHook *names, KlResult *res) {
  memset(res, 0, sizeof *res);
  KlCtx *ctx = malloc(sizeof *ctx);
  if (!ctx) {
    kl_buf_puts(&res->diagnostics, "kiln: out of memory\n");
    return;
  }
  init_ctx(ctx, src, len, filename, modname, flags, names);
  jmp_buf fatal;
  ctx->fatal = &fatal;
  if (setjmp(fatal) == 0) {
    register_plugins(ctx);
    int ntoks;
    KlToken *toks = kl_lex(ctx, &ntoks);
    KlModule *m = kl_parse(ctx, toks, ntoks);
    kl_resolve(ctx, m); /* may leave more functions as Python (a `with` of another manager) */
    for (int i = 0; i < m->nfuncs; i++) {
      KlFunc *f = m->funcs[i];
      if (f->unsupported)
        kl_diag(ctx, KL_SEV_WARNING, f->why_code, f->why_loc, "function %s is left as Python: %s (see `kiln explain %s`)",
                f->name, f->why, kl_code_name(f->why_code));
    }
    kl_infer_types(ctx, m);
    kl_claim_sites(ctx, m);
    kl_emit_report(ctx, m, &res->report);
    res->fallback_sites = kl_count_fallback_sites(ctx, m);
    for (int i = 0; i < m->nfuncs; i++)
      if (m->funcs[i]->unsupported) {
        kl_buf_puts(&res->python_functions, m->funcs[i]->name);
        kl_buf_puts(&res->python_functions, "\n");
      }
    if (!ctx->nerrors && want_c) kl_emit_module(ctx, m, &res->c_source);
  }
  res->ok = ctx->nerrors == 0 && !res->c_source.oom && !res->report.oom;
  if (!res->report.len) kl_buf_printf(&res->report, "{\"kiln_version\": \"%s\", \"functions\": []}", KILN_VERSION);
  kl_render_diags(ctx, &res->diagnostics);
  kl_free_tracked(ctx);
  kl_arena_free(&ctx->arena);
  free(ctx);
}

void kl_result_free(KlResult *res) {
  kl_buf_free(&res->c_source);
  kl_buf_free(&res->report);
  kl_buf_free(&res->diagnostics);
  kl_buf_free(&res->python_functions);
}

bool kl_dump(const char *src, size_t len, const char *filename, int what, const KlNameHook *names, KlBuf *out) {
  KlCtx *ctx = malloc(sizeof *ctx);
  if (!ctx) return false;
  init_ctx(ctx, src, len, filename, "dump", 0, names);
  jmp_buf fatal;
  ctx->fatal = &fatal;
  if (setjmp(fatal) == 0) {
    register_plugins(ctx);
    int ntoks;
    KlToken *toks = kl_lex(ctx, &ntoks);
    if (what == 0) {
      kl_dump_tokens(toks, ntoks, out);
    } else {
      KlModule *m = kl_parse(ctx, toks, ntoks);
      kl_dump_module(ctx, m, out);
    }
  }
  bool ok = ctx->nerrors == 0;
  if (!ok) {
    out->len = 0;
    kl_render_diags(ctx, out);
  }
  kl_arena_free(&ctx->arena);
  free(ctx);
  return ok;
}
