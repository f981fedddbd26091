/* kilnc.c — the standalone compiler driver, for C tests and fuzzing.
 *   kilnc tokens FILE   token dump
 *   kilnc ast FILE      AST dump
 *   kilnc check FILE    diagnostics (stderr) and the JSON report (stdout)
 *   kilnc emit FILE     generated C (stdout)
 * Exit status: 0 ok, 1 errors in the source, 2 usage or I/O.
 * kilnc has no Unicode name database (kiln._compiler asks the running
 * Python): a \N{NAME} escape in a str or f-string is a KILN001 error. */
#include "kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  KlBuf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) kl_buf_put(&b, chunk, n);
  fclose(f);
  if (b.oom) {
    kl_buf_free(&b);
    return NULL;
  }
  *len = b.len;
  return b.data ? b.data : calloc(1, 1);
}

/* The module name: the file's stem. */
static char *stem(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strcspn(base, ".");
  char *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, base, n);
  s[n] = 0;
  return s;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kilnc tokens|ast|check|emit FILE [--test-plugin]\n");
    return 2;
  }
  const char *cmd = argv[1], *path = argv[2];
  unsigned flags = 0;
  for (int i = 3; i < argc; i++)
    if (!strcmp(argv[i], "--test-plugin")) flags |= KL_FLAG_TEST_PLUGIN;
  size_t len;
  char *src = read_file(path, &len);
  if (!src) {
    fprintf(stderr, "kilnc: cannot read %s\n", path);
    return 2;
  }
  int status = 0;
  if (!strcmp(cmd, "tokens") || !strcmp(cmd, "ast")) {
    KlBuf out = {0};
    bool ok = kl_dump(src, len, path, !strcmp(cmd, "ast"), NULL, &out);
    fwrite(out.data ? out.data : "", 1, out.len, ok ? stdout : stderr);
    status = ok ? 0 : 1;
    kl_buf_free(&out);
  } else if (!strcmp(cmd, "check") || !strcmp(cmd, "emit")) {
    char *mod = stem(path);
    KlResult res;
    bool emit = !strcmp(cmd, "emit");
    kl_compile(src, len, path, mod ? mod : "module", flags, emit, NULL, &res);
    fwrite(res.diagnostics.data ? res.diagnostics.data : "", 1, res.diagnostics.len, stderr);
    const KlBuf *out = emit ? &res.c_source : &res.report;
    if (res.ok || !emit) fwrite(out->data ? out->data : "", 1, out->len, stdout);
    status = res.ok ? 0 : 1;
    kl_result_free(&res);
    free(mod);
  } else {
    fprintf(stderr, "kilnc: unknown command '%s'\n", cmd);
    status = 2;
  }
  free(src);
  return status;
}
