/* diag.c — diagnostics: the code table, explain texts, rustc-style rendering. */
#include "kiln.h"

#include <stdio.h>
#include <string.h>

static const char *const code_names[] = {
#define X(code, title) #code,
    KL_DIAG_CODES(X)
#undef X
};

static const char *const code_titles[] = {
#define X(code, title) title,
    KL_DIAG_CODES(X)
#undef X
};

/* What each code means and how to fix it (`kiln explain CODE`). */
static const char *const code_explains[] = {
    [KL_KILN001] = "The source is not valid Python (or uses a lexical form kiln cannot read).\n"
                   "Fix the syntax at the location shown; the file must import under CPython.",
    [KL_KILN002] = "The source contains bytes that are not valid in its encoding (UTF-8 unless a\n"
                   "PEP 263 coding line says latin-1 or ascii), a NUL byte, or declares an\n"
                   "encoding kiln does not read. Re-save the file as UTF-8.",
    [KL_KILN003] = "A dedent does not return to any enclosing indentation level, or tabs and\n"
                   "spaces are mixed inconsistently. Indent with spaces only.",
    [KL_KILN010] = "The function uses a construct the compiler does not translate (classes,\n"
                   "closures, lambdas, generators, comprehensions, try, with, global, ...).\n"
                   "The function still works: it runs as ordinary Python. Move the construct\n"
                   "into a helper function to get the rest compiled.",
    [KL_KILN011] = "The function has *args, **kwargs or positional-only parameters. It runs as\n"
                   "ordinary Python. Use plain or keyword-only parameters to compile it.",
    [KL_KILN012] = "The function has a decorator other than kiln.compile. Decorators can replace\n"
                   "the function with anything, so it runs as ordinary Python.",
    [KL_KILN020] = "A name is neither a local, a module global, an import nor a builtin. It is\n"
                   "looked up at run time and raises NameError like Python if still missing.",
    [KL_KILN021] = "A parameter annotation is not int, float, bool or a kiln tensor marker\n"
                   "(kiln.torch.TensorF32Cpu2D, ...). The parameter is treated as a Python object.",
    [KL_KILN030] = "An integer literal does not fit in int64; expressions using it run on the\n"
                   "Python fallback with arbitrary precision.",
    [KL_KILN040] = "Two plugins claimed the same site. This is a plugin bug: plugins must cover\n"
                   "disjoint targets. Report it.",
    [KL_KILN041] = "A plugin's lowering disagreed with its own claim for the same site metadata.\n"
                   "The build fails instead of emitting code that might be wrong. Report it.",
    [KL_KILN042] = "A plugin was built for a different plugin API version than this compiler.",
    [KL_KILN050] = "The compiler hit an internal limit or bug. Please report it with the source.",
    [KL_KILN_TEST_001] = "The test plugin recognised the call test.reject(...) and rejected it, to\n"
                         "exercise the rejected outcome. It runs on the Python fallback.",
    [KL_KILN_TORCH_001] = "torch.nn.functional.linear is native only as linear(x, w, b) with three\n"
                          "positional tensors of ranks 2, 2 and 1 and no keywords. Other forms run\n"
                          "on eager PyTorch through the Python fallback.",
    [KL_KILN_TORCH_002] = ".relu(), .sigmoid() and .tanh() are native with no arguments on rank-1 or\n"
                          "rank-2 float32 CPU tensors. Other forms run on the Python fallback.",
    [KL_KILN_TORCH_003] = "a @ b, torch.matmul(a, b) and a.matmul(b) are native for two rank-2 tensors\n"
                          "without keywords. Other ranks run on the Python fallback.",
    [KL_KILN_TORCH_004] = "Tensor + is native for ranks 1+1, 2+2 and 2+1/1+2 (row broadcast). Other\n"
                          "operands (scalars, other ranks) run on the Python fallback.",
    [KL_KILN_TORCH_005] = ".mean and .sum are native only as .mean(dim=1, keepdim=False) on rank 2,\n"
                          "with literal keyword values in any order and no positionals.",
    [KL_KILN_TORCH_010] = "A torch operation on kiln tensor types outside the proven native surface.\n"
                          "It runs on eager PyTorch through the Python fallback.",
    [KL_KILN_TF_001] = "tf.matmul / tf.linalg.matmul are native for two rank-2 tensors without\n"
                       "keywords (no transpose_a/transpose_b). Others run on the Python fallback.",
    [KL_KILN_TF_002] = "tf.nn.relu is native for one rank-1 or rank-2 tensor and no keywords.",
    [KL_KILN_TF_003] = "tf.add / tf.math.add are native for ranks 1+1, 2+2, 2+1, 1+2 with no keywords.",
    [KL_KILN_TF_004] = "tf.reduce_mean is native on rank 2 with literal axis=1 (keyword or second\n"
                       "positional) and optional literal keepdims=False.",
    [KL_KILN_TF_005] = "tf.nn.sigmoid is native for one rank-1 or rank-2 tensor and no keywords.",
    [KL_KILN_TF_006] = "Binary + on TensorFlow tensors is native for ranks 1+1, 2+2, 2+1 and 1+2.",
    [KL_KILN_TF_010] = "A TensorFlow operation on kiln tensor types outside the proven surface. It\n"
                       "runs on eager TensorFlow through the Python fallback.",
};

const char *kl_code_name(KlCode code) {
  /* KILN_TORCH_001 is spelled KILN-TORCH-001 to users. */
  static char spelled[KL_NUM_CODES][24];
  if ((unsigned)code >= KL_NUM_CODES) return "KILN???";
  if (!spelled[code][0]) {
    const char *n = code_names[code];
    size_t i = 0;
    for (; n[i] && i < sizeof spelled[code] - 1; i++) spelled[code][i] = n[i] == '_' ? '-' : n[i];
    spelled[code][i] = 0;
  }
  return spelled[code];
}

const char *kl_code_title(KlCode code) {
  return (unsigned)code < KL_NUM_CODES ? code_titles[code] : "unknown";
}

const char *kl_code_explain(KlCode code) {
  return (unsigned)code < KL_NUM_CODES && code_explains[code] ? code_explains[code] : "";
}

bool kl_code_lookup(const char *name, KlCode *out) {
  for (int i = 0; i < KL_NUM_CODES; i++) {
    const char *n = kl_code_name((KlCode)i);
    size_t j = 0;
    /* case-insensitive, '-' and '_' alike */
    for (;; j++) {
      char a = n[j], b = name[j];
      if (b >= 'a' && b <= 'z') b = (char)(b - 32);
      if (b == '_') b = '-';
      if (a != b) break;
      if (!a) {
        *out = (KlCode)i;
        return true;
      }
    }
  }
  return false;
}

static void vdiag(KlCtx *ctx, KlSeverity sev, KlCode code, KlLoc loc, const char *fmt, va_list ap) {
  KlDiag *d = kl_alloc(ctx, sizeof *d);
  d->sev = sev;
  d->code = code;
  d->loc = loc;
  KlBuf b = {0};
  kl_buf_vprintf(&b, fmt, ap);
  d->msg = kl_strndup(ctx, b.data ? b.data : "", b.len);
  kl_buf_free(&b);
  *ctx->diag_tail = d;
  ctx->diag_tail = &d->next;
  if (sev == KL_SEV_ERROR) ctx->nerrors++;
}

void kl_diag(KlCtx *ctx, KlSeverity sev, KlCode code, KlLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(ctx, sev, code, loc, fmt, ap);
  va_end(ap);
}

_Noreturn void kl_fatal(KlCtx *ctx, KlCode code, KlLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(ctx, KL_SEV_ERROR, code, loc, fmt, ap);
  va_end(ap);
  longjmp(*ctx->fatal, 1);
}

/* The source line `line` (1-based), without its newline. */
static const char *source_line(KlCtx *ctx, int line, size_t *len) {
  const char *p = ctx->src, *end = ctx->src + ctx->srclen;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n') l++;
  const char *e = p;
  while (e < end && *e != '\n' && *e != '\r') e++;
  *len = (size_t)(e - p);
  return p;
}

void kl_render_diags(KlCtx *ctx, KlBuf *out) {
  static const char *const sev_text[] = {"error", "warning", "note"};
  for (KlDiag *d = ctx->diags; d; d = d->next) {
    kl_buf_printf(out, "%s:%d:%d: %s[%s]: %s\n", ctx->filename, d->loc.line, d->loc.col,
                  sev_text[d->sev], kl_code_name(d->code), d->msg);
    if (d->loc.line <= 0) continue;
    size_t len;
    const char *text = source_line(ctx, d->loc.line, &len);
    kl_buf_printf(out, "%5d | ", d->loc.line);
    kl_buf_put(out, text, len);
    kl_buf_puts(out, "\n      | ");
    /* caret under the column, counting code points; tabs kept as tabs */
    int col = 1;
    for (size_t i = 0; i < len && col < d->loc.col; i++) {
      unsigned char c = (unsigned char)text[i];
      if ((c & 0xC0) == 0x80) continue;
      kl_buf_puts(out, c == '\t' ? "\t" : " ");
      col++;
    }
    kl_buf_puts(out, "^\n");
  }
}
