/* fma_peak.c — the single-core float32 FMA peak of this machine.
 *
 *   cc -O2 bench/fma_peak.c -o fma_peak && ./fma_peak
 *
 * Runs NCHAINS independent chains of vfmadd on zmm (AVX-512F) and ymm
 * (AVX2+FMA) registers: enough chains to cover FMA latency x FMA ports, so the
 * loop is bound by FMA throughput alone.  Prints one line per ISA:
 * "<isa> <GFLOP/s>" (and "avx512_loadfed", the same FMAs fed by loads as in a
 * GEMM register tile): the best of many short runs (a peak is a max, and on a
 * shared machine a short run is likelier to own the core throughout).  ISAs the CPU
 * lacks are skipped.
 *
 *   cc -O2 -shared -fPIC -DFMA_PEAK_LIB bench/fma_peak.c -o fma_peak.so
 *
 * builds kiln_bench_fma(n) instead of main: n float multiply-adds from
 * registers (AVX-512, else AVX2), for the GEMM sweep to time in its own rounds
 * next to kiln's GEMM of the same n. A best-of peak from another process and
 * another minute overstates the core a median GEMM ran on when the machine's
 * speed drifts; the same rounds see the same machine. */
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define NCHAINS 16
#define ITERS 4000000L /* ~12 ms a run at 160 GFLOP/s: short runs dodge noise */
#define RUNS 25

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One expansion per chain keeps every accumulator in its own register. */
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) \
                  X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

__attribute__((target("avx512f"))) static double run_avx512(long iters, float *sink)
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
  return 2.0 * 16.0 * NCHAINS * (double)iters / dt * 1e-9;
}

/* The same FMAs fed from memory the way a GEMM micro-kernel feeds them: a 6x4
 * register tile (24 accumulators) over L1-resident operands, per k 4 vector
 * loads of B and 6 broadcasts of A. What a kernel can hope for once operands
 * come from loads: the gap to the register-only peak is the machine's, not
 * any one kernel's. */
#ifndef FMA_PEAK_LIB
#define LF_K 128 /* B: LF_K x 64 floats = 32 KiB, in L1 with A */
__attribute__((target("avx512f"))) static double run_avx512_loadfed(long iters, float *sink)
{
  static float a[LF_K * 6] __attribute__((aligned(64))), b[LF_K * 64] __attribute__((aligned(64)));
  for (int i = 0; i < LF_K * 6; i++) a[i] = 1e-3f * (float)(i % 7);
  for (int i = 0; i < LF_K * 64; i++) b[i] = 1e-3f * (float)(i % 5);
#define LF_ROW(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = c##i##0, c##i##2 = c##i##0, c##i##3 = c##i##0;
  LF_ROW(0) LF_ROW(1) LF_ROW(2) LF_ROW(3) LF_ROW(4) LF_ROW(5)
#undef LF_ROW
  const long trips = iters * 16 / (24 * LF_K) + 1; /* the register loop's FMA count */
  double t0 = now();
  for (long it = 0; it < trips; it++) {
    for (int k = 0; k < LF_K; k++) {
      const float *bk = b + k * 64, *ak = a + k * 6;
      const __m512 b0 = _mm512_load_ps(bk), b1 = _mm512_load_ps(bk + 16), b2 = _mm512_load_ps(bk + 32),
                   b3 = _mm512_load_ps(bk + 48);
#define LF_FMA(i)                                                                                     \
  {                                                                                                   \
    const __m512 av = _mm512_set1_ps(ak[i]);                                                          \
    c##i##0 = _mm512_fmadd_ps(av, b0, c##i##0); c##i##1 = _mm512_fmadd_ps(av, b1, c##i##1);           \
    c##i##2 = _mm512_fmadd_ps(av, b2, c##i##2); c##i##3 = _mm512_fmadd_ps(av, b3, c##i##3);           \
  }
      LF_FMA(0) LF_FMA(1) LF_FMA(2) LF_FMA(3) LF_FMA(4) LF_FMA(5)
#undef LF_FMA
    }
    __asm__ volatile("" : : "r"(a), "r"(b) : "memory"); /* reload operands each trip */
  }
  double dt = now() - t0;
  __m512 s = _mm512_setzero_ps();
#define LF_SUM(i) s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c##i##0, c##i##1), _mm512_add_ps(c##i##2, c##i##3)));
  LF_SUM(0) LF_SUM(1) LF_SUM(2) LF_SUM(3) LF_SUM(4) LF_SUM(5)
#undef LF_SUM
  *sink += _mm512_reduce_add_ps(s);
  return 2.0 * 16.0 * 24.0 * LF_K * (double)trips / dt * 1e-9;
}

#endif

__attribute__((target("avx2,fma"))) static double run_avx2(long iters, float *sink)
{
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
#define DECL(i) __m256 c##i = _mm256_set1_ps((float)(i));
  CHAINS(DECL)
#undef DECL
  double t0 = now();
  for (long it = 0; it < iters; it++) {
#define STEP(i) c##i = _mm256_fmadd_ps(c##i, a, b);
    CHAINS(STEP)
#undef STEP
  }
  double dt = now() - t0;
  __m256 s = _mm256_setzero_ps();
#define SUM(i) s = _mm256_add_ps(s, c##i);
  CHAINS(SUM)
#undef SUM
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  for (int i = 0; i < 8; i++) *sink += lanes[i];
  return 2.0 * 8.0 * NCHAINS * (double)iters / dt * 1e-9;
}

#ifdef FMA_PEAK_LIB
/* n multiply-adds (rounded up to whole iterations of the 16 chains); returns
 * the ISA's lane count, 0 when the CPU has neither ISA. */
int kiln_bench_fma(long n)
{
  static float sink;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    run_avx512((n + 16 * NCHAINS - 1) / (16 * NCHAINS), &sink);
    return 16;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    run_avx2((n + 8 * NCHAINS - 1) / (8 * NCHAINS), &sink);
    return 8;
  }
  return 0;
}
#else
int main(int argc, char **argv)
{
  (void)argv;
  long iters = argc > 1 ? ITERS / 8 : ITERS; /* any argument: a quick run */
  float sink = 0.0f;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    double best = 0.0;
    for (int r = 0; r < RUNS; r++) {
      double g = run_avx512(iters, &sink);
      if (g > best) best = g;
    }
    printf("avx512 %.2f\n", best);
    best = 0.0;
    for (int r = 0; r < RUNS; r++) {
      double g = run_avx512_loadfed(iters, &sink);
      if (g > best) best = g;
    }
    printf("avx512_loadfed %.2f\n", best);
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    double best = 0.0;
    for (int r = 0; r < RUNS; r++) {
      double g = run_avx2(iters, &sink);
      if (g > best) best = g;
    }
    printf("avx2 %.2f\n", best);
  }
  fprintf(stderr, "(sink %g)\n", (double)sink);
  return 0;
}
#endif
