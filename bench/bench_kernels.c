/* bench_kernels.c — kk_gemm throughput/latency, best ISA vs reference.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Iruntime bench/bench_kernels.c runtime/kernels.c -o /tmp/bench_kernels
 *   /tmp/bench_kernels            # KILN_ISA=avx2 to cap the "best" ISA
 *
 * B layouts: "KxN" = weights pre-transposed (bs1 == 1, streamed without
 * packing for small M); "NxK" = torch linear's w (x @ w.T, bs0 == 1). */
#define _POSIX_C_SOURCE 199309L
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best-of-5 seconds per call, each sample running >= ~20 ms. */
static double time_gemm(int64_t M, int64_t N, int64_t K, const float *A, const float *B, int bt,
                        const float *bias, float *C)
{
  int64_t bs0 = bt ? 1 : N, bs1 = bt ? K : 1;
  kk_gemm(M, N, K, A, K, 1, B, bs0, bs1, bias, 1, KK_ACT_RELU, C); /* warm-up, scratch */
  double flops = 2.0 * (double)M * (double)N * (double)K;
  int64_t reps = (int64_t)(2e7 / (flops + 1e3)) + 1;
  double best = 1e30;
  for (int s = 0; s < 5; s++) {
    double t0 = now();
    for (int64_t r = 0; r < reps; r++) kk_gemm(M, N, K, A, K, 1, B, bs0, bs1, bias, 1, KK_ACT_RELU, C);
    double dt = (now() - t0) / (double)reps;
    if (dt < best) best = dt;
  }
  return best;
}

static void row(const char *best_isa, int64_t M, int64_t N, int64_t K, int bt, int with_ref)
{
  float *A = malloc((size_t)(M * K) * sizeof(float)), *B = malloc((size_t)(K * N) * sizeof(float));
  float *C = malloc((size_t)(M * N) * sizeof(float)), *bias = malloc((size_t)N * sizeof(float));
  for (int64_t i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
  for (int64_t i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 11) * 0.1f - 0.5f;
  for (int64_t i = 0; i < N; i++) bias[i] = 0.01f * (float)i;
  double flops = 2.0 * (double)M * (double)N * (double)K;
  kk_force_isa(best_isa);
  double tb = time_gemm(M, N, K, A, B, bt, bias, C);
  printf("%5lld x %5lld x %5lld  B=%s  %-7s %9.1f ns  %7.2f GFLOP/s", (long long)M, (long long)N,
         (long long)K, bt ? "NxK" : "KxN", best_isa, tb * 1e9, flops / tb * 1e-9);
  if (with_ref) {
    kk_force_isa("reference");
    double tr = time_gemm(M, N, K, A, B, bt, bias, C);
    printf("   reference %7.2f GFLOP/s  (x%.1f)", flops / tr * 1e-9, tr / tb);
  }
  printf("\n");
  fflush(stdout);
  free(A); free(B); free(C); free(bias);
}

int main(void)
{
  kk_init();
  const char *best = kk_isa_name();
  printf("kk_gemm (+bias, relu), single thread, best ISA = %s\n", best);
  printf("-- latency-critical tiny shapes\n");
  row(best, 1, 32, 32, 0, 1);
  row(best, 1, 32, 32, 1, 1);
  row(best, 1, 64, 64, 0, 1);
  row(best, 4, 32, 32, 0, 1);
  printf("-- skinny M = 1..16\n");
  static const int64_t Ms[] = {1, 2, 4, 8, 12, 16};
  static const int64_t NK[] = {256, 1024};
  for (size_t j = 0; j < 2; j++)
    for (size_t i = 0; i < 6; i++)
      for (int bt = 0; bt < 2; bt++) row(best, Ms[i], NK[j], NK[j], bt, NK[j] <= 256);
  printf("-- square\n");
  static const int64_t S[] = {64, 128, 256, 512, 1024};
  for (size_t i = 0; i < 5; i++) row(best, S[i], S[i], S[i], 0, S[i] <= 512);
  row(best, 1024, 1024, 1024, 1, 0);
  kk_release_scratch();
  return 0;
}
