/* fuzz_compile.c — libFuzzer target for the whole compiler pipeline:
 * tokenizer, parser, resolution, typing, claims, fusion, C emission and the
 * JSON report. Built by `make fuzz` with -fsanitize=fuzzer,address,undefined.
 *
 * Odd-length inputs also enable the test plugin and KL_FLAG_BIND_GLOBALS, so
 * every plugin outcome and both module-init forms are reached. A stand-in
 * name hook resolves \N{BULLET}.
 *
 * With KILN_FUZZ_C_DIR set, every 64th input that compiles with a non-empty
 * module is written there as C (name: a hash of the input); tests/fuzz/run.sh
 * then checks a sample of them with `cc -fsyntax-only -Werror`. */
#include "kiln.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stands in for kiln._compiler's \N{NAME} hook (which asks the running
 * Python): BULLET and bullet are known, every other name is not, so both
 * the decoding and the unknown-name error are reached. */
static bool lookup_name(void *user, const char *name, size_t len, uint32_t *cp) {
  (void)user;
  if (len != 6 || (memcmp(name, "BULLET", 6) && memcmp(name, "bullet", 6))) return false;
  *cp = 0x2022;
  return true;
}

static void save_c(const uint8_t *data, size_t size, const KlBuf *c) {
  static const char *dir;
  static int checked, count;
  if (!checked) {
    dir = getenv("KILN_FUZZ_C_DIR");
    checked = 1;
  }
  if (!dir || !c->len || count++ % 64) return;
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
  char path[4096];
  snprintf(path, sizeof path, "%s/%016llx.c", dir, (unsigned long long)h);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(c->data, 1, c->len, f);
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned flags = size & 1 ? KL_FLAG_TEST_PLUGIN | KL_FLAG_BIND_GLOBALS : 0;
  KlResult res;
  const KlNameHook names = {lookup_name, NULL};
  kl_compile((const char *)data, size, "fuzz.py", "fuzz", flags, true, &names, &res);
  /* the result must be self-consistent whatever the input */
  if (res.ok && !res.report.len) __builtin_trap();
  if (!res.ok && res.c_source.len && !res.diagnostics.len) __builtin_trap();
  if (res.ok) save_c(data, size, &res.c_source);
  kl_result_free(&res);
  return 0;
}
