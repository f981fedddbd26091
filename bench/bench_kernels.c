/* bench_kernels.c — kk_gemm latency/throughput, the FMA peak, and thread scaling.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Iruntime bench/bench_kernels.c runtime/kernels.c -o /tmp/bench_kernels -lpthread
 *   /tmp/bench_kernels            # all sections
 *   /tmp/bench_kernels shapes     # only the named-shape table (quick; good for A/B runs)
 *   /tmp/bench_kernels square     # only square 512..2048 at 1 and 2 threads
 *   /tmp/bench_kernels peak       # only the FMA peak
 *
 * Every number is the median of 9 samples, each sample running >= ~10 ms.
 * 1-thread rows report thread CPU time (immune to other processes holding the
 * core on a shared box; wall time in parentheses); multi-thread rows wall time.
 * KILN_ISA=avx2|reference caps the ISA. B layouts: "KxN" = weights stored
 * K×N row-major (bs1 == 1); "NxK" = torch linear's w (x @ w.T: bs0 == 1, bs1 == K).
 *
 * The binary also links against an older kernels.c without the threading API:
 * kk_set_num_threads is declared weak and skipped when absent. */
#define _POSIX_C_SOURCE 199309L
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void kk_set_num_threads(int n) __attribute__((weak));

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the calling thread: on a shared, oversubscribed machine this
 * excludes the time other processes hold the core (single-thread runs only). */
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

#define NSAMP 9

/* ---- FMA peak: 16 independent zmm (or ymm) FMA chains -------------------- */
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx512f"))) static double fma_run_avx512(long iters, float *sink)
{
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
#define DECL(i) __m512 c##i = _mm512_set1_ps((float)(i));
  CHAINS(DECL)
#undef DECL
  double t0 = now();
  for (long it = 0; it < iters; it++) {
#define STEP(i) c##i = _mm512_fmadd_ps(c##i, a, b);
    CHAINS(STEP)
#undef STEP
  }
  double dt = now() - t0;
  __m512 s = _mm512_setzero_ps();
#define SUM(i) s = _mm512_add_ps(s, c##i);
  CHAINS(SUM)
#undef SUM
  *sink += _mm512_reduce_add_ps(s);
  return 2.0 * 16.0 * 16.0 * (double)iters / dt * 1e-9;
}

static double fma_peak(void)
{
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) return 0.0;
  float sink = 0.0f;
  double best = 0.0;
  for (int r = 0; r < 25; r++) { /* a peak is a max: short runs dodge neighbours */
    double g = fma_run_avx512(2000000L, &sink);
    if (g > best) best = g;
  }
  if (sink == 12345.0f) printf(" ");
  return best;
}
#else
static double fma_peak(void) { return 0.0; }
#endif

/* ---- GEMM timing ---------------------------------------------------------- */
typedef struct {
  int64_t M, N, K;
  int bt;  /* B is torch linear's w (NxK) */
  int act; /* kk_act */
} shape;

/* Median seconds per call (wall clock); *cpu = median thread-CPU seconds per call. */
static double time_gemm(const shape *s, const float *A, const float *B, const float *bias, float *C, double *cpu)
{
  int64_t M = s->M, N = s->N, K = s->K;
  int64_t bs0 = s->bt ? 1 : N, bs1 = s->bt ? K : 1;
  kk_gemm(M, N, K, A, K, 1, B, bs0, bs1, bias, 1, s->act, C); /* warm-up, scratch */
  double flops = 2.0 * (double)M * (double)N * (double)K;
  int64_t reps = (int64_t)(2e7 / (flops + 2e3)) + 1;
  double t[NSAMP], c[NSAMP];
  for (int q = 0; q < NSAMP; q++) {
    double t0 = now(), c0 = cpu_now();
    for (int64_t r = 0; r < reps; r++) kk_gemm(M, N, K, A, K, 1, B, bs0, bs1, bias, 1, s->act, C);
    c[q] = (cpu_now() - c0) / (double)reps;
    t[q] = (now() - t0) / (double)reps;
  }
  qsort(t, NSAMP, sizeof *t, cmp_d);
  qsort(c, NSAMP, sizeof *c, cmp_d);
  *cpu = c[NSAMP / 2];
  return t[NSAMP / 2];
}

static const char *act_name(int act)
{
  static const char *n[] = {"none", "relu", "sigmoid", "tanh", "relu_tf"};
  return n[act];
}

static double run(const shape *s, int threads, int quiet)
{
  int64_t M = s->M, N = s->N, K = s->K;
  float *A = malloc((size_t)(M * K) * sizeof(float)), *B = malloc((size_t)(K * N) * sizeof(float));
  float *C = malloc((size_t)(M * N) * sizeof(float)), *bias = malloc((size_t)N * sizeof(float));
  for (int64_t i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
  for (int64_t i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 11) * 0.1f - 0.5f;
  for (int64_t i = 0; i < N; i++) bias[i] = 0.01f * (float)i;
  if (kk_set_num_threads) kk_set_num_threads(threads);
  double tc, tb = time_gemm(s, A, B, bias, C, &tc);
  /* 1 thread: CPU time (robust to a busy machine); more: wall clock */
  double tu = threads == 1 ? tc : tb;
  double gf = 2.0 * (double)M * (double)N * (double)K / tu * 1e-9;
  if (!quiet)
    printf("%5lld x %5lld x %5lld  B=%s  %-7s  thr=%d  %10.3f us %s  %7.2f GFLOP/s   (wall %.3f us)\n",
           (long long)M, (long long)N, (long long)K, s->bt ? "NxK" : "KxN", act_name(s->act), threads,
           tu * 1e6, threads == 1 ? "cpu " : "wall", gf, tb * 1e6);
  fflush(stdout);
  free(A); free(B); free(C); free(bias);
  return gf;
}

int main(int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "all";
  int all = strcmp(what, "all") == 0;
  kk_init();
  printf("kk_gemm, best ISA = %s, threading API %s\n", kk_isa_name(),
         kk_set_num_threads ? "present" : "absent");
  double peak = 0.0;
  if (all || strcmp(what, "peak") == 0 || strcmp(what, "square") == 0) {
    peak = fma_peak();
    printf("FMA peak (1 core, zmm, 16 chains, best of 25): %.1f GFLOP/s\n", peak);
  }
  if (all || strcmp(what, "shapes") == 0) {
    printf("-- named shapes (M x N x K), 1 thread, bias + act\n");
    static const shape S[] = {
        {64, 32, 32, 0, KK_ACT_SIGMOID}, {64, 32, 32, 1, KK_ACT_SIGMOID}, {1, 32, 32, 0, KK_ACT_RELU},
        {1, 32, 32, 1, KK_ACT_RELU},     {16, 128, 64, 0, KK_ACT_RELU},   {16, 128, 64, 1, KK_ACT_RELU},
        {256, 256, 128, 1, KK_ACT_NONE}, {256, 256, 128, 0, KK_ACT_NONE}, {100, 129, 511, 1, KK_ACT_TANH},
        {200, 1030, 30, 1, KK_ACT_RELU}, {128, 512, 256, 1, KK_ACT_RELU},
    };
    for (size_t i = 0; i < sizeof S / sizeof *S; i++) run(&S[i], 1, 0);
  }
  if (all || strcmp(what, "square") == 0) {
    printf("-- square, bias + none (%% of the 1-core FMA peak)\n");
    static const int64_t Q[] = {512, 1024, 2048};
    for (size_t i = 0; i < 3; i++)
      for (int bt = 0; bt < 2; bt++)
        for (int th = 1; th <= 2; th++) {
          shape s = {Q[i], Q[i], Q[i], bt, KK_ACT_NONE};
          double g = run(&s, th, 0);
          if (peak > 0) printf("      -> %.0f%% of 1-core peak%s\n", 100.0 * g / peak, th == 2 ? " (x2 cores)" : "");
        }
  }
  if (all || strcmp(what, "threads") == 0) {
    printf("-- thread break-even: M x N x K at 1 vs 2 threads\n");
    static const int64_t T[][3] = {{64, 64, 64},    {128, 128, 128}, {96, 256, 256}, {128, 256, 256},
                                   {192, 192, 192}, {256, 256, 128}, {256, 256, 256}, {384, 384, 384}};
    for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
      shape s = {T[i][0], T[i][1], T[i][2], 0, KK_ACT_NONE};
      run(&s, 1, 0);
      run(&s, 2, 0);
    }
  }
  kk_release_scratch();
  return 0;
}
