/* util.c — the arena, strings and growable buffers. */
#include "kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bump allocation from blocks; the whole arena goes at once with the
 * context, so no AST node is ever freed one by one. */
struct KlArenaBlock {
  KlArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void *kl_alloc(KlCtx *ctx, size_t size) {
  size = (size + 15) & ~(size_t)15;
  KlArenaBlock *b = ctx->arena.head;
  if (!b || b->cap - b->used < size) {
    size_t cap = size > 65536 ? size : 65536;
    b = malloc(sizeof(KlArenaBlock) + cap);
    if (!b) kl_fatal(ctx, KL_KILN050, (KlLoc){0, 0}, "out of memory");
    b->next = ctx->arena.head;
    b->used = 0;
    b->cap = cap;
    ctx->arena.head = b;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

void kl_arena_free(KlArena *arena) {
  KlArenaBlock *b = arena->head;
  while (b) {
    KlArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  arena->head = NULL;
}

char *kl_strndup(KlCtx *ctx, const char *s, size_t n) {
  char *p = kl_alloc(ctx, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *kl_strdup(KlCtx *ctx, const char *s) { return kl_strndup(ctx, s, strlen(s)); }

char *kl_fmt(KlCtx *ctx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  KlBuf b = {0};
  kl_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  char *s = kl_strndup(ctx, b.data ? b.data : "", b.len);
  kl_buf_free(&b);
  return s;
}

static bool buf_reserve(KlBuf *b, size_t extra) {
  if (b->oom) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->oom = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void kl_buf_put(KlBuf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void kl_buf_puts(KlBuf *b, const char *s) { kl_buf_put(b, s, strlen(s)); }

void kl_buf_vprintf(KlBuf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0 || !buf_reserve(b, (size_t)n)) return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void kl_buf_printf(KlBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kl_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void kl_buf_free(KlBuf *b) {
  free(b->data);
  *b = (KlBuf){0};
}

struct KlTrackedBuf {
  KlBuf buf;
  struct KlTrackedBuf *next;
};

KlBuf *kl_tracked_buf(KlCtx *ctx) {
  struct KlTrackedBuf *t = kl_alloc(ctx, sizeof *t);
  t->next = ctx->tracked;
  ctx->tracked = t;
  return &t->buf;
}

void kl_free_tracked(KlCtx *ctx) {
  for (struct KlTrackedBuf *t = ctx->tracked; t; t = t->next) kl_buf_free(&t->buf);
  ctx->tracked = NULL;
}

void kl_buf_c_string(KlBuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    /* '?' is escaped too: trigraphs. */
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
        c == '_' || c == '.' || c == ',' || c == ':' || c == '-' || c == '(' || c == ')') {
      char ch = (char)c;
      kl_buf_put(b, &ch, 1);
    } else {
      kl_buf_printf(b, "\\%03o", c);
    }
  }
}

void kl_buf_json_string(KlBuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': kl_buf_puts(b, "\\\""); break;
    case '\\': kl_buf_puts(b, "\\\\"); break;
    case '\n': kl_buf_puts(b, "\\n"); break;
    case '\r': kl_buf_puts(b, "\\r"); break;
    case '\t': kl_buf_puts(b, "\\t"); break;
    default:
      if (c < 0x20 || c == 0x7f) kl_buf_printf(b, "\\u%04x", c);
      else {
        char ch = (char)c;
        kl_buf_put(b, &ch, 1);
      }
    }
  }
}

_Noreturn void kl_internal_error(const char *file, int line) {
  fprintf(stderr, "kiln: internal error at %s:%d\n", file, line);
  abort();
}
