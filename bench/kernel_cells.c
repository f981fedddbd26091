/* kernel_cells.c — the C kernel time of the benchmark's Phase A, Phase B and
 * TF-chain cells: the same kk_* calls the compiled functions make, timed in C
 * with no Python, framework or boundary cost around them.
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iruntime -DFMA_PEAK_LIB bench/kernel_cells.c \
 *      bench/fma_peak.c runtime/kernels.c -o kernel_cells -lm -lpthread
 *   ./kernel_cells [quick] phase_a:8:64:64 phase_b:8:64:16:1 tf_chain:64
 *
 * Cell specs:
 *   phase_a:BATCH:IN:OUT          kk_gemm_rowreduce (linear -> relu -> mean), w OUT x IN (torch layout)
 *   phase_b:BATCH:WIDTH:DEPTH:PHASE  DEPTH x kk_gemm (x @ W + b, relu / sigmoid alternating), kk_rowsum
 *   tf_chain:BATCH                kk_gemm_post (matmul, relu_tf, + bias, row mean; no caller scratch); in 128, out 64
 *
 * Prints one line per spec: "<spec> <median microseconds per call> <share of
 * the FMA peak>". The share is the median over samples of (the cell's
 * multiply-adds run from registers at the FMA peak, bench/fma_peak.c, timed
 * right after the sample) / (the sample's time): the peak on the same machine
 * state as the kernels, which a best-of peak from another run is not. One thread
 * (kk_set_num_threads(1)); times are thread CPU time (CLOCK_THREAD_CPUTIME_ID),
 * so time other processes hold the core is not counted. Each number is the
 * median of NSAMP samples after a warm-up; a sample repeats the cell's calls
 * for ~3 ms (~1 ms with "quick"). Inputs are uniform in [-1, 1] (weights
 * scaled by 1/sqrt(fan-in)), in 64-byte aligned buffers allocated once. */
#define _POSIX_C_SOURCE 199309L
#include "kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CELL_A, CELL_B, CELL_TF };

typedef struct {
  int kind;
  int64_t batch, n_in, n_out; /* phase_a; tf_chain uses 128 -> 64 */
  int64_t width, depth, phase; /* phase_b */
  float *x, *w, *bias, *h0, *h1, *out;
} cell;

static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static float uniform_pm1(void) /* xorshift64*: uniform in [-1, 1) */
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  uint64_t r = rng_state * 0x2545F4914F6CDD1Dull;
  return (float)((double)(r >> 40) / (double)(1ull << 23) - 1.0);
}

static float *buffer(int64_t n, float scale) /* 64-byte aligned, filled with uniform * scale (or zero) */
{
  size_t bytes = ((size_t)(n > 0 ? n : 1) * sizeof(float) + 63) / 64 * 64;
  float *p = aligned_alloc(64, bytes);
  if (!p) {
    fprintf(stderr, "kernel_cells: out of memory\n");
    exit(1);
  }
  memset(p, 0, bytes);
  if (scale != 0.0f)
    for (int64_t i = 0; i < n; i++) p[i] = scale * uniform_pm1();
  return p;
}

static int parse(const char *spec, cell *c)
{
  long long v[4] = {0, 0, 0, 0};
  char tail;
  memset(c, 0, sizeof *c);
  if (sscanf(spec, "phase_a:%lld:%lld:%lld%c", &v[0], &v[1], &v[2], &tail) == 3) {
    c->kind = CELL_A;
    c->batch = v[0], c->n_in = v[1], c->n_out = v[2];
    return v[0] > 0 && v[1] > 0 && v[2] > 0 && v[0] * v[1] <= (1ll << 26) && v[1] * v[2] <= (1ll << 26);
  }
  if (sscanf(spec, "phase_b:%lld:%lld:%lld:%lld%c", &v[0], &v[1], &v[2], &v[3], &tail) == 4) {
    c->kind = CELL_B;
    c->batch = v[0], c->width = v[1], c->depth = v[2], c->phase = v[3];
    return v[0] > 0 && v[1] > 0 && v[2] >= 0 && v[2] <= 100000 && v[3] >= 0 &&
           v[0] * v[1] <= (1ll << 26) && v[1] * v[1] <= (1ll << 26);
  }
  if (sscanf(spec, "tf_chain:%lld%c", &v[0], &tail) == 1) {
    c->kind = CELL_TF;
    c->batch = v[0], c->n_in = 128, c->n_out = 64;
    return v[0] > 0 && v[0] <= (1ll << 18);
  }
  return 0;
}

static void setup(cell *c)
{
  if (c->kind == CELL_A || c->kind == CELL_TF) {
    c->x = buffer(c->batch * c->n_in, 1.0f);
    /* phase_a: w is OUT x IN (torch linear); tf_chain: IN x OUT (tf.matmul) */
    c->w = buffer(c->n_in * c->n_out, 1.0f / sqrtf((float)c->n_in));
    c->bias = buffer(c->n_out, 0.1f);
    c->h0 = buffer(c->batch * c->n_out, 0.0f);
    c->h1 = buffer(c->batch * c->n_out, 0.0f);
  } else {
    c->x = buffer(c->batch * c->width, 1.0f);
    c->w = buffer(c->width * c->width, 1.0f / sqrtf((float)c->width));
    c->bias = buffer(c->width, 0.1f);
    c->h0 = buffer(c->batch * c->width, 0.0f);
    c->h1 = buffer(c->batch * c->width, 0.0f);
  }
  c->out = buffer(c->batch, 0.0f);
}

static void teardown(cell *c)
{
  free(c->x), free(c->w), free(c->bias), free(c->h0), free(c->h1), free(c->out);
}

/* One call of the compiled function's kernels. */
static void run_once(const cell *c)
{
  int64_t B = c->batch;
  switch (c->kind) {
  case CELL_A: {
    int64_t K = c->n_in, N = c->n_out;
    kk_gemm_rowreduce(B, N, K, c->x, K, 1, c->w, 1, K, c->bias, 1, KK_ACT_RELU, 1, c->out);
    break;
  }
  case CELL_B: {
    int64_t W = c->width;
    const float *h = c->x;
    float *bufs[2] = {c->h0, c->h1};
    for (int64_t l = 0; l < c->depth; l++) {
      kk_act act = (l + c->phase) % 2 == 0 ? KK_ACT_RELU : KK_ACT_SIGMOID;
      float *next = bufs[l % 2];
      kk_gemm(B, W, W, h, W, 1, c->w, W, 1, c->bias, 1, act, next);
      h = next;
    }
    kk_rowsum(B, W, h, W, 1, 1, c->out);
    break;
  }
  default: {
    int64_t K = c->n_in, N = c->n_out;
    (void)kk_gemm_post(B, N, K, c->x, K, 1, c->w, N, 1, NULL, 0, KK_ACT_RELU_TF, c->bias, 1, 0, NULL, 2, c->out);
    break;
  }
  }
}

#define NSAMP 9

static volatile float sink;

int kiln_bench_fma(long n); /* bench/fma_peak.c: n multiply-adds at the FMA peak */

static double cell_macs(const cell *c)
{
  if (c->kind == CELL_B) return (double)c->depth * (double)c->batch * (double)c->width * (double)c->width;
  return (double)c->batch * (double)c->n_in * (double)c->n_out;
}

/* Median thread-CPU seconds per call; *share: median of the FMA peak's time
 * for a sample's multiply-adds / the sample's time (0 without AVX2/AVX-512). */
static double time_cell(const cell *c, int quick, double *share)
{
  double sample_s = quick ? 1e-3 : 3e-3;
  /* warm-up (packing scratch, caches, branch predictors), then calibrate */
  int64_t reps = 1;
  double t0 = cpu_now(), dt = 0.0;
  for (;;) {
    for (int64_t r = 0; r < reps; r++) run_once(c);
    dt = cpu_now() - t0;
    if (dt >= sample_s || reps >= (1ll << 30)) break;
    reps *= 2;
  }
  double per_call = dt / (double)(2 * reps - 1);
  reps = (int64_t)(sample_s / (per_call > 1e-9 ? per_call : 1e-9)) + 1;
  int nsamp = quick ? 5 : NSAMP;
  double t[NSAMP], f[NSAMP];
  const long macs = (long)(cell_macs(c) * (double)reps);
  for (int q = 0; q < nsamp; q++) {
    double s0 = cpu_now();
    for (int64_t r = 0; r < reps; r++) run_once(c);
    double s1 = cpu_now();
    int lanes = macs > 0 ? kiln_bench_fma(macs) : 0;
    f[q] = lanes ? (cpu_now() - s1) / (s1 - s0) : 0.0;
    t[q] = (s1 - s0) / (double)reps;
  }
  sink = c->out[0];
  qsort(t, (size_t)nsamp, sizeof *t, cmp_d);
  qsort(f, (size_t)nsamp, sizeof *f, cmp_d);
  *share = f[nsamp / 2];
  return t[nsamp / 2];
}

int main(int argc, char **argv)
{
  int first = 1, quick = 0;
  if (argc > 1 && strcmp(argv[1], "quick") == 0) quick = 1, first = 2;
  if (first >= argc) {
    fprintf(stderr, "usage: %s [quick] phase_a:B:IN:OUT | phase_b:B:W:DEPTH:PHASE | tf_chain:B ...\n", argv[0]);
    return 2;
  }
  kk_init();
  kk_set_num_threads(1);
  for (int i = first; i < argc; i++) {
    cell c;
    if (!parse(argv[i], &c)) {
      fprintf(stderr, "kernel_cells: bad cell spec '%s'\n", argv[i]);
      return 2;
    }
  }
  for (int i = first; i < argc; i++) {
    cell c;
    parse(argv[i], &c);
    setup(&c);
    double share = 0.0, s = time_cell(&c, quick, &share);
    printf("%s %.4f %.4f\n", argv[i], s * 1e6, share);
    fflush(stdout);
    teardown(&c);
  }
  kk_release_scratch();
  return 0;
}
