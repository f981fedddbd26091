/* test_kernels.c — checks every ISA variant of runtime/kernels.c against the
 * reference variant (and GEMM against a float64 triple loop).
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -Iruntime tests/c/test_kernels.c runtime/kernels.c -o /tmp/tk -lm
 *
 * Bit-exact: copy, relu, relu_tf, add (+relu). Tolerances: GEMM rtol 1e-5,
 * atol 1e-5*sqrt(K); sigmoid/tanh <= 4 ulp apart or |d| <= 1e-6 (all variants
 * run the same algorithm, only FMA contraction differs); row sums rtol 1e-5,
 * atol 1e-6. Last line: "N passed, N failed"; exit status 1 on any failure.
 * The GEMM sweeps run twice per ISA: single-threaded, then with the thread
 * pool forced on for every size (kk_set_gemm_thread_min(1)). */
#define _POSIX_C_SOURCE 200809L /* pthreads */
#include "kernels.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_pass, g_fail;
static const char *g_isa;

static void report(int ok, const char *what)
{
  if (ok) {
    g_pass++;
  } else {
    g_fail++;
    if (g_fail <= 30) printf("FAIL [%s] %s\n", g_isa, what);
  }
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static float frand(void) /* uniform in [-1, 1) */
{
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(g_rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float fbits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static int64_t ulpdist(float a, float b)
{
  if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : INT64_MAX;
  int64_t ia = (int32_t)bits(a), ib = (int32_t)bits(b);
  if (ia < 0) ia = (int64_t)INT32_MIN - ia; /* map to a monotonic integer line */
  if (ib < 0) ib = (int64_t)INT32_MIN - ib;
  return ia > ib ? ia - ib : ib - ia;
}

static int close_rel(float got, double want, double rtol, double atol)
{
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  return fabs((double)got - want) <= atol + rtol * fabs(want);
}

/* The largest x of each gelu variant's zero tail (kernels.c KK_GELU_ZERO_BELOW*:
 * the lowest of eager torch's paths' edges, and TF's). */
static float gelu_zero_below(int act)
{
  switch (act) {
  case KK_ACT_GELU:
  case KK_ACT_GELU_ONEDNN: return fbits(0xc0b16097u);
  case KK_ACT_GELU_TANH: return fbits(0xc0a50d27u);
  case KK_ACT_GELU_TANH_TF: return fbits(0xc09ae297u);
  case KK_ACT_GELU_TF: return fbits(0xc1500c85u);
  default: return -INFINITY;
  }
}

static int is_gelu(int act)
{
  return act == KK_ACT_GELU || act == KK_ACT_GELU_TF || act == KK_ACT_GELU_ONEDNN || act == KK_ACT_GELU_TANH ||
         act == KK_ACT_GELU_TANH_TF;
}

static int is_gelu_tanh(int act)
{
  return act == KK_ACT_GELU_TANH || act == KK_ACT_GELU_TANH_TF;
}

static double act_d(int act, double x)
{
  if (is_gelu(act) && x <= gelu_zero_below(act)) return x * 0.0; /* the frameworks' -0.0 */
  switch (act) {
  case KK_ACT_RELU: return x < 0 ? 0 : x;
  case KK_ACT_RELU_TF: return x < 0 ? 0 : x;
  case KK_ACT_SIGMOID:
  case KK_ACT_SIGMOID_TF: return 1.0 / (1.0 + exp(-x));
  case KK_ACT_TANH: return tanh(x);
  case KK_ACT_ABS: return fabs(x);
  case KK_ACT_SQRT:
  case KK_ACT_SQRT_TF: return x < 0 ? NAN : sqrt(x);
  case KK_ACT_SQUARE: return x * x;
  case KK_ACT_EXP: return exp(x);
  case KK_ACT_SILU:
  case KK_ACT_SILU_TF: return x / (1.0 + exp(-x));
  case KK_ACT_LOG:
  case KK_ACT_LOG_TF: return x < 0 ? NAN : log(x);
  case KK_ACT_LOG_TF_TAIL: return x < 0 ? NAN : x > 0 && x < FLT_MIN ? -150 * log(2.0) : log(x); /* see kernels.h */
  case KK_ACT_RSQRT: return x < 0 ? NAN : 1.0 / sqrt(x);
  case KK_ACT_RELU6:
  case KK_ACT_RELU6_TF: return x < 0 ? 0 : x > 6 ? 6 : x;
  case KK_ACT_HARDTANH: return x < -1 ? -1 : x > 1 ? 1 : x;
  case KK_ACT_GELU:
  case KK_ACT_GELU_TF:
  case KK_ACT_GELU_ONEDNN: return 0.5 * x * erfc(-x / sqrt(2.0));
  case KK_ACT_GELU_TANH:
  case KK_ACT_GELU_TANH_TF: return x / (1.0 + exp(-1.5957691216057307 * (x + 0.044715 * x * x * x)));
  default: return x;
  }
}

/* How far act(p') may be from act(p) when |p' - p| <= atol: atol times the
 * slope around p (sqrt: unbounded near 0, whose side the rounding decides,
 * so there any value or NaN passes: returns INFINITY). */
static double act_spread(int act, double p, double atol)
{
  if ((act == KK_ACT_SQRT || act == KK_ACT_SQRT_TF || act == KK_ACT_LOG || act == KK_ACT_LOG_TF ||
       act == KK_ACT_LOG_TF_TAIL || act == KK_ACT_RSQRT) &&
      fabs(p) <= 2 * atol)
    return INFINITY;
  double lo = act_d(act, p - atol), hi = act_d(act, p + atol), mid = act_d(act, p);
  if (isnan(lo) || isnan(hi)) return 0;
  return fmax(fabs(hi - mid), fabs(mid - lo));
}

static const char *isas[] = {"reference", "avx2", "avx512"};

/* ---- GEMM ---------------------------------------------------------------- */

typedef struct {
  int64_t M, N, K, as0, as1, bs0, bs1, bias_s;
  const float *A, *B, *bias;
  int act;
} gcase;

/* layout: 0 row-major, 1 transposed, 2 padded row-major (stride 2 inner) */
static float *make_mat(int64_t R, int64_t Cc, int layout, int64_t *s0, int64_t *s1)
{
  int64_t n = R * Cc * 2 + 1;
  float *p = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) p[i] = frand();
  if (layout == 0) { *s0 = Cc; *s1 = 1; }
  else if (layout == 1) { *s0 = 1; *s1 = R; }
  else { *s0 = 2 * Cc; *s1 = 2; }
  return p;
}

/* out = act(A B + bias) in float64; pre (if not NULL) = A B + bias */
static void gemm_d(const gcase *g, double *out, double *pre)
{
  for (int64_t i = 0; i < g->M; i++)
    for (int64_t n = 0; n < g->N; n++) {
      double s = 0;
      for (int64_t k = 0; k < g->K; k++) s += (double)g->A[i * g->as0 + k * g->as1] * g->B[k * g->bs0 + n * g->bs1];
      if (g->bias) s += g->bias[n * g->bias_s];
      out[i * g->N + n] = act_d(g->act, s);
      if (pre) pre[i * g->N + n] = s;
    }
}

static void test_gemm_case(const gcase *g)
{
  char what[256];
  snprintf(what, sizeof what, "gemm M=%lld N=%lld K=%lld as=(%lld,%lld) bs=(%lld,%lld) bias_s=%lld act=%d",
           (long long)g->M, (long long)g->N, (long long)g->K, (long long)g->as0, (long long)g->as1,
           (long long)g->bs0, (long long)g->bs1, g->bias ? (long long)g->bias_s : -1LL, g->act);
  size_t mn = (size_t)(g->M * g->N) + 1;
  float *C = malloc(mn * sizeof(float)), *Cr = malloc(mn * sizeof(float));
  double *Cd = malloc(mn * sizeof(double)), *P = malloc(mn * sizeof(double));
  float *ro = malloc(((size_t)g->M + 1) * sizeof(float)), *rr = malloc(((size_t)g->M + 1) * sizeof(float));
  for (size_t i = 0; i < mn; i++) C[i] = Cr[i] = NAN; /* catches unwritten outputs */
  gemm_d(g, Cd, P);
  const char *cur = g_isa;
  kk_force_isa("reference");
  kk_gemm(g->M, g->N, g->K, g->A, g->as0, g->as1, g->B, g->bs0, g->bs1, g->bias, g->bias_s, g->act, Cr);
  kk_force_isa(cur);
  kk_gemm(g->M, g->N, g->K, g->A, g->as0, g->as1, g->B, g->bs0, g->bs1, g->bias, g->bias_s, g->act, C);
  double atol = 1e-5 * sqrt((double)(g->K > 1 ? g->K : 1)), rtol = 1e-5;
  int ok = 1;
  for (int64_t i = 0; i < g->M * g->N && ok; i++) {
    /* the product's rounding error (atol), carried through the activation */
    const double sp = act_spread(g->act, P[i], atol);
    if (isinf(sp)) continue;
    if (!close_rel(C[i], Cd[i], rtol, atol + sp) || !close_rel(C[i], (double)Cr[i], rtol, atol + 2 * sp)) {
      ok = 0;
      printf("  at %lld: got %.9g ref %.9g f64 %.9g\n", (long long)i, C[i], Cr[i], Cd[i]);
    }
  }
  report(ok, what);

  for (int mean = 0; mean < 2; mean++) {
    kk_force_isa("reference");
    kk_gemm_rowreduce(g->M, g->N, g->K, g->A, g->as0, g->as1, g->B, g->bs0, g->bs1, g->bias, g->bias_s,
                      g->act, mean, rr);
    kk_force_isa(cur);
    kk_gemm_rowreduce(g->M, g->N, g->K, g->A, g->as0, g->as1, g->B, g->bs0, g->bs1, g->bias, g->bias_s,
                      g->act, mean, ro);
    ok = 1;
    for (int64_t i = 0; i < g->M && ok; i++) {
      double s = 0, sa = 0, sp = 0;
      for (int64_t n = 0; n < g->N; n++) {
        s += Cd[i * g->N + n];
        sa += fabs(Cd[i * g->N + n]);
        sp += act_spread(g->act, P[i * g->N + n], atol);
      }
      if (isinf(sp)) continue; /* a sqrt at 0: NaN or not by rounding */
      if (mean) { s /= (double)g->N; sa /= (double)g->N; sp /= (double)g->N; }
      /* error scales with the sum of magnitudes, not the (possibly cancelling) sum */
      double tol = 1e-5 * sa + atol * (mean ? 1.0 : sqrt((double)(g->N > 1 ? g->N : 1))) + 2 * sp;
      int good = (g->N == 0 && mean) || isnan(s) ? (isnan(ro[i]) && isnan(rr[i]))
                                                 : (fabs(ro[i] - s) <= tol && fabs(rr[i] - s) <= tol);
      if (!good) {
        ok = 0;
        printf("  row %lld: got %.9g ref %.9g f64 %.9g\n", (long long)i, ro[i], rr[i], s);
      }
    }
    char w2[300];
    snprintf(w2, sizeof w2, "rowreduce mean=%d %s", mean, what);
    report(ok, w2);
  }
  free(C); free(Cr); free(Cd); free(P); free(ro); free(rr);
}

static void test_gemm(void)
{
  /* 17..64 in torch linear's layout: row blocks of the k-quad kernel; 8 and
   * 20 (12 + 8) take the AVX-512 8-row kernel on A in place */
  static const int64_t Ms[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 16, 17, 20, 25, 42, 64, 65, 100, 151};
  static const int64_t Ns[] = {0, 1, 7, 8, 9, 16, 17, 31, 32, 33, 65, 100};
  /* 255..257 and 511..513 straddle the KC blocks of every ISA (256 / 512) */
  static const int64_t Ks[] = {0, 1, 2, 5, 16, 31, 255, 256, 257, 511, 512, 513, 600};
  int idx = 0;
  for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
      for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++, idx++) {
        int64_t M = Ms[mi], N = Ns[ni], K = Ks[ki];
        if (M * N * K > 4000000) continue;
        /* rotate layouts / bias / act across cases to keep the sweep small */
        gcase g;
        g.M = M; g.N = N; g.K = K;
        float *A = make_mat(M, K, idx % 3, &g.as0, &g.as1);
        float *B = make_mat(K, N, (idx / 3) % 3, &g.bs0, &g.bs1);
        float *bias = malloc(((size_t)N * 3 + 1) * sizeof(float));
        for (int64_t i = 0; i < N * 3 + 1; i++) bias[i] = frand();
        g.A = A; g.B = B;
        g.bias = (idx % 4 == 3) ? NULL : bias;
        g.bias_s = (idx % 4 == 2) ? 3 : 1;
        g.act = idx % KK_NUM_ACTS;
        test_gemm_case(&g);
        free(A); free(B); free(bias);
      }
  /* every activation on one shape per path (small-M streamed, small-M packed, large) */
  static const int64_t sh[][3] = {{1, 32, 32}, {3, 70, 40}, {40, 70, 300}};
  for (size_t s = 0; s < 3; s++)
    for (int act = 0; act < KK_NUM_ACTS; act++)
      for (int lay = 0; lay < 2; lay++) {
        gcase g;
        g.M = sh[s][0]; g.N = sh[s][1]; g.K = sh[s][2];
        float *A = make_mat(g.M, g.K, 0, &g.as0, &g.as1);
        float *B = make_mat(g.K, g.N, lay, &g.bs0, &g.bs1);
        float bias[80];
        for (int i = 0; i < 80; i++) bias[i] = 4.0f * frand();
        g.A = A; g.B = B; g.bias = bias; g.bias_s = 1; g.act = act;
        test_gemm_case(&g);
        free(A); free(B);
      }
}

/* Shapes aimed at the newer GEMM paths: the no-pack path at M > 16 (B in
 * place when bs1 == 1, whole-B packed copy otherwise, several A row blocks),
 * the packed path across NC/KC boundaries with vectorised A/B packing. */
static void test_gemm_paths(void)
{
  static const int64_t sh[][3] = {{64, 32, 32},  {17, 33, 31},   {100, 65, 257}, {600, 33, 255},
                                  {300, 50, 600}, {40, 1100, 300}, {29, 64, 520},  {13, 1030, 33},
                                  {25, 2, 700},   {151, 129, 17},  {40, 100, 1100}, {26, 2100, 513}};
  int idx = 0;
  for (size_t s = 0; s < sizeof sh / sizeof *sh; s++)
    for (int act = 0; act < KK_NUM_ACTS; act++)
      for (int lay = 0; lay < 3; lay++, idx++) {
        gcase g;
        g.M = sh[s][0]; g.N = sh[s][1]; g.K = sh[s][2];
        float *A = make_mat(g.M, g.K, idx % 3, &g.as0, &g.as1);
        float *B = make_mat(g.K, g.N, lay, &g.bs0, &g.bs1);
        float *bias = malloc(((size_t)g.N * 2 + 1) * sizeof(float));
        for (int64_t i = 0; i < g.N * 2 + 1; i++) bias[i] = 2.0f * frand();
        g.A = A; g.B = B; g.act = act;
        g.bias = (idx % 4 == 3) ? NULL : bias;
        g.bias_s = (idx % 4 == 1) ? 2 : 1;
        test_gemm_case(&g);
        free(A); free(B); free(bias);
      }
  /* more rows than the AVX-512 A block (MC 1024, which packed A uses; A read
   * in place is one block) and K over KC: A in place and A packed. Then, on
   * the pool, a B of 820 KiB over 200 rows in place: columns are split
   * (rows were), A strided: rows are split. */
  for (int lay = 0; lay < 4; lay++) {
    gcase g;
    g.M = lay < 2 ? 1030 : 200; g.N = lay < 2 ? 40 : 700; g.K = lay < 2 ? 790 : 300;
    float *A = make_mat(g.M, g.K, lay % 2, &g.as0, &g.as1);
    float *B = make_mat(g.K, g.N, 0, &g.bs0, &g.bs1);
    g.A = A; g.B = B; g.bias = NULL; g.bias_s = 1; g.act = lay % 2 ? KK_ACT_SIGMOID : KK_ACT_RELU;
    test_gemm_case(&g);
    free(A); free(B);
  }
  /* zero strides: a broadcast A row (as0 = 0) and a broadcast B column (bs1 = 0) */
  for (int z = 0; z < 2; z++) {
    gcase g;
    g.M = 50; g.N = 40; g.K = 70;
    float *A = make_mat(g.M, g.K, 0, &g.as0, &g.as1);
    float *B = make_mat(g.K, g.N, 0, &g.bs0, &g.bs1);
    if (z == 0) g.as0 = 0; else g.bs1 = 0;
    g.A = A; g.B = B; g.bias = NULL; g.bias_s = 1; g.act = KK_ACT_TANH;
    test_gemm_case(&g);
    free(A); free(B);
  }
}

/* Small M times a row-major B larger than L2 (the row-streamed path): column
 * chunks (several for M = 3 and 8), K tails of the 8-row blocks, strided bias.
 * 5 rows: one 64-wide tile (with strided A columns: streamed); 7-8 rows with B
 * on a cache line and N a multiple of 16: one micro-kernel pass. 9-16 rows with
 * B over 1 MiB and K under 1024: the micro-kernel, not the 64-wide tiles. */
static void test_gemm_rows(void)
{
  static const int64_t sh[][3] = {{1, 1100, 480}, {3, 1500, 353}, {8, 600, 900}, {5, 4100, 131},
                                  {13, 1088, 260}, {16, 2112, 130}, {7, 2048, 300}, {8, 1024, 1030}};
  int idx = 0;
  for (size_t s = 0; s < sizeof sh / sizeof *sh; s++)
    for (int act = 0; act < KK_NUM_ACTS; act++, idx++) {
      gcase g;
      g.M = sh[s][0]; g.N = sh[s][1]; g.K = sh[s][2];
      float *A = make_mat(g.M, g.K, 0, &g.as0, &g.as1);
      /* B on a cache line, or one float past it (7-8 rows: one micro-kernel pass, or streamed) */
      float *Bbuf = aligned_alloc(64, (size_t)(g.K * g.N + 16 + 15) / 16 * 64); /* size: whole lines */
      for (int64_t i = 0; i < g.K * g.N + 16; i++) Bbuf[i] = frand();
      float *B = Bbuf + idx % 2;
      g.bs0 = g.N; g.bs1 = 1;
      float *bias = malloc(((size_t)g.N * 2 + 1) * sizeof(float));
      for (int64_t i = 0; i < g.N * 2 + 1; i++) bias[i] = 2.0f * frand();
      if (idx % 3 == 1) g.as1 = 2, g.as0 = 2 * g.K; /* A with strided columns */
      g.A = A; g.B = B; g.act = act;
      g.bias = (idx % 4 == 3) ? NULL : bias;
      g.bias_s = (idx % 4 == 1) ? 2 : 1;
      test_gemm_case(&g);
      free(A); free(Bbuf); free(bias);
    }
}

/* shapes[i] = {M, N, K} as x @ W and as x @ W^T (torch linear's W, N x K),
 * each act in turn, bias present or not by idx % nobias_every; A with
 * strided columns every third case when strided_a; every case run `times`
 * times back to back. */
static void xw_and_linear_cases(const int64_t (*sh)[3], size_t n, int nobias_every, int strided_a, int times)
{
  int idx = 0;
  for (size_t s = 0; s < n; s++)
    for (int tr = 0; tr < 2; tr++, idx++) {
      gcase g;
      g.M = sh[s][0]; g.N = sh[s][1]; g.K = sh[s][2];
      float *A = make_mat(g.M, g.K, strided_a && idx % 3 == 1 ? 2 : 0, &g.as0, &g.as1);
      float *B = malloc((size_t)(g.K * g.N) * sizeof(float));
      for (int64_t i = 0; i < g.K * g.N; i++) B[i] = frand();
      if (tr) g.bs0 = 1, g.bs1 = g.K;
      else g.bs0 = g.N, g.bs1 = 1;
      float *bias = malloc((size_t)g.N * sizeof(float));
      for (int64_t i = 0; i < g.N; i++) bias[i] = 2.0f * frand();
      g.A = A; g.B = B; g.act = idx % KK_NUM_ACTS;
      g.bias = idx % nobias_every == nobias_every - 1 ? NULL : bias;
      g.bias_s = 1;
      for (int t = 0; t < times; t++) test_gemm_case(&g);
      free(A); free(B); free(bias);
    }
}

/* 1-16 rows with B around the streamed-split size (KK_STREAM_THREAD_BYTES,
 * 2 MiB): columns split over the pool at the default threshold, chunks on
 * and off the 64-wide tiles. */
static void test_gemm_streamed(void)
{
  static const int64_t sh[][3] = {{1, 1024, 1024}, {2, 1024, 513}, {4, 1000, 524}, {5, 700, 800},
                                  {8, 1030, 512}, {9, 2048, 300}, {16, 513, 1100}, {3, 4096, 127}};
  xw_and_linear_cases(sh, sizeof sh / sizeof *sh, 3, 0, 1);
}

/* GEMMs of 1-8M multiply-adds at the default threshold, back to back: from
 * the second call on the pool is warm and they split over it (rows, or
 * columns when rows are few), plain and row-reduced. */
static void test_gemm_mid(void)
{
  static const int64_t sh[][3] = {{64, 128, 128}, {128, 64, 128}, {100, 100, 100}, {33, 200, 160},
                                  {12, 700, 130}, {200, 40, 130}, {257, 65, 63}, {96, 96, 96}};
  xw_and_linear_cases(sh, sizeof sh / sizeof *sh, 4, 1, 2);
}

/* Calls fn(M, N, K, idx) for every M x N x K of three lists, idx counting up. */
#define SWEEP(Ms, Ns, Ks, fn) \
  sweep(Ms, sizeof Ms / sizeof *Ms, Ns, sizeof Ns / sizeof *Ns, Ks, sizeof Ks / sizeof *Ks, fn)
static void sweep(const int64_t *Ms, size_t nm, const int64_t *Ns, size_t nn, const int64_t *Ks, size_t nk,
                  void (*fn)(int64_t M, int64_t N, int64_t K, int idx))
{
  int idx = 0;
  for (size_t mi = 0; mi < nm; mi++)
    for (size_t ni = 0; ni < nn; ni++)
      for (size_t ki = 0; ki < nk; ki++) fn(Ms[mi], Ns[ni], Ks[ki], idx++);
}

/* One case of test_gemm_kblocks' padded-B sweep. */
static void kblocks_case(int64_t M, int64_t N, int64_t K, int idx)
{
  gcase g;
  g.M = M; g.N = N; g.K = K;
  const int64_t ld = g.N + (1 << 20) / (4 * g.K) + 16; /* K * ld * 4 > 1 MiB */
  float *B = malloc((size_t)(g.K * ld) * sizeof(float));
  for (int64_t i = 0; i < g.K * ld; i++) B[i] = frand();
  float *A = make_mat(g.M, g.K, idx % 3 == 1 ? 2 : 0, &g.as0, &g.as1);
  float *bias = malloc(((size_t)g.N * 2 + 1) * sizeof(float));
  for (int64_t i = 0; i < g.N * 2 + 1; i++) bias[i] = 2.0f * frand();
  g.A = A; g.B = B; g.bs0 = ld; g.bs1 = 1; g.act = idx % KK_NUM_ACTS;
  g.bias = (idx % 4 == 3) ? NULL : bias;
  g.bias_s = (idx % 4 == 1) ? 2 : 1;
  test_gemm_case(&g);
  free(A); free(B); free(bias);
}

/* 13-16 rows of x @ W with B in place spanning more than 1 MiB: two (AVX2: three)
 * micro-kernel passes over K blocks of 128 (partial sums in C, bias and act
 * once at the end). B rows are padded so that narrow B spans that much too;
 * K from 1 to past several blocks, on and off block boundaries; strided A
 * columns and every activation; the row reductions (no C: one K block).
 * Then B over 1 MiB with K from 1024 (13-16 rows) or 2048 (9-12), and 17-64
 * rows with B over 128 KiB: the 64-wide tiles in K blocks, with the columns
 * past the last whole panel on the micro-kernel, padded A rows, and strided A
 * columns (never 64-wide). */
static void test_gemm_kblocks(void)
{
  static const int64_t wide[][3] = {{13, 300, 1030}, {16, 64, 4100}, {9, 128, 2100}, {12, 320, 2048},
                                    {14, 1024, 1024}, {16, 100, 2600}, {15, 192, 1500}, {17, 300, 500},
                                    {40, 130, 257}, {64, 256, 1030}, {33, 1024, 129}, {50, 64, 600}};
  for (size_t w = 0; w < sizeof wide / sizeof *wide; w++) {
    gcase g;
    g.M = wide[w][0]; g.N = wide[w][1]; g.K = wide[w][2];
    float *A = make_mat(g.M, g.K, w == 5 || w == 10 ? 2 : 0, &g.as0, &g.as1);
    if (w == 2 || w == 6 || w == 8) g.as0 = g.K + 5; /* padded rows */
    float *B = make_mat(g.K, g.N, 0, &g.bs0, &g.bs1);
    float *bias = malloc(((size_t)g.N * 2 + 1) * sizeof(float));
    for (int64_t i = 0; i < g.N * 2 + 1; i++) bias[i] = 2.0f * frand();
    g.A = A; g.B = B; g.act = (int)(w % KK_NUM_ACTS);
    g.bias = w == 3 ? NULL : bias;
    g.bias_s = w == 4 ? 2 : 1;
    test_gemm_case(&g);
    free(A); free(B); free(bias);
  }

  static const int64_t Ms[] = {13, 14, 16};
  static const int64_t Ns[] = {5, 32, 45, 100};
  static const int64_t Ks[] = {1, 127, 128, 129, 256, 300, 1030};
  SWEEP(Ms, Ns, Ks, kblocks_case);
}

/* The 64-column tiles: x @ W in place (bs1 == 1) at 1-6 and 9-16 rows and
 * in the no-pack path (7 and 8 rows: the micro-kernel), and W^T packed 64
 * wide (torch linear's layout) from 33 rows with K <= 64, from 64 rows with
 * K·N <= 8192, and from 65 rows; N past the last whole 64-column panel goes
 * to the 32-wide micro-kernel. Row blocks of 1..6, odd K (the one-row tile's
 * two accumulator sets), padded A rows, strided bias, every activation, and
 * strided A columns (as1 != 1: never wide). */
static void wide_case(int64_t M, int64_t N, int64_t K, int idx)
{
  gcase g;
  g.M = M; g.N = N; g.K = K;
  const int lay = idx % 2; /* B: x @ W row-major, or torch linear's weight */
  float *A = make_mat(g.M, g.K, idx % 11 == 5 ? 2 : 0, &g.as0, &g.as1);
  float *B = make_mat(g.K, g.N, lay, &g.bs0, &g.bs1);
  if (idx % 7 == 0 && g.as1 == 1 && g.K >= 3) g.as0 = g.K + 3; /* padded rows */
  float *bias = malloc(((size_t)g.N * 3 + 1) * sizeof(float));
  for (int64_t i = 0; i < g.N * 3 + 1; i++) bias[i] = 2.0f * frand();
  g.A = A; g.B = B; g.act = (idx / 2) % KK_NUM_ACTS;
  g.bias = (idx % 4 == 3) ? NULL : bias;
  g.bias_s = (idx % 4 == 2) ? 3 : 1;
  test_gemm_case(&g);
  free(A); free(B); free(bias);
}

static void test_gemm_wide(void)
{
  static const int64_t Ms[] = {1, 2, 3, 5, 7, 8, 11, 13, 16, 17, 33, 40, 64, 65, 97};
  static const int64_t Ns[] = {64, 65, 96, 128, 150, 192};
  static const int64_t Ks[] = {1, 2, 7, 64, 128, 129, 300};
  SWEEP(Ms, Ns, Ks, wide_case);
}

/* kk_gemm_post: act(A·B + bias) + post row, stored or row-reduced. Stored
 * results must equal kk_gemm followed by kk_add bit for bit (NaN payloads in
 * post included, on both sides of the +), on the one-pass 64-column path as
 * on the in-place fallback; row sums and means are checked against double
 * precision. Covers post_s 1, 0 (one broadcast value) and 2, post_first, N
 * in and out of the 64-column tiles, N = 0 and K = 0. */
static void test_gemm_post(void)
{
  static const int64_t sh[][3] = {{1, 64, 33}, {5, 128, 128}, {16, 64, 128}, {17, 192, 64}, {64, 64, 128},
                                  {3, 70, 40}, {40, 1, 16}, {8, 64, 0}, {4, 0, 8}, {100, 64, 300}};
  int idx = 0;
  for (size_t s = 0; s < sizeof sh / sizeof *sh; s++)
    for (int ps = 0; ps < 3; ps++)
      for (int first = 0; first < 2; first++, idx++) {
        const int64_t M = sh[s][0], N = sh[s][1], K = sh[s][2], post_s = ps == 0 ? 1 : ps == 1 ? 0 : 2;
        int64_t as0, as1, bs0, bs1;
        float *A = make_mat(M, K, 0, &as0, &as1), *B = make_mat(K, N, 0, &bs0, &bs1);
        float *bias = malloc(((size_t)N + 1) * sizeof(float)), *post = malloc(((size_t)N * 2 + 2) * sizeof(float));
        for (int64_t i = 0; i < N + 1; i++) bias[i] = frand();
        for (int64_t i = 0; i < 2 * N + 2; i++) post[i] = 2.0f * frand();
        if (N > 3) { /* NaNs with distinct payloads, and an infinity */
          const uint32_t q1 = 0x7fc01234u, q2 = 0xffc04321u;
          memcpy(&post[1 * post_s], &q1, 4);
          if (post_s) memcpy(&post[3 * post_s], &q2, 4);
          post[2 * post_s + (post_s == 0)] = INFINITY;
        }
        if (M > 1 && K > 0) A[as0] = NAN; /* a NaN row from the product too */
        const kk_act act = (kk_act)(idx % KK_NUM_ACTS);
        size_t mn = (size_t)(M * N) + 1;
        float *C = malloc(mn * sizeof(float)), *Cu = malloc(mn * sizeof(float)), *Cs = malloc(mn * sizeof(float));
        float *out = malloc(((size_t)M + 1) * sizeof(float));
        kk_gemm_post(M, N, K, A, as0, as1, B, bs0, bs1, bias, 1, act, post, post_s, first, C, 0, NULL);
        kk_gemm(M, N, K, A, as0, as1, B, bs0, bs1, bias, 1, act, Cu);
        if (first) kk_add(M, N, post, 0, post_s, Cu, N, 1, KK_ACT_NONE, Cu);
        else kk_add(M, N, Cu, N, 1, post, 0, post_s, KK_ACT_NONE, Cu);
        char what[200];
        snprintf(what, sizeof what, "gemm_post M=%lld N=%lld K=%lld post_s=%lld first=%d act=%d", (long long)M,
                 (long long)N, (long long)K, (long long)post_s, first, (int)act);
        report(memcmp(C, Cu, (size_t)(M * N) * sizeof(float)) == 0, what);
        for (int mean = 0; mean < 4; mean++) { /* 2, 3: no C from the caller (the kernels' scratch) */
          float *Cr = mean < 2 ? Cs : NULL;
          int ok = kk_gemm_post(M, N, K, A, as0, as1, B, bs0, bs1, bias, 1, act, post, post_s, first, Cr,
                                1 + mean % 2, out) == 0;
          for (int64_t i = 0; i < M; i++) {
            double sum = 0, mag = 0;
            int nan = 0;
            for (int64_t n = 0; n < N; n++) {
              const float y = Cu[i * N + n];
              if (isnan(y) || isinf(y)) nan |= isnan(y) ? 2 : 1;
              sum += y;
              mag += fabs(y);
            }
            if (mean % 2) { sum /= (double)N; mag /= (double)N; }
            if (nan || N == 0) ok &= isnan(sum) ? isnan(out[i]) : (isinf(sum) ? out[i] == sum : 1);
            else ok &= fabs(out[i] - sum) <= 1e-5 * mag + 1e-5;
          }
          char w2[240];
          snprintf(w2, sizeof w2, "%s reduce=%d%s", what, 1 + mean % 2, Cr ? "" : " C=NULL");
          report(ok, w2);
        }
        free(A); free(B); free(bias); free(post); free(C); free(Cu); free(Cs); free(out);
      }
}

/* kk_gemm_post reducing without the caller's C, past one row block of the
 * kernels' scratch (64 rows once N >= 64Ki columns): every row's sum and
 * mean against double precision, the last block partial. */
static void test_gemm_post_blocks(void)
{
  const int64_t M = 130, N = 65536 + 3, K = 2;
  int64_t as0, as1, bs0, bs1;
  float *A = make_mat(M, K, 0, &as0, &as1), *B = make_mat(K, N, 0, &bs0, &bs1);
  float *post = malloc((size_t)N * sizeof(float)), *out = malloc((size_t)M * sizeof(float));
  for (int64_t n = 0; n < N; n++) post[n] = frand();
  for (int mean = 0; mean < 2; mean++) {
    int ok = kk_gemm_post(M, N, K, A, as0, as1, B, bs0, bs1, NULL, 0, KK_ACT_RELU, post, 1, 0, NULL, 1 + mean,
                          out) == 0;
    for (int64_t i = 0; i < M; i++) {
      double sum = 0, mag = 0;
      for (int64_t n = 0; n < N; n++) {
        double y = 0;
        for (int64_t k = 0; k < K; k++) y += (double)A[i * as0 + k * as1] * B[k * bs0 + n * bs1];
        y = (y > 0 ? y : 0) + post[n];
        sum += y;
        mag += fabs(y);
      }
      if (mean) { sum /= (double)N; mag /= (double)N; }
      ok &= fabs(out[i] - sum) <= 1e-5 * mag + 1e-5;
    }
    char what[120];
    snprintf(what, sizeof what, "gemm_post row blocks M=%lld N=%lld reduce=%d", (long long)M, (long long)N, 1 + mean);
    report(ok, what);
  }
  free(A); free(B); free(post); free(out);
}

/* Small M in torch linear's layout (A rows, B columns contiguous in k): every
 * M <= 16 against N around the 4-, 8- and 16-column tiles (the k-quad
 * kernel's columns past N re-read the last one; the dot kernel's too), K
 * around 16-blocks, partial quads and 256-k accumulation blocks, with the
 * kernel chosen by shape and then each one forced. */
static void test_gemm_smallm(void)
{
  static const int64_t Ns[] = {1, 5, 15, 16, 17, 31, 33, 64, 70};
  /* 259 and 600: one and three of the k-quad kernel's 256-k accumulation blocks, plus a partial quad */
  static const int64_t Ks[] = {1, 7, 16, 17, 64, 130, 259, 600};
  static const int paths[] = {KK_SMALLM_AUTO, KK_SMALLM_TILE, KK_SMALLM_DOT, KK_SMALLM_LT};
  int idx = 0;
  for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
    kk_set_small_m_path(paths[p]);
    for (int64_t M = 1; M <= 16; M++)
      for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
        for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++, idx++) {
          gcase g;
          g.M = M; g.N = Ns[ni]; g.K = Ks[ki];
          float *A = make_mat(g.M, g.K, 0, &g.as0, &g.as1);
          float *B = make_mat(g.K, g.N, 1, &g.bs0, &g.bs1);
          if (idx % 7 == 0 && g.K >= 3) g.as0 = g.K + 3; /* padded rows (make_mat leaves room for 2K) */
          float *bias = malloc(((size_t)g.N * 3 + 1) * sizeof(float));
          for (int64_t i = 0; i < g.N * 3 + 1; i++) bias[i] = 2.0f * frand();
          g.A = A; g.B = B; g.act = idx % KK_NUM_ACTS;
          g.bias = (idx % 4 == 3) ? NULL : bias;
          g.bias_s = (idx % 4 == 2) ? 3 : 1;
          test_gemm_case(&g);
          free(A); free(B); free(bias);
        }
  }
  kk_set_small_m_path(KK_SMALLM_AUTO);
}

/* Long sums (KK_SUM_KB): every path folds its float FMA chains into partial
 * sums after at most 256 k (768 in the AVX-512 packed path's cache blocks),
 * so over K in the thousands its error against
 * the float64 product is well under a single k-ordered float chain's (that
 * one chain per output, K = 20,000, was up to 17x further off than torch's
 * result). Root mean square over >= 64 outputs, so the comparison is
 * statistical, not one lucky element. Both layouts, every row-count regime
 * (dot, k-quad, 64-wide tiles, micro-kernel, streamed rows, no-pack,
 * packed). The row reductions sum the same blocked C: kk_rowsum of it, bit
 * for bit. */
static double chain_rms_ratio(const gcase *g, const double *Cd, const float *C)
{
  double e_kiln = 0, e_chain = 0;
  for (int64_t i = 0; i < g->M; i++)
    for (int64_t n = 0; n < g->N; n++) {
      float s = 0.0f; /* one k-ordered chain */
      for (int64_t k = 0; k < g->K; k++) s = fmaf(g->A[i * g->as0 + k * g->as1], g->B[k * g->bs0 + n * g->bs1], s);
      const double ex = Cd[i * g->N + n];
      e_kiln += (C[i * g->N + n] - ex) * (C[i * g->N + n] - ex);
      e_chain += (s - ex) * (s - ex);
    }
  return sqrt(e_kiln / e_chain);
}

static void test_gemm_long_sums(void)
{
  static const int64_t Ms[] = {1, 2, 4, 6, 8, 12, 16, 40, 100};
  static const int64_t Ns[] = {3, 64, 100};
  static const int64_t Ks[] = {3000, 9000};
  for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
      for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
        for (int layout = 0; layout < 2; layout++) {
          gcase g;
          g.M = Ms[mi]; g.N = Ns[ni]; g.K = Ks[ki];
          if (g.M * g.N < 64) continue;
          float *A = make_mat(g.M, g.K, 0, &g.as0, &g.as1);
          float *B = make_mat(g.K, g.N, layout, &g.bs0, &g.bs1);
          g.A = A; g.B = B; g.bias = NULL; g.bias_s = 1; g.act = 0;
          const size_t mn = (size_t)(g.M * g.N);
          float *C = malloc(mn * sizeof(float)), *ro = malloc((size_t)g.M * sizeof(float));
          float *rs = malloc((size_t)g.M * sizeof(float));
          double *Cd = malloc(mn * sizeof(double));
          gemm_d(&g, Cd, NULL);
          kk_gemm(g.M, g.N, g.K, A, g.as0, g.as1, B, g.bs0, g.bs1, NULL, 1, KK_ACT_NONE, C);
          const double ratio = chain_rms_ratio(&g, Cd, C);
          char what[200];
          snprintf(what, sizeof what, "long sums M=%lld N=%lld K=%lld layout=%d: rms error %.2fx one chain's",
                   (long long)g.M, (long long)g.N, (long long)g.K, layout, ratio);
          if (!(ratio <= 0.6)) printf("  %s\n", what);
          report(ratio <= 0.6, what);
          kk_gemm_rowreduce(g.M, g.N, g.K, A, g.as0, g.as1, B, g.bs0, g.bs1, NULL, 1, KK_ACT_NONE, 0, ro);
          kk_rowsum(g.M, g.N, C, g.N, 1, 0, rs);
          snprintf(what, sizeof what, "long sums rowreduce M=%lld N=%lld K=%lld layout=%d: kk_rowsum of C",
                   (long long)g.M, (long long)g.N, (long long)g.K, layout);
          report(memcmp(ro, rs, (size_t)g.M * sizeof(float)) == 0, what);
          free(A); free(B); free(C); free(ro); free(rs); free(Cd);
        }
  /* row reductions whose scratch C is too large to keep (freed after each
   * call, allocated again by the next: twice, so ASan sees both), and one
   * past 16 MiB of C, in row blocks of 64 + 6 */
  static const int64_t big[][3] = {{600, 500, 300}, {70, 65552, 260}};
  for (int b = 0; b < 2; b++) {
    const int64_t M = big[b][0], N = big[b][1], K = big[b][2];
    int64_t as0, as1, bs0, bs1;
    float *A = make_mat(M, K, 2, &as0, &as1), *B = make_mat(K, N, 0, &bs0, &bs1);
    float *C = malloc((size_t)(M * N) * sizeof(float)), *ro = malloc((size_t)M * sizeof(float));
    float *rs = malloc((size_t)M * sizeof(float));
    const int64_t rb = b == 0 ? M : 64; /* the row blocks gemm_driver takes */
    for (int64_t i0 = 0; i0 < M; i0 += rb)
      kk_gemm(M - i0 < rb ? M - i0 : rb, N, K, A + i0 * as0, as0, as1, B, bs0, bs1, NULL, 1, KK_ACT_RELU,
              C + i0 * N);
    kk_rowsum(M, N, C, N, 1, 1, rs);
    for (int rep = 0; rep < 2; rep++) {
      kk_gemm_rowreduce(M, N, K, A, as0, as1, B, bs0, bs1, NULL, 1, KK_ACT_RELU, 1, ro);
      char what[160];
      snprintf(what, sizeof what, "long sums rowreduce %lldx%lldx%lld (large scratch C): kk_rowsum of C",
               (long long)M, (long long)N, (long long)K);
      report(memcmp(ro, rs, (size_t)M * sizeof(float)) == 0, what);
    }
    free(A); free(B); free(C); free(ro); free(rs);
  }
}

/* Several threads calling kk_gemm at once while the pool is enabled: at most
 * one of them gets the pool, the others must run single-threaded correctly. */
#include <pthread.h>
typedef struct {
  int64_t M, N, K;
  const float *A, *B, *bias;
  float *C;
} conc_arg;

static void *conc_worker(void *p)
{
  conc_arg *a = p;
  for (int r = 0; r < 20; r++)
    kk_gemm(a->M, a->N, a->K, a->A, a->K, 1, a->B, 1, a->K, a->bias, 1, KK_ACT_RELU, a->C);
  kk_release_scratch();
  return NULL;
}

static void test_gemm_concurrent(void)
{
  enum { NT = 4 };
  const int64_t M = 150, N = 130, K = 200;
  float *A = malloc((size_t)(M * K) * sizeof(float)), *B = malloc((size_t)(N * K) * sizeof(float));
  float *bias = malloc((size_t)N * sizeof(float)), *C[NT], *want = malloc((size_t)(M * N) * sizeof(float));
  for (int64_t i = 0; i < M * K; i++) A[i] = frand();
  for (int64_t i = 0; i < N * K; i++) B[i] = frand();
  for (int64_t i = 0; i < N; i++) bias[i] = frand();
  kk_set_num_threads(1);
  kk_gemm(M, N, K, A, K, 1, B, 1, K, bias, 1, KK_ACT_RELU, want);
  kk_set_num_threads(2);
  pthread_t th[NT];
  conc_arg args[NT];
  for (int t = 0; t < NT; t++) {
    C[t] = malloc((size_t)(M * N) * sizeof(float));
    args[t] = (conc_arg){M, N, K, A, B, bias, C[t]};
    pthread_create(&th[t], NULL, conc_worker, &args[t]);
  }
  int ok = 1;
  for (int t = 0; t < NT; t++) {
    pthread_join(th[t], NULL);
    for (int64_t i = 0; i < M * N; i++) ok &= close_rel(C[t][i], (double)want[i], 1e-5, 1e-5 * sqrt((double)K));
    free(C[t]);
  }
  report(ok, "gemm from 4 threads at once, pool enabled");
  free(A); free(B); free(bias); free(want);
}

/* ---- elementwise ---------------------------------------------------------- */

static const uint32_t specials[] = {
    0x80000000u, 0x00000000u, 0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u, 0x7fc12345u,
    0xffa00001u, 0x7f800001u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x80800000u,
    0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
#define NSPEC (sizeof specials / sizeof *specials)

static float pick(int64_t i)
{
  uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull;
  switch ((h >> 60) & 3) {
  case 0: return fbits(specials[(h >> 32) % NSPEC]);
  case 1: return 30.0f * frand();
  case 2: return 1e-3f * frand();
  default: return 3.0f * frand();
  }
}

static int same_or_close(int act, float got, float ref)
{
  if (act == KK_ACT_SIGMOID || act == KK_ACT_SIGMOID_TF || act == KK_ACT_TANH || act == KK_ACT_EXP ||
      act == KK_ACT_SILU || act == KK_ACT_SILU_TF || act == KK_ACT_LOG || act == KK_ACT_LOG_TF ||
      act == KK_ACT_LOG_TF_TAIL || is_gelu(act))
    return (ulpdist(got, ref) <= 4 && isnan(got) == isnan(ref)) || fabsf(got - ref) <= 1e-6f;
  return bits(got) == bits(ref);
}

static void test_elementwise(void)
{
  static const int64_t Ms[] = {0, 1, 3, 8};
  static const int64_t Ns[] = {0, 1, 7, 15, 16, 17, 33, 100, 300};
  float *X = malloc(20000 * sizeof(float)), *Y = malloc(20000 * sizeof(float));
  float *Z = malloc(10000 * sizeof(float)), *Zr = malloc(10000 * sizeof(float));
  for (int64_t i = 0; i < 20000; i++) { X[i] = pick(i); Y[i] = pick(i + 77777); }
  const char *cur = g_isa;
  char what[200];
  for (size_t mi = 0; mi < 4; mi++)
    for (size_t ni = 0; ni < 9; ni++)
      for (size_t si = 0; si < 7; si++)
        for (int act = 0; act < KK_NUM_ACTS; act++) {
          int64_t M = Ms[mi], N = Ns[ni];
          /* dense, padded inner stride, transposed, broadcast rows, broadcast
           * columns, dense again (B: a broadcast row), padded rows */
          const int64_t S[7][2] = {{N, 1}, {2 * N, 2}, {1, M}, {0, 1}, {1, 0}, {N, 1}, {N + 3, 1}};
          int64_t s0 = S[si][0], s1 = S[si][1];
          /* unary */
          kk_force_isa("reference");
          kk_unary(act, M, N, X, s0, s1, Zr);
          kk_force_isa(cur);
          kk_unary(act, M, N, X, s0, s1, Z);
          int ok = 1;
          for (int64_t i = 0; i < M * N; i++) ok &= same_or_close(act, Z[i], Zr[i]);
          /* spot-check the reference itself against float64 on finite values */
          for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
              float x = X[i * s0 + j * s1];
              if (isfinite(x) && (act == KK_ACT_SIGMOID || act == KK_ACT_SIGMOID_TF || act == KK_ACT_TANH ||
                                  act == KK_ACT_EXP || act == KK_ACT_SILU || act == KK_ACT_SILU_TF ||
                                  act == KK_ACT_LOG || act == KK_ACT_LOG_TF || act == KK_ACT_LOG_TF_TAIL ||
                                  is_gelu(act))) {
                double w = act_d(act, x);
                ok &= isnan(w) ? isnan(Zr[i * N + j]) != 0
                    : isinf(w) ? Zr[i * N + j] == w : fabs(Zr[i * N + j] - w) <= 1e-6 + 1e-5 * fabs(w);
              }
            }
          snprintf(what, sizeof what, "unary act=%d M=%lld N=%lld s=(%lld,%lld)", act, (long long)M,
                   (long long)N, (long long)s0, (long long)s1);
          report(ok, what);
          /* add: A strided like X, B broadcast row (bs0 = 0) or same layout */
          int64_t b0 = (si % 2) ? 0 : s0, b1 = s1;
          kk_force_isa("reference");
          kk_add(M, N, X, s0, s1, Y, b0, b1, act, Zr);
          kk_force_isa(cur);
          kk_add(M, N, X, s0, s1, Y, b0, b1, act, Z);
          ok = 1;
          for (int64_t i = 0; i < M * N; i++) ok &= same_or_close(act, Z[i], Zr[i]);
          snprintf(what, sizeof what, "add act=%d M=%lld N=%lld as=(%lld,%lld) bs=(%lld,%lld)", act,
                   (long long)M, (long long)N, (long long)s0, (long long)s1, (long long)b0, (long long)b1);
          report(ok, what);
        }
  /* kk_binary: every op and NaN rule, A and B in every layout above, and
     each as one value (both strides 0, a tensor-scalar op): bit for bit */
  for (size_t mi = 0; mi < 4; mi++)
    for (size_t ni = 0; ni < 9; ni++)
      for (size_t si = 0; si < 8; si++)
        for (int op = KK_BIN_ADD; op <= KK_BIN_MINIMUM_TF_TAIL; op++)
          for (int nan_b = 0; nan_b < 2; nan_b++) {
            int64_t M = Ms[mi], N = Ns[ni];
            const int64_t S[8][2] = {{N, 1}, {2 * N, 2}, {1, M}, {0, 1}, {1, 0}, {N, 1}, {N + 3, 1}, {0, 0}};
            int64_t s0 = S[si][0], s1 = S[si][1];
            int64_t b0 = (si % 2) ? 0 : s0, b1 = si == 7 ? 1 : s1, c0 = si == 7 ? N : b0; /* B as scalar: A's turn */
            kk_force_isa("reference");
            kk_binary((kk_binop)op, nan_b, M, N, X, s0, s1, Y, b0, b1, Zr);
            kk_force_isa(cur);
            kk_binary((kk_binop)op, nan_b, M, N, X, s0, s1, Y, b0, b1, Z);
            int ok = 1;
            for (int64_t i = 0; i < M * N; i++) ok &= bits(Z[i]) == bits(Zr[i]);
            kk_force_isa("reference");
            kk_binary((kk_binop)op, nan_b, M, N, Y, c0, b1, X + 5, 0, 0, Zr);
            kk_force_isa(cur);
            kk_binary((kk_binop)op, nan_b, M, N, Y, c0, b1, X + 5, 0, 0, Z);
            for (int64_t i = 0; i < M * N; i++) ok &= bits(Z[i]) == bits(Zr[i]);
            snprintf(what, sizeof what, "binary op=%d nan_b=%d M=%lld N=%lld as=(%lld,%lld) bs=(%lld,%lld)", op,
                     nan_b, (long long)M, (long long)N, (long long)s0, (long long)s1, (long long)b0, (long long)b1);
            report(ok, what);
          }
  /* the reference's binary ops against plain C, and its NaN rule */
  {
    float a[NSPEC * NSPEC], b[NSPEC * NSPEC], out[NSPEC * NSPEC];
    for (size_t i = 0; i < NSPEC; i++)
      for (size_t j = 0; j < NSPEC; j++) {
        a[i * NSPEC + j] = fbits(specials[i]);
        b[i * NSPEC + j] = fbits(specials[j]);
      }
    for (int op = KK_BIN_ADD; op <= KK_BIN_MINIMUM_TF_TAIL; op++)
      for (int nan_b = 0; nan_b < 2; nan_b++) {
        kk_binary((kk_binop)op, nan_b, 1, NSPEC * NSPEC, a, 0, 1, b, 0, 1, out);
        int ok = 1;
        for (size_t k = 0; k < NSPEC * NSPEC; k++) {
          volatile float x = a[k], y = b[k];
          float want = op == KK_BIN_ADD ? x + y : op == KK_BIN_SUB ? x - y : op == KK_BIN_MUL ? x * y
                     : op == KK_BIN_DIV ? x / y : op == KK_BIN_RECIP_MUL ? (1.0f / x) * y : 0.0f;
          if (op == KK_BIN_MAX || op == KK_BIN_MIN) { /* x86's: y as it is where either is NaN, or both zeros */
            int x_wins = op == KK_BIN_MAX ? x > y : x < y;
            ok &= bits(out[k]) == (x_wins ? bits(x) : bits(y));
          } else if (op == KK_BIN_LEAKY) { /* y > 0 ? y : y * x, y's NaN quieted first, then slope x's */
            uint32_t want_bits = y > 0.0f ? bits(y) : isnan(y) ? bits(y) | 0x00400000u
                               : isnan(x) ? bits(x) | 0x00400000u : bits(y * x);
            ok &= bits(out[k]) == want_bits;
          } else if (op >= KK_BIN_MAXIMUM_TF) { /* tf.maximum / minimum: x's NaN, y's, else DAZ's larger */
            int tail = op >= KK_BIN_MAXIMUM_TF_TAIL, max = op == KK_BIN_MAXIMUM_TF || op == KK_BIN_MAXIMUM_TF_TAIL;
            uint32_t fx = (bits(x) & 0x7f800000u) ? bits(x) : bits(x) & 0x80000000u;
            uint32_t fy = (bits(y) & 0x7f800000u) ? bits(y) : bits(y) & 0x80000000u;
            float vx = fbits(fx), vy = fbits(fy);
            int x_wins = max ? vx > vy : vx < vy, tie = vx == vy; /* two zeros: y's in the loop, x's in the tail */
            uint32_t want_bits = isnan(x) ? bits(x) : isnan(y) ? bits(y) : x_wins || (tie && tail) ? fx : fy;
            ok &= bits(out[k]) == want_bits;
          } else if (op >= KK_BIN_MAXIMUM) { /* torch.maximum / minimum: a NaN, else the larger (smaller); */
            int tail = op >= KK_BIN_MAXIMUM_TAIL, max = op == KK_BIN_MAXIMUM || op == KK_BIN_MAXIMUM_TAIL;
            int x_wins = max ? x > y : x < y, tie = x == y; /* both zeros: y's in the loop, x's in the tail */
            uint32_t want_bits = isnan(x) || isnan(y) ? (tail ? 0x7fc00000u : 0xffffffffu)
                               : bits(x_wins || (tie && tail) ? x : y);
            ok &= bits(out[k]) == want_bits;
          } else if (isnan(x) && isnan(y)) ok &= bits(out[k]) == ((nan_b ? bits(y) : bits(x)) | 0x00400000u);
          else if (isnan(want)) ok &= isnan(out[k]) != 0;
          else ok &= bits(out[k]) == bits(want);
        }
        snprintf(what, sizeof what, "binary specials op=%d nan_b=%d", op, nan_b);
        report(ok, what);
      }
  }
  /* exact special-value expectations, independent of the reference */
  {
    float in[NSPEC], out[NSPEC];
    for (size_t i = 0; i < NSPEC; i++) in[i] = fbits(specials[i]);
    kk_unary(KK_ACT_RELU, 1, NSPEC, in, NSPEC, 1, out);
    int ok = 1;
    for (size_t i = 0; i < NSPEC; i++) {
      uint32_t u = specials[i], want = ((u & 0x80000000u) && u != 0x80000000u && !isnan(in[i])) ? 0u : u;
      ok &= bits(out[i]) == want;
    }
    report(ok, "relu specials (torch semantics)");
    kk_unary(KK_ACT_TANH, 1, NSPEC, in, NSPEC, 1, out);
    ok = bits(out[0]) == 0x80000000u && bits(out[1]) == 0 && isnan(out[2]) && out[4] == 1.0f &&
         out[5] == -1.0f && out[16] == 1.0f && out[17] == -1.0f && bits(out[9]) == 1u;
    report(ok, "tanh specials");
    kk_unary(KK_ACT_SIGMOID, 1, NSPEC, in, NSPEC, 1, out);
    ok = out[0] == 0.5f && out[1] == 0.5f && isnan(out[2]) && out[4] == 1.0f && out[5] == 0.0f &&
         out[16] == 1.0f && out[17] == 0.0f;
    report(ok, "sigmoid specials");
    /* a NaN comes out quietened, payload kept: torch's sign flipped, TF's
     * kept; every other value the same bits in both */
    float out_tf[NSPEC];
    kk_unary(KK_ACT_SIGMOID_TF, 1, NSPEC, in, NSPEC, 1, out_tf);
    int nans = 0;
    ok = 1;
    for (size_t i = 0; i < NSPEC; i++)
      if (isnan(in[i])) {
        ok &= bits(out[i]) == ((specials[i] | 0x00400000u) ^ 0x80000000u);
        ok &= bits(out_tf[i]) == (specials[i] | 0x00400000u);
        nans++;
      } else {
        ok &= bits(out[i]) == bits(out_tf[i]);
      }
    report(ok && nans == 5, "sigmoid NaN specials: torch's sign flipped, TF's kept");
    /* abs, sqrt, x * x and 1 / sqrt: the IEEE operations, bit for bit (abs keeps a
     * NaN's payload unquietened); exp and silu: a NaN quietened, sign kept */
    const int exact[] = {KK_ACT_ABS, KK_ACT_SQRT, KK_ACT_SQRT_TF, KK_ACT_SQUARE, KK_ACT_RSQRT, KK_ACT_RELU6,
                         KK_ACT_HARDTANH, KK_ACT_RELU6_TF};
    for (size_t a = 0; a < sizeof exact / sizeof *exact; a++) {
      kk_unary(exact[a], 1, NSPEC, in, NSPEC, 1, out);
      ok = 1;
      for (size_t i = 0; i < NSPEC; i++) {
        volatile float x = in[i];
        float want = exact[a] == KK_ACT_ABS ? fbits(specials[i] & 0x7fffffffu)
                   : exact[a] == KK_ACT_SQRT && x < 0 ? fbits(0x7fc00000u) /* torch's NaN */
                   : exact[a] == KK_ACT_RSQRT ? 1.0f / sqrtf(x)
                   : exact[a] == KK_ACT_RELU6 ? (isnan(x) || (x >= 0 && x <= 6) ? x : x < 0 ? 0.0f : 6.0f)
                   : exact[a] == KK_ACT_HARDTANH ? (isnan(x) || (x >= -1 && x <= 1) ? x : x < -1 ? -1.0f : 1.0f)
                   : exact[a] == KK_ACT_RELU6_TF /* TF's loop: below FLT_MIN (-0.0, subnormals) +0.0 */
                   ? (isnan(x) ? x : x < FLT_MIN ? 0.0f : x > 6 ? 6.0f : x)
                   : exact[a] != KK_ACT_SQUARE ? sqrtf(x) : x * x;
        ok &= bits(out[i]) == bits(want);
      }
      snprintf(what, sizeof what, "act=%d specials bit for bit", exact[a]);
      report(ok, what);
    }
    kk_unary(KK_ACT_EXP, 1, NSPEC, in, NSPEC, 1, out);
    kk_unary(KK_ACT_SILU, 1, NSPEC, in, NSPEC, 1, out_tf);
    ok = out[0] == 1.0f && out[1] == 1.0f && out[4] == INFINITY && bits(out[5]) == 0 && out[16] == INFINITY &&
         bits(out[17]) == 0 && out[14] == 2.71828182f && bits(out[9]) == 0x3f800000u;
    ok &= bits(out_tf[0]) == 0x80000000u && bits(out_tf[1]) == 0 && out_tf[4] == INFINITY && isnan(out_tf[5]) &&
          out_tf[16] == 3.4028235e38f && bits(out_tf[17]) == 0x80000000u && out_tf[14] == 0.731058598f;
    for (size_t i = 0; i < NSPEC; i++)
      if (isnan(in[i])) ok &= bits(out[i]) == (specials[i] | 0x00400000u) && bits(out_tf[i]) == bits(out[i]);
    report(ok, "exp and silu specials (silu(-inf) = NaN as eager's x / (1 + e^-x))");
    /* log: -inf at +-0, +inf at +inf, 0 at 1, subnormals finite; a negative
     * number torch's 0x7fc00000; NaNs quietened (TF: every NaN 0xffffffff) */
    kk_unary(KK_ACT_LOG, 1, NSPEC, in, NSPEC, 1, out);
    kk_unary(KK_ACT_LOG_TF, 1, NSPEC, in, NSPEC, 1, out_tf);
    ok = 1;
    for (size_t i = 0; i < NSPEC; i++) {
      const float x = in[i];
      const uint32_t want = isnan(x) ? specials[i] | 0x00400000u : x < 0 ? 0x7fc00000u
                          : x == 0 ? 0xff800000u : x == INFINITY ? 0x7f800000u : x == 1.0f ? 0u : bits(out[i]);
      ok &= bits(out[i]) == want && bits(out_tf[i]) == (isnan(x) || x < 0 ? 0xffffffffu : want);
      if (x > 0 && x < INFINITY) ok &= isfinite(out[i]) && fabs(out[i] - log((double)x)) <= 1e-6 * fabs(log((double)x));
    }
    report(ok, "log specials (torch's and TF's NaNs)");
    /* TF's scalar tail, by the bits: NaNs quietened, negatives (subnormals,
     * -inf) 0xffc00000, positive subnormals log 2^-150, else the body's */
    kk_unary(KK_ACT_LOG_TF_TAIL, 1, NSPEC, in, NSPEC, 1, out_tf);
    ok = 1;
    for (size_t i = 0; i < NSPEC; i++) {
      const uint32_t u = specials[i];
      const uint32_t want = isnan(in[i]) ? u | 0x00400000u : u > 0x80000000u ? 0xffc00000u
                          : u - 1u < 0x007fffffu ? 0xc2cff1b4u : bits(out[i]);
      ok &= bits(out_tf[i]) == want;
    }
    report(ok, "log specials of TF's scalar tail");
  }
  /* row sums: long rows, column sums, strided */
  static const int64_t RN[] = {0, 1, 5, 16, 17, 63, 64, 65, 1000, 4097, 9000};
  /* largest reach: 4 rows of stride 2*9000+1 with inner stride 2 -> 72001 */
  float *L = malloc(80000 * sizeof(float));
  for (int64_t i = 0; i < 80000; i++) L[i] = frand() + 0.5f;
  for (size_t ni = 0; ni < sizeof RN / sizeof *RN; ni++)
    for (int lay = 0; lay < 3; lay++)
      for (int mean = 0; mean < 2; mean++) {
        int64_t N = RN[ni], M = 4;
        int64_t s0 = lay == 0 ? N : (lay == 1 ? 1 : 2 * N + 1), s1 = lay == 0 ? 1 : (lay == 1 ? M : 2);
        float o[4], orf[4];
        kk_force_isa("reference");
        kk_rowsum(M, N, L, s0, s1, mean, orf);
        kk_force_isa(cur);
        kk_rowsum(M, N, L, s0, s1, mean, o);
        int ok = 1;
        for (int64_t i = 0; i < M; i++) {
          double s = 0;
          for (int64_t j = 0; j < N; j++) s += L[i * s0 + j * s1];
          if (mean) s /= (double)N;
          if (N == 0 && mean) ok &= isnan(o[i]) && isnan(orf[i]);
          else ok &= close_rel(o[i], s, 1e-5, 1e-6) && close_rel(orf[i], s, 1e-5, 1e-6);
        }
        snprintf(what, sizeof what, "rowsum N=%lld layout=%d mean=%d", (long long)N, lay, mean);
        report(ok, what);
      }
  free(L); free(X); free(Y); free(Z); free(Zr);
}

/* kk_log_softmax against float64 on every row length around the vector
 * widths and kk_log_softmax's 256-float blocks, strided and dense, with
 * eager's NaN rows (a NaN, a +inf, all -inf) and a -inf kept as -inf. */
static void test_log_softmax(void)
{
  static const int64_t Ns[] = {1, 2, 15, 16, 17, 255, 256, 257, 700};
  enum { M = 5 };
  float *X = malloc(2 * M * 700 * sizeof(float)), *Y = malloc(M * 700 * sizeof(float));
  char what[120];
  for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
    for (int strided = 0; strided < 2; strided++) {
      const int64_t N = Ns[ni], s1 = strided ? 2 : 1, s0 = N * s1;
      for (int64_t i = 0; i < 2 * M * N; i++) X[i] = 20.0f * frand();
      if (N > 2) {
        X[1 * s0 + 1 * s1] = NAN;                         /* row 1: NaN */
        X[2 * s0 + 2 * s1] = INFINITY;                    /* row 2: +inf */
        for (int64_t j = 0; j < N; j++) X[3 * s0 + j * s1] = -INFINITY; /* row 3: all -inf */
        X[4 * s0] = -INFINITY;                            /* row 4: one -inf */
      }
      kk_log_softmax(M, N, X, s0, s1, Y);
      int ok = 1;
      for (int64_t i = 0; i < M; i++) {
        double mx = -INFINITY, sum = 0;
        int nanrow = 0;
        for (int64_t j = 0; j < N; j++) {
          const double v = X[i * s0 + j * s1];
          nanrow |= isnan(v) || v == INFINITY;
          if (v > mx) mx = v;
        }
        nanrow |= mx == -INFINITY;
        for (int64_t j = 0; j < N; j++) sum += exp(X[i * s0 + j * s1] - mx);
        for (int64_t j = 0; j < N; j++) {
          const float got = Y[i * N + j];
          const double want = nanrow ? NAN : X[i * s0 + j * s1] - mx - log(sum);
          ok &= nanrow ? isnan(got) != 0 : isinf(want) ? got == want : fabs(got - want) <= 2e-6 + 1e-5 * fabs(want);
        }
      }
      snprintf(what, sizeof what, "log_softmax N=%lld strided=%d", (long long)N, strided);
      report(ok, what);
    }
  free(X);
  free(Y);
}

/* kk_any_nan: every length around the vector widths, one NaN (quiet,
 * signalling, negative) at each position or none (infinities and the
 * largest finite values are not NaN), strides 1, 0 and 3. */
/* kk_moments: every ISA against long double sums, rows of every length
 * around the vector widths, strided and padded: the mean within 1e-6 of
 * its scale, the variance within 1e-5 (AVX-512 sums in float32 first,
 * with the corrected two-pass algorithm; the others in double); a NaN or
 * inf anywhere gives NaN (or inf); constant rows a variance of exactly 0;
 * float32's extremes do not overflow (the double path takes them). */
static void test_moments(void)
{
  enum { NMAX = 70 };
  static float x[8 * 3 * NMAX];
  double mean[8], var[8];
  char what[160];
  for (int n = 1; n <= NMAX; n++)
    for (int layout = 0; layout < 3; layout++) {
      const int64_t xs1 = layout == 1 ? 3 : 1, xs0 = layout == 2 ? n + 5 : n * xs1;
      for (int i = 0; i < 8; i++)
        for (int j = 0; j < n; j++) {
          float v = i == 0 ? 2.5f : i == 1 ? 3e38f * (j % 2 ? -1.0f : 1.0f) : i == 2 ? 1e-40f * (float)j
                  : 100.0f + frand();
          if (i == 6 && j == n / 2) v = NAN;
          if (i == 7 && j == n - 1) v = INFINITY;
          x[i * xs0 + j * xs1] = v;
        }
      kk_moments(8, n, x, xs0, xs1, mean, var);
      int ok = var[0] == 0.0 && mean[0] == 2.5 && isnan(mean[6]) && isnan(var[6]) && isinf(mean[7]) && isnan(var[7]);
      for (int i = 1; i < 6; i++) {
        long double s = 0.0L, q = 0.0L;
        for (int j = 0; j < n; j++) s += x[i * xs0 + j * xs1];
        const long double m = s / n;
        for (int j = 0; j < n; j++) q += (x[i * xs0 + j * xs1] - m) * (x[i * xs0 + j * xs1] - m);
        const double v = (double)(q / n);
        ok &= isfinite(var[i]) && fabs(mean[i] - (double)m) <= 1e-6 * (fabs((double)m) + sqrt(v)) + 1e-44 &&
              fabs(var[i] - v) <= 1e-5 * v + 1e-30;
      }
      snprintf(what, sizeof what, "moments n=%d layout=%d", n, layout);
      report(ok, what);
    }
  kk_moments(3, 0, x, 0, 1, mean, var);
  report(mean[0] == 0.0 && var[2] == 0.0, "moments of empty rows");
  /* long rows far from 0 (mean / std 1e4): float32 lane sums would drift
     past 4096 values (the AVX-512 path takes double there) */
  static const int64_t lens[] = {4095, 4096, 4097, 1 << 16};
  float *r = malloc(sizeof(float) * (1 << 16));
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    const int64_t n = lens[li];
    long double s = 0.0L, q = 0.0L;
    for (int64_t j = 0; j < n; j++) s += r[j] = 1e4f + 2.0f * frand();
    const long double m = s / n;
    for (int64_t j = 0; j < n; j++) q += (r[j] - m) * (r[j] - m);
    const double v = (double)(q / n);
    kk_moments(1, n, r, n, 1, mean, var);
    snprintf(what, sizeof what, "moments of a long row n=%lld", (long long)n);
    report(fabs(var[0] - v) <= (n > 4096 ? 1e-9 : 1e-5) * v && fabs(mean[0] - (double)m) <= 1e-9 * 1e4, what);
  }
  free(r);
}

static void test_any_nan(void)
{
  static const uint32_t nans[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u, 0x7fffffffu};
  float x[3 * 70 + 1]; /* + 1: the NaN past the end of the longest strided x */
  char what[96];
  for (int64_t n = 0; n <= 70; n++)
    for (int64_t s = 0; s <= 3; s += s ? 2 : 1) /* 0, 1, 3 */
      for (int64_t at = -1; at < n; at++) {
        for (int64_t j = 0; j < 3 * 70 + 1; j++)
          x[j] = j % 4 == 0 ? INFINITY : j % 4 == 1 ? -INFINITY : j % 4 == 2 ? 3.4028235e38f : frand();
        if (at >= 0) x[at * (s ? s : 1)] = fbits(nans[at % 5]);
        /* a NaN in the gaps of a strided x, and past its end, must not count */
        if (s == 3 && n > 1) x[1] = fbits(nans[0]);
        x[n * (s ? s : 1) + (s ? 0 : 1)] = fbits(nans[1]);
        int want = at >= 0 && (s != 0 || at == 0) && n > 0;
        snprintf(what, sizeof what, "any_nan n=%lld s=%lld at=%lld", (long long)n, (long long)s, (long long)at);
        report(kk_any_nan(n, x, s) == want, what);
      }
}

/* kk_ewise: random chains of every step kind on every operand layout,
 * bit for bit against the same ISA's steps one by one; the reference ISA and
 * inner strides other than 0/1 refuse (-1) and write nothing. */
static void ew_one_by_one(int nsteps, const kk_ew_step *st, int64_t M, int64_t N, const float *X, int64_t xs0,
                          int64_t xs1, float *Y, float *tmp)
{
  kk_unary(KK_ACT_NONE, M, N, X, xs0, xs1, Y);
  for (int k = 0; k < nsteps; k++) {
    const kk_ew_step *s = &st[k];
    if (s->kind == KK_EW_ACT) kk_unary((kk_act)s->op, M, N, Y, N, 1, tmp);
    else if (s->kind == KK_EW_NEG) kk_neg(M, N, Y, N, 1, tmp);
    else if (s->x_left) kk_binary((kk_binop)s->op, s->nan_b, M, N, s->x, s->xs0, s->xs1, Y, N, 1, tmp);
    else kk_binary((kk_binop)s->op, s->nan_b, M, N, Y, N, 1, s->x, s->xs0, s->xs1, tmp);
    memcpy(Y, tmp, (size_t)(M * N) * sizeof(float));
  }
}

/* kk_ewise's result bit for bit want's, or (want NULL: an ISA without the
 * pass) -1 with nothing written to Z. */
static int ewise_agrees(int nsteps, const kk_ew_step *st, int64_t M, int64_t N, const float *X, int64_t xs0,
                        int64_t xs1, float *Z, const float *want)
{
  for (int64_t i = 0; i < M * N; i++) Z[i] = fbits(0x7fb0bad0u);
  const int rc = kk_ewise(nsteps, st, M, N, X, xs0, xs1, Z);
  int ok = rc == (want ? 0 : -1);
  for (int64_t i = 0; i < M * N; i++) ok &= bits(Z[i]) == (want ? bits(want[i]) : 0x7fb0bad0u);
  return ok;
}

/* kk_ewise's stack programs (PUSH / POP): random trees of steps on every
 * operand layout, bit for bit against the steps one by one with one buffer
 * per value set aside; unpaired pushes and pops, and too deep, refuse. */
static void ew_tree_one_by_one(int nsteps, const kk_ew_step *st, int64_t M, int64_t N, const float *X, int64_t xs0,
                               int64_t xs1, float *const *val, float *tmp)
{
  int sp = 0;
  const size_t bytes = (size_t)(M * N) * sizeof(float);
  kk_unary(KK_ACT_NONE, M, N, X, xs0, xs1, val[0]);
  for (int k = 0; k < nsteps; k++) {
    const kk_ew_step *s = &st[k];
    float *Y = val[sp];
    if (s->kind == KK_EW_PUSH) {
      kk_unary(KK_ACT_NONE, M, N, s->x, s->xs0, s->xs1, val[++sp]);
      continue;
    }
    if (s->kind == KK_EW_ACT) kk_unary((kk_act)s->op, M, N, Y, N, 1, tmp);
    else if (s->kind == KK_EW_NEG) kk_neg(M, N, Y, N, 1, tmp);
    else if (s->kind == KK_EW_POP && s->x_left) kk_binary((kk_binop)s->op, s->nan_b, M, N, val[sp - 1], N, 1, Y, N, 1, tmp);
    else if (s->kind == KK_EW_POP) kk_binary((kk_binop)s->op, s->nan_b, M, N, Y, N, 1, val[sp - 1], N, 1, tmp);
    else if (s->x_left) kk_binary((kk_binop)s->op, s->nan_b, M, N, s->x, s->xs0, s->xs1, Y, N, 1, tmp);
    else kk_binary((kk_binop)s->op, s->nan_b, M, N, Y, N, 1, s->x, s->xs0, s->xs1, tmp);
    if (s->kind == KK_EW_POP) sp--;
    memcpy(val[sp], tmp, bytes);
  }
}

static int irand(int n) { return (int)((frand() + 1.0f) * 5000.0f) % n; }

static void test_ewise_tree(void)
{
  static const int64_t Ms[] = {1, 3, 5};
  static const int64_t Ns[] = {1, 7, 16, 33, 64, 70};
  enum { CAP = 4096 };
  float *X = malloc(CAP * sizeof(float)), *ops = malloc(KK_EW_MAX_STEPS * CAP * sizeof(float));
  float *Z = malloc(CAP * sizeof(float)), *tmp = malloc(CAP * sizeof(float)), *val[KK_EW_MAX_DEPTH + 1];
  for (int d = 0; d <= KK_EW_MAX_DEPTH; d++) val[d] = malloc(CAP * sizeof(float));
  for (int64_t i = 0; i < CAP; i++) X[i] = pick(i + 777);
  for (int64_t i = 0; i < KK_EW_MAX_STEPS * CAP; i++) ops[i] = pick(i + 4242);
  const int refuses = strcmp(g_isa, "reference") == 0;
  char what[160];
  int pushes = 0;
  for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
      for (int rep = 0; rep < 40; rep++) {
        const int64_t M = Ms[mi], N = Ns[ni];
        const int64_t L[5][2] = {{N, 1}, {N + 3, 1}, {0, 0}, {1, 0}, {0, 1}};
        kk_ew_step st[KK_EW_MAX_STEPS];
        const int nsteps = 2 + irand(KK_EW_MAX_STEPS - 1);
        int depth = 0;
        for (int k = 0; k < nsteps; k++) {
          const int left = nsteps - k, lo = irand(5), r = irand(10);
          /* a pop where the steps left must close what is open, a push where they can still close it */
          if (depth > 0 && (left <= depth || r < 3)) {
            st[k] = (kk_ew_step){KK_EW_POP, irand(8), irand(2), irand(2), NULL, 0, 0};
            depth--;
          } else if (depth < KK_EW_MAX_DEPTH && left > depth + 1 && r < 6) {
            st[k] = (kk_ew_step){KK_EW_PUSH, 0, 0, 0, ops + k * CAP, L[lo][0], L[lo][1]};
            depth++, pushes++;
          } else if (r < 7) st[k] = (kk_ew_step){KK_EW_ACT, 1 + irand(KK_NUM_ACTS - 1), 0, 0, NULL, 0, 0};
          else if (r < 8) st[k] = (kk_ew_step){KK_EW_NEG, 0, 0, 0, NULL, 0, 0};
          else st[k] = (kk_ew_step){KK_EW_BIN, irand(8), irand(2), irand(2), ops + k * CAP, L[lo][0], L[lo][1]};
        }
        const int lx = irand(5);
        if (!refuses) ew_tree_one_by_one(nsteps, st, M, N, X, L[lx][0], L[lx][1], val, tmp);
        const int ok = ewise_agrees(nsteps, st, M, N, X, L[lx][0], L[lx][1], Z, refuses ? NULL : val[0]);
        snprintf(what, sizeof what, "ewise tree M=%lld N=%lld steps=%d rep=%d", (long long)M, (long long)N, nsteps, rep);
        report(ok, what);
      }
  report(pushes > 200, "ewise tree programs push");
  /* unpaired or too deep: refused, nothing written */
  kk_ew_step st[KK_EW_MAX_STEPS];
  const kk_ew_step push = {KK_EW_PUSH, 0, 0, 0, ops, 0, 1}, pop = {KK_EW_POP, KK_BIN_ADD, 0, 0, NULL, 0, 0};
  Z[0] = fbits(0x7fb0bad0u);
  st[0] = push;
  report(kk_ewise(1, st, 1, 3, X, 0, 1, Z) == -1 && bits(Z[0]) == 0x7fb0bad0u, "ewise refuses a push never popped");
  st[0] = pop;
  report(kk_ewise(1, st, 1, 3, X, 0, 1, Z) == -1 && bits(Z[0]) == 0x7fb0bad0u, "ewise refuses a pop of nothing");
  enum { D = KK_EW_MAX_DEPTH };
  for (int k = 0; k <= D; k++) st[k] = push, st[2 * D + 1 - k] = pop; /* D + 1 deep */
  report(kk_ewise(2 * D + 2, st, 1, 3, X, 0, 1, Z) == -1 && bits(Z[0]) == 0x7fb0bad0u, "ewise refuses a stack too deep");
  st[D] = (kk_ew_step){KK_EW_NEG, 0, 0, 0, NULL, 0, 0}; /* D deep */
  report(kk_ewise(2 * D + 1, st, 1, 3, X, 0, 1, Z) == (refuses ? -1 : 0), "ewise takes a stack at its depth");
  st[0].xs1 = 2;
  report(kk_ewise(2 * D + 1, st, 1, 3, X, 0, 1, Z) == -1, "ewise refuses a pushed stride of 2");
  st[0] = pop;
  st[0].op = 8;
  report(kk_ewise(1, st, 1, 3, X, 0, 1, Z) == -1, "ewise refuses a pop of a bad op");
  for (int d = 0; d <= KK_EW_MAX_DEPTH; d++) free(val[d]);
  free(X);
  free(ops);
  free(Z);
  free(tmp);
}

static void test_ewise(void)
{
  static const int64_t Ms[] = {1, 2, 3, 5};
  static const int64_t Ns[] = {1, 5, 8, 16, 17, 40, 64, 65, 130};
  enum { CAP = 4096 };
  float *X = malloc(CAP * sizeof(float)), *ops = malloc(KK_EW_MAX_STEPS * CAP * sizeof(float));
  float *Z = malloc(CAP * sizeof(float)), *Zr = malloc(CAP * sizeof(float)), *tmp = malloc(CAP * sizeof(float));
  for (int64_t i = 0; i < CAP; i++) X[i] = pick(i + 3131);
  for (int64_t i = 0; i < KK_EW_MAX_STEPS * CAP; i++) ops[i] = pick(i + 99991);
  const int refuses = strcmp(g_isa, "reference") == 0;
  char what[160];
  for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
      for (int lx = 0; lx < 5; lx++)
        for (int rep = 0; rep < 12; rep++) {
          const int64_t M = Ms[mi], N = Ns[ni];
          /* dense, padded rows, one value, one value a row (a column), one row for all */
          const int64_t L[5][2] = {{N, 1}, {N + 3, 1}, {0, 0}, {1, 0}, {0, 1}};
          kk_ew_step st[KK_EW_MAX_STEPS];
          const int nsteps = 1 + (int)((frand() + 1.0f) * 4.0f) % 8;
          for (int k = 0; k < nsteps; k++) {
            const int r = (int)((frand() + 1.0f) * 50.0f) % 10, lo = (int)((frand() + 1.0f) * 50.0f) % 5;
            st[k] = (kk_ew_step){KK_EW_BIN, (int)((frand() + 1.0f) * 50.0f) % 8, frand() > 0, frand() > 0,
                                 ops + k * CAP, L[lo][0], L[lo][1]};
            if (r == 0) st[k] = (kk_ew_step){KK_EW_NEG, 0, 0, 0, NULL, 0, 0};
            else if (r <= 2)
              st[k] = (kk_ew_step){KK_EW_ACT, 1 + (int)((frand() + 1.0f) * 50.0f) % (KK_NUM_ACTS - 1), 0, 0, NULL, 0, 0};
          }
          if (!refuses) ew_one_by_one(nsteps, st, M, N, X, L[lx][0], L[lx][1], Zr, tmp);
          const int ok = ewise_agrees(nsteps, st, M, N, X, L[lx][0], L[lx][1], Z, refuses ? NULL : Zr);
          snprintf(what, sizeof what, "ewise M=%lld N=%lld x=(%lld,%lld) steps=%d rep=%d", (long long)M,
                   (long long)N, (long long)L[lx][0], (long long)L[lx][1], nsteps, rep);
          report(ok, what);
        }
  /* refused: an inner stride of 2, no steps, too many */
  kk_ew_step st[KK_EW_MAX_STEPS + 1];
  for (int k = 0; k <= KK_EW_MAX_STEPS; k++) st[k] = (kk_ew_step){KK_EW_BIN, KK_BIN_ADD, 0, 0, ops, 0, 1};
  Z[0] = fbits(0x7fb0bad0u);
  report(kk_ewise(1, st, 1, 3, X, 0, 2, Z) == -1 && bits(Z[0]) == 0x7fb0bad0u, "ewise refuses X stride 2");
  st[0].xs1 = 2;
  report(kk_ewise(1, st, 2, 3, X, 3, 1, Z) == -1 && bits(Z[0]) == 0x7fb0bad0u, "ewise refuses x stride 2");
  st[0].xs1 = 1;
  report(kk_ewise(0, st, 2, 3, X, 3, 1, Z) == -1, "ewise refuses no steps");
  report(kk_ewise(KK_EW_MAX_STEPS + 1, st, 2, 3, X, 3, 1, Z) == -1, "ewise refuses too many steps");
  free(X);
  free(ops);
  free(Z);
  free(Zr);
  free(tmp);
}

/* sigmoid and tanh against float64 libm on a dense sweep: every 997th float
 * in [-87, 87] (2.2 million values, normal results only). The bounds pin
 * the exp polynomial's accuracy (kernels.c: <= 0.89 ulp on its own) with
 * sigmoid's add and division and tanh's steps: 2 and 1 ulp at most on every
 * variant, with the Cephes-order and the Horner-chain polynomial alike.
 * KK_TEST_VERBOSE=1 prints the maxima. */
static void test_act_accuracy(void)
{
  enum { N = 4096 };
  static float x[N], y[N];
  const int acts[] = {KK_ACT_SIGMOID, KK_ACT_TANH, KK_ACT_EXP, KK_ACT_SILU, KK_ACT_LOG, KK_ACT_SILU_TF,
                      KK_ACT_GELU, KK_ACT_GELU_TANH, KK_ACT_GELU_TF};
  const int64_t bound[] = {2, 1, 1, 2, 1, 3, 8, 10, 8};
  for (size_t a = 0; a < sizeof acts / sizeof *acts; a++) {
    int64_t worst = 0;
    float at = 0;
    double worst_rel_x = 0; /* gelu: max |error| / |x| over every normal x */
    uint32_t u = bits(-87.0f);
    for (int done = 0; !done;) {
      int n = 0;
      for (; n < N; n++) {
        float v = fbits(u);
        if (v > 87.0f) { done = 1; break; }
        x[n] = v;
        /* walk the float line from -87 through -0/+0 up to 87 */
        u = (u & 0x80000000u) ? (u - 997 > 0x80000000u && u >= 997 ? u - 997 : 0u) : u + 997;
      }
      kk_unary(acts[a], 1, n, x, n, 1, y);
      for (int i = 0; i < n; i++) {
        double w = act_d(acts[a], x[i]);
        if (fabs(x[i]) >= 1.1754944e-38 && fabs(y[i] - w) / fabs(x[i]) > worst_rel_x)
          worst_rel_x = fabs(y[i] - w) / fabs(x[i]);
        if (fabs(w) < 1.1754944e-38) continue; /* denormal results: absolute error only */
        /* gelu's tanh form: e^-2w magnifies w's rounding by |2w| (eager's form alike), so
         * ulps only for |x| <= 2; beyond, |error| / |x| below */
        if (is_gelu_tanh(acts[a]) && fabs(x[i]) > 2) continue;
        int64_t d = ulpdist(y[i], (float)w);
        if (d > worst) worst = d, at = x[i];
      }
    }
    char what[128];
    snprintf(what, sizeof what, "act=%d accuracy against float64: max %lld ulp (at %.9g), bound %lld", acts[a],
             (long long)worst, (double)at, (long long)bound[a]);
    report(worst <= bound[a], what);
    if (is_gelu(acts[a])) {
      const double rel_x = is_gelu_tanh(acts[a]) ? 1.6e-7 : 2.5e-7;
      snprintf(what, sizeof what, "act=%d max |error| / |x| %.3g, bound %.2g", acts[a], worst_rel_x, rel_x);
      report(worst_rel_x <= rel_x, what);
    }
    if (getenv("KK_TEST_VERBOSE")) printf("[%s] %s\n", g_isa, what);
  }
}

/* gelu's special values, both forms, bit for bit on every variant: a NaN
 * quietened with its sign, -inf -> the x86 default NaN (eager's -inf * 0),
 * inf -> inf, signed zeros and tiny x -> x/2 rounded (-0.0 for the least
 * negative denormal), past the tails x itself or -0.0; the oneDNN variant
 * with that path's NaNs at +-inf. */
static void test_gelu_specials(void)
{
  /* the specials (signalling NaNs quietened with their sign) rotated through
     53 elements: each in every vector lane, in the main loops and the tail */
  const float x[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, -1e-45f, 1e-30f, -20.0f, -1e20f, 1e20f, 30.0f,
                     fbits(0x7fa00000u), fbits(0xffa00001u)};
  const uint32_t want[] = {0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xffc00000u, 0u, 0x80000000u,
                           0x80000000u, bits(5e-31f), 0x80000000u, 0x80000000u, bits(1e20f), bits(30.0f),
                           0x7fe00000u, 0xffe00001u};
  enum { S = sizeof x / sizeof *x, N = 53 };
  float in[N], y[N];
  for (int act = 0; act < KK_NUM_ACTS; act++) {
    if (!is_gelu(act)) continue;
    int ok = 1;
    for (int rot = 0; rot < S; rot++) {
      for (int i = 0; i < N; i++) in[i] = x[(i + rot) % S];
      kk_unary(act, 1, N, in, N, 1, y);
      for (int i = 0; i < N; i++) {
        int k = (i + rot) % S;
        ok &= bits(y[i]) == (act == KK_ACT_GELU_ONEDNN && k == 2 ? 0xffc00000u
                             : act == KK_ACT_GELU_ONEDNN && k == 3 ? 0x7fc00000u : want[k]);
      }
    }
    char what[64];
    snprintf(what, sizeof what, "act=%d special values", act);
    report(ok, what);
  }
}

/* Each gelu variant's zero tail, bit for bit at its edges in every lane:
 * -0.0 at the tail's largest x and the float below it, a negative number
 * at the float above it (where eager's is not zero either), and the same
 * around the other variants' edges as the variant's own formula says. */
static void test_gelu_zero_tails(void)
{
  enum { N = 37 };
  float in[N], y[N];
  for (int act = 0; act < KK_NUM_ACTS; act++) {
    if (!is_gelu(act)) continue;
    int ok = 1;
    for (int other = 0; other < KK_NUM_ACTS; other++) {
      if (!is_gelu(other)) continue;
      const float t = gelu_zero_below(other);
      const float probe[3] = {nextafterf(t, -INFINITY), t, nextafterf(t, 0.0f)};
      for (int i = 0; i < N; i++) in[i] = probe[i % 3];
      kk_unary(act, 1, N, in, N, 1, y);
      for (int i = 0; i < N; i++) {
        const int zero = in[i] <= gelu_zero_below(act);
        ok &= zero ? bits(y[i]) == 0x80000000u : (y[i] < 0.0f && y[i] > -1e-4f);
      }
    }
    char what[64];
    snprintf(what, sizeof what, "act=%d zero tail edges", act);
    report(ok, what);
  }
}

int main(void)
{
  kk_init();
  printf("default ISA: %s\n", kk_isa_name());
  for (size_t i = 0; i < 3; i++) {
    if (kk_force_isa(isas[i]) != 0) {
      printf("skip %s (not supported by this CPU)\n", isas[i]);
      continue;
    }
    g_isa = isas[i];
    int f0 = g_fail, p0 = g_pass;
    test_gemm();
    test_gemm_paths();
    test_gemm_smallm();
    test_gemm_rows();
    test_gemm_kblocks();
    test_gemm_wide();
    test_gemm_post();
    test_gemm_post_blocks();
    test_gemm_long_sums();
    test_elementwise();
    test_ewise();
    test_ewise_tree();
    test_any_nan();
    test_moments();
    test_log_softmax();
    test_act_accuracy();
    test_gelu_specials();
    test_gelu_zero_tails();
    /* the threaded path: every GEMM shape again with a 3-thread budget
       (capped at the CPU count) and no size threshold, so rows are split
       (large M, row reductions) or columns (small M) across the pool */
    kk_set_num_threads(3);
    kk_set_gemm_thread_min(1);
    test_gemm();
    test_gemm_paths();
    test_gemm_smallm();
    test_gemm_rows();
    test_gemm_kblocks();
    test_gemm_wide();
    test_gemm_post();
    test_gemm_long_sums();
    test_gemm_concurrent();
    kk_set_pool_spin_us(0); /* threads that never poll: sleep and wake on every job */
    test_gemm_paths();
    test_gemm_concurrent();
    kk_set_pool_spin_us(-1);
    /* the default size threshold: a few rows over a B past L2 still split
       their columns over the pool (B of 2 MiB and more), smaller ones not */
    kk_set_gemm_thread_min(-1);
    test_gemm_rows();
    test_gemm_streamed();
    test_gemm_mid();
    kk_set_num_threads(1);
    printf("%s: %d passed, %d failed\n", isas[i], g_pass - p0, g_fail - f0);
  }
  kk_release_scratch();
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
