/* kernels.c — float32 CPU kernels: portable reference, AVX2+FMA, AVX-512.
 *
 * Layout of this file:
 *   1. scalar helpers and the portable reference kernels (the ground truth
 *      every SIMD variant is tested against; also the fallback on non-x86)
 *   2. AVX2+FMA variants, 3. AVX-512 variants (per-function target attributes,
 *      so the file needs no special compiler flags)
 *   4. ISA tables, kk_init, the GEMM driver and the public entry points.
 *
 * Bit-exactness: copy, relu and add reproduce eager torch on x86-64 bit for
 * bit (NaN payloads and signed zeros included); they are written with
 * compares/blends and an explicit NaN fix-up rather than relying on the
 * operand order the compiler picks for max/add. */
#define _GNU_SOURCE /* pthreads, sysconf, sigset_t, clock_gettime */
#include "kernels.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define KK_X86 1
#include <immintrin.h>
#else
#define KK_X86 0
#endif

/* ---- floating-point mode (kernels.h) ------------------------------------- */
#if KK_X86
#define KK_MXCSR_FTZ_DAZ 0x8040u /* bit 15 flush-to-zero, bit 6 denormals-are-zero */
static unsigned fp_mode(void) { return _mm_getcsr(); }
static void fp_set_mode(unsigned m) { if (_mm_getcsr() != m) _mm_setcsr(m); }
#else
#define KK_MXCSR_FTZ_DAZ 0u
static unsigned fp_mode(void) { return 0; }
static void fp_set_mode(unsigned m) { (void)m; }
#endif

unsigned kk_fp_flush_denormals(void)
{
  const unsigned old = fp_mode();
  fp_set_mode(old | KK_MXCSR_FTZ_DAZ);
  return old;
}

void kk_fp_restore(unsigned mode) { fp_set_mode(mode); }

#define KK_INLINE static inline __attribute__((always_inline))
#define KK_NOINLINE __attribute__((noinline))

/* AVX-512 cache blocking (12x32 micro-tile; loop order in gemm_st's AVX-512
 * packed path). KC x NC packed B block (768 KiB) stays in L2 while a 12 x KC
 * A micro-panel (36 KiB) stays in L1 and the 32-wide B micro-panels stream
 * past it; MC rows of A are packed once per K block (3 MiB, L3). Measured on
 * a 48 KiB L1 / 2 MiB L2 core (KC 512/768, NC 256/512, MC 512..4096 within
 * noise of each other; KC 256 and the old B-panel-in-L1 order were slower).
 * Overridable at build time for tuning (-DKK_AVX512_KC=...). */
#ifndef KK_AVX512_MC
#define KK_AVX512_MC 1024
#endif
#ifndef KK_AVX512_KC
#define KK_AVX512_KC 768
#endif
#ifndef KK_AVX512_NC
#define KK_AVX512_NC 256
#endif

/* Longest float FMA chain per output, in k: past it a kernel adds its sums
 * to the partial sums kept in C and starts a new chain, so rounding error
 * grows like a 256-term sum plus a K/256-term one, not a K-term one. One
 * chain over K = 20,000 (x @ W, 4-12 rows) ended up to 17x further from the
 * float64 product than torch's result (AMD EPYC). The packed path's KC
 * blocks and the k-quad kernel's KK_LQ_BLOCK bound theirs the same way; a
 * row reduction past it gets a scratch C (gemm_driver). */
#define KK_SUM_KB 256

/* x @ W at up to 8 rows with B past this many floats streams B by rows
 * (gemm_rows__avx512): B larger than L2 (2 MB) */
#ifndef KK_ROWS_MIN_KN
#define KK_ROWS_MIN_KN (512 * 1024 + 1)
#endif

/* Rows up to which a product whose B holds at least this many bytes (past
 * L2) is split over the thread budget by columns, however few its
 * multiply-adds: one core does not saturate memory bandwidth. */
#define KK_STREAM_MAX_M 16
#define KK_STREAM_THREAD_BYTES (2.0 * 1024 * 1024)

/* ===================================================================== */
/* 1. scalar helpers + reference kernels                                  */
/* ===================================================================== */

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline int isnan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

/* Polynomial constants shared by all variants. exp: Cephes expf (Cody-Waite
 * reduction, degree-6 minimax on |r| <= ln2/2), its 1 + r + r^2 P(r) taken
 * as one Horner chain: two FMAs where a multiply, an FMA and an add were
 * three (kk_unary sigmoid 1.05x), and over every float in [-80, 80] a max
 * error of 0.89 ulp against Cephes's order's 1.01. tanh small range: minimax
 * fit of (tanh(a)/a - 1)/a^2 in t = a^2 on [0, 0.625^2], <= 1 ulp in float. */
#define KK_LOG2E 1.44269504088896341f
#define KK_LN2_HI 0.693359375f
#define KK_LN2_LO -2.12194440e-4f
#define KK_EXP_P0 1.9875691500e-4f
#define KK_EXP_P1 1.3981999507e-3f
#define KK_EXP_P2 8.3334519073e-3f
#define KK_EXP_P3 4.1665795894e-2f
#define KK_EXP_P4 1.6666665459e-1f
#define KK_EXP_P5 5.0000001201e-1f
#define KK_TANH_SMALL 0.625f
#define KK_TANH_T0 -0.3333333134651184f
#define KK_TANH_T1 0.13333211839199066f
#define KK_TANH_T2 -0.053947459906339645f
#define KK_TANH_T3 0.021704159677028656f
#define KK_TANH_T4 -0.00818527489900589f
#define KK_TANH_T5 0.002149677835404873f
/* log: Cephes logf (x = 2^e m, m in [sqrt(1/2), sqrt(2)), degree-8
 * polynomial in m - 1), ln 2 split as exp's. */
#define KK_SQRTHF 0.707106781186547524f
#define KK_LOG_P0 7.0376836292e-2f
#define KK_LOG_P1 -1.1514610310e-1f
#define KK_LOG_P2 1.1676998740e-1f
#define KK_LOG_P3 -1.2420140846e-1f
#define KK_LOG_P4 1.4249322787e-1f
#define KK_LOG_P5 -1.6668057665e-1f
#define KK_LOG_P6 2.0000714765e-1f
#define KK_LOG_P7 -2.4999993993e-1f
#define KK_LOG_P8 3.3333331174e-1f
/* exp argument clamps: below -110 the result is 0 in float, above 110 it is
 * inf (sigmoid's e^-x); tanh saturates to 1 in float for |x| > 9.01, so 2|x|
 * is clamped at 20. */
#define KK_EXP_MIN -110.0f
#define KK_EXP_MAX 110.0f
#define KK_TANH_EXPMAX 20.0f
/* gelu, erf form: x/2 (1 + erf(z)), z = x/sqrt(2), through erfc, which has
 * no cancellation where eager's float formula loses every digit of 1 +
 * erf(-|z|) (below x = -3): x/2 erfc(|z|) for x < 0, x (1 - erfc(|z|)/2)
 * otherwise. erfc(|z|) = e^-z^2 t Q(t), t = 1 / (1 + 0.45 |z|) in (0, 1]
 * (Q: degree-9 fit of erfcx(|z|) / t, 2 ulp in float), with z^2 = x^2 / 2
 * taken from the exact product x * x (its rounding error folded in as 1 -
 * e/2), since e^-z^2 magnifies an error in z^2 by z^2. tanh form: x/2 (1 +
 * tanh(w)) = x / (1 + e^-2w), w = sqrt(2/pi) (x + 0.044715 x^3), again
 * without the cancellation. */
#define KK_GELU_SQRT1_2 0.707106781186547524f
#define KK_GELU_ABS_MAX 16.0f /* |x| clamp: erfc(16/sqrt 2) is 0 in float */
#define KK_GELU_P 0.45f
#define KK_GELU_Q0 2.538853288e-01f
#define KK_GELU_Q1 2.538830936e-01f
#define KK_GELU_Q2 2.282740623e-01f
#define KK_GELU_Q3 1.752202064e-01f
#define KK_GELU_Q4 1.201537326e-01f
#define KK_GELU_Q5 -2.306576818e-02f
#define KK_GELU_Q6 1.438174248e-01f
#define KK_GELU_Q7 -3.022052348e-01f
#define KK_GELU_Q8 1.916756779e-01f
#define KK_GELU_Q9 -4.163853452e-02f
#define KK_GELU_KAPPA 0.044715f
#define KK_GELU_2BETA 1.59576912160573071f /* 2 sqrt(2/pi) */
/* Where the frameworks' float formula gives exactly -0.0 (1 + erf or 1 +
 * tanh rounds to 0), kiln's gelu does too (x * 0: -inf still gives eager's
 * NaN), so a zero test, a division or a square root after gelu sees eager's
 * value. Eager's edge depends on its path: torch's vector loop (erf form
 * -5.5430408, tanh form -5.0613809), its scalar loop (the last n % 32 of a
 * run, a run shorter than that, a strided one: -5.5425944, -5.1578550, or
 * -5.1578555 in a build without FMA contraction) and oneDNN (erf form, a
 * contiguous tensor: -5.5425935, and scattered x up to -5.4858), read off
 * eager for every float in [-5.7, -4.7]. kiln gives -0.0 from the lowest
 * edge of each form down, where every path does; between the edges eager's
 * answer depends on an element's position in its loop, and kiln's is its
 * accurate negative value, as the scalar loop's (tanh form) and the vector
 * loop's (erf form) are. TF: its tanh form from -4.8401599 in every loop,
 * its erf form (x/2 erfc(-x/sqrt 2), the subnormal erfc flushed to 0) from
 * -13.003057 ([-14, -12] read). */
#define KK_GELU_ZERO_BELOW -0x1.62c12ep+2f         /* -5.5430408, 0xc0b16097 */
#define KK_GELU_TANH_ZERO_BELOW -0x1.4a1a4ep+2f    /* -5.1578555, 0xc0a50d27 */
#define KK_GELU_TANH_ZERO_BELOW_TF -0x1.35c52ep+2f /* -4.8401599, 0xc09ae297 */
#define KK_GELU_ZERO_BELOW_TF -0x1.a0190ap+3f      /* -13.003057, 0xc1500c85 */

/* 2^n for integer n in [-252, 254] as a product of two normal powers, so the
 * result underflows gracefully into denormals. */
static inline float ref_exp_core(float t) /* t in [-110, 110] */
{
  float fn = t * KK_LOG2E;
  int n = (int)(fn + (fn < 0.0f ? -0.5f : 0.5f));
  float r = t - (float)n * KK_LN2_HI;
  r = r - (float)n * KK_LN2_LO;
  float p = KK_EXP_P0;
  p = p * r + KK_EXP_P1;
  p = p * r + KK_EXP_P2;
  p = p * r + KK_EXP_P3;
  p = p * r + KK_EXP_P4;
  p = p * r + KK_EXP_P5;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int n1 = n / 2, n2 = n - n1;
  return p * u2f((uint32_t)(n1 + 127) << 23) * u2f((uint32_t)(n2 + 127) << 23);
}

/* Eager torch's form, 1 / (1 + e^-x). Below x = -88.7, e^-x is inf and the
 * result 0, as torch's (whose denormal results it keeps above that). The
 * vector versions negate inside exp's range reduction, one op fewer: a
 * sigmoid epilogue's cost is its op count (two vector ports, ~12 cycles a
 * zmm vector on a Xeon), not its division. */
static inline float ref_sigmoid_s(int tf, float x)
{
  if (x != x) return tf ? x + x : -(x + x); /* quiet NaN; torch's negation flips its sign */
  float c = x < KK_EXP_MIN ? KK_EXP_MIN : (x > KK_EXP_MAX ? KK_EXP_MAX : x);
  return 1.0f / (1.0f + ref_exp_core(-c));
}

static inline float ref_tanh(float x)
{
  if (x != x) return x + x;
  uint32_t sign = f2u(x) & 0x80000000u;
  float a = u2f(f2u(x) & 0x7fffffffu), y;
  if (a < KK_TANH_SMALL) {
    float t = a * a, p = KK_TANH_T5;
    p = p * t + KK_TANH_T4;
    p = p * t + KK_TANH_T3;
    p = p * t + KK_TANH_T2;
    p = p * t + KK_TANH_T1;
    p = p * t + KK_TANH_T0;
    y = a + (a * t) * p;
  } else {
    float e = ref_exp_core(2.0f * a > KK_TANH_EXPMAX ? KK_TANH_EXPMAX : 2.0f * a);
    y = 1.0f - 2.0f / (e + 1.0f);
  }
  return u2f(f2u(y) | sign); /* odd function; keeps tanh(-0) = -0 */
}

static inline float ref_clamp_exp(float x) { return x < KK_EXP_MIN ? KK_EXP_MIN : (x > KK_EXP_MAX ? KK_EXP_MAX : x); }

/* e^x; a NaN quietened, sign kept (as torch and TF give it) */
static inline float ref_exp(float x) { return x != x ? x + x : ref_exp_core(ref_clamp_exp(x)); }

/* Eager torch's silu, x / (1 + e^-x). Where e^-x is inf, x / inf: -0.0
 * below x = -88.7, NaN at -inf. A NaN x wins the division: itself, quietened. */
static inline float ref_silu(float x) { return x != x ? x + x : x / (1.0f + ref_exp_core(-ref_clamp_exp(x))); }

/* gelu's erf form; see KK_GELU_P. A NaN x comes out quietened; gelu(-inf)
 * is -inf * 0, the x86 default NaN, gelu(inf) inf (KK_ACT_GELU_ONEDNN: eager
 * torch's other NaNs there). */
static inline float ref_gelu(float x)
{
  if (x != x) return x + x;
  const float a = fabsf(x) < KK_GELU_ABS_MAX ? fabsf(x) : KK_GELU_ABS_MAX;
  const double sq = (double)a * a; /* exact */
  const float s = (float)sq, e = (float)(sq - s), h = 0.5f * s;
  float t = 1.0f / (1.0f + KK_GELU_P * (a * KK_GELU_SQRT1_2)), q = KK_GELU_Q9;
  q = q * t + KK_GELU_Q8;
  q = q * t + KK_GELU_Q7;
  q = q * t + KK_GELU_Q6;
  q = q * t + KK_GELU_Q5;
  q = q * t + KK_GELU_Q4;
  q = q * t + KK_GELU_Q3;
  q = q * t + KK_GELU_Q2;
  q = q * t + KK_GELU_Q1;
  q = q * t + KK_GELU_Q0;
  /* erfc(|z|) = m * ex, ex last: where x/2 erfc is near FLT_MIN, m * ex alone is below it */
  const float m = (t * q) * (1.0f - 0.5f * e), ex = ref_exp_core(h < -KK_EXP_MIN ? -h : KK_EXP_MIN);
  return x < 0.0f ? ((0.5f * x) * m) * ex : x * (1.0f - 0.5f * (m * ex)); /* gelu(-0.0) = -0.0 * 0.5 */
}

/* gelu's tanh form, x / (1 + e^-2w); see KK_GELU_P. As x sigmoid(2w), with
 * e^-|2w| (no overflow, so no result flushed to 0 before it underflows).
 * x^3 past float's range saturates: x itself, or -0.0 (NaN at -inf, as eager's). */
static inline float ref_gelu_tanh(float x)
{
  if (x != x) return x + x;
  const float w2 = (x + KK_GELU_KAPPA * (x * x * x)) * KK_GELU_2BETA, aw = fabsf(w2);
  const float e = ref_exp_core(aw < KK_EXP_MAX ? -aw : -KK_EXP_MAX), r = 1.0f / (1.0f + e);
  return x * (w2 < 0.0f ? e * r : r);
}

/* See KK_GELU_ZERO_BELOW: y, or x * 0 from `below` down */
static inline float ref_gelu_zero(float below, float x, float y) { return x <= below ? x * 0.0f : y; }

/* log of a finite x > 0 (subnormals scaled into the normal range first) */
static inline float ref_log_core(float x)
{
  int e = 0;
  if (x < FLT_MIN) {
    x *= 8388608.0f;
    e = -23;
  }
  uint32_t u = f2u(x);
  e += (int)(u >> 23) - 126;
  float m = u2f((u & 0x007fffffu) | 0x3f000000u); /* [0.5, 1) */
  if (m < KK_SQRTHF) {
    e -= 1;
    m = m + m;
  }
  m = m - 1.0f;
  float z = m * m, y = KK_LOG_P0;
  y = y * m + KK_LOG_P1;
  y = y * m + KK_LOG_P2;
  y = y * m + KK_LOG_P3;
  y = y * m + KK_LOG_P4;
  y = y * m + KK_LOG_P5;
  y = y * m + KK_LOG_P6;
  y = y * m + KK_LOG_P7;
  y = y * m + KK_LOG_P8;
  y = y * m * z;
  const float fe = (float)e;
  y = fe * KK_LN2_LO + y;
  y = -0.5f * z + y;
  return fe * KK_LN2_HI + (m + y);
}

/* tf: 0 torch's, 1 TF's vector body, 2 TF's scalar tail (KK_ACT_LOG_TF_TAIL) */
static inline float ref_log(int tf, float x)
{
  const uint32_t u = f2u(x);
  if (tf == 2 && x == x && u > 0x80000000u) return u2f(0xffc00000u);
  if (tf == 2 && u - 1u < 0x007fffffu) return u2f(0xc2cff1b4u);
  if (x != x) return tf == 1 ? u2f(0xffffffffu) : x + x;
  if (x < 0.0f) return u2f(tf ? 0xffffffffu : 0x7fc00000u);
  if (x == 0.0f) return -INFINITY;
  return x == INFINITY ? x : ref_log_core(x);
}

/* x86's min(hi, max(lo, x)): each returns its second operand when the two
 * are equal or unordered, so a NaN x and -0.0 pass as themselves */
static inline float ref_clamp(float lo, float hi, float x)
{
  const float m = lo > x ? lo : x;
  return hi < m ? hi : m;
}

static inline float ref_act(int act, float x)
{
  uint32_t u = f2u(x);
  switch (act) {
  case KK_ACT_ABS: return u2f(u & 0x7fffffffu);
  case KK_ACT_SQRT: return x < 0.0f ? u2f(0x7fc00000u) : __builtin_sqrtf(x);
  case KK_ACT_SQRT_TF: return __builtin_sqrtf(x);
  case KK_ACT_LOG: return ref_log(0, x);
  case KK_ACT_LOG_TF: return ref_log(1, x);
  case KK_ACT_LOG_TF_TAIL: return ref_log(2, x);
  case KK_ACT_RSQRT: return 1.0f / __builtin_sqrtf(x);
  case KK_ACT_RELU6: return ref_clamp(0.0f, 6.0f, x);
  case KK_ACT_RELU6_TF: { /* relu_tf, then x86's min(6, y): a NaN passes */
    const float y = (isnan_bits(u) || (!(u & 0x80000000u) && u >= 0x00800000u)) ? x : 0.0f;
    return 6.0f < y ? 6.0f : y;
  }
  case KK_ACT_HARDTANH: return ref_clamp(-1.0f, 1.0f, x);
  case KK_ACT_SILU_TF: return x != x ? x + x : x * ref_sigmoid_s(1, x);
  case KK_ACT_GELU: return ref_gelu_zero(KK_GELU_ZERO_BELOW, x, ref_gelu(x));
  case KK_ACT_GELU_TF: return ref_gelu_zero(KK_GELU_ZERO_BELOW_TF, x, ref_gelu(x));
  case KK_ACT_GELU_ONEDNN:
    return fabsf(x) == INFINITY ? u2f(x < 0.0f ? 0x7fc00000u : 0xffc00000u)
                                : ref_gelu_zero(KK_GELU_ZERO_BELOW, x, ref_gelu(x));
  case KK_ACT_GELU_TANH: return ref_gelu_zero(KK_GELU_TANH_ZERO_BELOW, x, ref_gelu_tanh(x));
  case KK_ACT_GELU_TANH_TF: return ref_gelu_zero(KK_GELU_TANH_ZERO_BELOW_TF, x, ref_gelu_tanh(x));
  case KK_ACT_SQUARE: return x * x;
  case KK_ACT_EXP: return ref_exp(x);
  case KK_ACT_SILU: return ref_silu(x);
  case KK_ACT_RELU: /* negative, non-zero, not NaN -> +0 */
    return ((u & 0x80000000u) && u != 0x80000000u && !isnan_bits(u)) ? 0.0f : x;
  case KK_ACT_RELU_TF: /* keep x >= FLT_MIN or NaN */
    return (isnan_bits(u) || (!(u & 0x80000000u) && u >= 0x00800000u)) ? x : 0.0f;
  case KK_ACT_SIGMOID: return ref_sigmoid_s(0, x);
  case KK_ACT_SIGMOID_TF: return ref_sigmoid_s(1, x);
  case KK_ACT_TANH: return ref_tanh(x);
  default: return x;
  }
}

/* torch.add(a, b) on x86: b's NaN wins when both are NaN (quietened). */
static inline float ref_add(float a, float b)
{
  uint32_t ub = f2u(b);
  if (isnan_bits(ub)) return u2f(ub | 0x00400000u);
  return a + b;
}

void kk_sgemm_ukernel_4x16__ref(int64_t mr, int64_t nr, int64_t K, const float *a, int64_t a_rs,
                                int64_t a_cs, const float *b, int64_t b_rs, float *c, int64_t ldc,
                                const kk_epilogue *ep)
{
  float acc[4][16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) acc[i][j] = 0.0f;
  for (int64_t k = 0; k < K; k++) {
    const float *bk = b + k * b_rs;
    for (int64_t i = 0; i < mr; i++) {
      float aik = a[i * a_rs + k * a_cs];
      for (int64_t j = 0; j < nr; j++) acc[i][j] += aik * bk[j];
    }
  }
  for (int64_t i = 0; i < mr; i++) {
    float rs = 0.0f;
    for (int64_t j = 0; j < nr; j++) {
      float x = acc[i][j];
      if (ep->flags & KK_EPI_ACCUM) x += c[i * ldc + j];
      if (ep->flags & KK_EPI_FINAL) {
        if (ep->bias) x += ep->bias[j * ep->bias_s];
        x = ref_act(ep->act, x);
        rs += x;
      }
      if (c) c[i * ldc + j] = x;
    }
    if ((ep->flags & KK_EPI_FINAL) && ep->rowsum) ep->rowsum[i] += rs;
  }
}

static void act_row__ref(int act, int64_t n, const float *x, float *y)
{
  if (act == KK_ACT_NONE) {
    memcpy(y, x, (size_t)n * sizeof(float));
    return;
  }
  for (int64_t j = 0; j < n; j++) y[j] = ref_act(act, x[j]);
}

/* Whether x[0..n) holds a NaN (kk_any_nan). */
static int any_nan__ref(int64_t n, const float *x)
{
  uint32_t any = 0;
  for (int64_t j = 0; j < n; j++) any |= (f2u(x[j]) & 0x7fffffffu) > 0x7f800000u;
  return any != 0;
}

static void add_row__ref(int act, int64_t n, const float *a, const float *b, float *y)
{
  for (int64_t j = 0; j < n; j++) y[j] = ref_act(act, ref_add(a[j], b[j]));
}

/* kk_ewise's step codes: a kk_act, KK_EW_CODE_NEG, KK_EW_CODE_BIN +
 * ((op * 2 + nan_b) * 2 + x_left) * 2 + one (x is one value a row),
 * KK_EW_CODE_PUSH + one, or KK_EW_CODE_POP + (op * 2 + nan_b) * 2 + x_left. */
enum {
  KK_EW_CODE_NEG = KK_NUM_ACTS,
  KK_EW_CODE_BIN = KK_NUM_ACTS + 1,
  KK_EW_CODE_PUSH = KK_EW_CODE_BIN + (KK_BIN_LEAKY + 1) * 8,
  KK_EW_CODE_POP = KK_EW_CODE_PUSH + 2
};

/* x read as DAZ reads it: a subnormal a zero of its sign. */
static inline float daz(float x) { return (f2u(x) & 0x7f800000u) ? x : u2f(f2u(x) & 0x80000000u); }

/* a op b for kk_binary, one element. When both are NaN the result is the
 * quieted NaN of A, or of B with nan_b (x86 returns its first source, and a
 * compiler may swap a commutative op's sources: so it is chosen explicitly). */
static inline float ref_bin(int op, int nan_b, float a, float b)
{
  float r;
  switch (op) {
  case KK_BIN_ADD: r = a + b; break;
  case KK_BIN_SUB: r = a - b; break;
  case KK_BIN_MUL: r = a * b; break;
  case KK_BIN_DIV: r = a / b; break;
  case KK_BIN_MAX: return a > b ? a : b; /* x86's maxss / minss: B where either is NaN */
  case KK_BIN_MIN: return a < b ? a : b;
  case KK_BIN_LEAKY: /* b * a as x86's mulss of (b, a): b's NaN first */
    if (b > 0.0f) return b;
    return isnan_bits(f2u(b)) ? u2f(f2u(b) | 0x00400000u) : b * a;
  case KK_BIN_MAXIMUM: return a != a || b != b ? u2f(0xffffffffu) : a > b ? a : b;
  case KK_BIN_MINIMUM: return a != a || b != b ? u2f(0xffffffffu) : a < b ? a : b;
  case KK_BIN_MAXIMUM_TAIL: return a != a || b != b ? u2f(0x7fc00000u) : a < b ? b : a;
  case KK_BIN_MINIMUM_TAIL: return a != a || b != b ? u2f(0x7fc00000u) : b < a ? b : a;
  case KK_BIN_MAXIMUM_TF:
  case KK_BIN_MINIMUM_TF:
  case KK_BIN_MAXIMUM_TF_TAIL:
  case KK_BIN_MINIMUM_TF_TAIL: {
    if (a != a) return a;
    if (b != b) return b;
    const float fa = daz(a), fb = daz(b); /* two zeros: B in the loop, A in the tail */
    const bool tail = op == KK_BIN_MAXIMUM_TF_TAIL || op == KK_BIN_MINIMUM_TF_TAIL;
    const bool max = op == KK_BIN_MAXIMUM_TF || op == KK_BIN_MAXIMUM_TF_TAIL;
    const float first = tail ? fb : fa, second = tail ? fa : fb; /* x86's maxss / minss of (first, second) */
    return (max ? first > second : first < second) ? first : second;
  }
  default: r = (1.0f / a) * b; break; /* KK_BIN_RECIP_MUL */
  }
  uint32_t ua = f2u(a), ub = f2u(b);
  bool na = isnan_bits(ua), nb = isnan_bits(ub);
  if (na && nb) return u2f((nan_b ? ub : ua) | 0x00400000u);
  return r;
}

static void bin_rows__ref(int op, int nan_b, int64_t m, int64_t n, const float *a, int64_t as0, int64_t as,
                          const float *b, int64_t bs0, int64_t bs, float *y)
{
  for (int64_t i = 0; i < m; i++, a += as0, b += bs0, y += n)
    for (int64_t j = 0; j < n; j++) y[j] = ref_bin(op, nan_b, a[j * as], b[j * bs]);
}

/* y = e^x for x <= 0, -inf or NaN (softmax's x - max): below KK_EXP_MIN the
 * result is 0 (e^-110 is below float32's smallest subnormal); NaN stays NaN. */
static void exp_row__ref(int64_t n, const float *x, float *y)
{
  for (int64_t j = 0; j < n; j++) y[j] = x[j] != x[j] ? x[j] + x[j] : ref_exp_core(x[j] < KK_EXP_MIN ? KK_EXP_MIN : x[j]);
}

/* Pairwise over blocks of 128 with 8 interleaved partial sums, so error grows
 * like log(n) rather than n. */
static float sum_strided__ref(int64_t n, const float *x, int64_t s)
{
  if (n > 128) {
    int64_t h = (n / 2 + 7) & ~(int64_t)7;
    return sum_strided__ref(h, x, s) + sum_strided__ref(n - h, x + h * s, s);
  }
  float p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int q = 0; q < 8; q++) p[q] += x[(j + q) * s];
  for (; j < n; j++) p[0] += x[j * s];
  return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

static float sum_row__ref(int64_t n, const float *x) { return sum_strided__ref(n, x, 1); }

/* A row's mean and mean squared deviation (kk_moments), in double over four
 * lanes: two passes, the sum and then the squares about the mean. */
static void moments_strided__ref(int64_t n, const float *x, int64_t s, double *mean, double *var)
{
  double p[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t j = 0;
  for (; j + 4 <= n; j += 4)
    for (int q = 0; q < 4; q++) p[q] += (double)x[(j + q) * s];
  for (; j < n; j++) p[0] += (double)x[j * s];
  const double m = ((p[0] + p[1]) + (p[2] + p[3])) / (double)n;
  p[0] = p[1] = p[2] = p[3] = 0.0;
  for (j = 0; j + 4 <= n; j += 4)
    for (int q = 0; q < 4; q++) {
      const double d = (double)x[(j + q) * s] - m;
      p[q] += d * d;
    }
  for (; j < n; j++) {
    const double d = (double)x[j * s] - m;
    p[0] += d * d;
  }
  *mean = m;
  *var = ((p[0] + p[1]) + (p[2] + p[3])) / (double)n;
}

static void moments_row__ref(int64_t n, const float *x, double *mean, double *var)
{
  moments_strided__ref(n, x, 1, mean, var);
}

static inline int64_t min64_(int64_t a, int64_t b) { return a < b ? a : b; }

/* out[i] = sum_j x[i + j*s] for i < m (columns of a column-major block). */
static void sum_cols__ref(int64_t m, int64_t n, const float *x, int64_t s, float *out)
{
  for (int64_t i = 0; i < m; i++) out[i] = sum_strided__ref(n, x + i, s);
}

/* ===================================================================== */
/* 2. AVX2 + FMA                                                          */
/* ===================================================================== */
#if KK_X86
#define KK_AVX2 __attribute__((target("avx2,fma")))

KK_AVX2 KK_INLINE __m256i mask8(int64_t n) /* lanes < n set */
{
  int32_t k = n < 0 ? 0 : (n > 8 ? 8 : (int32_t)n);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* e^t, or e^-t when NEG (the negation folded into the reduction); t in
 * [-110, 110]. A NaN t comes out as itself, quietened, sign kept. */
KK_AVX2 KK_INLINE __m256 exp_core_avx2_s(const int NEG, __m256 t)
{
  __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(NEG ? -KK_LOG2E : KK_LOG2E)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = NEG ? _mm256_fnmsub_ps(n, _mm256_set1_ps(KK_LN2_HI), t) : _mm256_fnmadd_ps(n, _mm256_set1_ps(KK_LN2_HI), t);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(KK_LN2_LO), r);
  __m256 p = _mm256_set1_ps(KK_EXP_P0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KK_EXP_P1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KK_EXP_P2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KK_EXP_P3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KK_EXP_P4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KK_EXP_P5));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  /* 2^n split in two normal factors so tiny results become denormals, not garbage */
  __m256i ni = _mm256_cvtps_epi32(n);
  __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
  __m256i b127 = _mm256_set1_epi32(127);
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, b127), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, b127), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

KK_AVX2 KK_INLINE __m256 exp_core_avx2(__m256 t) { return exp_core_avx2_s(0, t); }

KK_AVX2 KK_INLINE __m256 nanfix_avx2(__m256 y, __m256 x) /* NaN in -> quiet NaN out */
{
  __m256 m = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_ps(y, _mm256_add_ps(x, x), m);
}

/* See ref_sigmoid_s. torch's form negates x before exp (a NaN's sign flips,
 * one op more); TF's folds the negation into exp's reduction. The results
 * are the same bits otherwise (the bounds are symmetric, negation exact). */
KK_AVX2 KK_INLINE __m256 sigmoid_avx2_s(const int TF, __m256 x)
{
  if (!TF) x = _mm256_xor_ps(x, _mm256_set1_ps(-0.0f));
  /* max/min return their second operand when either is NaN: a NaN x flows
   * through as itself */
  __m256 c = _mm256_min_ps(_mm256_set1_ps(KK_EXP_MAX), _mm256_max_ps(_mm256_set1_ps(KK_EXP_MIN), x));
  return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(_mm256_set1_ps(1.0f), exp_core_avx2_s(TF, c)));
}

KK_AVX2 static void exp_row__avx2(int64_t n, const float *x, float *y) /* see exp_row__ref */
{
  int64_t j = 0;
  const __m256 lo = _mm256_set1_ps(KK_EXP_MIN);
  for (; j + 8 <= n; j += 8) {
    __m256 v = _mm256_loadu_ps(x + j);
    _mm256_storeu_ps(y + j, nanfix_avx2(exp_core_avx2(_mm256_max_ps(v, lo)), v));
  }
  if (j < n) {
    __m256i m = mask8(n - j);
    __m256 v = _mm256_maskload_ps(x + j, m);
    _mm256_maskstore_ps(y + j, m, nanfix_avx2(exp_core_avx2(_mm256_max_ps(v, lo)), v));
  }
}

KK_AVX2 KK_INLINE __m256 tanh_avx2(__m256 x)
{
  const __m256 sgn = _mm256_set1_ps(-0.0f);
  __m256 a = _mm256_andnot_ps(sgn, x);
  __m256 t = _mm256_mul_ps(a, a);
  __m256 p = _mm256_set1_ps(KK_TANH_T5);
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(KK_TANH_T4));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(KK_TANH_T3));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(KK_TANH_T2));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(KK_TANH_T1));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(KK_TANH_T0));
  __m256 y = _mm256_fmadd_ps(_mm256_mul_ps(a, t), p, a);
  __m256 small = _mm256_cmp_ps(a, _mm256_set1_ps(KK_TANH_SMALL), _CMP_LT_OQ);
  if (_mm256_movemask_ps(small) != 0xff) { /* skip exp when every lane is small */
    __m256 a2 = _mm256_min_ps(_mm256_add_ps(a, a), _mm256_set1_ps(KK_TANH_EXPMAX));
    __m256 e = exp_core_avx2(a2);
    __m256 yl = _mm256_sub_ps(_mm256_set1_ps(1.0f),
                              _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, _mm256_set1_ps(1.0f))));
    y = _mm256_blendv_ps(yl, y, small);
  }
  y = _mm256_or_ps(y, _mm256_and_ps(x, sgn));
  return nanfix_avx2(y, x);
}

/* max returns its second operand where either is NaN or both are zeros:
 * NaN and -0.0 pass as themselves, in one op where a compare and a blend
 * were two (kk_unary relu 1.19x) */
KK_AVX2 KK_INLINE __m256 relu_avx2(__m256 x) { return _mm256_max_ps(_mm256_setzero_ps(), x); }

KK_AVX2 KK_INLINE __m256 relu_tf_avx2(__m256 x) /* keep x >= FLT_MIN or NaN */
{
  return _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(FLT_MIN), _CMP_NLT_UQ), x);
}

KK_AVX2 KK_INLINE __m256 exp_clamped_avx2_s(const int NEG, __m256 x) /* see sigmoid_avx2_s */
{
  __m256 c = _mm256_min_ps(_mm256_set1_ps(KK_EXP_MAX), _mm256_max_ps(_mm256_set1_ps(KK_EXP_MIN), x));
  return exp_core_avx2_s(NEG, c);
}

KK_AVX2 KK_INLINE __m256 exp_avx2(__m256 x) { return nanfix_avx2(exp_clamped_avx2_s(0, x), x); } /* see ref_exp */

KK_AVX2 KK_INLINE __m256 silu_avx2(__m256 x) /* see ref_silu */
{
  __m256 y = _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_clamped_avx2_s(1, x)));
  return nanfix_avx2(y, x);
}

/* See ref_gelu: both signs computed, blended per lane */
KK_AVX2 KK_INLINE __m256 gelu_avx2(__m256 x)
{
  const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
  /* min returns its second operand for a NaN x: a finite a, and x's NaN passes through the product below */
  const __m256 a = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), _mm256_set1_ps(KK_GELU_ABS_MAX));
  const __m256 s = _mm256_mul_ps(a, a), e = _mm256_fmsub_ps(a, a, s); /* a * a = s + e exactly */
  const __m256 za = _mm256_mul_ps(a, _mm256_set1_ps(KK_GELU_SQRT1_2));
  const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(za, _mm256_set1_ps(KK_GELU_P), one));
  __m256 q = _mm256_set1_ps(KK_GELU_Q9);
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q8));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q7));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q6));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q5));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q4));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q3));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q2));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q1));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(KK_GELU_Q0));
  const __m256 ex = exp_core_avx2_s(1, _mm256_min_ps(_mm256_mul_ps(half, s), _mm256_set1_ps(-KK_EXP_MIN)));
  const __m256 m = _mm256_mul_ps(_mm256_mul_ps(t, q), _mm256_fnmadd_ps(half, e, one)); /* erfc(|z|) = m ex; see ref_gelu */
  const __m256 pos = _mm256_mul_ps(x, _mm256_fnmadd_ps(half, _mm256_mul_ps(m, ex), one));
  const __m256 neg = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(half, x), m), ex);
  return _mm256_blendv_ps(pos, neg, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
}

/* See ref_gelu_zero */
KK_AVX2 KK_INLINE __m256 gelu_zero_avx2(float below, __m256 x, __m256 y)
{
  return _mm256_blendv_ps(y, _mm256_mul_ps(x, _mm256_setzero_ps()), _mm256_cmp_ps(x, _mm256_set1_ps(below), _CMP_LE_OQ));
}

/* See KK_ACT_GELU_ONEDNN: +-inf -> the NaN of the other sign */
KK_AVX2 KK_INLINE __m256 gelu_onednn_avx2(__m256 x)
{
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 inf = _mm256_cmp_ps(_mm256_andnot_ps(sign, x), _mm256_set1_ps(INFINITY), _CMP_EQ_OQ);
  const __m256 nan = _mm256_xor_ps(_mm256_and_ps(x, sign), _mm256_castsi256_ps(_mm256_set1_epi32((int)0xffc00000u)));
  return _mm256_blendv_ps(gelu_zero_avx2(KK_GELU_ZERO_BELOW, x, gelu_avx2(x)), nan, inf);
}

KK_AVX2 KK_INLINE __m256 gelu_tanh_avx2(__m256 x) /* see ref_gelu_tanh */
{
  const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
  const __m256 w2 = _mm256_mul_ps(_mm256_fmadd_ps(x3, _mm256_set1_ps(KK_GELU_KAPPA), x), _mm256_set1_ps(KK_GELU_2BETA));
  const __m256 aw = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), w2), _mm256_set1_ps(KK_EXP_MAX));
  const __m256 e = exp_core_avx2_s(1, aw), r = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
  const __m256 sg = _mm256_blendv_ps(r, _mm256_mul_ps(e, r), _mm256_cmp_ps(w2, _mm256_setzero_ps(), _CMP_LT_OQ));
  return nanfix_avx2(_mm256_mul_ps(x, sg), x);
}

/* See ref_log: the same steps, 8 lanes */
KK_AVX2 KK_INLINE __m256 log_avx2_s(const int TF, __m256 x)
{
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(FLT_MIN), _CMP_LT_OQ);
  const __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(8388608.0f)), tiny);
  const __m256i u = _mm256_castps_si256(xs);
  __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(u, 23), _mm256_set1_epi32(126)));
  e = _mm256_sub_ps(e, _mm256_and_ps(tiny, _mm256_set1_ps(23.0f)));
  __m256 m = _mm256_castsi256_ps(
      _mm256_or_si256(_mm256_and_si256(u, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f000000)));
  const __m256 lo = _mm256_cmp_ps(m, _mm256_set1_ps(KK_SQRTHF), _CMP_LT_OQ);
  e = _mm256_sub_ps(e, _mm256_and_ps(lo, one));
  m = _mm256_sub_ps(_mm256_add_ps(m, _mm256_and_ps(lo, m)), one);
  const __m256 z = _mm256_mul_ps(m, m);
  __m256 y = _mm256_set1_ps(KK_LOG_P0);
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P1));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P2));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P3));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P4));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P5));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P6));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P7));
  y = _mm256_fmadd_ps(y, m, _mm256_set1_ps(KK_LOG_P8));
  y = _mm256_mul_ps(_mm256_mul_ps(y, m), z);
  y = _mm256_fmadd_ps(e, _mm256_set1_ps(KK_LN2_LO), y);
  y = _mm256_fnmadd_ps(_mm256_set1_ps(0.5f), z, y);
  __m256 r = _mm256_fmadd_ps(e, _mm256_set1_ps(KK_LN2_HI), _mm256_add_ps(m, y));
  r = _mm256_blendv_ps(r, _mm256_set1_ps(-INFINITY), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
  r = _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
  const __m256 bad = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ); /* negative; NaNs below */
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  if (TF == 1) return _mm256_or_ps(r, _mm256_or_ps(bad, nan)); /* all ones */
  if (TF == 2) { /* by the bits, as ref_log */
    const __m256i ux = _mm256_castps_si256(x), zero = _mm256_setzero_si256();
    const __m256 neg = _mm256_castsi256_ps(_mm256_and_si256(_mm256_cmpgt_epi32(zero, ux),
                                                            _mm256_cmpgt_epi32(ux, _mm256_set1_epi32(INT32_MIN))));
    const __m256 sub = _mm256_castsi256_ps(_mm256_and_si256(_mm256_cmpgt_epi32(ux, zero),
                                                            _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), ux)));
    r = _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xffc00000u)), neg);
    r = _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xc2cff1b4u)), sub);
  } else {
    r = _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)), bad);
  }
  return _mm256_blendv_ps(r, _mm256_add_ps(x, x), nan);
}

KK_AVX2 KK_INLINE __m256 act_avx2(int act, __m256 x)
{
  switch (act) {
  case KK_ACT_ABS: return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  case KK_ACT_SQRT: /* negative -> torch's positive NaN */
    return _mm256_blendv_ps(_mm256_sqrt_ps(x), _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)),
                            _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  case KK_ACT_SQRT_TF: return _mm256_sqrt_ps(x);
  case KK_ACT_LOG: return log_avx2_s(0, x);
  case KK_ACT_LOG_TF: return log_avx2_s(1, x);
  case KK_ACT_LOG_TF_TAIL: return log_avx2_s(2, x);
  case KK_ACT_RSQRT: return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(x));
  case KK_ACT_RELU6: return _mm256_min_ps(_mm256_set1_ps(6.0f), _mm256_max_ps(_mm256_setzero_ps(), x));
  case KK_ACT_RELU6_TF: return _mm256_min_ps(_mm256_set1_ps(6.0f), relu_tf_avx2(x));
  case KK_ACT_HARDTANH: return _mm256_min_ps(_mm256_set1_ps(1.0f), _mm256_max_ps(_mm256_set1_ps(-1.0f), x));
  case KK_ACT_SILU_TF: return nanfix_avx2(_mm256_mul_ps(x, sigmoid_avx2_s(1, x)), x); /* see ref_act */
  case KK_ACT_GELU: return gelu_zero_avx2(KK_GELU_ZERO_BELOW, x, gelu_avx2(x));
  case KK_ACT_GELU_TF: return gelu_zero_avx2(KK_GELU_ZERO_BELOW_TF, x, gelu_avx2(x));
  case KK_ACT_GELU_ONEDNN: return gelu_onednn_avx2(x);
  case KK_ACT_GELU_TANH: return gelu_zero_avx2(KK_GELU_TANH_ZERO_BELOW, x, gelu_tanh_avx2(x));
  case KK_ACT_GELU_TANH_TF: return gelu_zero_avx2(KK_GELU_TANH_ZERO_BELOW_TF, x, gelu_tanh_avx2(x));
  case KK_ACT_SQUARE: return _mm256_mul_ps(x, x);
  case KK_ACT_EXP: return exp_avx2(x);
  case KK_ACT_SILU: return silu_avx2(x);
  case KK_ACT_RELU: return relu_avx2(x);
  case KK_ACT_RELU_TF: return relu_tf_avx2(x);
  case KK_ACT_SIGMOID: return sigmoid_avx2_s(0, x);
  case KK_ACT_SIGMOID_TF: return sigmoid_avx2_s(1, x);
  case KK_ACT_TANH: return tanh_avx2(x);
  default: return x;
  }
}

/* first_nan_avx512's and sub_b_nan_avx512's AVX2 twins. */
KK_AVX2 KK_INLINE __m256 first_nan_avx2(const int op, __m256 s1, __m256 s2)
{
  __m256 r;
  switch (op) {
  case KK_BIN_ADD: __asm__("vaddps %2, %1, %0" : "=x"(r) : "x"(s1), "xm"(s2)); break;
  case KK_BIN_SUB: __asm__("vsubps %2, %1, %0" : "=x"(r) : "x"(s1), "xm"(s2)); break;
  case KK_BIN_MUL: __asm__("vmulps %2, %1, %0" : "=x"(r) : "x"(s1), "xm"(s2)); break;
  default: __asm__("vdivps %2, %1, %0" : "=x"(r) : "x"(s1), "xm"(s2)); break;
  }
  return r;
}

KK_AVX2 KK_INLINE __m256 sub_b_nan_avx2(__m256 a, __m256 b)
{
  __m256 r = b;
  __asm__("vfnmadd213ps %2, %1, %0" : "+x"(r) : "x"(_mm256_set1_ps(1.0f)), "xm"(a));
  return r;
}

KK_AVX2 KK_INLINE __m256 add_avx2(__m256 a, __m256 b) { return first_nan_avx2(KK_BIN_ADD, b, a); }

/* Applies act to a spilled tile, stores it and feeds the row sums. Out of line
 * so sigmoid/tanh are not duplicated into every micro-kernel instance. */
KK_AVX2 KK_NOINLINE static void epi_finish_avx2(int64_t mr, int64_t nr, const float *tile,
                                                float *c, int64_t ldc, int act, float *rowsum)
{
  __m256i m0 = mask8(nr), m1 = mask8(nr - 8);
  for (int64_t i = 0; i < mr; i++) {
    __m256 x0 = act_avx2(act, _mm256_load_ps(tile + i * 16));
    __m256 x1 = nr > 8 ? act_avx2(act, _mm256_load_ps(tile + i * 16 + 8)) : _mm256_setzero_ps();
    if (c) {
      _mm256_maskstore_ps(c + i * ldc, m0, x0);
      if (nr > 8) _mm256_maskstore_ps(c + i * ldc + 8, m1, x1);
    }
    if (rowsum) {
      __m256 s = _mm256_add_ps(_mm256_and_ps(x0, _mm256_castsi256_ps(m0)),
                               _mm256_and_ps(x1, _mm256_castsi256_ps(m1)));
      __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
      h = _mm_add_ps(h, _mm_movehl_ps(h, h));
      h = _mm_add_ss(h, _mm_movehdup_ps(h));
      rowsum[i] += _mm_cvtss_f32(h);
    }
  }
}

/* MR rows × NV ymm columns, KU interleaved accumulator sets (hides FMA latency
 * when MR is small). AP: A packed with a_rs = 1, a_cs = 6 (constant strides). */
KK_AVX2 KK_INLINE void ukr_avx2(const int MR, const int NV, const int KU, const int AP, int64_t nr,
                                int64_t K, const float *a, int64_t a_rs, int64_t a_cs,
                                const float *b, int64_t b_rs, float *c, int64_t ldc,
                                const kk_epilogue *ep)
{
  if (AP) { a_rs = 1; a_cs = 6; }
  const __m256i m0 = mask8(nr), m1 = mask8(nr - 8);
  __m256 acc[4][6][2];
#pragma GCC unroll 4
  for (int u = 0; u < KU; u++)
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
      for (int v = 0; v < NV; v++) acc[u][i][v] = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + KU <= K; k += KU) {
#pragma GCC unroll 4
    for (int u = 0; u < KU; u++) {
      const float *bk = b + (k + u) * b_rs;
      const float *ak = a + (k + u) * a_cs;
      __m256 b0 = _mm256_maskload_ps(bk, m0);
      __m256 b1 = NV == 2 ? _mm256_maskload_ps(bk + 8, m1) : _mm256_setzero_ps();
#pragma GCC unroll 6
      for (int i = 0; i < MR; i++) {
        __m256 av = _mm256_broadcast_ss(ak + i * a_rs);
        acc[u][i][0] = _mm256_fmadd_ps(av, b0, acc[u][i][0]);
        if (NV == 2) acc[u][i][1] = _mm256_fmadd_ps(av, b1, acc[u][i][1]);
      }
    }
  }
  for (; k < K; k++) {
    const float *bk = b + k * b_rs;
    const float *ak = a + k * a_cs;
    __m256 b0 = _mm256_maskload_ps(bk, m0);
    __m256 b1 = NV == 2 ? _mm256_maskload_ps(bk + 8, m1) : _mm256_setzero_ps();
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
      __m256 av = _mm256_broadcast_ss(ak + i * a_rs);
      acc[0][i][0] = _mm256_fmadd_ps(av, b0, acc[0][i][0]);
      if (NV == 2) acc[0][i][1] = _mm256_fmadd_ps(av, b1, acc[0][i][1]);
    }
  }
#pragma GCC unroll 4
  for (int u = 1; u < KU; u++)
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
      for (int v = 0; v < NV; v++) acc[0][i][v] = _mm256_add_ps(acc[0][i][v], acc[u][i][v]);

  const int flags = ep->flags, act = ep->act;
  const int hasb = (flags & KK_EPI_FINAL) && ep->bias;
  __m256 bv[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  if (hasb) {
    if (ep->bias_s == 1) {
      bv[0] = _mm256_maskload_ps(ep->bias, m0);
      if (NV == 2) bv[1] = _mm256_maskload_ps(ep->bias + 8, m1);
    } else {
      float tmp[16] = {0};
      for (int64_t j = 0; j < nr; j++) tmp[j] = ep->bias[j * ep->bias_s];
      bv[0] = _mm256_loadu_ps(tmp);
      bv[1] = _mm256_loadu_ps(tmp + 8);
    }
  }
  const int inl = !(flags & KK_EPI_FINAL) ||
                  (ep->rowsum == NULL && (act == KK_ACT_NONE || act == KK_ACT_RELU || act == KK_ACT_RELU_TF));
  _Alignas(32) float tile[6 * 16];
#pragma GCC unroll 6
  for (int i = 0; i < MR; i++) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; v++) {
      __m256i mv = v ? m1 : m0;
      __m256 x = acc[0][i][v];
      if (flags & KK_EPI_ACCUM) x = _mm256_add_ps(x, _mm256_maskload_ps(c + i * ldc + 8 * v, mv));
      if (hasb) x = _mm256_add_ps(x, bv[v]);
      if (inl) {
        if (flags & KK_EPI_FINAL) {
          if (act == KK_ACT_RELU) x = relu_avx2(x);
          else if (act == KK_ACT_RELU_TF) x = relu_tf_avx2(x);
        }
        _mm256_maskstore_ps(c + i * ldc + 8 * v, mv, x);
      } else {
        _mm256_store_ps(tile + i * 16 + 8 * v, x);
      }
    }
  }
  if (!inl) epi_finish_avx2(MR, nr, tile, c, ldc, act, ep->rowsum);
}

#define KK_UKR2_CASE(MR_, KU_)                                                           \
  case MR_:                                                                              \
    if (nr > 8) ukr_avx2(MR_, 2, KU_, 0, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);     \
    else ukr_avx2(MR_, 1, KU_, 0, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);            \
    return;

KK_AVX2 void kk_sgemm_ukernel_6x16__avx2(int64_t mr, int64_t nr, int64_t K, const float *a,
                                         int64_t a_rs, int64_t a_cs, const float *b, int64_t b_rs,
                                         float *c, int64_t ldc, const kk_epilogue *ep)
{
  if (mr == 6 && a_rs == 1 && a_cs == 6) { /* packed full tile: constant A offsets */
    if (nr > 8) ukr_avx2(6, 2, 1, 1, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);
    else ukr_avx2(6, 1, 1, 1, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);
    return;
  }
  switch (mr) {
    KK_UKR2_CASE(1, 4)
    KK_UKR2_CASE(2, 2)
    KK_UKR2_CASE(3, 2)
    KK_UKR2_CASE(4, 1)
    KK_UKR2_CASE(5, 1)
    KK_UKR2_CASE(6, 1)
  default: return;
  }
}

KK_AVX2 static void act_row__avx2(int act, int64_t n, const float *x, float *y)
{
  int64_t j = 0;
  switch (act) {
  case KK_ACT_NONE:
    memcpy(y, x, (size_t)n * sizeof(float));
    return;
  case KK_ACT_RELU:
  case KK_ACT_RELU_TF:
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, act_avx2(act, _mm256_loadu_ps(x + j)));
    break;
  case KK_ACT_SIGMOID:
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, sigmoid_avx2_s(0, _mm256_loadu_ps(x + j)));
    break;
  case KK_ACT_SIGMOID_TF:
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, sigmoid_avx2_s(1, _mm256_loadu_ps(x + j)));
    break;
  case KK_ACT_TANH:
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, tanh_avx2(_mm256_loadu_ps(x + j)));
    break;
#define KK_ACT_ROW_CASE_AVX2(ACT) \
  case ACT: \
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, act_avx2(ACT, _mm256_loadu_ps(x + j))); \
    break;
  KK_ACT_ROW_CASE_AVX2(KK_ACT_ABS)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_SQRT)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_SQUARE)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_EXP)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_SILU)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_SQRT_TF)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_LOG)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_LOG_TF)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_RSQRT)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_RELU6)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_RELU6_TF)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_HARDTANH)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_SILU_TF)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_GELU)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_GELU_TF)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_GELU_ONEDNN)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_GELU_TANH)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_GELU_TANH_TF)
  KK_ACT_ROW_CASE_AVX2(KK_ACT_LOG_TF_TAIL)
#undef KK_ACT_ROW_CASE_AVX2
  default: return;
  }
  if (j < n) {
    __m256i m = mask8(n - j);
    _mm256_maskstore_ps(y + j, m, act_avx2(act, _mm256_maskload_ps(x + j, m)));
  }
}

KK_AVX2 static int any_nan__avx2(int64_t n, const float *x)
{
  __m256 any = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 v = _mm256_loadu_ps(x + j);
    any = _mm256_or_ps(any, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  return _mm256_movemask_ps(any) != 0 || any_nan__ref(n - j, x + j);
}

KK_AVX2 static void add_row__avx2(int act, int64_t n, const float *a, const float *b, float *y)
{
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(y + j, act_avx2(act, add_avx2(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j))));
  if (j < n) {
    __m256i m = mask8(n - j);
    __m256 s = add_avx2(_mm256_maskload_ps(a + j, m), _mm256_maskload_ps(b + j, m));
    _mm256_maskstore_ps(y + j, m, act_avx2(act, s));
  }
}

/* Both NaN: A's or (nan_b) B's NaN, quieted; see ref_bin. */
KK_AVX2 KK_INLINE __m256 bin_avx2(int op, int nan_b, __m256 a, __m256 b)
{
  if (op == KK_BIN_RECIP_MUL) { /* (1 / a) * b: 1 / a keeps a's NaN */
    a = _mm256_div_ps(_mm256_set1_ps(1.0f), a);
    op = KK_BIN_MUL;
  }
  switch (op) {
  case KK_BIN_MAX: return _mm256_max_ps(a, b);
  case KK_BIN_MIN: return _mm256_min_ps(a, b);
  case KK_BIN_MAXIMUM:
  case KK_BIN_MINIMUM: { /* see ref_bin; all-ones is a NaN */
    const __m256 r = op == KK_BIN_MAXIMUM ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
    return _mm256_or_ps(r, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
  }
  case KK_BIN_MAXIMUM_TAIL:
  case KK_BIN_MINIMUM_TAIL: {
    const __m256 b_wins = op == KK_BIN_MAXIMUM_TAIL ? _mm256_cmp_ps(a, b, _CMP_LT_OQ) : _mm256_cmp_ps(b, a, _CMP_LT_OQ);
    return _mm256_blendv_ps(_mm256_blendv_ps(a, b, b_wins), _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)),
                            _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
  }
  case KK_BIN_MAXIMUM_TF:
  case KK_BIN_MINIMUM_TF:
  case KK_BIN_MAXIMUM_TF_TAIL:
  case KK_BIN_MINIMUM_TF_TAIL: { /* see ref_bin */
    const __m256 expo = _mm256_castsi256_ps(_mm256_set1_epi32(0x7f800000)), sign = _mm256_set1_ps(-0.0f);
    const __m256 fa = _mm256_blendv_ps(_mm256_and_ps(a, sign), a, _mm256_cmp_ps(_mm256_and_ps(a, expo), _mm256_setzero_ps(), _CMP_NEQ_UQ));
    const __m256 fb = _mm256_blendv_ps(_mm256_and_ps(b, sign), b, _mm256_cmp_ps(_mm256_and_ps(b, expo), _mm256_setzero_ps(), _CMP_NEQ_UQ));
    const bool tail = op == KK_BIN_MAXIMUM_TF_TAIL || op == KK_BIN_MINIMUM_TF_TAIL;
    const __m256 first = tail ? fb : fa, second = tail ? fa : fb;
    __m256 r = op == KK_BIN_MAXIMUM_TF || op == KK_BIN_MAXIMUM_TF_TAIL ? _mm256_max_ps(first, second)
                                                                       : _mm256_min_ps(first, second);
    r = _mm256_blendv_ps(r, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
    return _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
  case KK_BIN_LEAKY:
    return _mm256_blendv_ps(first_nan_avx2(KK_BIN_MUL, b, a), b, _mm256_cmp_ps(b, _mm256_setzero_ps(), _CMP_GT_OQ));
  case KK_BIN_ADD: return nan_b ? first_nan_avx2(KK_BIN_ADD, b, a) : first_nan_avx2(KK_BIN_ADD, a, b);
  case KK_BIN_MUL: return nan_b ? first_nan_avx2(KK_BIN_MUL, b, a) : first_nan_avx2(KK_BIN_MUL, a, b);
  case KK_BIN_SUB: return nan_b ? sub_b_nan_avx2(a, b) : first_nan_avx2(KK_BIN_SUB, a, b);
  default: { /* DIV */
    const __m256 r = first_nan_avx2(KK_BIN_DIV, a, b);
    if (!nan_b) return r;
    const __m256 bq = _mm256_or_ps(b, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
    return _mm256_blendv_ps(r, bq, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  }
  }
}

KK_AVX2 KK_INLINE void bin_rows_avx2(const int op, const int nan_b, const int as, const int bs, int64_t rows,
                                     int64_t n, const float *a, int64_t as0, const float *b, int64_t bs0, float *y)
{
  /* masked-off lanes hold 1.0, so no lane divides by zero or raises a flag of its own */
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256i m = mask8(n % 8);
  for (int64_t i = 0; i < rows; i++, a += as0, b += bs0, y += n) {
    int64_t j = 0;
    const __m256 a0 = _mm256_set1_ps(a[0]), b0 = _mm256_set1_ps(b[0]);
    for (; j + 8 <= n; j += 8) {
      __m256 va = as ? _mm256_loadu_ps(a + j) : a0, vb = bs ? _mm256_loadu_ps(b + j) : b0;
      _mm256_storeu_ps(y + j, bin_avx2(op, nan_b, va, vb));
    }
    if (j < n) {
      __m256 va = as ? _mm256_blendv_ps(one, _mm256_maskload_ps(a + j, m), _mm256_castsi256_ps(m)) : a0;
      __m256 vb = bs ? _mm256_blendv_ps(one, _mm256_maskload_ps(b + j, m), _mm256_castsi256_ps(m)) : b0;
      _mm256_maskstore_ps(y + j, m, bin_avx2(op, nan_b, va, vb));
    }
  }
}

KK_AVX2 static float hsum_avx2(__m256 s)
{
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

KK_AVX2 KK_INLINE double hsum_pd_avx2(__m256d v)
{
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

/* See moments_strided__ref: 8 floats a step as two vectors of 4 doubles, the
 * last n % 8 one by one. */
KK_AVX2 static void moments_row__avx2(int64_t n, const float *x, double *mean, double *var)
{
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) { /* four sums: fewer wait on the add's latency */
    const __m256 v = _mm256_loadu_ps(x + j), u = _mm256_loadu_ps(x + j + 8);
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    s2 = _mm256_add_pd(s2, _mm256_cvtps_pd(_mm256_castps256_ps128(u)));
    s3 = _mm256_add_pd(s3, _mm256_cvtps_pd(_mm256_extractf128_ps(u, 1)));
  }
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  double t = 0.0;
  for (int64_t k = j; k < n; k++) t += (double)x[k];
  const double m = (hsum_pd_avx2(_mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3))) + t) / (double)n;
  const __m256d mv = _mm256_set1_pd(m);
  s0 = s1 = s2 = s3 = _mm256_setzero_pd();
  for (j = 0; j + 16 <= n; j += 16) {
    const __m256 v = _mm256_loadu_ps(x + j), u = _mm256_loadu_ps(x + j + 8);
    const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), mv);
    const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), mv);
    const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(u)), mv);
    const __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(u, 1)), mv);
    s0 = _mm256_fmadd_pd(d0, d0, s0);
    s1 = _mm256_fmadd_pd(d1, d1, s1);
    s2 = _mm256_fmadd_pd(d2, d2, s2);
    s3 = _mm256_fmadd_pd(d3, d3, s3);
  }
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), mv);
    const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), mv);
    s0 = _mm256_fmadd_pd(d0, d0, s0);
    s1 = _mm256_fmadd_pd(d1, d1, s1);
  }
  s0 = _mm256_add_pd(s0, s2);
  s1 = _mm256_add_pd(s1, s3);
  t = 0.0;
  for (int64_t k = j; k < n; k++) {
    const double d = (double)x[k] - m;
    t += d * d;
  }
  *mean = m;
  *var = (hsum_pd_avx2(_mm256_add_pd(s0, s1)) + t) / (double)n;
}

/* Blocks of <= 2048 with 4×8 lanes (<= 64 sequential adds per lane), pairwise above. */
KK_AVX2 static float sum_row__avx2(int64_t n, const float *x)
{
  if (n > 2048) {
    int64_t h = (n / 2 + 31) & ~(int64_t)31;
    return sum_row__avx2(h, x) + sum_row__avx2(n - h, x + h);
  }
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + j));
    s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + j + 8));
    s2 = _mm256_add_ps(s2, _mm256_loadu_ps(x + j + 16));
    s3 = _mm256_add_ps(s3, _mm256_loadu_ps(x + j + 24));
  }
  for (; j + 8 <= n; j += 8) s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + j));
  if (j < n) s1 = _mm256_add_ps(s1, _mm256_maskload_ps(x + j, mask8(n - j)));
  return hsum_avx2(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

KK_AVX2 static __m256 sum_cols_blk_avx2(int64_t n, const float *x, int64_t s, __m256i m)
{
  if (n > 256) {
    int64_t h = n / 2;
    return _mm256_add_ps(sum_cols_blk_avx2(h, x, s, m), sum_cols_blk_avx2(n - h, x + h * s, s, m));
  }
  __m256 s0 = _mm256_setzero_ps(), s1 = s0;
  int64_t j = 0;
  for (; j + 2 <= n; j += 2) {
    s0 = _mm256_add_ps(s0, _mm256_maskload_ps(x + j * s, m));
    s1 = _mm256_add_ps(s1, _mm256_maskload_ps(x + (j + 1) * s, m));
  }
  if (j < n) s0 = _mm256_add_ps(s0, _mm256_maskload_ps(x + j * s, m));
  return _mm256_add_ps(s0, s1);
}

KK_AVX2 static void sum_cols__avx2(int64_t m, int64_t n, const float *x, int64_t s, float *out)
{
  for (int64_t i = 0; i < m; i += 8) {
    __m256i mk = mask8(m - i);
    _mm256_maskstore_ps(out + i, mk, sum_cols_blk_avx2(n, x + i, s, mk));
  }
}

/* ===================================================================== */
/* 3. AVX-512 (F + DQ + FMA)                                              */
/* ===================================================================== */
#define KK_AVX512 __attribute__((target("avx512f,avx512dq,fma")))

KK_AVX512 KK_INLINE __mmask16 mask16(int64_t n)
{
  return n >= 16 ? (__mmask16)0xffff : (n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1u));
}

/* e^t, or e^-t when NEG; see exp_core_avx2_s. n = round(t log2 e) by the
 * 1.5 * 2^23 shift (one rounding of the fused product): two ops where a
 * multiply and a roundscale are three */
KK_AVX512 KK_INLINE __m512 exp_core_avx512_s(const int NEG, __m512 t)
{
  const __m512 shift = _mm512_set1_ps(12582912.0f);
  __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(t, _mm512_set1_ps(NEG ? -KK_LOG2E : KK_LOG2E), shift), shift);
  __m512 r = NEG ? _mm512_fnmsub_ps(n, _mm512_set1_ps(KK_LN2_HI), t) : _mm512_fnmadd_ps(n, _mm512_set1_ps(KK_LN2_HI), t);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(KK_LN2_LO), r);
  __m512 p = _mm512_set1_ps(KK_EXP_P0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(KK_EXP_P1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(KK_EXP_P2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(KK_EXP_P3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(KK_EXP_P4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(KK_EXP_P5));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n); /* scalef underflows into denormals/0 correctly */
}

KK_AVX512 KK_INLINE __m512 exp_core_avx512(__m512 t) { return exp_core_avx512_s(0, t); }

KK_AVX512 KK_INLINE __m512 nanfix_avx512(__m512 y, __m512 x)
{
  return _mm512_mask_add_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, x);
}

KK_AVX512 KK_INLINE __m512 sigmoid_avx512_s(const int TF, __m512 x) /* see sigmoid_avx2_s */
{
  if (!TF) x = _mm512_xor_ps(x, _mm512_set1_ps(-0.0f));
  __m512 c = _mm512_min_ps(_mm512_set1_ps(KK_EXP_MAX), _mm512_max_ps(_mm512_set1_ps(KK_EXP_MIN), x));
  return _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_add_ps(_mm512_set1_ps(1.0f), exp_core_avx512_s(TF, c)));
}

KK_AVX512 static void exp_row__avx512(int64_t n, const float *x, float *y) /* see exp_row__ref */
{
  int64_t j = 0;
  const __m512 lo = _mm512_set1_ps(KK_EXP_MIN);
  for (; j + 16 <= n; j += 16) {
    __m512 v = _mm512_loadu_ps(x + j);
    _mm512_storeu_ps(y + j, nanfix_avx512(exp_core_avx512(_mm512_max_ps(v, lo)), v));
  }
  if (j < n) {
    __mmask16 m = mask16(n - j);
    __m512 v = _mm512_maskz_loadu_ps(m, x + j);
    _mm512_mask_storeu_ps(y + j, m, nanfix_avx512(exp_core_avx512(_mm512_max_ps(v, lo)), v));
  }
}

KK_AVX512 KK_INLINE __m512 tanh_avx512(__m512 x)
{
  const __m512 sgn = _mm512_set1_ps(-0.0f);
  __m512 a = _mm512_andnot_ps(sgn, x);
  __m512 t = _mm512_mul_ps(a, a);
  __m512 p = _mm512_set1_ps(KK_TANH_T5);
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(KK_TANH_T4));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(KK_TANH_T3));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(KK_TANH_T2));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(KK_TANH_T1));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(KK_TANH_T0));
  __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(a, t), p, a);
  __mmask16 big = _mm512_cmp_ps_mask(a, _mm512_set1_ps(KK_TANH_SMALL), _CMP_NLT_UQ);
  if (big) { /* skip exp when every lane is small */
    __m512 a2 = _mm512_min_ps(_mm512_add_ps(a, a), _mm512_set1_ps(KK_TANH_EXPMAX));
    __m512 e = exp_core_avx512(a2);
    __m512 yl = _mm512_sub_ps(_mm512_set1_ps(1.0f),
                              _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, _mm512_set1_ps(1.0f))));
    y = _mm512_mask_mov_ps(y, big, yl);
  }
  y = _mm512_or_ps(y, _mm512_and_ps(x, sgn));
  return nanfix_avx512(y, x);
}

KK_AVX512 KK_INLINE __m512 relu_avx512(__m512 x)
{
  return _mm512_max_ps(_mm512_setzero_ps(), x); /* see relu_avx2 */
}

KK_AVX512 KK_INLINE __m512 relu_tf_avx512(__m512 x)
{
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(FLT_MIN), _CMP_NLT_UQ), x);
}

KK_AVX512 KK_INLINE __m512 exp_clamped_avx512_s(const int NEG, __m512 x) /* see sigmoid_avx2_s */
{
  __m512 c = _mm512_min_ps(_mm512_set1_ps(KK_EXP_MAX), _mm512_max_ps(_mm512_set1_ps(KK_EXP_MIN), x));
  return exp_core_avx512_s(NEG, c);
}

KK_AVX512 KK_INLINE __m512 exp_avx512(__m512 x) { return nanfix_avx512(exp_clamped_avx512_s(0, x), x); }

KK_AVX512 KK_INLINE __m512 silu_avx512(__m512 x) /* see ref_silu */
{
  __m512 y = _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_clamped_avx512_s(1, x)));
  return nanfix_avx512(y, x);
}

/* See ref_gelu: both signs computed, blended per lane */
KK_AVX512 KK_INLINE __m512 gelu_avx512(__m512 x)
{
  const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
  /* min returns its second operand for a NaN x: a finite a, and x's NaN passes through the product below */
  const __m512 a = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(KK_GELU_ABS_MAX));
  const __m512 s = _mm512_mul_ps(a, a), e = _mm512_fmsub_ps(a, a, s); /* a * a = s + e exactly */
  const __m512 za = _mm512_mul_ps(a, _mm512_set1_ps(KK_GELU_SQRT1_2));
  const __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(za, _mm512_set1_ps(KK_GELU_P), one));
  __m512 q = _mm512_set1_ps(KK_GELU_Q9);
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q8));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q7));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q6));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q5));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q4));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q3));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q2));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q1));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(KK_GELU_Q0));
  const __m512 ex = exp_core_avx512_s(1, _mm512_min_ps(_mm512_mul_ps(half, s), _mm512_set1_ps(-KK_EXP_MIN)));
  const __m512 m = _mm512_mul_ps(_mm512_mul_ps(t, q), _mm512_fnmadd_ps(half, e, one)); /* erfc(|z|) = m ex; see ref_gelu */
  const __m512 pos = _mm512_mul_ps(x, _mm512_fnmadd_ps(half, _mm512_mul_ps(m, ex), one));
  return _mm512_mask_mul_ps(pos, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ),
                            _mm512_mul_ps(_mm512_mul_ps(half, x), m), ex);
}

KK_AVX512 KK_INLINE __m512 gelu_zero_avx512(float below, __m512 x, __m512 y) /* see ref_gelu_zero */
{
  return _mm512_mask_mul_ps(y, _mm512_cmp_ps_mask(x, _mm512_set1_ps(below), _CMP_LE_OQ), x, _mm512_setzero_ps());
}

KK_AVX512 KK_INLINE __m512 gelu_onednn_avx512(__m512 x) /* see gelu_onednn_avx2 */
{
  const __mmask16 inf = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
  const __m512 nan = _mm512_xor_ps(_mm512_and_ps(x, _mm512_set1_ps(-0.0f)),
                                   _mm512_castsi512_ps(_mm512_set1_epi32((int)0xffc00000u)));
  return _mm512_mask_mov_ps(gelu_zero_avx512(KK_GELU_ZERO_BELOW, x, gelu_avx512(x)), inf, nan);
}

KK_AVX512 KK_INLINE __m512 gelu_tanh_avx512(__m512 x) /* see ref_gelu_tanh */
{
  const __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
  const __m512 w2 = _mm512_mul_ps(_mm512_fmadd_ps(x3, _mm512_set1_ps(KK_GELU_KAPPA), x), _mm512_set1_ps(KK_GELU_2BETA));
  const __m512 aw = _mm512_min_ps(_mm512_abs_ps(w2), _mm512_set1_ps(KK_EXP_MAX));
  const __m512 e = exp_core_avx512_s(1, aw), r = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_add_ps(_mm512_set1_ps(1.0f), e));
  const __m512 sg = _mm512_mask_mul_ps(r, _mm512_cmp_ps_mask(w2, _mm512_setzero_ps(), _CMP_LT_OQ), e, r);
  return nanfix_avx512(_mm512_mul_ps(x, sg), x);
}

/* See ref_log: the same steps, 16 lanes */
KK_AVX512 KK_INLINE __m512 log_avx512_s(const int TF, __m512 x)
{
  const __m512 one = _mm512_set1_ps(1.0f);
  const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(FLT_MIN), _CMP_LT_OQ);
  const __m512 xs = _mm512_mask_mul_ps(x, tiny, x, _mm512_set1_ps(8388608.0f));
  const __m512i u = _mm512_castps_si512(xs);
  __m512 e = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_srli_epi32(u, 23), _mm512_set1_epi32(126)));
  e = _mm512_mask_sub_ps(e, tiny, e, _mm512_set1_ps(23.0f));
  __m512 m = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_and_si512(u, _mm512_set1_epi32(0x007fffff)), _mm512_set1_epi32(0x3f000000)));
  const __mmask16 lo = _mm512_cmp_ps_mask(m, _mm512_set1_ps(KK_SQRTHF), _CMP_LT_OQ);
  e = _mm512_mask_sub_ps(e, lo, e, one);
  m = _mm512_sub_ps(_mm512_mask_add_ps(m, lo, m, m), one);
  const __m512 z = _mm512_mul_ps(m, m);
  __m512 y = _mm512_set1_ps(KK_LOG_P0);
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P1));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P2));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P3));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P4));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P5));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P6));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P7));
  y = _mm512_fmadd_ps(y, m, _mm512_set1_ps(KK_LOG_P8));
  y = _mm512_mul_ps(_mm512_mul_ps(y, m), z);
  y = _mm512_fmadd_ps(e, _mm512_set1_ps(KK_LN2_LO), y);
  y = _mm512_fnmadd_ps(_mm512_set1_ps(0.5f), z, y);
  __m512 r = _mm512_fmadd_ps(e, _mm512_set1_ps(KK_LN2_HI), _mm512_add_ps(m, y));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), _mm512_set1_ps(-INFINITY));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ), x);
  const __mmask16 bad = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ); /* negative; NaNs below */
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  if (TF == 1) return _mm512_mask_mov_ps(r, bad | nan, _mm512_castsi512_ps(_mm512_set1_epi32(-1)));
  if (TF == 2) { /* by the bits, as ref_log */
    const __m512i ux = _mm512_castps_si512(x);
    const __mmask16 neg = _mm512_cmpgt_epu32_mask(ux, _mm512_set1_epi32(INT32_MIN));
    const __mmask16 sub = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(ux, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x007fffff));
    r = _mm512_mask_mov_ps(r, neg, _mm512_castsi512_ps(_mm512_set1_epi32((int)0xffc00000u)));
    r = _mm512_mask_mov_ps(r, sub, _mm512_castsi512_ps(_mm512_set1_epi32((int)0xc2cff1b4u)));
  } else {
    r = _mm512_mask_mov_ps(r, bad, _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
  }
  return _mm512_mask_add_ps(r, nan, x, x);
}

KK_AVX512 KK_INLINE __m512 act_avx512(int act, __m512 x)
{
  switch (act) {
  case KK_ACT_ABS: return _mm512_andnot_ps(_mm512_set1_ps(-0.0f), x);
  case KK_ACT_SQRT: /* negative -> torch's positive NaN */
    return _mm512_mask_mov_ps(_mm512_sqrt_ps(x), _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ),
                              _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
  case KK_ACT_SQRT_TF: return _mm512_sqrt_ps(x);
  case KK_ACT_LOG: return log_avx512_s(0, x);
  case KK_ACT_LOG_TF: return log_avx512_s(1, x);
  case KK_ACT_LOG_TF_TAIL: return log_avx512_s(2, x);
  case KK_ACT_RSQRT: return _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(x));
  case KK_ACT_RELU6: return _mm512_min_ps(_mm512_set1_ps(6.0f), _mm512_max_ps(_mm512_setzero_ps(), x));
  case KK_ACT_RELU6_TF: return _mm512_min_ps(_mm512_set1_ps(6.0f), relu_tf_avx512(x));
  case KK_ACT_HARDTANH: return _mm512_min_ps(_mm512_set1_ps(1.0f), _mm512_max_ps(_mm512_set1_ps(-1.0f), x));
  case KK_ACT_SILU_TF: return nanfix_avx512(_mm512_mul_ps(x, sigmoid_avx512_s(1, x)), x); /* see ref_act */
  case KK_ACT_GELU: return gelu_zero_avx512(KK_GELU_ZERO_BELOW, x, gelu_avx512(x));
  case KK_ACT_GELU_TF: return gelu_zero_avx512(KK_GELU_ZERO_BELOW_TF, x, gelu_avx512(x));
  case KK_ACT_GELU_ONEDNN: return gelu_onednn_avx512(x);
  case KK_ACT_GELU_TANH: return gelu_zero_avx512(KK_GELU_TANH_ZERO_BELOW, x, gelu_tanh_avx512(x));
  case KK_ACT_GELU_TANH_TF: return gelu_zero_avx512(KK_GELU_TANH_ZERO_BELOW_TF, x, gelu_tanh_avx512(x));
  case KK_ACT_SQUARE: return _mm512_mul_ps(x, x);
  case KK_ACT_EXP: return exp_avx512(x);
  case KK_ACT_SILU: return silu_avx512(x);
  case KK_ACT_RELU: return relu_avx512(x);
  case KK_ACT_RELU_TF: return relu_tf_avx512(x);
  case KK_ACT_SIGMOID: return sigmoid_avx512_s(0, x);
  case KK_ACT_SIGMOID_TF: return sigmoid_avx512_s(1, x);
  case KK_ACT_TANH: return tanh_avx512(x);
  default: return x;
  }
}

/* s1 op s2 (KK_BIN_ADD, SUB, MUL or DIV); where both are NaN, s1's NaN,
 * quieted: x86's rule, which the asm keeps (a compiler may swap the sources
 * of a commutative intrinsic, or take the one it loads from memory second). */
KK_AVX512 KK_INLINE __m512 first_nan_avx512(const int op, __m512 s1, __m512 s2)
{
  __m512 r;
  switch (op) {
  case KK_BIN_ADD: __asm__("vaddps %2, %1, %0" : "=v"(r) : "v"(s1), "vm"(s2)); break;
  case KK_BIN_SUB: __asm__("vsubps %2, %1, %0" : "=v"(r) : "v"(s1), "vm"(s2)); break;
  case KK_BIN_MUL: __asm__("vmulps %2, %1, %0" : "=v"(r) : "v"(s1), "vm"(s2)); break;
  default: __asm__("vdivps %2, %1, %0" : "=v"(r) : "v"(s1), "vm"(s2)); break;
  }
  return r;
}

/* a - b, b's NaN where both are NaN: -(1 * b) + a in one FMA (rounded once,
 * as a - b is), whose first source is b. */
KK_AVX512 KK_INLINE __m512 sub_b_nan_avx512(__m512 a, __m512 b)
{
  __m512 r = b;
  __asm__("vfnmadd213ps %2, %1, %0" : "+v"(r) : "v"(_mm512_set1_ps(1.0f)), "vm"(a));
  return r;
}

/* torch's a + b: b's NaN where both are NaN. */
KK_AVX512 KK_INLINE __m512 add_avx512(__m512 a, __m512 b) { return first_nan_avx512(KK_BIN_ADD, b, a); }

/* Calls BODY(A) with A the constant act: loops that apply an activation per
 * vector get one copy per kk_act, with no switch inside them. */
#define KK_ACT_DISPATCH(act, BODY)                                                                  \
  switch (act) {                                                                                   \
  case KK_ACT_RELU: BODY(KK_ACT_RELU); break;                                                      \
  case KK_ACT_RELU_TF: BODY(KK_ACT_RELU_TF); break;                                                \
  case KK_ACT_SIGMOID: BODY(KK_ACT_SIGMOID); break;                                                \
  case KK_ACT_SIGMOID_TF: BODY(KK_ACT_SIGMOID_TF); break;                                          \
  case KK_ACT_TANH: BODY(KK_ACT_TANH); break;                                                      \
  case KK_ACT_ABS: BODY(KK_ACT_ABS); break;                                                        \
  case KK_ACT_SQRT: BODY(KK_ACT_SQRT); break;                                                      \
  case KK_ACT_SQUARE: BODY(KK_ACT_SQUARE); break;                                                  \
  case KK_ACT_EXP: BODY(KK_ACT_EXP); break;                                                        \
  case KK_ACT_SILU: BODY(KK_ACT_SILU); break;                                                      \
  case KK_ACT_SQRT_TF: BODY(KK_ACT_SQRT_TF); break;                                                \
  case KK_ACT_LOG: BODY(KK_ACT_LOG); break;                                                        \
  case KK_ACT_LOG_TF: BODY(KK_ACT_LOG_TF); break;                                                  \
  case KK_ACT_RSQRT: BODY(KK_ACT_RSQRT); break;                                                    \
  case KK_ACT_RELU6: BODY(KK_ACT_RELU6); break;                                                    \
  case KK_ACT_RELU6_TF: BODY(KK_ACT_RELU6_TF); break;                                              \
  case KK_ACT_HARDTANH: BODY(KK_ACT_HARDTANH); break;                                              \
  case KK_ACT_SILU_TF: BODY(KK_ACT_SILU_TF); break;                                                \
  case KK_ACT_GELU: BODY(KK_ACT_GELU); break;                                                      \
  case KK_ACT_GELU_TF: BODY(KK_ACT_GELU_TF); break;                                                \
  case KK_ACT_GELU_ONEDNN: BODY(KK_ACT_GELU_ONEDNN); break;                                        \
  case KK_ACT_GELU_TANH: BODY(KK_ACT_GELU_TANH); break;                                            \
  case KK_ACT_GELU_TANH_TF: BODY(KK_ACT_GELU_TANH_TF); break;                                      \
  case KK_ACT_LOG_TF_TAIL: BODY(KK_ACT_LOG_TF_TAIL); break;                                        \
  default: BODY(KK_ACT_NONE); break;                                                               \
  }

KK_AVX512 KK_INLINE void epi_finish_act_avx512(const int act, int64_t mr, int64_t nr, const float *tile,
                                               float *c, int64_t ldc, float *rowsum)
{
  __mmask16 m0 = mask16(nr), m1 = mask16(nr - 16);
  for (int64_t i = 0; i < mr; i++) {
    __m512 x0 = act_avx512(act, _mm512_load_ps(tile + i * 32));
    __m512 x1 = m1 ? act_avx512(act, _mm512_load_ps(tile + i * 32 + 16)) : _mm512_setzero_ps();
    if (c) {
      _mm512_mask_storeu_ps(c + i * ldc, m0, x0);
      if (m1) _mm512_mask_storeu_ps(c + i * ldc + 16, m1, x1);
    }
    if (rowsum)
      rowsum[i] += _mm512_reduce_add_ps(_mm512_add_ps(_mm512_maskz_mov_ps(m0, x0), _mm512_maskz_mov_ps(m1, x1)));
  }
}

KK_AVX512 KK_NOINLINE static void epi_finish_avx512(int64_t mr, int64_t nr, const float *tile,
                                                    float *c, int64_t ldc, int act, float *rowsum)
{
#define KK_EPI_FINISH(A) epi_finish_act_avx512(A, mr, nr, tile, c, ldc, rowsum)
  KK_ACT_DISPATCH(act, KK_EPI_FINISH)
#undef KK_EPI_FINISH
}

/* The assembly loops' accumulators, zmm4 + i for i = 0..15 (8 rows of two
 * vectors) and 16..23 (4 rows more): zeroed, and stored to the stack tile
 * %[t] at 64 i bytes. */
#define KK_ZMM_ZERO_4_19 \
  "vpxord %%zmm4, %%zmm4, %%zmm4\n\t" "vpxord %%zmm5, %%zmm5, %%zmm5\n\t" "vpxord %%zmm6, %%zmm6, %%zmm6\n\t" \
  "vpxord %%zmm7, %%zmm7, %%zmm7\n\t" "vpxord %%zmm8, %%zmm8, %%zmm8\n\t" "vpxord %%zmm9, %%zmm9, %%zmm9\n\t" \
  "vpxord %%zmm10, %%zmm10, %%zmm10\n\t" "vpxord %%zmm11, %%zmm11, %%zmm11\n\t" "vpxord %%zmm12, %%zmm12, %%zmm12\n\t" \
  "vpxord %%zmm13, %%zmm13, %%zmm13\n\t" "vpxord %%zmm14, %%zmm14, %%zmm14\n\t" "vpxord %%zmm15, %%zmm15, %%zmm15\n\t" \
  "vpxord %%zmm16, %%zmm16, %%zmm16\n\t" "vpxord %%zmm17, %%zmm17, %%zmm17\n\t" "vpxord %%zmm18, %%zmm18, %%zmm18\n\t" \
  "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
#define KK_ZMM_ZERO_20_27 \
  "vpxord %%zmm20, %%zmm20, %%zmm20\n\t" "vpxord %%zmm21, %%zmm21, %%zmm21\n\t" "vpxord %%zmm22, %%zmm22, %%zmm22\n\t" \
  "vpxord %%zmm23, %%zmm23, %%zmm23\n\t" "vpxord %%zmm24, %%zmm24, %%zmm24\n\t" "vpxord %%zmm25, %%zmm25, %%zmm25\n\t" \
  "vpxord %%zmm26, %%zmm26, %%zmm26\n\t" "vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
#define KK_ZMM_STORE_4_19 \
  "vmovaps %%zmm4, 0(%[t])\n\t" "vmovaps %%zmm5, 64(%[t])\n\t" "vmovaps %%zmm6, 128(%[t])\n\t" \
  "vmovaps %%zmm7, 192(%[t])\n\t" "vmovaps %%zmm8, 256(%[t])\n\t" "vmovaps %%zmm9, 320(%[t])\n\t" \
  "vmovaps %%zmm10, 384(%[t])\n\t" "vmovaps %%zmm11, 448(%[t])\n\t" "vmovaps %%zmm12, 512(%[t])\n\t" \
  "vmovaps %%zmm13, 576(%[t])\n\t" "vmovaps %%zmm14, 640(%[t])\n\t" "vmovaps %%zmm15, 704(%[t])\n\t" \
  "vmovaps %%zmm16, 768(%[t])\n\t" "vmovaps %%zmm17, 832(%[t])\n\t" "vmovaps %%zmm18, 896(%[t])\n\t" \
  "vmovaps %%zmm19, 960(%[t])\n\t"
#define KK_ZMM_STORE_20_27 \
  "vmovaps %%zmm20, 1024(%[t])\n\t" "vmovaps %%zmm21, 1088(%[t])\n\t" "vmovaps %%zmm22, 1152(%[t])\n\t" \
  "vmovaps %%zmm23, 1216(%[t])\n\t" "vmovaps %%zmm24, 1280(%[t])\n\t" "vmovaps %%zmm25, 1344(%[t])\n\t" \
  "vmovaps %%zmm26, 1408(%[t])\n\t" "vmovaps %%zmm27, 1472(%[t])\n\t"

/* 4 k of the 12x32 full-tile micro-kernel: packed A at %[a] (12 floats per k),
 * B rows at %[b] (32 floats per k); accumulators zmm4..zmm27 (row i: zmm4+2i,
 * zmm5+2i), B in zmm0/zmm1, broadcasts alternate zmm2/zmm3. */
#define KK_UKR12X32_K4 \
  "vmovups 0(%[b]), %%zmm0\n\t" "vmovups 64(%[b]), %%zmm1\n\t" \
  "vbroadcastss 0(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm4\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t" \
  "vbroadcastss 4(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm6\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm7\n\t" \
  "vbroadcastss 8(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm8\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm9\n\t" \
  "vbroadcastss 12(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm10\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm11\n\t" \
  "vbroadcastss 16(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm12\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm13\n\t" \
  "vbroadcastss 20(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm14\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm15\n\t" \
  "vbroadcastss 24(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm16\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm17\n\t" \
  "vbroadcastss 28(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm18\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm19\n\t" \
  "vbroadcastss 32(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm20\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm21\n\t" \
  "vbroadcastss 36(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm22\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm23\n\t" \
  "vbroadcastss 40(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm24\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm25\n\t" \
  "vbroadcastss 44(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm26\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm27\n\t" \
  "vmovups 128(%[b]), %%zmm0\n\t" "vmovups 192(%[b]), %%zmm1\n\t" \
  "vbroadcastss 48(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm4\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t" \
  "vbroadcastss 52(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm6\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm7\n\t" \
  "vbroadcastss 56(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm8\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm9\n\t" \
  "vbroadcastss 60(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm10\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm11\n\t" \
  "vbroadcastss 64(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm12\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm13\n\t" \
  "vbroadcastss 68(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm14\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm15\n\t" \
  "vbroadcastss 72(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm16\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm17\n\t" \
  "vbroadcastss 76(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm18\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm19\n\t" \
  "vbroadcastss 80(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm20\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm21\n\t" \
  "vbroadcastss 84(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm22\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm23\n\t" \
  "vbroadcastss 88(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm24\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm25\n\t" \
  "vbroadcastss 92(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm26\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm27\n\t" \
  "vmovups 256(%[b]), %%zmm0\n\t" "vmovups 320(%[b]), %%zmm1\n\t" \
  "vbroadcastss 96(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm4\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t" \
  "vbroadcastss 100(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm6\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm7\n\t" \
  "vbroadcastss 104(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm8\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm9\n\t" \
  "vbroadcastss 108(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm10\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm11\n\t" \
  "vbroadcastss 112(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm12\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm13\n\t" \
  "vbroadcastss 116(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm14\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm15\n\t" \
  "vbroadcastss 120(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm16\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm17\n\t" \
  "vbroadcastss 124(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm18\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm19\n\t" \
  "vbroadcastss 128(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm20\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm21\n\t" \
  "vbroadcastss 132(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm22\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm23\n\t" \
  "vbroadcastss 136(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm24\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm25\n\t" \
  "vbroadcastss 140(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm26\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm27\n\t" \
  "vmovups 384(%[b]), %%zmm0\n\t" "vmovups 448(%[b]), %%zmm1\n\t" \
  "vbroadcastss 144(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm4\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t" \
  "vbroadcastss 148(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm6\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm7\n\t" \
  "vbroadcastss 152(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm8\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm9\n\t" \
  "vbroadcastss 156(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm10\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm11\n\t" \
  "vbroadcastss 160(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm12\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm13\n\t" \
  "vbroadcastss 164(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm14\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm15\n\t" \
  "vbroadcastss 168(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm16\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm17\n\t" \
  "vbroadcastss 172(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm18\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm19\n\t" \
  "vbroadcastss 176(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm20\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm21\n\t" \
  "vbroadcastss 180(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm22\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm23\n\t" \
  "vbroadcastss 184(%[a]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm24\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm25\n\t" \
  "vbroadcastss 188(%[a]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm26\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm27\n\t" \
  "add $192, %[a]\n\t" "add $512, %[b]\n\t"
/* prefetch the 12 x 32 C tile at %[c] (row stride %[ldc] bytes); clobbers %[p] */
#define KK_UKR12X32_PFC(h) \
  "lea (%[c], %[ldc], 2), %[p]\n\t" \
  "" #h " (%[c])\n\t" #h " 64(%[c])\n\t" #h " (%[c], %[ldc])\n\t" #h " 64(%[c], %[ldc])\n\t" \
  #h " (%[p])\n\t" #h " 64(%[p])\n\t" #h " (%[p], %[ldc])\n\t" #h " 64(%[p], %[ldc])\n\t" \
  "lea (%[p], %[ldc], 2), %[p]\n\t" \
  #h " (%[p])\n\t" #h " 64(%[p])\n\t" #h " (%[p], %[ldc])\n\t" #h " 64(%[p], %[ldc])\n\t" \
  "lea (%[p], %[ldc], 2), %[p]\n\t" \
  #h " (%[p])\n\t" #h " 64(%[p])\n\t" #h " (%[p], %[ldc])\n\t" #h " 64(%[p], %[ldc])\n\t" \
  "lea (%[p], %[ldc], 2), %[p]\n\t" \
  #h " (%[p])\n\t" #h " 64(%[p])\n\t" #h " (%[p], %[ldc])\n\t" #h " 64(%[p], %[ldc])\n\t" \
  "lea (%[p], %[ldc], 2), %[p]\n\t" \
  #h " (%[p])\n\t" #h " 64(%[p])\n\t" #h " (%[p], %[ldc])\n\t" #h " 64(%[p], %[ldc])\n\t"

/* one k of the 8x32 unpacked-A kernel: A rows at %[p], %[p]+rs, %[p]+2rs,
 * %[q] (= row 3), %[q]+rs, %[q]+2rs, %[r] (= row 6), %[r]+rs, the k-th float
 * at +off; the B row at %[b], then %[b] += %[bs]. Accumulators zmm4..zmm19. */
#define KK_UKR8X32_K1(off) \
  "vmovups (%[b]), %%zmm0\n\t" "vmovups 64(%[b]), %%zmm1\n\t" "add %[bs], %[b]\n\t" \
  "vbroadcastss " #off "(%[p]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm4\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t" \
  "vbroadcastss " #off "(%[p],%[rs]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm6\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm7\n\t" \
  "vbroadcastss " #off "(%[p],%[rs],2), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm8\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm9\n\t" \
  "vbroadcastss " #off "(%[q]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm10\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm11\n\t" \
  "vbroadcastss " #off "(%[q],%[rs]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm12\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm13\n\t" \
  "vbroadcastss " #off "(%[q],%[rs],2), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm14\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm15\n\t" \
  "vbroadcastss " #off "(%[r]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm16\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm17\n\t" \
  "vbroadcastss " #off "(%[r],%[rs]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm18\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm19\n\t"

/* k + u of the 12x32 kernel on A in place (the packed path's A): rows at
 * %[a0] + {0, rs, 2rs}, %[a3] + ..., %[a6] + ..., %[a9] + ..., the float at
 * +off; the packed 32-wide B row at %[b] + 128 u. Accumulators as in
 * KK_UKR12X32_K4. */
#define KK_UKR12X32U_K1(u, off) \
  "vmovups " #u "*128(%[b]), %%zmm0\n\t" "vmovups " #u "*128+64(%[b]), %%zmm1\n\t" \
  "vbroadcastss " #off "(%[a0]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm4\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t" \
  "vbroadcastss " #off "(%[a0],%[rs]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm6\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm7\n\t" \
  "vbroadcastss " #off "(%[a0],%[rs],2), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm8\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm9\n\t" \
  "vbroadcastss " #off "(%[a3]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm10\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm11\n\t" \
  "vbroadcastss " #off "(%[a3],%[rs]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm12\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm13\n\t" \
  "vbroadcastss " #off "(%[a3],%[rs],2), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm14\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm15\n\t" \
  "vbroadcastss " #off "(%[a6]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm16\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm17\n\t" \
  "vbroadcastss " #off "(%[a6],%[rs]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm18\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm19\n\t" \
  "vbroadcastss " #off "(%[a6],%[rs],2), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm20\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm21\n\t" \
  "vbroadcastss " #off "(%[a9]), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm22\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm23\n\t" \
  "vbroadcastss " #off "(%[a9],%[rs]), %%zmm2\n\t" "vfmadd231ps %%zmm0, %%zmm2, %%zmm24\n\t" "vfmadd231ps %%zmm1, %%zmm2, %%zmm25\n\t" \
  "vbroadcastss " #off "(%[a9],%[rs],2), %%zmm3\n\t" "vfmadd231ps %%zmm0, %%zmm3, %%zmm26\n\t" "vfmadd231ps %%zmm1, %%zmm3, %%zmm27\n\t"
#define KK_UKR12X32U_K4 \
  KK_UKR12X32U_K1(0, 0) KK_UKR12X32U_K1(1, 4) KK_UKR12X32U_K1(2, 8) KK_UKR12X32U_K1(3, 12) \
  "add $16, %[a0]\n\t" "add $16, %[a3]\n\t" "add $16, %[a6]\n\t" "add $16, %[a9]\n\t" "add $512, %[b]\n\t"

/* MR rows × NV zmm columns; KU interleaved accumulator sets hide the 4-cycle
 * FMA latency when MR is small (matrix-vector regime). AP: A packed with
 * a_rs = 1, a_cs = 12, so broadcasts use immediate offsets. */
KK_AVX512 KK_INLINE void ukr_avx512(const int MR, const int NV, const int KU, const int AP, int64_t nr,
                                    int64_t K, const float *a, int64_t a_rs, int64_t a_cs,
                                    const float *b, int64_t b_rs, float *c, int64_t ldc,
                                    const kk_epilogue *ep)
{
  if (AP) { a_rs = 1; a_cs = 12; }
  const int pf = K * b_rs > 8192; /* B beyond L1 */
  const __mmask16 m0 = mask16(nr), m1 = mask16(nr - 16);
  __m512 acc[4][12][2];
#pragma GCC unroll 4
  for (int u = 0; u < KU; u++)
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
      for (int v = 0; v < NV; v++) acc[u][i][v] = _mm512_setzero_ps();
  int64_t k = 0;
  if (AP && MR == 12 && NV == 2 && nr == 32 && b_rs == 32 && K >= 4) {
    /* Full tile on a packed A micro-panel and a contiguous 32-wide B panel:
     * hand-scheduled loop, 4 k per trip, accumulators in zmm4..zmm27 (GCC's
     * own unrolling of this loop spills accumulators); they leave through a
     * stack tile. The C tile is prefetched into L2 up front and into L1
     * 8 trips before the end, so the epilogue's C loads don't stall and the
     * lines are not evicted by the A/B streams before use. */
    _Alignas(64) float tacc[12 * 32];
    const float *ap = a, *bp = b, *pscratch;
    const int64_t n4 = K / 4;
    int64_t n2 = n4 < 8 ? n4 : 8, n1 = n4 - n2;
    const float *cp = c ? c : b; /* prefetches never fault; keep them harmless */
    const int64_t ldcb = c ? ldc * (int64_t)sizeof(float) : 0;
    __asm__ volatile(
        KK_ZMM_ZERO_4_19 KK_ZMM_ZERO_20_27
        KK_UKR12X32_PFC(prefetcht1)
        "test %[n1], %[n1]\n\t" "jz 2f\n\t"
        ".p2align 5\n\t" "1:\n\t" KK_UKR12X32_K4 "dec %[n1]\n\t" "jnz 1b\n\t"
        "2:\n\t" KK_UKR12X32_PFC(prefetcht0)
        ".p2align 5\n\t" "3:\n\t" KK_UKR12X32_K4 "dec %[n2]\n\t" "jnz 3b\n\t"
        KK_ZMM_STORE_4_19 KK_ZMM_STORE_20_27
        : [a] "+r"(ap), [b] "+r"(bp), [n1] "+r"(n1), [n2] "+r"(n2), [p] "=&r"(pscratch)
        : [t] "r"(tacc), [c] "r"(cp), [ldc] "r"(ldcb)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
          "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "cc", "memory");
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++) {
      acc[0][i][0] = _mm512_load_ps(tacc + 32 * i);
      acc[0][i][1] = _mm512_load_ps(tacc + 32 * i + 16);
    }
    k = K / 4 * 4;
  }
  /* up to 8 rows, a copy without the test of pf every k (a not-taken branch
   * issued to port 0 takes an FMA slot) */
#define KK_UKR512_KSTEPS(PF)                                                              \
  for (; k + KU <= K; k += KU) {                                                          \
    _Pragma("GCC unroll 4") for (int u = 0; u < KU; u++) {                                \
      const float *bk = b + (k + u) * b_rs;                                               \
      const float *ak = a + (k + u) * a_cs;                                               \
      if (PF) { /* big unpacked B: rows are far apart, prefetch ahead */                  \
        _mm_prefetch((const char *)(bk + 8 * b_rs), _MM_HINT_T0);                         \
        if (NV == 2) _mm_prefetch((const char *)(bk + 8 * b_rs + 16), _MM_HINT_T0);      \
      }                                                                                   \
      __m512 b0 = _mm512_maskz_loadu_ps(m0, bk);                                          \
      __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, bk + 16) : _mm512_setzero_ps();     \
      _Pragma("GCC unroll 12") for (int i = 0; i < MR; i++) {                             \
        __m512 av = _mm512_set1_ps(ak[i * a_rs]);                                         \
        acc[u][i][0] = _mm512_fmadd_ps(av, b0, acc[u][i][0]);                             \
        if (NV == 2) acc[u][i][1] = _mm512_fmadd_ps(av, b1, acc[u][i][1]);               \
      }                                                                                   \
    }                                                                                     \
  }
  if (!AP && MR == 12 && NV == 2 && KU == 1 && nr == 32 && a_cs == 1 && b_rs == 32 && K >= 4) {
    /* the packed path's full tile with A in place: as the packed-A loop
     * above, four row bases for the broadcasts */
    _Alignas(64) float tacc[12 * 32];
    const float *a0 = a, *a3 = a + 3 * a_rs, *a6 = a + 6 * a_rs, *a9 = a + 9 * a_rs, *bp = b, *pscratch;
    const int64_t n4 = K / 4;
    int64_t n2 = n4 < 8 ? n4 : 8, n1 = n4 - n2;
    const int64_t rsb = a_rs * (int64_t)sizeof(float);
    const float *cp = c ? c : b;
    const int64_t ldcb = c ? ldc * (int64_t)sizeof(float) : 0;
    __asm__ volatile(
        KK_ZMM_ZERO_4_19 KK_ZMM_ZERO_20_27
        KK_UKR12X32_PFC(prefetcht1)
        "test %[n1], %[n1]\n\t" "jz 2f\n\t"
        ".p2align 5\n\t" "1:\n\t" KK_UKR12X32U_K4 "dec %[n1]\n\t" "jnz 1b\n\t"
        "2:\n\t" KK_UKR12X32_PFC(prefetcht0)
        ".p2align 5\n\t" "3:\n\t" KK_UKR12X32U_K4 "dec %[n2]\n\t" "jnz 3b\n\t"
        KK_ZMM_STORE_4_19 KK_ZMM_STORE_20_27
        : [a0] "+r"(a0), [a3] "+r"(a3), [a6] "+r"(a6), [a9] "+r"(a9), [b] "+r"(bp), [n1] "+r"(n1), [n2] "+r"(n2),
          [p] "=&r"(pscratch)
        : [t] "r"(tacc), [rs] "r"(rsb), [c] "r"(cp), [ldc] "r"(ldcb)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
          "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "cc", "memory");
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) {
      acc[0][i][0] = _mm512_load_ps(tacc + 32 * i);
      acc[0][i][1] = _mm512_load_ps(tacc + 32 * i + 16);
    }
    k = K / 4 * 4;
  }
  if (!AP && MR == 8 && NV == 2 && KU == 1 && nr == 32 && a_cs == 1 && !pf && K >= 4) {
    /* 8 rows of A in place: GCC's code for this loop reloads a spilled row
     * offset every k (8.75 cycles a k for 8); hand-scheduled, 4 k a trip */
    _Alignas(64) float tacc[8 * 32];
    const float *p = a, *q = a + 3 * a_rs, *r = a + 6 * a_rs, *bp = b;
    int64_t n4 = K / 4;
    const int64_t rsb = a_rs * (int64_t)sizeof(float), bsb = b_rs * (int64_t)sizeof(float);
    __asm__ volatile(
        KK_ZMM_ZERO_4_19
        ".p2align 5\n\t" "1:\n\t"
        KK_UKR8X32_K1(0) KK_UKR8X32_K1(4) KK_UKR8X32_K1(8) KK_UKR8X32_K1(12)
        "add $16, %[p]\n\t" "add $16, %[q]\n\t" "add $16, %[r]\n\t"
        "dec %[n]\n\t" "jnz 1b\n\t"
        KK_ZMM_STORE_4_19
        : [p] "+r"(p), [q] "+r"(q), [r] "+r"(r), [b] "+r"(bp), [n] "+r"(n4)
        : [t] "r"(tacc), [rs] "r"(rsb), [bs] "r"(bsb)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
          "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "cc", "memory");
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      acc[0][i][0] = _mm512_load_ps(tacc + 32 * i);
      acc[0][i][1] = _mm512_load_ps(tacc + 32 * i + 16);
    }
    k = K / 4 * 4;
  }
  if (MR <= 8 && !(!AP && pf)) KK_UKR512_KSTEPS(0) /* 1-8 rows 2-11% faster; 10-12 rows 3-4% slower */
  else KK_UKR512_KSTEPS(!AP && pf)
#undef KK_UKR512_KSTEPS
  for (; k < K; k++) {
    const float *bk = b + k * b_rs;
    const float *ak = a + k * a_cs;
    __m512 b0 = _mm512_maskz_loadu_ps(m0, bk);
    __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, bk + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++) {
      __m512 av = _mm512_set1_ps(ak[i * a_rs]);
      acc[0][i][0] = _mm512_fmadd_ps(av, b0, acc[0][i][0]);
      if (NV == 2) acc[0][i][1] = _mm512_fmadd_ps(av, b1, acc[0][i][1]);
    }
  }
#pragma GCC unroll 4
  for (int u = 1; u < KU; u++)
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
      for (int v = 0; v < NV; v++) acc[0][i][v] = _mm512_add_ps(acc[0][i][v], acc[u][i][v]);

  const int flags = ep->flags, act = ep->act;
  if (flags == KK_EPI_FINAL && !ep->rowsum && (act == KK_ACT_NONE || act == KK_ACT_RELU) &&
      (!ep->bias || ep->bias_s == 1)) {
    /* the common last tile, straight to C without a test per vector (8x64x64
     * x @ W + b, relu: 0.069 -> 0.059 us at K = 4, 1-2% at K = 64) */
    const __m512 b0 = ep->bias ? _mm512_maskz_loadu_ps(m0, ep->bias) : _mm512_setzero_ps();
    const __m512 b1 = ep->bias && NV == 2 ? _mm512_maskz_loadu_ps(m1, ep->bias + 16) : _mm512_setzero_ps();
    if (act == KK_ACT_RELU) {
#pragma GCC unroll 12
      for (int i = 0; i < MR; i++) {
        _mm512_mask_storeu_ps(c + i * ldc, m0, relu_avx512(_mm512_add_ps(acc[0][i][0], b0)));
        if (NV == 2) _mm512_mask_storeu_ps(c + i * ldc + 16, m1, relu_avx512(_mm512_add_ps(acc[0][i][1], b1)));
      }
    } else {
#pragma GCC unroll 12
      for (int i = 0; i < MR; i++) {
        _mm512_mask_storeu_ps(c + i * ldc, m0, _mm512_add_ps(acc[0][i][0], b0));
        if (NV == 2) _mm512_mask_storeu_ps(c + i * ldc + 16, m1, _mm512_add_ps(acc[0][i][1], b1));
      }
    }
    return;
  }
  const int hasb = (flags & KK_EPI_FINAL) && ep->bias;
  __m512 bv[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  if (hasb) {
    if (ep->bias_s == 1) {
      bv[0] = _mm512_maskz_loadu_ps(m0, ep->bias);
      if (NV == 2) bv[1] = _mm512_maskz_loadu_ps(m1, ep->bias + 16);
    } else {
      float tmp[32] = {0};
      for (int64_t j = 0; j < nr; j++) tmp[j] = ep->bias[j * ep->bias_s];
      bv[0] = _mm512_loadu_ps(tmp);
      bv[1] = _mm512_loadu_ps(tmp + 16);
    }
  }
  const int inl = !(flags & KK_EPI_FINAL) ||
                  (ep->rowsum == NULL && (act == KK_ACT_NONE || act == KK_ACT_RELU || act == KK_ACT_RELU_TF));
  _Alignas(64) float tile[12 * 32];
#pragma GCC unroll 12
  for (int i = 0; i < MR; i++) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; v++) {
      __mmask16 mv = v ? m1 : m0;
      __m512 x = acc[0][i][v];
      if (flags & KK_EPI_ACCUM) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mv, c + i * ldc + 16 * v));
      if (hasb) x = _mm512_add_ps(x, bv[v]);
      if (inl) {
        if (flags & KK_EPI_FINAL) {
          if (act == KK_ACT_RELU) x = relu_avx512(x);
          else if (act == KK_ACT_RELU_TF) x = relu_tf_avx512(x);
        }
        _mm512_mask_storeu_ps(c + i * ldc + 16 * v, mv, x);
      } else {
        _mm512_store_ps(tile + i * 32 + 16 * v, x);
      }
    }
  }
  if (!inl) epi_finish_avx512(MR, nr, tile, c, ldc, act, ep->rowsum);
}

/* A full 32-wide panel gets its own copy with constant masks: plain B loads,
 * 2-6% faster at 4..8 rows (x @ W, 64 columns). */
#define KK_UKR512_CASE(MR_, KU_)                                                          \
  case MR_:                                                                               \
    if (nr == 32) ukr_avx512(MR_, 2, KU_, 0, 32, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);  \
    else if (nr > 16) ukr_avx512(MR_, 2, KU_, 0, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep); \
    else ukr_avx512(MR_, 1, KU_, 0, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);           \
    return;

KK_AVX512 void kk_sgemm_ukernel_12x32__avx512(int64_t mr, int64_t nr, int64_t K, const float *a,
                                              int64_t a_rs, int64_t a_cs, const float *b, int64_t b_rs,
                                              float *c, int64_t ldc, const kk_epilogue *ep)
{
  if (mr == 12 && a_rs == 1 && a_cs == 12) { /* packed full tile: constant A offsets */
    if (nr > 16) ukr_avx512(12, 2, 1, 1, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);
    else ukr_avx512(12, 1, 1, 1, nr, K, a, a_rs, a_cs, b, b_rs, c, ldc, ep);
    return;
  }
  switch (mr) {
    KK_UKR512_CASE(1, 4)
    KK_UKR512_CASE(2, 4)
    KK_UKR512_CASE(3, 4)
    KK_UKR512_CASE(4, 2)
    KK_UKR512_CASE(5, 2)
    KK_UKR512_CASE(6, 2)
    KK_UKR512_CASE(7, 1)
    KK_UKR512_CASE(8, 1)
    KK_UKR512_CASE(9, 1)
    KK_UKR512_CASE(10, 1)
    KK_UKR512_CASE(11, 1)
    KK_UKR512_CASE(12, 1)
  default: return;
  }
}

/* Lane j of the result = horizontal sum of v[j] (15 adds, 30 shuffles).
 * Inputs are fed in 4x4-transposed order so the tree's output is in order. */
KK_AVX512 KK_INLINE __m512 hsum16_avx512(const __m512 *acc)
{
  __m512 v[16], w[8], x[4], y[2];
#pragma GCC unroll 16
  for (int k = 0; k < 16; k++) v[k] = acc[((k & 3) << 2) | (k >> 2)];
#pragma GCC unroll 8
  for (int j = 0; j < 8; j++) /* 512 -> 256 per input: blocks [a a b b] */
    w[j] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0x44),
                         _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0xee));
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) /* -> 128 per input: blocks [a b c d] */
    x[j] = _mm512_add_ps(_mm512_shuffle_f32x4(w[2 * j], w[2 * j + 1], 0x88),
                         _mm512_shuffle_f32x4(w[2 * j], w[2 * j + 1], 0xdd));
#pragma GCC unroll 2
  for (int j = 0; j < 2; j++) /* -> 64 per input */
    y[j] = _mm512_add_ps(_mm512_shuffle_ps(x[2 * j], x[2 * j + 1], 0x44),
                         _mm512_shuffle_ps(x[2 * j], x[2 * j + 1], 0xee));
  return _mm512_add_ps(_mm512_shuffle_ps(y[0], y[1], 0x88), _mm512_shuffle_ps(y[0], y[1], 0xdd));
}

/* Bias, act, store and row sums for a spilled [mr x 32] tile. */
KK_AVX512 KK_NOINLINE static void epi_tile_avx512(int64_t mr, int64_t nr, float *tile, float *c, int64_t ldc,
                                                  const kk_epilogue *ep)
{
  if (ep->bias) {
    float b[32] = {0};
    for (int64_t j = 0; j < nr; j++) b[j] = ep->bias[j * ep->bias_s];
    for (int64_t i = 0; i < mr; i++)
      for (int v = 0; v < 2; v++)
        _mm512_store_ps(tile + i * 32 + 16 * v,
                        _mm512_add_ps(_mm512_load_ps(tile + i * 32 + 16 * v), _mm512_loadu_ps(b + 16 * v)));
  }
  epi_finish_avx512(mr, nr, tile, c, ldc, ep->act, ep->rowsum);
}

/* R rows x (16/R) columns of dot products over K: A rows and B columns both
 * contiguous in k (torch linear's x @ w.T without transposing w). */
KK_AVX512 KK_INLINE void dot_avx512(const int R, int64_t K, const float *a, int64_t as0,
                                    const float *const *bcol, float *out /* [16] */)
{
  const int CC = 16 / R;
  __m512 acc[16];
#pragma GCC unroll 16
  for (int q = 0; q < 16; q++) acc[q] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; k += 16) {
    __mmask16 m = mask16(K - k);
    __m512 av[4];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) av[r] = _mm512_maskz_loadu_ps(m, a + r * as0 + k);
#pragma GCC unroll 16
    for (int cc = 0; cc < CC; cc++) {
      __m512 bv = _mm512_maskz_loadu_ps(m, bcol[cc] + k);
#pragma GCC unroll 4
      for (int r = 0; r < R; r++) acc[r * CC + cc] = _mm512_fmadd_ps(av[r], bv, acc[r * CC + cc]);
    }
  }
  _mm512_storeu_ps(out, hsum16_avx512(acc));
}

/* n <= 16 bias values bias[j * bias_s] in lanes 0..n-1, zero past n. */
KK_AVX512 KK_INLINE __m512 load_bias_avx512(const float *bias, int64_t bias_s, int64_t n)
{
  if (bias_s == 1) return _mm512_maskz_loadu_ps(mask16(n), bias);
  float bt[16] = {0};
  for (int64_t j = 0; j < n; j++) bt[j] = bias[j * bias_s];
  return _mm512_loadu_ps(bt);
}

/* Four columns' dot products with a over all of K, each into two accumulators
 * (alternate 16-k chunks) to keep 8 FMAs in flight; out[j] = the sum vectors. */
KK_AVX512 KK_INLINE void dot4_avx512(int64_t K, const float *a, const float *b0, const float *b1,
                                     const float *b2, const float *b3, __m512 out[4])
{
  __m512 s0[4], s1[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) s0[j] = s1[j] = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 32 <= K; k += 32) {
    const __m512 x0 = _mm512_loadu_ps(a + k), x1 = _mm512_loadu_ps(a + k + 16);
    s0[0] = _mm512_fmadd_ps(_mm512_loadu_ps(b0 + k), x0, s0[0]);
    s0[1] = _mm512_fmadd_ps(_mm512_loadu_ps(b1 + k), x0, s0[1]);
    s0[2] = _mm512_fmadd_ps(_mm512_loadu_ps(b2 + k), x0, s0[2]);
    s0[3] = _mm512_fmadd_ps(_mm512_loadu_ps(b3 + k), x0, s0[3]);
    s1[0] = _mm512_fmadd_ps(_mm512_loadu_ps(b0 + k + 16), x1, s1[0]);
    s1[1] = _mm512_fmadd_ps(_mm512_loadu_ps(b1 + k + 16), x1, s1[1]);
    s1[2] = _mm512_fmadd_ps(_mm512_loadu_ps(b2 + k + 16), x1, s1[2]);
    s1[3] = _mm512_fmadd_ps(_mm512_loadu_ps(b3 + k + 16), x1, s1[3]);
  }
  for (; k < K; k += 16) {
    const __mmask16 m = mask16(K - k);
    const __m512 x0 = _mm512_maskz_loadu_ps(m, a + k);
    s0[0] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, b0 + k), x0, s0[0]);
    s0[1] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, b1 + k), x0, s0[1]);
    s0[2] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, b2 + k), x0, s0[2]);
    s0[3] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, b3 + k), x0, s0[3]);
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) out[j] = _mm512_add_ps(s0[j], s1[j]);
}

/* M = 1 in torch linear's layout (the matrix-vector case): y[n] = B column n
 * (contiguous in k) . a. Sixteen columns per block, four at a time, are
 * reduced by one hsum tree into one register that takes the bias, the
 * activation, the store and the row sum directly: no tile, no spill. */
KK_AVX512 static void gemv_t__avx512(int64_t N, int64_t K, const float *a, const float *B, int64_t bs1,
                                     const float *bias, int64_t bias_s, int act, float *C, float *rowout)
{
  __m512 rs = _mm512_setzero_ps();
  for (int64_t n0 = 0; n0 < N; n0 += 16) {
    const int64_t nb = min64_(16, N - n0);
    const __mmask16 mn = mask16(nb);
    const float *b = B + n0 * bs1;
    __m512 sums[16];
#pragma GCC unroll 4
    for (int g = 0; g < 16; g += 4) { /* columns past nb re-read the last valid one */
      const float *c0 = b + min64_(g, nb - 1) * bs1, *c1 = b + min64_(g + 1, nb - 1) * bs1;
      const float *c2 = b + min64_(g + 2, nb - 1) * bs1, *c3 = b + min64_(g + 3, nb - 1) * bs1;
      dot4_avx512(K, a, c0, c1, c2, c3, sums + g);
    }
    __m512 y = hsum16_avx512(sums);
    if (bias) y = _mm512_add_ps(y, load_bias_avx512(bias + n0 * bias_s, bias_s, nb));
    y = act_avx512(act, y);
    if (C) _mm512_mask_storeu_ps(C + n0, mn, y);
    if (rowout) rs = _mm512_mask_add_ps(rs, mn, rs, y);
  }
  if (rowout) rowout[0] += _mm512_reduce_add_ps(rs);
}

/* Small-M GEMM with B(k, n) = B[k + n*bs1] and A(i, k) = A[i*as0 + k]. */
KK_AVX512 static void gemm_dot__avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0,
                                       const float *B, int64_t bs1, const float *bias, int64_t bias_s,
                                       int act, float *C, int64_t ldc, float *rowout)
{
  if (M == 1) {
    gemv_t__avx512(N, K, A, B, bs1, bias, bias_s, act, C, rowout);
    return;
  }
  kk_epilogue ep = {NULL, bias_s, NULL, act, KK_EPI_FINAL};
  for (int64_t m0 = 0; m0 < M;) {
    const int R = M - m0 >= 4 ? 4 : (M - m0 >= 2 ? 2 : 1), CC = 16 / R;
    const float *a = A + m0 * as0;
    for (int64_t n0 = 0; n0 < N; n0 += 32) {
      const int64_t nr = min64_(32, N - n0);
      _Alignas(64) float tile[4 * 32];
      for (int64_t c0 = 0; c0 < nr; c0 += CC) {
        const float *bcol[16];
        float out[16];
        for (int cc = 0; cc < CC; cc++) /* columns past nr re-read a valid one */
          bcol[cc] = B + (n0 + (c0 + cc < nr ? c0 + cc : c0)) * bs1;
        if (R == 4) dot_avx512(4, K, a, as0, bcol, out);
        else if (R == 2) dot_avx512(2, K, a, as0, bcol, out);
        else dot_avx512(1, K, a, as0, bcol, out);
        for (int r = 0; r < R; r++)
          for (int cc = 0; cc < CC && c0 + cc < 32; cc++) tile[r * 32 + c0 + cc] = out[r * CC + cc];
      }
      ep.bias = bias ? bias + n0 * bias_s : NULL;
      ep.rowsum = rowout ? rowout + m0 : NULL;
      epi_tile_avx512(R, nr, tile, C ? C + m0 * ldc + n0 : NULL, ldc, &ep);
    }
    m0 += R;
  }
}

/* In-register 16x16 transpose: r[i] lane j  ->  r[j] lane i. */
KK_AVX512 KK_INLINE void tr16_avx512(__m512 r[16])
{
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) { /* 4x4 transposes inside each 128-bit block */
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int g = 0; g < 4; g++) {
    r[4 * g] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
    r[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xee);
    r[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
    r[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xee);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) { /* then a 4x4 transpose of the 128-bit blocks */
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    r[i + 4] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0x88);
    r[i + 12] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0xdd);
  }
}

/* Packs a B panel W = 32 or 64 wide whose columns are contiguous in k (torch
 * linear's w: bs0 == 1): dst[k*W + j] = B[k + j*bs1] for j < nr, 0 for nr <= j < W. */
KK_AVX512 KK_INLINE void pack_bt_w_avx512(const int W, int64_t kc, int64_t nr, const float *B, int64_t bs1,
                                          float *dst)
{
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const __mmask16 mk = mask16(kc - k0);
    const int64_t kn = min64_(16, kc - k0);
    for (int h = 0; h < W / 16; h++) {
      if (16 * h >= nr) {
        for (int64_t q = 0; q < kn; q++) _mm512_storeu_ps(dst + (k0 + q) * W + 16 * h, _mm512_setzero_ps());
        continue;
      }
      __m512 r[16];
#pragma GCC unroll 16
      for (int q = 0; q < 16; q++)
        r[q] = 16 * h + q < nr ? _mm512_maskz_loadu_ps(mk, B + k0 + (16 * h + q) * bs1) : _mm512_setzero_ps();
      tr16_avx512(r);
      if (kn == 16) {
#pragma GCC unroll 16
        for (int q = 0; q < 16; q++) _mm512_storeu_ps(dst + (k0 + q) * W + 16 * h, r[q]);
      } else {
        for (int64_t q = 0; q < kn; q++) _mm512_storeu_ps(dst + (k0 + q) * W + 16 * h, r[q]);
      }
    }
  }
}

KK_AVX512 static void pack_bt__avx512(int64_t kc, int64_t nr, const float *B, int64_t bs1, float *dst)
{
  pack_bt_w_avx512(32, kc, nr, B, bs1, dst);
}

KK_AVX512 static void pack_bt64__avx512(int64_t kc, int64_t nr, const float *B, int64_t bs1, float *dst)
{
  pack_bt_w_avx512(64, kc, nr, B, bs1, dst);
}

/* Packs an A micro-panel with contiguous rows (as1 == 1): dst[k*12 + i] = A[i*as0 + k], i < mr
 * (rows mr..11 are left unset: the micro-kernel never reads them). */
KK_AVX512 static void pack_a__avx512(int64_t mr, int64_t kc, const float *A, int64_t as0, float *dst)
{
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const __mmask16 mk = mask16(kc - k0);
    const int64_t kn = min64_(16, kc - k0);
    __m512 r[16];
#pragma GCC unroll 16
    for (int q = 0; q < 16; q++) r[q] = q < mr ? _mm512_maskz_loadu_ps(mk, A + q * as0 + k0) : _mm512_setzero_ps();
    tr16_avx512(r);
    const __mmask16 m12 = 0x0fff;
    if (kn == 16) {
#pragma GCC unroll 16
      for (int q = 0; q < 16; q++) _mm512_mask_storeu_ps(dst + (k0 + q) * 12, m12, r[q]);
    } else {
      for (int64_t q = 0; q < kn; q++) _mm512_mask_storeu_ps(dst + (k0 + q) * 12, m12, r[q]);
    }
  }
}

/* Small-M GEMM for torch linear's layout (A rows and B columns both contiguous
 * in k), computed transposed: C^T = B^T · A^T, with A^T packed once (cheap:
 * M <= 16 rows) and the weight rows read where they are, never copied.
 * A zmm holds 4 rows x 4 consecutive k (128-bit lane r = row r), and one
 * vbroadcastf32x4 of 4 k of a weight row serves the R4 row groups: per 4 k
 * and CP weight rows (16, 8, 4, 4 for R4 = 1..4), R4 + CP loads feed R4 x CP
 * FMAs (10 per 16 for 8 rows, 8 per 16 for 16), where broadcasting k pairs
 * needs 18. Each accumulator ends with 4 partial sums per (row, column),
 * reduced 4 columns at a time. */

/* xq[(t*R4 + g)*16 + 4r + q] = A(4g + r, 4t + q); zero past M and K. */
KK_AVX512 KK_INLINE void pack_xq_avx512(const int R4, int64_t M, int64_t K, const float *A, int64_t as0, float *xq)
{
  for (int64_t k0 = 0; k0 < K; k0 += 16) {
    const __mmask16 mk = mask16(K - k0);
    const int64_t nq = (min64_(16, K - k0) + 3) / 4;
#pragma GCC unroll 4
    for (int g = 0; g < R4; g++) {
      __m512 r[4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; i++)
        r[i] = 4 * g + i < M ? _mm512_maskz_loadu_ps(mk, A + (4 * g + i) * as0 + k0) : _mm512_setzero_ps();
      /* 4x4 transpose of 128-bit blocks: out[t] block i = r[i] block t */
      const __m512 t0 = _mm512_shuffle_f32x4(r[0], r[1], 0x44), t1 = _mm512_shuffle_f32x4(r[0], r[1], 0xee);
      const __m512 t2 = _mm512_shuffle_f32x4(r[2], r[3], 0x44), t3 = _mm512_shuffle_f32x4(r[2], r[3], 0xee);
      const __m512 out[4] = {_mm512_shuffle_f32x4(t0, t2, 0x88), _mm512_shuffle_f32x4(t0, t2, 0xdd),
                             _mm512_shuffle_f32x4(t1, t3, 0x88), _mm512_shuffle_f32x4(t1, t3, 0xdd)};
#pragma GCC unroll 4
      for (int t = 0; t < 4; t++)
        if (t < nq) _mm512_store_ps(xq + ((k0 / 4 + t) * R4 + g) * 16, out[t]);
    }
  }
}

/* Lane 4r + j of the result = the sum of the four lanes of block r of a[j]. */
KK_AVX512 KK_INLINE __m512 hsum4x4_avx512(__m512 a0, __m512 a1, __m512 a2, __m512 a3)
{
  const __m512 u01 = _mm512_add_ps(_mm512_unpacklo_ps(a0, a1), _mm512_unpackhi_ps(a0, a1));
  const __m512 u23 = _mm512_add_ps(_mm512_unpacklo_ps(a2, a3), _mm512_unpackhi_ps(a2, a3));
  return _mm512_add_ps(_mm512_shuffle_ps(u01, u23, 0x44), _mm512_shuffle_ps(u01, u23, 0xee));
}

/* k quads per accumulation block: with one accumulator per lane over all
 * of K, a 20000-long row's float sums drifted 2-3x further from the exact
 * result than the dot-product kernel's. */
#define KK_LQ_BLOCK 64
KK_AVX512 KK_INLINE void gemm_lq_avx512(const int R4, const int RED, int64_t M, int64_t N, int64_t K, const float *A,
                                        int64_t as0, const float *B, int64_t bs1, const float *bias, int64_t bias_s,
                                        int act, float *C, int64_t ldc, float *rowout, float *xq)
{
  /* weight rows (output columns) per tile: 16-24 accumulators (9..12 rows: 8
   * columns, 7% faster at 12×128×64 than 4). RED (row sums wanted) is a
   * compile-time constant, so each form has only the registers it needs: with
   * one function for both, 12 rows kept 31 of the 32 zmm registers live and
   * the epilogue spilled (row reductions of 12×64×64 and 12×128×64, old/new in
   * one process on a Zen 4: 1.29-1.35x; C out: 0.93-1.31x, by code placement). */
  const int CP = R4 == 1 ? 16 : R4 <= 3 ? 8 : 4;
  pack_xq_avx512(R4, M, K, A, as0, xq);
  const int64_t KQ = K / 4;               /* whole quads; a partial one is masked */
  const __mmask16 mtail = mask16(K - 4 * KQ);
  __m512 rs[4];
#pragma GCC unroll 4
  for (int g = 0; g < R4; g++) rs[g] = _mm512_setzero_ps();
  for (int64_t n0 = 0; n0 < N; n0 += CP) {
    const int64_t nv = min64_(CP, N - n0); /* valid columns; the others re-read the last one */
    const float *w[16];
#pragma GCC unroll 16
    for (int j = 0; j < CP; j++) w[j] = B + (n0 + min64_(j, nv - 1)) * bs1;
    __m512 acc[24];
    _Alignas(64) float tot[24 * 16]; /* running sums of finished k blocks */
#pragma GCC unroll 24
    for (int i = 0; i < CP * R4; i++) acc[i] = _mm512_setzero_ps();
    for (int64_t t0 = 0; t0 < KQ; t0 += KK_LQ_BLOCK) {
      if (t0) { /* fold the finished block in: each lane's float chain stays short */
#pragma GCC unroll 24
        for (int i = 0; i < CP * R4; i++) {
          _mm512_store_ps(tot + 16 * i, t0 > KK_LQ_BLOCK ? _mm512_add_ps(_mm512_load_ps(tot + 16 * i), acc[i]) : acc[i]);
          acc[i] = _mm512_setzero_ps();
        }
      }
      const int64_t t1 = min64_(KQ, t0 + KK_LQ_BLOCK);
      for (int64_t t = t0; t < t1; t++) {
        __m512 xv[4];
#pragma GCC unroll 4
        for (int g = 0; g < R4; g++) xv[g] = _mm512_load_ps(xq + (t * R4 + g) * 16);
#pragma GCC unroll 16
        for (int j = 0; j < CP; j++) {
          const __m512 wv = _mm512_broadcast_f32x4(_mm_loadu_ps(w[j] + 4 * t));
#pragma GCC unroll 4
          for (int g = 0; g < R4; g++) acc[j * R4 + g] = _mm512_fmadd_ps(xv[g], wv, acc[j * R4 + g]);
        }
      }
    }
    if (KQ > KK_LQ_BLOCK)
#pragma GCC unroll 24
      for (int i = 0; i < CP * R4; i++) acc[i] = _mm512_add_ps(acc[i], _mm512_load_ps(tot + 16 * i));
    if (mtail) { /* the last 1-3 k: masked weight loads (the packed lanes past K are zero) */
      __m512 xv[4];
#pragma GCC unroll 4
      for (int g = 0; g < R4; g++) xv[g] = _mm512_load_ps(xq + (KQ * R4 + g) * 16);
#pragma GCC unroll 16
      for (int j = 0; j < CP; j++) {
        const __m512 q = _mm512_maskz_loadu_ps(mtail, w[j] + 4 * KQ);
        const __m512 wv = _mm512_shuffle_f32x4(q, q, 0x00);
#pragma GCC unroll 4
        for (int g = 0; g < R4; g++) acc[j * R4 + g] = _mm512_fmadd_ps(xv[g], wv, acc[j * R4 + g]);
      }
    }
    /* 4 columns at a time: lane 4r + jj = C(4g + r, n0 + c + jj) */
#pragma GCC unroll 4
    for (int c = 0; c < CP; c += 4) {
      const int64_t vc = min64_(4, nv - c); /* valid columns of this quad (<= 0: none) */
      if (vc <= 0) break;
      const __mmask16 cm4 = (__mmask16)mask16(vc);
      const __mmask16 cm = (__mmask16)(cm4 * 0x1111); /* the valid columns in every row block */
      __m512 bq = _mm512_setzero_ps();
      if (bias) {
        bq = load_bias_avx512(bias + (n0 + c) * bias_s, bias_s, vc);
        bq = _mm512_shuffle_f32x4(bq, bq, 0x00);
      }
#pragma GCC unroll 4
      for (int g = 0; g < R4; g++) {
        __m512 y = hsum4x4_avx512(acc[c * R4 + g], acc[(c + 1) * R4 + g], acc[(c + 2) * R4 + g],
                                  acc[(c + 3) * R4 + g]);
        if (bias) y = _mm512_add_ps(y, bq);
        y = act_avx512(act, y);
        if (RED) rs[g] = _mm512_mask_add_ps(rs[g], cm, rs[g], y);
        if (C) {
          /* block r to lane 0, then a 4-lane store into row 4g + r */
          if (4 * g + 0 < M) _mm512_mask_storeu_ps(C + (4 * g + 0) * ldc + n0 + c, cm4, y);
          if (4 * g + 1 < M)
            _mm512_mask_storeu_ps(C + (4 * g + 1) * ldc + n0 + c, cm4, _mm512_shuffle_f32x4(y, y, 0x01));
          if (4 * g + 2 < M)
            _mm512_mask_storeu_ps(C + (4 * g + 2) * ldc + n0 + c, cm4, _mm512_shuffle_f32x4(y, y, 0x02));
          if (4 * g + 3 < M)
            _mm512_mask_storeu_ps(C + (4 * g + 3) * ldc + n0 + c, cm4, _mm512_shuffle_f32x4(y, y, 0x03));
        }
      }
    }
  }
  if (RED) {
#pragma GCC unroll 4
    for (int g = 0; g < R4; g++) {
      _Alignas(64) float t[16];
      _mm512_store_ps(t, rs[g]);
      for (int r = 0; r < 4 && 4 * g + r < M; r++) rowout[4 * g + r] += (t[4 * r] + t[4 * r + 1]) + (t[4 * r + 2] + t[4 * r + 3]);
    }
  }
}

KK_AVX512 static void gemm_lt__avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0,
                                       const float *B, int64_t bs1, const float *bias, int64_t bias_s,
                                       int act, float *C, int64_t ldc, float *rowout, float *xq)
{
#define LQ_CALL(R4)                                                                                  \
  (rowout ? gemm_lq_avx512(R4, 1, M, N, K, A, as0, B, bs1, bias, bias_s, act, C, ldc, rowout, xq) \
          : gemm_lq_avx512(R4, 0, M, N, K, A, as0, B, bs1, bias, bias_s, act, C, ldc, rowout, xq))
  if (M <= 4) LQ_CALL(1);
  else if (M <= 8) LQ_CALL(2);
  else if (M <= 12) LQ_CALL(3);
  else LQ_CALL(4);
#undef LQ_CALL
}

/* The 64-column tiles' epilogue: with KK_EPI_ACCUM the tile adds C's values
 * (a later K block); without KK_EPI_FINAL it stores the sums and stops;
 * otherwise bias, act, then the optional post row, then C and/or row sums. */
typedef struct {
  const float *post; /* row added after act (post[n * post_s]), or NULL */
  int64_t post_s;
  int post_first;    /* post is the left operand: its NaN loses to the sum's, as in kk_add */
  int flags;         /* KK_EPI_ACCUM | KK_EPI_FINAL */
} xw_post;

KK_AVX512 KK_INLINE __m512 post_add_avx512(const xw_post *pp, __m512 pv, __m512 x)
{
  return pp->post_first ? add_avx512(pv, x) : add_avx512(x, pv);
}

/* act (and the post row) over an R x 64 tile (row stride 64) into C and/or row sums. */
KK_AVX512 KK_INLINE void epi_finish64_act_avx512(const int act, int R, const float *tile, const xw_post *pp,
                                                 const __m512 *pv, float *c, int64_t ldc, float *rowout)
{
  for (int i = 0; i < R; i++) {
    __m512 rs = _mm512_setzero_ps();
    for (int v = 0; v < 4; v++) {
      __m512 x = act_avx512(act, _mm512_load_ps(tile + 64 * i + 16 * v));
      if (pp->post) x = post_add_avx512(pp, pv[v], x);
      if (c) _mm512_storeu_ps(c + i * ldc + 16 * v, x);
      rs = _mm512_add_ps(rs, x);
    }
    if (rowout) rowout[i] += _mm512_reduce_add_ps(rs);
  }
}

KK_AVX512 KK_NOINLINE static void epi_finish64_avx512(int R, const float *tile, int act, const xw_post *pp,
                                                      const __m512 *pv, float *c, int64_t ldc, float *rowout)
{
#define KK_EPI_FINISH64(A) epi_finish64_act_avx512(A, R, tile, pp, pv, c, ldc, rowout)
  KK_ACT_DISPATCH(act, KK_EPI_FINISH64)
#undef KK_EPI_FINISH64
}

/* Small M times a row-major B (x @ W with bs1 == 1), 64 columns at a time:
 * an R x 64 register tile (R <= 6; 4 B vectors and R broadcasts per k feed
 * 4R FMAs, 10 loads per 24 where the 12x32 micro-kernel's 8-row remainder
 * needs 10 per 16). A rows and the B panel are read in place. Each output is
 * one k-ordered FMA chain, as in the micro-kernel (R = 1: two, summed). */
KK_AVX512 KK_INLINE void xw_tile_avx512(const int R, int64_t K, const float *a, int64_t as0, const float *b,
                                        int64_t bs0, const float *bias, int64_t bias_s, int act,
                                        const xw_post *pp, float *c, int64_t ldc, float *rowout)
{
  const int KU = R == 1 ? 2 : 1;
  __m512 acc[2][6][4];
#pragma GCC unroll 2
  for (int u = 0; u < KU; u++)
#pragma GCC unroll 6
    for (int i = 0; i < R; i++)
#pragma GCC unroll 4
      for (int v = 0; v < 4; v++) acc[u][i][v] = _mm512_setzero_ps();
  const int pf = bs0 > 256; /* B rows far apart: the prefetchers do not follow */
  int64_t k = 0;
  for (; k + KU <= K; k += KU) {
#pragma GCC unroll 2
    for (int u = 0; u < KU; u++) {
      const float *bk = b + (k + u) * bs0;
      if (pf) {
        _mm_prefetch((const char *)(bk + 8 * bs0), _MM_HINT_T0);
        _mm_prefetch((const char *)(bk + 8 * bs0 + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(bk + 8 * bs0 + 32), _MM_HINT_T0);
        _mm_prefetch((const char *)(bk + 8 * bs0 + 48), _MM_HINT_T0);
      }
      const __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
      const __m512 b2 = _mm512_loadu_ps(bk + 32), b3 = _mm512_loadu_ps(bk + 48);
#pragma GCC unroll 6
      for (int i = 0; i < R; i++) {
        const __m512 av = _mm512_set1_ps(a[i * as0 + k + u]);
        acc[u][i][0] = _mm512_fmadd_ps(av, b0, acc[u][i][0]);
        acc[u][i][1] = _mm512_fmadd_ps(av, b1, acc[u][i][1]);
        acc[u][i][2] = _mm512_fmadd_ps(av, b2, acc[u][i][2]);
        acc[u][i][3] = _mm512_fmadd_ps(av, b3, acc[u][i][3]);
      }
    }
  }
  for (; k < K; k++) { /* R = 1, odd K */
    const float *bk = b + k * bs0;
    const __m512 av = _mm512_set1_ps(a[k]);
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) acc[0][0][v] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bk + 16 * v), acc[0][0][v]);
  }
  if (pp->flags != KK_EPI_FINAL) { /* one of several K blocks: C holds (or takes) the partial sums */
#pragma GCC unroll 6
    for (int i = 0; i < R; i++)
#pragma GCC unroll 4
      for (int v = 0; v < 4; v++) {
        __m512 x = KU == 2 ? _mm512_add_ps(acc[0][i][v], acc[1][i][v]) : acc[0][i][v];
        if (pp->flags & KK_EPI_ACCUM) x = _mm512_add_ps(x, _mm512_loadu_ps(c + i * ldc + 16 * v));
        if (!(pp->flags & KK_EPI_FINAL)) _mm512_storeu_ps(c + i * ldc + 16 * v, x);
        acc[0][i][v] = x;
        if (KU == 2) acc[1][i][v] = _mm512_set1_ps(-0.0f); /* x + -0 is x, signed zeros included */
      }
    if (!(pp->flags & KK_EPI_FINAL)) return;
  }
  __m512 bv[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; v++) bv[v] = bias ? load_bias_avx512(bias + 16 * v * bias_s, bias_s, 16) : _mm512_setzero_ps();
  __m512 pv[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; v++)
    pv[v] = pp->post ? load_bias_avx512(pp->post + 16 * v * pp->post_s, pp->post_s, 16) : _mm512_setzero_ps();
  if (act != KK_ACT_NONE && act != KK_ACT_RELU && act != KK_ACT_RELU_TF) {
    /* through a stack tile: unrolled over the register tile, sigmoid's ~25
     * instructions a vector made the 8-row sigmoid layer slower than the
     * 32-wide micro-kernel's row pass; and a switch over every kk_act in
     * the loop below cost the TF chain (relu) 4% */
    _Alignas(64) float tile[6 * 64];
#pragma GCC unroll 6
    for (int i = 0; i < R; i++)
#pragma GCC unroll 4
      for (int v = 0; v < 4; v++)
        _mm512_store_ps(tile + 64 * i + 16 * v,
                        _mm512_add_ps(KU == 2 ? _mm512_add_ps(acc[0][i][v], acc[1][i][v]) : acc[0][i][v], bv[v]));
    epi_finish64_avx512(R, tile, act, pp, pv, c, ldc, rowout);
    return;
  }
#pragma GCC unroll 6
  for (int i = 0; i < R; i++) {
    __m512 rs = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) {
      __m512 x = _mm512_add_ps(KU == 2 ? _mm512_add_ps(acc[0][i][v], acc[1][i][v]) : acc[0][i][v], bv[v]);
      if (act == KK_ACT_RELU) x = relu_avx512(x);
      else if (act == KK_ACT_RELU_TF) x = relu_tf_avx512(x);
      if (pp->post) x = post_add_avx512(pp, pv[v], x);
      if (c) _mm512_storeu_ps(c + i * ldc + 16 * v, x);
      if (rowout) rs = _mm512_add_ps(rs, x);
    }
    if (rowout) rowout[i] += _mm512_reduce_add_ps(rs);
  }
}

/* The whole 64-column panels of C (N / 64 of them); panel p of B starts at
 * B + p * bps (64 in place, K * 64 packed), row stride bs0. Rows are split
 * into blocks of <= 6 whose sizes differ by at most one (8 rows: 4 + 4, not
 * 6 + 2; 13: 5 + 4 + 4, not 5 + 5 + 3, 1.06-1.17x; 32: 6 6 5 5 5 5, not
 * 6 6 6 6 6 2, 1.03-1.07x). */
KK_AVX512 static void gemm_xw__avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0,
                                      const float *B, int64_t bs0, int64_t bps, const float *bias,
                                      int64_t bias_s, int act, const float *post, int64_t post_s, int post_first,
                                      int flags, float *C, int64_t ldc, float *rowout)
{
  const int64_t N64 = N / 64 * 64, nblk = (M + 5) / 6, base = M / nblk, extra = M % nblk;
  for (int64_t n0 = 0; n0 < N64; n0 += 64) {
    const float *bp = B + n0 / 64 * bps, *bb = bias ? bias + n0 * bias_s : NULL;
    const xw_post pp = {post ? post + n0 * post_s : NULL, post_s, post_first, flags}, *ppp = &pp;
    int64_t rows;
    for (int64_t m0 = 0, blk = 0; m0 < M; m0 += rows, blk++) {
      rows = base + (blk < extra);
      const float *a = A + m0 * as0;
      float *c = C ? C + m0 * ldc + n0 : NULL, *ro = rowout ? rowout + m0 : NULL;
      switch (rows) {
      case 1: xw_tile_avx512(1, K, a, as0, bp, bs0, bb, bias_s, act, ppp, c, ldc, ro); break;
      case 2: xw_tile_avx512(2, K, a, as0, bp, bs0, bb, bias_s, act, ppp, c, ldc, ro); break;
      case 3: xw_tile_avx512(3, K, a, as0, bp, bs0, bb, bias_s, act, ppp, c, ldc, ro); break;
      case 4: xw_tile_avx512(4, K, a, as0, bp, bs0, bb, bias_s, act, ppp, c, ldc, ro); break;
      case 5: xw_tile_avx512(5, K, a, as0, bp, bs0, bb, bias_s, act, ppp, c, ldc, ro); break;
      default: xw_tile_avx512(6, K, a, as0, bp, bs0, bb, bias_s, act, ppp, c, ldc, ro); break;
      }
    }
  }
}

/* Small M with B rows contiguous (x @ W) and B larger than the caches: B is
 * streamed in memory order, eight rows at a time, into row accumulators that
 * stay in L1 (ys: M x ldy floats, <= 16 KB per column chunk). The strip-wise
 * register tiles read 128 bytes per row with rows a page apart, which the
 * prefetchers and the TLB cannot follow. */
#define KK_ROWS_MAX_M 8
_Static_assert(KK_SUM_KB % 8 == 0, "gemm_rows folds its sums at whole 8-row blocks");
#define KK_ROWS_CHUNK 4096 /* floats of accumulators per column chunk */
KK_AVX512 KK_INLINE void rows_block_avx512(int kb, int64_t M, int64_t nc, const float *a, int64_t as0, int64_t as1,
                                           const float *b, int64_t bs0, float *Y, int64_t ldy, int first)
{
  for (int64_t j = 0; j < nc; j += 16) {
    const __mmask16 mk = mask16(nc - j);
    __m512 bv[8];
#pragma GCC unroll 8
    for (int q = 0; q < 8; q++) bv[q] = q < kb ? _mm512_maskz_loadu_ps(mk, b + q * bs0 + j) : _mm512_setzero_ps();
    for (int64_t m = 0; m < M; m++) {
      __m512 y = first ? _mm512_setzero_ps() : _mm512_load_ps(Y + m * ldy + j);
      const float *am = a + m * as0;
#pragma GCC unroll 8
      for (int q = 0; q < 8; q++)
        if (q < kb) y = _mm512_fmadd_ps(_mm512_set1_ps(am[q * as1]), bv[q], y);
      _mm512_store_ps(Y + m * ldy + j, y);
    }
  }
}

KK_AVX512 static void gemm_rows__avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, int64_t as1,
                                         const float *B, int64_t bs0, const float *bias, int64_t bias_s, int act,
                                         float *C, int64_t ldc, float *rowout, float *ys)
{
  const int64_t NC = KK_ROWS_CHUNK / M / 16 * 16;
  for (int64_t n0 = 0; n0 < N; n0 += NC) {
    const int64_t nc = min64_(NC, N - n0), ldy = (nc + 15) / 16 * 16;
    for (int64_t k0 = 0; k0 < K; k0 += 8) {
      const float *a = A + k0 * as1, *b = B + k0 * bs0 + n0;
      const int first = k0 % KK_SUM_KB == 0;
      if (first && k0) /* fold the finished KK_SUM_KB block into C (gemm_driver gives one past it) */
        for (int64_t m = 0; m < M; m++)
          for (int64_t j = 0; j < nc; j += 16) {
            const __mmask16 mk = mask16(nc - j);
            float *cj = C + m * ldc + n0 + j;
            const __m512 y = _mm512_load_ps(ys + m * ldy + j);
            _mm512_mask_storeu_ps(cj, mk, k0 == KK_SUM_KB ? y : _mm512_add_ps(_mm512_maskz_loadu_ps(mk, cj), y));
          }
      if (k0 + 8 <= K) rows_block_avx512(8, M, nc, a, as0, as1, b, bs0, ys, ldy, first);
      else rows_block_avx512((int)(K - k0), M, nc, a, as0, as1, b, bs0, ys, ldy, first);
    }
    for (int64_t m = 0; m < M; m++) {
      __m512 rs = _mm512_setzero_ps();
      for (int64_t j = 0; j < nc; j += 16) {
        const __mmask16 mk = mask16(nc - j);
        __m512 v = _mm512_load_ps(ys + m * ldy + j);
        if (K > KK_SUM_KB) v = _mm512_add_ps(_mm512_maskz_loadu_ps(mk, C + m * ldc + n0 + j), v);
        if (bias) {
          const float *bj = bias + (n0 + j) * bias_s;
          if (bias_s == 1) {
            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, bj));
          } else {
            float t[16];
            for (int64_t q = 0; q < 16; q++) t[q] = q < nc - j ? bj[q * bias_s] : 0.0f;
            v = _mm512_add_ps(v, _mm512_loadu_ps(t));
          }
        }
        v = act_avx512(act, v);
        if (C) _mm512_mask_storeu_ps(C + m * ldc + n0 + j, mk, v);
        if (rowout) rs = _mm512_mask_add_ps(rs, mk, rs, v);
      }
      if (rowout) rowout[m] += _mm512_reduce_add_ps(rs);
    }
  }
}

KK_AVX512 static void act_row__avx512(int act, int64_t n, const float *x, float *y)
{
  int64_t j = 0;
  switch (act) {
  case KK_ACT_NONE:
    memcpy(y, x, (size_t)n * sizeof(float));
    return;
  case KK_ACT_RELU:
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, relu_avx512(_mm512_loadu_ps(x + j)));
    break;
  case KK_ACT_RELU_TF:
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, relu_tf_avx512(_mm512_loadu_ps(x + j)));
    break;
  case KK_ACT_SIGMOID:
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, sigmoid_avx512_s(0, _mm512_loadu_ps(x + j)));
    break;
  case KK_ACT_SIGMOID_TF:
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, sigmoid_avx512_s(1, _mm512_loadu_ps(x + j)));
    break;
  case KK_ACT_TANH:
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, tanh_avx512(_mm512_loadu_ps(x + j)));
    break;
#define KK_ACT_ROW_CASE_AVX512(ACT) \
  case ACT: \
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(y + j, act_avx512(ACT, _mm512_loadu_ps(x + j))); \
    break;
  KK_ACT_ROW_CASE_AVX512(KK_ACT_ABS)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_SQRT)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_SQUARE)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_EXP)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_SILU)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_SQRT_TF)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_LOG)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_LOG_TF)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_RSQRT)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_RELU6)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_RELU6_TF)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_HARDTANH)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_SILU_TF)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_GELU)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_GELU_TF)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_GELU_ONEDNN)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_GELU_TANH)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_GELU_TANH_TF)
  KK_ACT_ROW_CASE_AVX512(KK_ACT_LOG_TF_TAIL)
#undef KK_ACT_ROW_CASE_AVX512
  default: return;
  }
  if (j < n) {
    __mmask16 m = mask16(n - j);
    _mm512_mask_storeu_ps(y + j, m, act_avx512(act, _mm512_maskz_loadu_ps(m, x + j)));
  }
}

KK_AVX512 static int any_nan__avx512(int64_t n, const float *x)
{
  __mmask16 any = 0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512 v = _mm512_loadu_ps(x + j);
    any |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  if (j < n) {
    __m512 v = _mm512_maskz_loadu_ps(mask16(n - j), x + j);
    any |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  return any != 0;
}

KK_AVX512 static void add_row__avx512(int act, int64_t n, const float *a, const float *b, float *y)
{
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    _mm512_storeu_ps(y + j, act_avx512(act, add_avx512(_mm512_loadu_ps(a + j), _mm512_loadu_ps(b + j))));
  if (j < n) {
    __mmask16 m = mask16(n - j);
    __m512 s = add_avx512(_mm512_maskz_loadu_ps(m, a + j), _mm512_maskz_loadu_ps(m, b + j));
    _mm512_mask_storeu_ps(y + j, m, act_avx512(act, s));
  }
}

/* Both NaN: A's or (nan_b) B's NaN, quieted; see ref_bin. */
KK_AVX512 KK_INLINE __m512 bin_avx512(int op, int nan_b, __m512 a, __m512 b)
{
  if (op == KK_BIN_RECIP_MUL) { /* (1 / a) * b: 1 / a keeps a's NaN */
    a = _mm512_div_ps(_mm512_set1_ps(1.0f), a);
    op = KK_BIN_MUL;
  }
  switch (op) {
  case KK_BIN_MAX: return _mm512_max_ps(a, b);
  case KK_BIN_MIN: return _mm512_min_ps(a, b);
  case KK_BIN_MAXIMUM:
  case KK_BIN_MINIMUM: { /* see ref_bin */
    const __m512 r = op == KK_BIN_MAXIMUM ? _mm512_max_ps(a, b) : _mm512_min_ps(a, b);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q), _mm512_castsi512_ps(_mm512_set1_epi32(-1)));
  }
  case KK_BIN_MAXIMUM_TAIL:
  case KK_BIN_MINIMUM_TAIL: {
    const __mmask16 b_wins =
        op == KK_BIN_MAXIMUM_TAIL ? _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ) : _mm512_cmp_ps_mask(b, a, _CMP_LT_OQ);
    return _mm512_mask_mov_ps(_mm512_mask_mov_ps(a, b_wins, b), _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q),
                              _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
  }
  case KK_BIN_MAXIMUM_TF:
  case KK_BIN_MINIMUM_TF:
  case KK_BIN_MAXIMUM_TF_TAIL:
  case KK_BIN_MINIMUM_TF_TAIL: { /* see ref_bin */
    const __m512i expo = _mm512_set1_epi32(0x7f800000), sign = _mm512_set1_epi32((int)0x80000000u);
    const __m512i ia = _mm512_castps_si512(a), ib = _mm512_castps_si512(b);
    const __m512 fa = _mm512_castsi512_ps(_mm512_mask_mov_epi32(_mm512_and_si512(ia, sign), _mm512_test_epi32_mask(ia, expo), ia));
    const __m512 fb = _mm512_castsi512_ps(_mm512_mask_mov_epi32(_mm512_and_si512(ib, sign), _mm512_test_epi32_mask(ib, expo), ib));
    const bool tail = op == KK_BIN_MAXIMUM_TF_TAIL || op == KK_BIN_MINIMUM_TF_TAIL;
    const __m512 first = tail ? fb : fa, second = tail ? fa : fb;
    __m512 r = op == KK_BIN_MAXIMUM_TF || op == KK_BIN_MAXIMUM_TF_TAIL ? _mm512_max_ps(first, second)
                                                                       : _mm512_min_ps(first, second);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q), b);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), a);
  }
  case KK_BIN_LEAKY: {
    const __mmask16 pos = _mm512_cmp_ps_mask(b, _mm512_setzero_ps(), _CMP_GT_OQ);
    return _mm512_mask_mov_ps(first_nan_avx512(KK_BIN_MUL, b, a), pos, b);
  }
  case KK_BIN_ADD: return nan_b ? first_nan_avx512(KK_BIN_ADD, b, a) : first_nan_avx512(KK_BIN_ADD, a, b);
  case KK_BIN_MUL: return nan_b ? first_nan_avx512(KK_BIN_MUL, b, a) : first_nan_avx512(KK_BIN_MUL, a, b);
  case KK_BIN_SUB: return nan_b ? sub_b_nan_avx512(a, b) : first_nan_avx512(KK_BIN_SUB, a, b);
  default: { /* DIV */
    const __m512 r = first_nan_avx512(KK_BIN_DIV, a, b);
    if (!nan_b) return r;
    return _mm512_castsi512_ps(_mm512_mask_or_epi32(_mm512_castps_si512(r), _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q),
                                                    _mm512_castps_si512(b), _mm512_set1_epi32(0x00400000)));
  }
  }
}

/* One row of kk_binary with the op, NaN rule and operand strides fixed per
 * instantiation (a switch per vector cost ~3x the arithmetic). */
KK_AVX512 KK_INLINE void bin_rows_avx512(const int op, const int nan_b, const int as, const int bs, int64_t rows,
                                         int64_t n, const float *a, int64_t as0, const float *b, int64_t bs0, float *y)
{
  const __m512 one = _mm512_set1_ps(1.0f);
  const __mmask16 mt = mask16(n % 16);
  for (int64_t i = 0; i < rows; i++, a += as0, b += bs0, y += n) {
    int64_t j = 0;
    const __m512 a0 = _mm512_set1_ps(a[0]), b0 = _mm512_set1_ps(b[0]);
    for (; j + 16 <= n; j += 16) {
      __m512 va = as ? _mm512_loadu_ps(a + j) : a0, vb = bs ? _mm512_loadu_ps(b + j) : b0;
      _mm512_storeu_ps(y + j, bin_avx512(op, nan_b, va, vb));
    }
    if (j < n) { /* masked-off lanes hold 1.0, so no lane divides by zero or raises a flag of its own */
      __m512 va = as ? _mm512_mask_loadu_ps(one, mt, a + j) : a0, vb = bs ? _mm512_mask_loadu_ps(one, mt, b + j) : b0;
      _mm512_mask_storeu_ps(y + j, mt, bin_avx512(op, nan_b, va, vb));
    }
  }
}

#define KK_BIN_STRIDES(ISA, OP, NB)                                          \
  (as && bs   ? bin_rows_##ISA(OP, NB, 1, 1, m, n, a, as0, b, bs0, y)        \
   : as       ? bin_rows_##ISA(OP, NB, 1, 0, m, n, a, as0, b, bs0, y)        \
   : bs       ? bin_rows_##ISA(OP, NB, 0, 1, m, n, a, as0, b, bs0, y)        \
              : bin_rows_##ISA(OP, NB, 0, 0, m, n, a, as0, b, bs0, y))
#define KK_BIN_CASE(ISA, OP)                                                 \
  case OP:                                                                   \
    if (nan_b) KK_BIN_STRIDES(ISA, OP, 1);                                   \
    else KK_BIN_STRIDES(ISA, OP, 0);                                         \
    break;
#define KK_BIN_DISPATCH(ISA)                                                 \
  switch (op) {                                                              \
    KK_BIN_CASE(ISA, KK_BIN_ADD)                                             \
    KK_BIN_CASE(ISA, KK_BIN_SUB)                                             \
    KK_BIN_CASE(ISA, KK_BIN_MUL)                                             \
    KK_BIN_CASE(ISA, KK_BIN_DIV)                                             \
    KK_BIN_CASE(ISA, KK_BIN_RECIP_MUL)                                       \
    KK_BIN_CASE(ISA, KK_BIN_MAX)                                             \
    KK_BIN_CASE(ISA, KK_BIN_MIN)                                             \
    KK_BIN_CASE(ISA, KK_BIN_LEAKY)                                           \
    KK_BIN_CASE(ISA, KK_BIN_MAXIMUM)                                         \
    KK_BIN_CASE(ISA, KK_BIN_MINIMUM)                                         \
    KK_BIN_CASE(ISA, KK_BIN_MAXIMUM_TAIL)                                    \
    KK_BIN_CASE(ISA, KK_BIN_MINIMUM_TAIL)                                    \
    KK_BIN_CASE(ISA, KK_BIN_MAXIMUM_TF)                                      \
    KK_BIN_CASE(ISA, KK_BIN_MINIMUM_TF)                                      \
    KK_BIN_CASE(ISA, KK_BIN_MAXIMUM_TF_TAIL)                                 \
    KK_BIN_CASE(ISA, KK_BIN_MINIMUM_TF_TAIL)                                 \
  default: break;                                                            \
  }

KK_AVX512 static void bin_rows__avx512(int op, int nan_b, int64_t m, int64_t n, const float *a, int64_t as0,
                                       int64_t as, const float *b, int64_t bs0, int64_t bs, float *y)
{
  KK_BIN_DISPATCH(avx512)
}

KK_AVX2 static void bin_rows__avx2(int op, int nan_b, int64_t m, int64_t n, const float *a, int64_t as0, int64_t as,
                                   const float *b, int64_t bs0, int64_t bs, float *y)
{
  KK_BIN_DISPATCH(avx2)
}

/* ---- fused elementwise chains (kk_ewise) ----------------------------------
 * A tile of V vectors of one row goes through every step in registers: one
 * load of the first value, one of each tensor operand, one store. Each step
 * is a case of one switch on its code (see kk_ewise), which branch prediction
 * follows, as the codes repeat tile after tile; the op, NaN rule, operand
 * side and operand form (ONE: one value a row) are constants within a case.
 * FULL tiles need no masks; in the others, masked-off lanes hold 1.0, as in
 * bin_rows. */
#define KK_EW_BIN_CASE(ISA, W, OP, NB, XL, ONE)                                                     \
  case KK_EW_CODE_BIN + (((OP) * 2 + (NB)) * 2 + (XL)) * 2 + (ONE): {                             \
    const float *xp = s->x + i * s->xs0 + ((ONE) ? 0 : j);                                        \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++) {                                          \
      const ew_vec_##ISA x = (ONE) ? ew_one_##ISA(xp) : ew_load_##ISA(FULL, xp + (W) * q, m[q]);  \
      v[q] = (XL) ? bin_##ISA(OP, NB, x, v[q]) : bin_##ISA(OP, NB, v[q], x);                      \
    }                                                                                              \
    break;                                                                                         \
  }
/* PUSH: v set aside, a new v read as the first value is; POP: v = w op v
 * (or v op w), w the value set aside last */
#define KK_EW_PUSH_CASE(ISA, W, ONE)                                                                \
  case KK_EW_CODE_PUSH + (ONE): {                                                                  \
    const float *xp = s->x + i * s->xs0 + ((ONE) ? 0 : j);                                        \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++) {                                          \
      stk[sp][q] = v[q];                                                                           \
      v[q] = (ONE) ? ew_one_##ISA(xp) : ew_load_##ISA(FULL, xp + (W) * q, m[q]);                  \
    }                                                                                              \
    sp++;                                                                                          \
    break;                                                                                         \
  }
#define KK_EW_POP_CASE(ISA, OP, NB, XL)                                                             \
  case KK_EW_CODE_POP + ((OP) * 2 + (NB)) * 2 + (XL):                                              \
    sp--;                                                                                          \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++)                                            \
      v[q] = (XL) ? bin_##ISA(OP, NB, stk[sp][q], v[q]) : bin_##ISA(OP, NB, v[q], stk[sp][q]);    \
    break;
#define KK_EW_BIN_OP_CASES(ISA, W, OP)                                                              \
  KK_EW_BIN_CASE(ISA, W, OP, 0, 0, 0) KK_EW_BIN_CASE(ISA, W, OP, 0, 0, 1)                          \
  KK_EW_BIN_CASE(ISA, W, OP, 0, 1, 0) KK_EW_BIN_CASE(ISA, W, OP, 0, 1, 1)                          \
  KK_EW_BIN_CASE(ISA, W, OP, 1, 0, 0) KK_EW_BIN_CASE(ISA, W, OP, 1, 0, 1)                          \
  KK_EW_BIN_CASE(ISA, W, OP, 1, 1, 0) KK_EW_BIN_CASE(ISA, W, OP, 1, 1, 1)                          \
  KK_EW_POP_CASE(ISA, OP, 0, 0) KK_EW_POP_CASE(ISA, OP, 0, 1)                                      \
  KK_EW_POP_CASE(ISA, OP, 1, 0) KK_EW_POP_CASE(ISA, OP, 1, 1)
#define KK_EW_ACT_CASE(ISA, ACT)                                                                   \
  case ACT:                                                                                        \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++) v[q] = act_##ISA(ACT, v[q]);              \
    break;
#define KK_EW_CASES(ISA, W)                                                                         \
  KK_EW_ACT_CASE(ISA, KK_ACT_RELU)                                                                 \
  KK_EW_ACT_CASE(ISA, KK_ACT_RELU_TF)                                                              \
  KK_EW_ACT_CASE(ISA, KK_ACT_SIGMOID)                                                              \
  KK_EW_ACT_CASE(ISA, KK_ACT_SIGMOID_TF)                                                           \
  KK_EW_ACT_CASE(ISA, KK_ACT_TANH)                                                                 \
  KK_EW_ACT_CASE(ISA, KK_ACT_ABS)                                                                  \
  KK_EW_ACT_CASE(ISA, KK_ACT_SQRT)                                                                 \
  KK_EW_ACT_CASE(ISA, KK_ACT_SQUARE)                                                               \
  KK_EW_ACT_CASE(ISA, KK_ACT_EXP)                                                                  \
  KK_EW_ACT_CASE(ISA, KK_ACT_SILU)                                                                 \
  KK_EW_ACT_CASE(ISA, KK_ACT_SQRT_TF)                                                              \
  KK_EW_ACT_CASE(ISA, KK_ACT_LOG)                                                                  \
  KK_EW_ACT_CASE(ISA, KK_ACT_LOG_TF)                                                               \
  KK_EW_ACT_CASE(ISA, KK_ACT_RSQRT)                                                                \
  KK_EW_ACT_CASE(ISA, KK_ACT_RELU6)                                                                \
  KK_EW_ACT_CASE(ISA, KK_ACT_RELU6_TF)                                                             \
  KK_EW_ACT_CASE(ISA, KK_ACT_HARDTANH)                                                             \
  KK_EW_ACT_CASE(ISA, KK_ACT_SILU_TF)                                                              \
  KK_EW_ACT_CASE(ISA, KK_ACT_GELU)                                                                 \
  KK_EW_ACT_CASE(ISA, KK_ACT_GELU_TF)                                                              \
  KK_EW_ACT_CASE(ISA, KK_ACT_GELU_ONEDNN)                                                          \
  KK_EW_ACT_CASE(ISA, KK_ACT_GELU_TANH)                                                            \
  KK_EW_ACT_CASE(ISA, KK_ACT_GELU_TANH_TF)                                                         \
  KK_EW_ACT_CASE(ISA, KK_ACT_LOG_TF_TAIL)                                                          \
  case KK_EW_CODE_NEG:                                                                             \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++) v[q] = neg_##ISA(v[q]);                   \
    break;                                                                                         \
  KK_EW_PUSH_CASE(ISA, W, 0)                                                                       \
  KK_EW_PUSH_CASE(ISA, W, 1)                                                                       \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_ADD)                                                           \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_SUB)                                                           \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_MUL)                                                           \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_DIV)                                                           \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_RECIP_MUL)                                                     \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_MAX)                                                           \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_MIN)                                                           \
  KK_EW_BIN_OP_CASES(ISA, W, KK_BIN_LEAKY)                                                         \
  default: /* KK_ACT_NONE */                                                                       \
    break;
/* The tile function and its driver for one ISA (ATTR its target, W floats a vector). */
#define KK_EW_TILE(ATTR, ISA, W)                                                                        \
  ATTR KK_INLINE void ew_tile_##ISA(const int V, const int FULL, int nsteps, const kk_ew_step *st,     \
                               const int *code, int64_t i, int64_t j, int64_t n, const float *x0,   \
                               int64_t xs1, float *y)                                              \
  {                                                                                                \
    ew_mask_##ISA m[4];                                                                            \
    ew_vec_##ISA v[4], stk[KK_EW_MAX_DEPTH][4];                                                    \
    int sp = 0;                                                                                    \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++) {                                          \
      m[q] = FULL ? ew_mask_for_##ISA(W) : ew_mask_for_##ISA(n - j - (W) * q); /* FULL: unused */   \
      v[q] = xs1 ? ew_load_##ISA(FULL, x0 + j + (W) * q, m[q]) : ew_one_##ISA(x0);                 \
    }                                                                                              \
    for (int k = 0; k < nsteps; k++) {                                                             \
      const kk_ew_step *s = &st[k];                                                                \
      switch (code[k]) { KK_EW_CASES(ISA, W) }                                                     \
    }                                                                                              \
    _Pragma("GCC unroll 4") for (int q = 0; q < V; q++) ew_store_##ISA(FULL, y + j + (W) * q, m[q], v[q]); \
  }                                                                                                \
  ATTR static void ewise__##ISA(int nsteps, const kk_ew_step *st, const int *code, int64_t M, int64_t N, \
                           const float *X, int64_t xs0, int64_t xs1, float *Y)                     \
  {                                                                                                \
    for (int64_t i = 0; i < M; i++) {                                                              \
      const float *x0 = X + i * xs0;                                                               \
      float *y = Y + i * N;                                                                        \
      int64_t j = 0;                                                                               \
      if (N > (W)) /* whole tiles, then the last partial one */                                    \
        for (; j + 4 * (W) <= N; j += 4 * (W)) ew_tile_##ISA(4, 1, nsteps, st, code, i, j, N, x0, xs1, y); \
      if (N - j > (W)) ew_tile_##ISA(4, 0, nsteps, st, code, i, j, N, x0, xs1, y);                 \
      else if (j < N) ew_tile_##ISA(1, 0, nsteps, st, code, i, j, N, x0, xs1, y);                  \
    }                                                                                              \
  }

typedef __m512 ew_vec_avx512;
typedef __mmask16 ew_mask_avx512;
KK_AVX512 KK_INLINE __mmask16 ew_mask_for_avx512(int64_t n) { return mask16(n); }
KK_AVX512 KK_INLINE __m512 ew_one_avx512(const float *p) { return _mm512_set1_ps(p[0]); }
KK_AVX512 KK_INLINE __m512 ew_load_avx512(const int full, const float *p, __mmask16 m)
{
  return full ? _mm512_loadu_ps(p) : _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), m, p);
}
KK_AVX512 KK_INLINE void ew_store_avx512(const int full, float *p, __mmask16 m, __m512 v)
{
  if (full) _mm512_storeu_ps(p, v);
  else _mm512_mask_storeu_ps(p, m, v);
}
KK_AVX512 KK_INLINE __m512 neg_avx512(__m512 x) /* the sign bit flipped, as kk_neg */
{
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
}
KK_EW_TILE(KK_AVX512, avx512, 16)

typedef __m256 ew_vec_avx2;
typedef __m256i ew_mask_avx2;
KK_AVX2 KK_INLINE __m256i ew_mask_for_avx2(int64_t n) { return mask8(n); }
KK_AVX2 KK_INLINE __m256 ew_one_avx2(const float *p) { return _mm256_set1_ps(p[0]); }
KK_AVX2 KK_INLINE __m256 ew_load_avx2(const int full, const float *p, __m256i m)
{
  if (full) return _mm256_loadu_ps(p);
  return _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
}
KK_AVX2 KK_INLINE void ew_store_avx2(const int full, float *p, __m256i m, __m256 v)
{
  if (full) _mm256_storeu_ps(p, v);
  else _mm256_maskstore_ps(p, m, v);
}
KK_AVX2 KK_INLINE __m256 neg_avx2(__m256 x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }
KK_EW_TILE(KK_AVX2, avx2, 8)

/* add_row over M rows in one call, the activation fixed per instantiation:
 * a call and an activation switch per row cost ~7 cycles a vector at N = 64. */
KK_AVX512 KK_INLINE void add_rows_avx512(const int act, int64_t M, int64_t N, const float *a, int64_t as0,
                                         const float *b, int64_t bs0, float *c)
{
  const __mmask16 mt = mask16(N % 16);
  for (int64_t i = 0; i < M; i++, a += as0, b += bs0, c += N) {
    int64_t j = 0;
    for (; j + 16 <= N; j += 16)
      _mm512_storeu_ps(c + j, act_avx512(act, add_avx512(_mm512_loadu_ps(a + j), _mm512_loadu_ps(b + j))));
    if (j < N) {
      const __m512 x = add_avx512(_mm512_maskz_loadu_ps(mt, a + j), _mm512_maskz_loadu_ps(mt, b + j));
      _mm512_mask_storeu_ps(c + j, mt, act_avx512(act, x));
    }
  }
}

KK_AVX512 static void add_rows__avx512(int act, int64_t M, int64_t N, const float *a, int64_t as0, const float *b,
                                       int64_t bs0, float *c)
{
  switch (act) {
  case KK_ACT_RELU: add_rows_avx512(KK_ACT_RELU, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_RELU_TF: add_rows_avx512(KK_ACT_RELU_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SIGMOID: add_rows_avx512(KK_ACT_SIGMOID, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SIGMOID_TF: add_rows_avx512(KK_ACT_SIGMOID_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_TANH: add_rows_avx512(KK_ACT_TANH, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_ABS: add_rows_avx512(KK_ACT_ABS, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SQRT: add_rows_avx512(KK_ACT_SQRT, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SQUARE: add_rows_avx512(KK_ACT_SQUARE, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_EXP: add_rows_avx512(KK_ACT_EXP, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SILU: add_rows_avx512(KK_ACT_SILU, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SQRT_TF: add_rows_avx512(KK_ACT_SQRT_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_LOG: add_rows_avx512(KK_ACT_LOG, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_LOG_TF: add_rows_avx512(KK_ACT_LOG_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_RSQRT: add_rows_avx512(KK_ACT_RSQRT, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_RELU6: add_rows_avx512(KK_ACT_RELU6, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_RELU6_TF: add_rows_avx512(KK_ACT_RELU6_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_HARDTANH: add_rows_avx512(KK_ACT_HARDTANH, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_SILU_TF: add_rows_avx512(KK_ACT_SILU_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_GELU: add_rows_avx512(KK_ACT_GELU, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_GELU_TF: add_rows_avx512(KK_ACT_GELU_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_GELU_ONEDNN: add_rows_avx512(KK_ACT_GELU_ONEDNN, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_GELU_TANH: add_rows_avx512(KK_ACT_GELU_TANH, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_GELU_TANH_TF: add_rows_avx512(KK_ACT_GELU_TANH_TF, M, N, a, as0, b, bs0, c); break;
  case KK_ACT_LOG_TF_TAIL: add_rows_avx512(KK_ACT_LOG_TF_TAIL, M, N, a, as0, b, bs0, c); break;
  default: add_rows_avx512(KK_ACT_NONE, M, N, a, as0, b, bs0, c); break;
  }
}

KK_AVX512 static float sum_row__avx512(int64_t n, const float *x);

KK_AVX512 KK_INLINE __m512d cvt_lo_pd(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
KK_AVX512 KK_INLINE __m512d cvt_hi_pd(__m512 v)
{
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

/* See moments_strided__ref: 32 floats a step as four vectors of 8 doubles in
 * four sums (fewer wait on the add's latency), then 16 at a time, the tail
 * masked (its masked-off lanes add nothing in either pass). */
KK_AVX512 static void moments_row_d__avx512(int64_t n, const float *x, double *mean, double *var)
{
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  const __mmask16 mt = mask16(n % 16);
  const int64_t n16 = n - n % 16;
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    const __m512 v = _mm512_loadu_ps(x + j), u = _mm512_loadu_ps(x + j + 16);
    s0 = _mm512_add_pd(s0, cvt_lo_pd(v));
    s1 = _mm512_add_pd(s1, cvt_hi_pd(v));
    s2 = _mm512_add_pd(s2, cvt_lo_pd(u));
    s3 = _mm512_add_pd(s3, cvt_hi_pd(u));
  }
  for (; j < n; j += 16) {
    const __m512 v = j < n16 ? _mm512_loadu_ps(x + j) : _mm512_maskz_loadu_ps(mt, x + j);
    s0 = _mm512_add_pd(s0, cvt_lo_pd(v));
    s1 = _mm512_add_pd(s1, cvt_hi_pd(v));
  }
  const double m = _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3))) / (double)n;
  const __m512d mv = _mm512_set1_pd(m);
  s0 = s1 = s2 = s3 = _mm512_setzero_pd();
  for (j = 0; j + 32 <= n; j += 32) {
    const __m512 v = _mm512_loadu_ps(x + j), u = _mm512_loadu_ps(x + j + 16);
    const __m512d d0 = _mm512_sub_pd(cvt_lo_pd(v), mv), d1 = _mm512_sub_pd(cvt_hi_pd(v), mv);
    const __m512d d2 = _mm512_sub_pd(cvt_lo_pd(u), mv), d3 = _mm512_sub_pd(cvt_hi_pd(u), mv);
    s0 = _mm512_fmadd_pd(d0, d0, s0);
    s1 = _mm512_fmadd_pd(d1, d1, s1);
    s2 = _mm512_fmadd_pd(d2, d2, s2);
    s3 = _mm512_fmadd_pd(d3, d3, s3);
  }
  for (; j < n; j += 16) {
    const __mmask16 k = j < n16 ? (__mmask16)0xffff : mt;
    const __m512 v = _mm512_maskz_loadu_ps(k, x + j);
    const __m512d d0 = _mm512_sub_pd(cvt_lo_pd(v), mv), d1 = _mm512_sub_pd(cvt_hi_pd(v), mv);
    s0 = _mm512_mask3_fmadd_pd(d0, d0, s0, (__mmask8)(k & 0xff));
    s1 = _mm512_mask3_fmadd_pd(d1, d1, s1, (__mmask8)(k >> 8));
  }
  *mean = m;
  *var = _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3))) / (double)n;
}

/* kk_moments' fast path: two passes in float32, sum_row's and then one over
 * 2 x 16 lanes summing d = x - m' and d^2 about the first's mean m' (the
 * corrected two-pass algorithm: mean = m' + sum(d) / n, var = sum(d^2) / n -
 * (sum(d) / n)^2, so the first mean's rounding error cancels), and in double
 * (moments_row_d) when that is not finite: a NaN or inf in the row, or a
 * sum or square past float32's range. Rows longer than 4096 go to double
 * too: a lane's float32 sums of 128+ terms drift (2^20 values of mean/std
 * 1e4: 241 ulp of rstd), and such rows are bound by memory, not adds. */
KK_AVX512 static void moments_row__avx512(int64_t n, const float *x, double *mean, double *var)
{
  if (n > 4096) {
    moments_row_d__avx512(n, x, mean, var);
    return;
  }
  const __mmask16 mt = mask16(n % 16);
  const float m = sum_row__avx512(n, x) / (float)n;
  const __m512 mv = _mm512_set1_ps(m);
  __m512 q0 = _mm512_setzero_ps(), q1 = q0, s0 = q0, s1 = q0; /* d^2; s0, s1: d */
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + j), mv), d1 = _mm512_sub_ps(_mm512_loadu_ps(x + j + 16), mv);
    s0 = _mm512_add_ps(s0, d0);
    s1 = _mm512_add_ps(s1, d1);
    q0 = _mm512_fmadd_ps(d0, d0, q0);
    q1 = _mm512_fmadd_ps(d1, d1, q1);
  }
  for (; j < n; j += 16) {
    const __mmask16 k = j + 16 <= n ? (__mmask16)0xffff : mt;
    const __m512 d = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + j), mv);
    s0 = _mm512_add_ps(s0, d);
    q0 = _mm512_fmadd_ps(d, d, q0);
  }
  const double ds = (double)_mm512_reduce_add_ps(_mm512_add_ps(s0, s1)) / (double)n;
  const double q = (double)_mm512_reduce_add_ps(_mm512_add_ps(q0, q1)) / (double)n;
  if (!isfinite(m) || !isfinite(q)) {
    moments_row_d__avx512(n, x, mean, var);
    return;
  }
  *mean = (double)m + ds;
  *var = q - ds * ds > 0.0 ? q - ds * ds : 0.0;
}

/* Blocks of <= 4096 with 4×16 lanes (<= 64 sequential adds per lane), pairwise above. */
KK_AVX512 static float sum_row__avx512(int64_t n, const float *x)
{
  if (n > 4096) {
    int64_t h = (n / 2 + 63) & ~(int64_t)63;
    return sum_row__avx512(h, x) + sum_row__avx512(n - h, x + h);
  }
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {
    s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + j));
    s1 = _mm512_add_ps(s1, _mm512_loadu_ps(x + j + 16));
    s2 = _mm512_add_ps(s2, _mm512_loadu_ps(x + j + 32));
    s3 = _mm512_add_ps(s3, _mm512_loadu_ps(x + j + 48));
  }
  for (; j + 16 <= n; j += 16) s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + j));
  if (j < n) s1 = _mm512_add_ps(s1, _mm512_maskz_loadu_ps(mask16(n - j), x + j));
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

KK_AVX512 static __m512 sum_cols_blk_avx512(int64_t n, const float *x, int64_t s, __mmask16 m)
{
  if (n > 256) {
    int64_t h = n / 2;
    return _mm512_add_ps(sum_cols_blk_avx512(h, x, s, m), sum_cols_blk_avx512(n - h, x + h * s, s, m));
  }
  __m512 s0 = _mm512_setzero_ps(), s1 = s0;
  int64_t j = 0;
  for (; j + 2 <= n; j += 2) {
    s0 = _mm512_add_ps(s0, _mm512_maskz_loadu_ps(m, x + j * s));
    s1 = _mm512_add_ps(s1, _mm512_maskz_loadu_ps(m, x + (j + 1) * s));
  }
  if (j < n) s0 = _mm512_add_ps(s0, _mm512_maskz_loadu_ps(m, x + j * s));
  return _mm512_add_ps(s0, s1);
}

KK_AVX512 static void sum_cols__avx512(int64_t m, int64_t n, const float *x, int64_t s, float *out)
{
  for (int64_t i = 0; i < m; i += 16) {
    __mmask16 mk = mask16(m - i);
    _mm512_mask_storeu_ps(out + i, mk, sum_cols_blk_avx512(n, x + i, s, mk));
  }
}
#endif /* KK_X86 */

/* Packs a kc x nc block of row-contiguous B (bs1 == 1) into nc/32 panels
 * (panel j0 at dst + j0 * kc, dst[k*32 + j], zero-padded past nc), row by row:
 * reads stream along B's rows, the next rows are prefetched. */
KK_AVX512 static void pack_b_block__avx512(int64_t kc, int64_t nc, const float *B, int64_t bs0, float *dst)
{
  const int64_t nfull = nc / 32 * 32, tail = nc - nfull;
  const __mmask16 t0 = mask16(tail), t1 = mask16(tail - 16);
  for (int64_t k = 0; k < kc; k++) {
    const float *src = B + k * bs0;
    if (k + 4 < kc)
      for (int64_t j = 0; j < nc; j += 16) _mm_prefetch((const char *)(src + 4 * bs0 + j), _MM_HINT_T0);
    float *d = dst + k * 32;
    for (int64_t j0 = 0; j0 < nfull; j0 += 32, d += 32 * kc) {
      _mm512_store_ps(d, _mm512_loadu_ps(src + j0));
      _mm512_store_ps(d + 16, _mm512_loadu_ps(src + j0 + 16));
    }
    if (tail) {
      _mm512_store_ps(d, _mm512_maskz_loadu_ps(t0, src + nfull));
      _mm512_store_ps(d + 16, _mm512_maskz_loadu_ps(t1, src + nfull + 16));
    }
  }
}

/* ===================================================================== */
/* 4. dispatch, GEMM driver, entry points                                 */
/* ===================================================================== */

typedef struct {
  const char *name;
  kk_ukernel_fn ukernel;
  int64_t mr, nr;     /* micro-tile */
  int64_t mc, kc, nc; /* cache blocking of the packed (large-M) path */
  void (*act_row)(int act, int64_t n, const float *x, float *y);
  void (*add_row)(int act, int64_t n, const float *a, const float *b, float *y);
  float (*sum_row)(int64_t n, const float *x);
  void (*sum_cols)(int64_t m, int64_t n, const float *x, int64_t s, float *out);
  /* optional small-M kernel for column-contiguous B (bs0 == 1) and row-contiguous A */
  void (*gemm_dot)(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, const float *B, int64_t bs1,
                   const float *bias, int64_t bias_s, int act, float *C, int64_t ldc, float *rowout);
  /* optional vectorised packing: B panel with bs0 == 1 (NR wide), A micro-panel with as1 == 1 (MR tall) */
  void (*pack_bt)(int64_t kc, int64_t nr, const float *B, int64_t bs1, float *dst);
  void (*pack_a)(int64_t mr, int64_t kc, const float *A, int64_t as0, float *dst);
  /* optional transposed small-M kernel, same layout as gemm_dot, M <= 16; xt: K*32 floats, 64-byte aligned */
  void (*gemm_lt)(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, const float *B, int64_t bs1,
                  const float *bias, int64_t bias_s, int act, float *C, int64_t ldc, float *rowout, float *xt);
  /* optional 64-column kernel for row-contiguous A and B (x @ W in place, or B packed by pack_bt64):
   * computes C's N / 64 leading whole 64-column panels; B panel p at B + p * bps, row stride bs0 */
  void (*gemm_xw)(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, const float *B, int64_t bs0,
                  int64_t bps, const float *bias, int64_t bias_s, int act, const float *post, int64_t post_s,
                  int post_first, int flags, float *C, int64_t ldc, float *rowout);
  void (*pack_bt64)(int64_t kc, int64_t nr, const float *B, int64_t bs1, float *dst); /* pack_bt, 64 wide */
  /* optional add_row over M rows of N (row strides as0, bs0; 0 broadcasts), C contiguous */
  void (*add_rows)(int act, int64_t M, int64_t N, const float *a, int64_t as0, const float *b, int64_t bs0,
                   float *c);
  /* m rows of n (kk_binary): y[i*n + j] = a[i*as0 + j*as] op b[i*bs0 + j*bs], as and bs 0 (one value) or 1 */
  void (*bin_rows)(int op, int nan_b, int64_t m, int64_t n, const float *a, int64_t as0, int64_t as, const float *b,
                   int64_t bs0, int64_t bs, float *y);
  void (*exp_row)(int64_t n, const float *x, float *y); /* e^x for x <= 0 or NaN (kk_softmax) */
  int (*any_nan)(int64_t n, const float *x);            /* kk_any_nan, contiguous */
  /* optional kk_ewise pass: step codes as kk_ewise makes them, inner strides 0 or 1 */
  void (*ewise)(int nsteps, const kk_ew_step *st, const int *code, int64_t M, int64_t N, const float *X, int64_t xs0,
                int64_t xs1, float *Y);
  void (*moments_row)(int64_t n, const float *x, double *mean, double *var); /* kk_moments, contiguous, n >= 1 */
} kk_isa_table;

static const kk_isa_table kk_table_ref = {
    "reference", kk_sgemm_ukernel_4x16__ref, 4, 16, 64, 256, 1024,
    act_row__ref, add_row__ref, sum_row__ref, sum_cols__ref, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    bin_rows__ref, exp_row__ref, any_nan__ref, NULL, moments_row__ref};
#if KK_X86
static const kk_isa_table kk_table_avx2 = {
    "avx2", kk_sgemm_ukernel_6x16__avx2, 6, 16, 120, 256, 1024,
    act_row__avx2, add_row__avx2, sum_row__avx2, sum_cols__avx2, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    bin_rows__avx2, exp_row__avx2, any_nan__avx2, ewise__avx2, moments_row__avx2};
static const kk_isa_table kk_table_avx512 = {
    "avx512", kk_sgemm_ukernel_12x32__avx512, 12, 32, KK_AVX512_MC, KK_AVX512_KC, KK_AVX512_NC,
    act_row__avx512, add_row__avx512, sum_row__avx512, sum_cols__avx512,
    gemm_dot__avx512, pack_bt__avx512, pack_a__avx512, gemm_lt__avx512, gemm_xw__avx512, pack_bt64__avx512,
    add_rows__avx512, bin_rows__avx512, exp_row__avx512, any_nan__avx512, ewise__avx512, moments_row__avx512};
#define TABLE_IS_AVX512(t) ((t) == &kk_table_avx512)
#else
#define TABLE_IS_AVX512(t) 0
#endif

static _Atomic(const kk_isa_table *) kk_table;

/* ---- thread budget ------------------------------------------------------- */
#define KK_MAX_THREADS 64
static atomic_int kk_nthreads = 1;      /* caller's budget (kk_set_num_threads / KILN_NUM_THREADS) */
static atomic_int kk_nthreads_set;      /* kk_set_num_threads was called: the env var no longer applies */
/* M*N*K at which a GEMM is split over 2 threads (each further thread needs
 * another half of it). Measured break-even ~4e6 on a 2-core AVX-512 box. */
#define KK_THREAD_MIN_DEFAULT 8000000LL
/* chunks per thread of a row split over a B the no-pack path reads in place */
#define KK_POOL_CHUNKS_NOPACK 8
static _Atomic int64_t kk_thread_min = KK_THREAD_MIN_DEFAULT;
static atomic_int kk_small_m_path = KK_SMALLM_AUTO; /* test hook */

void kk_set_small_m_path(int path) { atomic_store(&kk_small_m_path, path); }

static int clamp_threads(long n) { return n < 1 ? 1 : (n > KK_MAX_THREADS ? KK_MAX_THREADS : (int)n); }

static _Atomic(kk_budget_fn) kk_budget_hook; /* live budget (the framework's setting), or NULL */

void kk_set_num_threads(int n)
{
  atomic_store(&kk_nthreads, clamp_threads(n));
  atomic_store(&kk_nthreads_set, 1);
  atomic_store(&kk_budget_hook, NULL);
}

void kk_set_thread_budget_fn(kk_budget_fn fn) { atomic_store(&kk_budget_hook, fn); }

/* The budget now: asked from the hook when there is one (only for GEMMs
 * big enough to thread, so small calls never pay for it). */
static int current_budget(void)
{
  kk_budget_fn fn = atomic_load_explicit(&kk_budget_hook, memory_order_acquire);
  return fn ? clamp_threads(fn()) : atomic_load_explicit(&kk_nthreads, memory_order_relaxed);
}

int kk_get_num_threads(void)
{
  kk_init();
  return current_budget();
}

void kk_set_gemm_thread_min(int64_t mnk) { atomic_store(&kk_thread_min, mnk < 0 ? KK_THREAD_MIN_DEFAULT : mnk); }

static const kk_isa_table *table_for(const char *name)
{
  if (strcmp(name, "reference") == 0) return &kk_table_ref;
#if KK_X86
  __builtin_cpu_init();
  if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return &kk_table_avx2;
  if (strcmp(name, "avx512") == 0 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma"))
    return &kk_table_avx512;
#endif
  return NULL;
}

void kk_init(void)
{
  if (atomic_load_explicit(&kk_table, memory_order_acquire)) return;
  const kk_isa_table *t = NULL;
  const char *order[] = {"avx512", "avx2", "reference"};
  const char *env = getenv("KILN_ISA");
  int start = 0;
  if (env) /* may only lower the ISA: start the search at the requested one */
    for (int i = 0; i < 3; i++)
      if (strcmp(env, order[i]) == 0) start = i;
  for (int i = start; i < 3 && !t; i++) t = table_for(order[i]);
  const char *nt = getenv("KILN_NUM_THREADS");
  if (nt && *nt && !atomic_load(&kk_nthreads_set)) {
    char *end;
    long v = strtol(nt, &end, 10);
    if (*end == '\0' && v > 0) atomic_store(&kk_nthreads, clamp_threads(v));
  }
  const char *sm = getenv("KILN_GEMM_SMALLM"); /* tile|dot|lt: force one small-M kernel (A/B runs) */
  if (sm && *sm)
    atomic_store(&kk_small_m_path, strcmp(sm, "tile") == 0  ? KK_SMALLM_TILE
                                   : strcmp(sm, "dot") == 0 ? KK_SMALLM_DOT
                                   : strcmp(sm, "lt") == 0  ? KK_SMALLM_LT
                                                            : KK_SMALLM_AUTO);
  const char *ps = getenv("KILN_POOL_SPIN_US");
  if (ps && *ps) {
    char *end;
    long v = strtol(ps, &end, 10);
    if (*end == '\0' && v >= 0) kk_set_pool_spin_us(v > 1000000 ? 1000000 : (int)v);
  }
  const char *tm = getenv("KILN_GEMM_THREAD_MIN");
  if (tm && *tm) {
    char *end;
    long long v = strtoll(tm, &end, 10);
    if (*end == '\0' && v >= 0) atomic_store(&kk_thread_min, (int64_t)v);
  }
  atomic_store_explicit(&kk_table, t, memory_order_release);
}

int kk_force_isa(const char *name)
{
  const kk_isa_table *t = name ? table_for(name) : NULL;
  if (!t) return -1;
  atomic_store_explicit(&kk_table, t, memory_order_release);
  return 0;
}

static inline const kk_isa_table *isa(void)
{
  const kk_isa_table *t = atomic_load_explicit(&kk_table, memory_order_acquire);
  if (__builtin_expect(t == NULL, 0)) {
    kk_init();
    t = atomic_load_explicit(&kk_table, memory_order_acquire);
  }
  return t;
}

const char *kk_isa_name(void) { return isa()->name; }

/* ---- scratch: grow-only 64-byte aligned buffers, per thread -------------
 * KK_SCRATCH_WORK is the kernels' working buffer (packed panels, x^T, row
 * accumulators); KK_SCRATCH_SUMS holds C, a row block at a time, for a row
 * reduction whose sums are too long for one chain (gemm_driver), while
 * gemm_st uses WORK; KK_SCRATCH_POST holds C for kk_gemm_post's reductions
 * that take the unfused steps (kk_gemm, which uses the other two). */
enum { KK_SCRATCH_WORK, KK_SCRATCH_SUMS, KK_SCRATCH_POST, KK_SCRATCH_SLOTS };
#define KK_SUMS_KEEP_FLOATS (256 * 1024) /* a larger SUMS buffer is freed after use */
#define KK_SUMS_BLOCK_FLOATS (4 * 1024 * 1024) /* rows of C per SUMS block: 16 MiB, or 64 rows */
static _Thread_local float *kk_scratch[KK_SCRATCH_SLOTS];
static _Thread_local size_t kk_scratch_cap[KK_SCRATCH_SLOTS]; /* floats */

/* A thread's buffers are also freed when the thread exits (a pthread key's
 * destructor per slot), so threads that come and go (Python thread pools
 * calling the kernels) do not leave theirs behind. */
static pthread_key_t kk_scratch_key[KK_SCRATCH_SLOTS];
static pthread_once_t kk_scratch_once = PTHREAD_ONCE_INIT;
static int kk_scratch_key_ok[KK_SCRATCH_SLOTS];

static void scratch_at_thread_exit(void *p)
{
  for (int s = 0; s < KK_SCRATCH_SLOTS; s++)
    if (p == kk_scratch[s]) {
      kk_scratch[s] = NULL;
      kk_scratch_cap[s] = 0;
    }
  free(p);
}

static void scratch_key_create(void)
{
  for (int s = 0; s < KK_SCRATCH_SLOTS; s++)
    kk_scratch_key_ok[s] = pthread_key_create(&kk_scratch_key[s], scratch_at_thread_exit) == 0;
}

static float *scratch_slot(int slot, size_t nfloats)
{
  if (nfloats <= kk_scratch_cap[slot]) return kk_scratch[slot];
  size_t want = nfloats + nfloats / 2 + 1024; /* grow geometrically: realloc is rare */
  size_t bytes = (want * sizeof(float) + 63) & ~(size_t)63;
  float *p = aligned_alloc(64, bytes);
  if (!p) return NULL;
  free(kk_scratch[slot]);
  kk_scratch[slot] = p;
  kk_scratch_cap[slot] = bytes / sizeof(float);
  pthread_once(&kk_scratch_once, scratch_key_create);
  if (kk_scratch_key_ok[slot]) pthread_setspecific(kk_scratch_key[slot], p);
  return p;
}

static float *scratch(size_t nfloats) { return scratch_slot(KK_SCRATCH_WORK, nfloats); }

static void scratch_free(int slot)
{
  free(kk_scratch[slot]);
  kk_scratch[slot] = NULL;
  kk_scratch_cap[slot] = 0;
  if (kk_scratch_key_ok[slot]) pthread_setspecific(kk_scratch_key[slot], NULL);
}

void kk_release_scratch(void)
{
  pthread_once(&kk_scratch_once, scratch_key_create);
  for (int s = 0; s < KK_SCRATCH_SLOTS; s++) scratch_free(s);
}

/* ---- packing ------------------------------------------------------------ */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* dst[k*NR + j] = B(k, j) for j < nr, zero for nr <= j < NR. */
static void pack_b(const kk_isa_table *t, int64_t kc, int64_t nr, const float *B, int64_t bs0, int64_t bs1,
                   float *dst)
{
  const int64_t NR = t->nr;
  if (bs1 == 1) {
    for (int64_t k = 0; k < kc; k++) {
      memcpy(dst + k * NR, B + k * bs0, (size_t)nr * sizeof(float));
      for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0.0f;
    }
    return;
  }
  if (bs0 == 1 && t->pack_bt) {
    t->pack_bt(kc, nr, B, bs1, dst);
    return;
  }
  /* generic / transposed: blocks of 16 k so the NR-wide destination rows being
   * written stay in cache while each column is read sequentially */
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const int64_t kn = min64(16, kc - k0);
    for (int64_t j = 0; j < nr; j++) {
      const float *col = B + j * bs1 + k0 * bs0;
      float *d = dst + k0 * NR + j;
      for (int64_t k = 0; k < kn; k++) d[k * NR] = col[k * bs0];
    }
    for (int64_t k = 0; k < kn; k++)
      for (int64_t j = nr; j < NR; j++) dst[(k0 + k) * NR + j] = 0.0f;
  }
}

/* dst[k*MR + i] = A(i, k) for i < mr. */
static void pack_a(const kk_isa_table *t, int64_t mr, int64_t kc, const float *A, int64_t as0, int64_t as1,
                   float *dst)
{
  const int64_t MR = t->mr;
  if (as1 == 1 && t->pack_a) {
    t->pack_a(mr, kc, A, as0, dst);
    return;
  }
  if (as0 == 1) { /* column-major A: each k is mr contiguous floats */
    for (int64_t k = 0; k < kc; k++) memcpy(dst + k * MR, A + k * as1, (size_t)mr * sizeof(float));
    return;
  }
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const int64_t kn = min64(16, kc - k0);
    for (int64_t i = 0; i < mr; i++) {
      const float *row = A + i * as0 + k0 * as1;
      float *d = dst + k0 * MR + i;
      for (int64_t k = 0; k < kn; k++) d[k * MR] = row[k * as1];
    }
  }
}

/* Rows with a non-unit inner stride are gathered into a stack buffer in
 * chunks, so every ISA only needs contiguous row kernels. */
#define KK_CHUNK 256

/* Plain loops; used only if the packing buffer cannot be allocated. */
static void gemm_naive(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, int64_t as1,
                       const float *B, int64_t bs0, int64_t bs1, const float *bias, int64_t bias_s,
                       int act, float *C, int64_t ldc, float *rowout)
{
  for (int64_t i = 0; i < M; i++) {
    float rs = 0.0f;
    for (int64_t n = 0; n < N; n++) {
      float s = 0.0f;
      for (int64_t k = 0; k < K; k++) s += A[i * as0 + k * as1] * B[k * bs0 + n * bs1];
      if (bias) s += bias[n * bias_s];
      s = ref_act(act, s);
      if (C) C[i * ldc + n] = s;
      rs += s;
    }
    if (rowout) rowout[i] += rs;
  }
}

/* torch linear's layout with M up to this: row blocks of the k-quad kernel */
#define KK_LT_BLOCKS_MAX_M 64
/* B (K×N) at most this many bytes: it stays in L2, so large-M calls run the
 * micro-kernel on A in place (and on B in place when bs1 == 1, else on one
 * whole-B packed copy) instead of packing per cache block. */
#define KK_NOPACK_B_BYTES (128 * 1024)
/* B bytes up to which 7-16 rows of x @ W use the 64-wide tiles (half of L2). */
#define KK_XW_B_BYTES (1024 * 1024)
/* K block of small-M x @ W in several row passes over a B spanning more than
 * KK_XW_B_BYTES: 128 rows of a 32- or 64-wide panel (16 or 32 KiB) stay in L1
 * between passes. */
#define KK_SMALLM_KB 128
/* x @ W rows up to which a B past KK_NOPACK_B_BYTES stays in place under the
 * 64-wide tiles in K blocks instead of being packed. */
#define KK_XW_KB_MAX_M 64
/* A rows per block in the no-pack path: A block <= ~256 KiB stays in L2 while
 * every B panel sweeps over it. */
#define KK_NOPACK_A_BYTES (256 * 1024)

/* Single-threaded GEMM on one (sub-)problem; C has row stride ldc.
 * rowout (C == NULL) is zero-initialised by the caller; receives raw row sums.
 * M, N, K > 0. */
/* Which small-M kernel wins for torch linear's layout on AVX-512, from
 * measured M = 1..16 sweeps over K×N in {16×16, 32×32, 64×32, 64×64, 128×64,
 * 256×128, 512×512, 1000×30} (tile / dot / transposed medians per shape).
 * One row is the matrix-vector kernel (gemv_t, on the dot path); dot products
 * still win for two rows once K >= 64; the k-quad transposed kernel wins
 * everywhere else, by 1.1-1.7x over the best of the others (e.g. 128×64: 8
 * rows 1.04 -> 0.88 us, 12 rows 2.13 -> 1.42, 4 rows 0.85 -> 0.56). */
static int smallm_path(int64_t M, int64_t K)
{
  if (M == 1 || (M == 2 && K >= 64)) return KK_SMALLM_DOT;
  return KK_SMALLM_LT;
}

static void gemm_st(const kk_isa_table *t, int64_t M, int64_t N, int64_t K, const float *A, int64_t as0,
                    int64_t as1, const float *B, int64_t bs0, int64_t bs1, const float *bias, int64_t bias_s,
                    int act, float *C, int64_t ldc, float *rowout)
{
  const int64_t MR = t->mr, NR = t->nr;
  kk_epilogue ep;
  ep.bias_s = bias_s;
  ep.act = act;
  /* K block of the paths with none of their own: KK_SUM_KB when C can hold
   * the partial sums (gemm_driver gives a long row reduction a scratch C) */
  const int64_t sum_kb = C && K > KK_SUM_KB ? KK_SUM_KB : K;

  /* 7-8 rows of x @ W in one sum block with B under KK_ROWS_MIN_KN: the
   * panel loop of the small-M code below (at 7-8 rows its 64-wide tiles
   * and the rows path do not apply), before the checks that choose it */
  if (M >= 7 && M <= 8 && K <= KK_SUM_KB && K * N < KK_ROWS_MIN_KN && bs1 == 1 && C && !rowout) {
    ep.flags = KK_EPI_FINAL;
    ep.rowsum = NULL;
    for (int64_t n0 = 0; n0 < N; n0 += NR) {
      ep.bias = bias ? bias + n0 * bias_s : NULL;
      for (int64_t m0 = 0; m0 < M; m0 += MR)
        t->ukernel(min64(MR, M - m0), min64(NR, N - n0), K, A + m0 * as0, as0, as1, B + n0, bs0, C + m0 * ldc + n0,
                   ldc, &ep);
    }
    return;
  }

  /* torch linear's layout (B columns contiguous in k) at small M: dot
   * products, the transposed kernel, or packing B panels for the micro-kernel */
  if (M <= 16 && bs0 == 1 && bs1 != 1 && as1 == 1) {
    const int force = atomic_load_explicit(&kk_small_m_path, memory_order_relaxed);
    const int path = force != KK_SMALLM_AUTO ? force : smallm_path(M, K);
    if (path == KK_SMALLM_DOT && t->gemm_dot) {
      t->gemm_dot(M, N, K, A, as0, B, bs1, bias, bias_s, act, C, ldc, rowout);
      return;
    }
    if (path == KK_SMALLM_LT && t->gemm_lt) {
      float *xt = scratch((size_t)((K + 3) / 4 * 64)); /* x^T in k quads, up to 4 row groups */
      if (xt) {
        t->gemm_lt(M, N, K, A, as0, B, bs1, bias, bias_s, act, C, ldc, rowout, xt);
        return;
      }
    }
  }
  /* The same layout up to KK_LT_BLOCKS_MAX_M rows: the k-quad kernel 16 rows
   * at a time, reading the weights in place from cache for each block,
   * beats transposing them into packed panels (64×128×64: 8.4 -> 7.8 us,
   * 64×256×256: 67 -> 54; parity from 128 rows on) -- except, from 33 rows
   * with K <= 64, or from 64 rows with K·N <= 8192, against the 64-wide tiles
   * of the no-pack path below on W^T packed 64 wide (old/new in one process:
   * 33-64 rows × 64×64 1.07-1.11x, 64×128×64 1.04x; but 33-56 rows × 128×64
   * 0.92-1.00x and 33-64 rows × 128×128..256 0.90-0.98x, so those stay). */
  const int wide_first = M > 32 && N >= 64 && t->gemm_xw && (K <= 64 || (M >= 64 && K * N <= 8192)) &&
                         K * N * (int64_t)sizeof(float) <= KK_NOPACK_B_BYTES;
  if (M > 16 && M <= KK_LT_BLOCKS_MAX_M && bs0 == 1 && bs1 != 1 && as1 == 1 && t->gemm_lt && !wide_first) {
    float *xt = scratch((size_t)((K + 3) / 4 * 64));
    if (xt) {
      for (int64_t m0 = 0; m0 < M; m0 += 16)
        t->gemm_lt(min64(16, M - m0), N, K, A + m0 * as0, as0, B, bs1, bias, bias_s, act,
                   C ? C + m0 * ldc : NULL, ldc, rowout ? rowout + m0 : NULL, xt);
      return;
    }
  }
#if KK_X86
  /* 5 and 6 rows fill one 64-wide register tile, which reads B once too and
   * beat the streamed rows (old/new in one process over 26 shapes with B of
   * 2-36 MiB: 1.03-1.34x; 64 MiB, 4096x4096: 0.91-1.06x). 7 and 8 rows take
   * one micro-kernel pass when B's rows start on cache lines, number under
   * 4096 and hold at most 16 MiB (34 shapes: 0.98-1.51x; 4096 rows 0.90-0.98x,
   * 24-32 MiB 0.88-0.98x, rows off the cache lines 0.79-0.99x). 1-4 rows stream. */
  const int one_pass = (M >= 5 && M <= 6 && as1 == 1 && N >= 64 && t->gemm_xw) ||
                       (M >= 7 && K < 4096 && K * N * (int64_t)sizeof(float) <= 16 * 1024 * 1024 && bs0 % 16 == 0 &&
                        ((uintptr_t)B & 63) == 0);
  if (t == &kk_table_avx512 && bs1 == 1 && M <= KK_ROWS_MAX_M && K * N >= KK_ROWS_MIN_KN && !one_pass &&
      (C || K <= KK_SUM_KB)) {
    float *ys = scratch(KK_ROWS_CHUNK + 16 * KK_ROWS_MAX_M);
    if (ys) {
      gemm_rows__avx512(M, N, K, A, as0, as1, B, bs0, bias, bias_s, act, C, ldc, rowout, ys);
      return;
    }
  }
#endif
  /* x @ W up to KK_XW_KB_MAX_M rows with B past the no-pack size takes the
   * small-M code below, B in place under the 64-wide tiles in K blocks
   * (old/new in one process against the packed path: 17-64 rows 1.08-1.85x;
   * 80-96 rows 0.88-1.30x, 128 rows 0.94-1.09x, 256 rows 0.85-1.05x). */
  const int xw_mid = M > 16 && M <= KK_XW_KB_MAX_M && bs1 == 1 && as1 == 1 && N >= 64 && C && t->gemm_xw &&
                     K * N * (int64_t)sizeof(float) > KK_NOPACK_B_BYTES;
  if (M <= 16 || xw_mid) {
    /* Small M (matrix-vector regime): A is read in place; B is streamed in
     * place when its columns are contiguous, else packed one panel at a time. */
    float *bp = NULL;
    if (bs1 != 1) {
      bp = scratch((size_t)(K * NR));
      if (!bp) {
        gemm_naive(M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, C, ldc, rowout);
        return;
      }
    }
    /* The 64-wide x @ W tiles take up to 6 rows at a time (old/new in one
     * process: 1-6 rows 1.10-1.29x the micro-kernel). 7 and 8 rows split 4 + 3
     * and 4 + 4 against one 8-row micro-kernel pass (0.70-1.00x), so they stay;
     * 9-16 rows gain 1.00-1.10x while B sits in L2, as they read it more than
     * once (12×1024×512, B 2 MiB: 0.91x; 12×1024×1024 0.64x; 1 MiB: 1.04x).
     * Past that, in K blocks of KK_SMALLM_KB that stay in L1 while every row
     * block passes (C holds the partial sums), from K = 1024 at 13-16 rows
     * (1.00-1.71x) and K = 2048 at 9-12 (1.00-1.61x), and past 16 rows
     * (xw_mid); below those the micro-kernel stays (9-13 rows x 2048-4096 x
     * 768-1536: 0.83-0.95x). */
    int64_t n64 = 0; /* columns computed by the 64-wide tiles */
    /* B's rows span K * bs0 floats: a column slice of a wider B (a thread's
     * share) maps to the cache like the whole */
    const int64_t b_span = K * bs0 * (int64_t)sizeof(float);
    const int xw_kblocks = xw_mid || (M >= 9 && C && b_span > KK_XW_B_BYTES && K >= (M > MR ? 1024 : 2048));
    if (N >= 64 && bs1 == 1 && as1 == 1 && t->gemm_xw &&
        (M <= 6 || (M >= 9 && b_span <= KK_XW_B_BYTES) || xw_kblocks)) {
      n64 = N / 64 * 64;
      const int64_t kb = xw_kblocks ? KK_SMALLM_KB : sum_kb;
      int64_t k0 = 0;
      do { /* K == 0 still runs once: C = act(bias) */
        const int64_t kc = min64(kb, K - k0);
        t->gemm_xw(M, N, kc, A + k0, as0, B + k0 * bs0, bs0, 64, bias, bias_s, act, NULL, 0, 0,
                   (k0 > 0 ? KK_EPI_ACCUM : 0) | (k0 + kc >= K ? KK_EPI_FINAL : 0), C, ldc, rowout);
        k0 += kc;
      } while (k0 < K);
    }
    /* More rows than one micro-kernel pass (AVX-512: 13-16, AVX2: 7-16) with
     * B in place spanning more than L2 holds: K blocks of KK_SMALLM_KB, so
     * the later passes find their B rows in L1. Rows a power of two apart map
     * to few L2 sets, and without blocks each pass read B from memory again
     * (old/new in one process, AVX-512: 13-16 rows x 1024x1024 1.31-1.65x,
     * 16x4096x4096 1.62x; AVX2: 7-16 rows 1.53-1.74x). */
    const int64_t kb = M > MR && !bp && C && b_span > KK_XW_B_BYTES ? KK_SMALLM_KB : sum_kb;
    for (int64_t n0 = n64; n0 < N; n0 += NR) {
      int64_t nr = min64(NR, N - n0);
      const float *panel = B + n0 * bs1;
      int64_t b_rs = bs0;
      if (bp) {
        pack_b(t, K, nr, panel, bs0, bs1, bp);
        panel = bp;
        b_rs = NR;
      }
      ep.bias = bias ? bias + n0 * bias_s : NULL;
      int64_t k0 = 0;
      do { /* K == 0 still runs once: C = act(bias) */
        const int64_t kc = min64(kb, K - k0);
        ep.flags = (k0 > 0 ? KK_EPI_ACCUM : 0) | (k0 + kc >= K ? KK_EPI_FINAL : 0);
        for (int64_t m0 = 0; m0 < M; m0 += MR) {
          ep.rowsum = rowout ? rowout + m0 : NULL;
          t->ukernel(min64(MR, M - m0), nr, kc, A + m0 * as0 + k0 * as1, as0, as1, panel + k0 * b_rs, b_rs,
                     C ? C + m0 * ldc + n0 : NULL, ldc, &ep);
        }
        k0 += kc;
      } while (k0 < K);
    }
    return;
  }

  if (K * N * (int64_t)sizeof(float) <= KK_NOPACK_B_BYTES) {
    /* No-pack path: B small enough for L2. A in place (any strides); B in
     * place when bs1 == 1, else packed once as a whole. K blocks of
     * KK_SUM_KB. With row-contiguous A, whole 64-column panels go to the
     * 64-wide tiles (B^T packed 64 wide when B is column-contiguous, as in
     * torch linear). */
    const int64_t npan = (N + NR - 1) / NR;
    const int wide = N >= 64 && as1 == 1 && t->gemm_xw && (bs1 == 1 || (bs0 == 1 && t->pack_bt64));
    const int64_t n64 = wide ? N / 64 * 64 : 0; /* a multiple of NR: the panels after it are NR wide */
    float *bp = NULL;
    if (bs1 != 1) {
      bp = scratch((size_t)(npan * K * NR));
      if (!bp) {
        gemm_naive(M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, C, ldc, rowout);
        return;
      }
      for (int64_t n0 = 0; n0 < n64; n0 += 64) t->pack_bt64(K, 64, B + n0 * bs1, bs1, bp + n0 * K);
      for (int64_t p = n64 / NR; p < npan; p++)
        pack_b(t, K, min64(NR, N - p * NR), B + p * NR * bs1, bs0, bs1, bp + p * K * NR);
    }
    int64_t mb = KK_NOPACK_A_BYTES / (K * (int64_t)sizeof(float));
    mb = mb < MR ? MR : mb / MR * MR;
    for (int64_t mb0 = 0; mb0 < M; mb0 += mb) {
      const int64_t mbe = min64(M, mb0 + mb);
      int64_t k0 = 0;
      do { /* K == 0 still runs once: C = act(bias) */
        const int64_t kc = min64(sum_kb, K - k0);
        ep.flags = (k0 > 0 ? KK_EPI_ACCUM : 0) | (k0 + kc >= K ? KK_EPI_FINAL : 0);
        if (n64)
          t->gemm_xw(mbe - mb0, n64, kc, A + mb0 * as0 + k0, as0, bp ? bp + k0 * 64 : B + k0 * bs0, bp ? 64 : bs0,
                     bp ? K * 64 : 64, bias, bias_s, act, NULL, 0, 0, ep.flags, C ? C + mb0 * ldc : NULL, ldc,
                     rowout ? rowout + mb0 : NULL);
        for (int64_t p = n64 / NR; p < npan; p++) {
          const int64_t n0 = p * NR, nr = min64(NR, N - n0);
          const float *panel = bp ? bp + p * K * NR : B + n0 * bs1;
          const int64_t b_rs = bp ? NR : bs0;
          ep.bias = bias ? bias + n0 * bias_s : NULL;
          for (int64_t m0 = mb0; m0 < mbe; m0 += MR) {
            ep.rowsum = rowout ? rowout + m0 : NULL;
            t->ukernel(min64(MR, mbe - m0), nr, kc, A + m0 * as0 + k0 * as1, as0, as1, panel + k0 * b_rs, b_rs,
                       C ? C + m0 * ldc + n0 : NULL, ldc, &ep);
          }
        }
        k0 += kc;
      } while (k0 < K);
    }
    return;
  }

#if KK_X86
  if (t == &kk_table_avx512) {
    /* AVX-512 packed path, loop order m (A block) → k → n (B block, KC x NC,
     * packed, L2-resident) → i (12-row A micro-panel, stays in L1 while ...)
     * → j (... the 32-wide B micro-panels stream from L2). This is BLIS's
     * order with the operands' roles swapped (our micro-kernel broadcasts A
     * and loads B vectors); C is walked along rows. A with contiguous rows
     * is read in place (packing it was 3.5% of 1024^3; in place, old/new in
     * one process: 512-1280 square 1.02-1.05x, 1024 and 2048 1.00x), else
     * packed once per K block. B is packed once when M <= MC. K is split
     * into equal blocks (multiples of 4); the row-reduce form (no C to
     * accumulate into) uses one K block and shrinks the A/B blocks to keep
     * their byte sizes. */
    const int64_t nkb = rowout ? 1 : (K + t->kc - 1) / t->kc;
    int64_t KC = (K + nkb - 1) / nkb;
    KC = nkb > 1 ? (KC + 3) / 4 * 4 : KC;
    const double shrink = KC > t->kc ? (double)t->kc / (double)KC : 1.0;
    int64_t NC = (int64_t)((double)t->nc * shrink) / NR * NR, MC = (int64_t)((double)t->mc * shrink) / MR * MR;
    NC = NC < NR ? NR : NC;
    MC = MC < MR ? MR : MC;
    /* A read in place needs no A block: all rows in one, so each B block is
     * packed once, not once per MC rows (2048^3, interleaved with the FMA
     * peak: 72.7% -> 75.4% of it) */
    const int a_in_place = as1 == 1;
    if (a_in_place) MC = (M + MR - 1) / MR * MR;
    const int64_t nblk = (N + NC - 1) / NC;
    NC = ((N + nblk - 1) / nblk + NR - 1) / NR * NR; /* equal B blocks */
    const int64_t ncmax = min64(NC, (N + NR - 1) / NR * NR), mcmax = a_in_place ? 0 : min64(MC, (M + MR - 1) / MR * MR);
    float *buf = scratch((size_t)(KC * ncmax + mcmax * KC));
    if (!buf) {
      gemm_naive(M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, C, ldc, rowout);
      return;
    }
    float *bpack = buf, *apack = buf + KC * ncmax;
    for (int64_t m0 = 0; m0 < M; m0 += MC) {
      const int64_t mc = min64(MC, M - m0);
      for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t kc = min64(KC, K - k0);
        ep.flags = (k0 > 0 ? KK_EPI_ACCUM : 0) | (k0 + kc >= K ? KK_EPI_FINAL : 0);
        if (!a_in_place)
          for (int64_t i0 = 0; i0 < mc; i0 += MR)
            pack_a(t, min64(MR, mc - i0), kc, A + (m0 + i0) * as0 + k0 * as1, as0, as1, apack + i0 * kc);
        for (int64_t n0 = 0; n0 < N; n0 += NC) {
          const int64_t nc = min64(NC, N - n0);
          if (bs1 == 1) pack_b_block__avx512(kc, nc, B + k0 * bs0 + n0, bs0, bpack);
          else
            for (int64_t j0 = 0; j0 < nc; j0 += NR)
              pack_b(t, kc, min64(NR, nc - j0), B + k0 * bs0 + (n0 + j0) * bs1, bs0, bs1, bpack + j0 * kc);
          for (int64_t i0 = 0; i0 < mc; i0 += MR) {
            const int64_t mr = min64(MR, mc - i0);
            ep.rowsum = rowout ? rowout + m0 + i0 : NULL;
            float *crow = C ? C + (m0 + i0) * ldc + n0 : NULL;
            for (int64_t j0 = 0; j0 < nc; j0 += NR) {
              ep.bias = bias ? bias + (n0 + j0) * bias_s : NULL;
              if (a_in_place)
                t->ukernel(mr, min64(NR, nc - j0), kc, A + (m0 + i0) * as0 + k0, as0, 1, bpack + j0 * kc, NR,
                           crow ? crow + j0 : NULL, ldc, &ep);
              else
                t->ukernel(mr, min64(NR, nc - j0), kc, apack + i0 * kc, 1, MR, bpack + j0 * kc, NR,
                           crow ? crow + j0 : NULL, ldc, &ep);
            }
          }
        }
      }
    }
    return;
  }
#endif
  /* Packed path, BLIS loop order: nc (B block) → kc → mc (A block) → nr → mr.
   * The row-reduce form has no C to accumulate partial K blocks into, so it
   * uses a single K block. */
  const int64_t KC = rowout ? K : t->kc, NC = t->nc, MC = t->mc;
  const int64_t kcmax = min64(KC, K), ncmax = min64(NC, (N + NR - 1) / NR * NR);
  const int64_t mcmax = min64(MC, (M + MR - 1) / MR * MR);
  float *buf = scratch((size_t)(kcmax * ncmax + mcmax * kcmax));
  if (!buf) {
    gemm_naive(M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, C, ldc, rowout);
    return;
  }
  float *bpack = buf, *apack = buf + kcmax * ncmax;
  for (int64_t n0 = 0; n0 < N; n0 += NC) {
    const int64_t nc = min64(NC, N - n0);
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
      const int64_t kc = min64(KC, K - k0);
      ep.flags = (k0 > 0 ? KK_EPI_ACCUM : 0) | (k0 + kc >= K ? KK_EPI_FINAL : 0);
      for (int64_t j0 = 0; j0 < nc; j0 += NR)
        pack_b(t, kc, min64(NR, nc - j0), B + k0 * bs0 + (n0 + j0) * bs1, bs0, bs1, bpack + j0 * kc);
      for (int64_t m0 = 0; m0 < M; m0 += MC) {
        const int64_t mc = min64(MC, M - m0);
        for (int64_t i0 = 0; i0 < mc; i0 += MR)
          pack_a(t, min64(MR, mc - i0), kc, A + (m0 + i0) * as0 + k0 * as1, as0, as1, apack + i0 * kc);
        for (int64_t j0 = 0; j0 < nc; j0 += NR) {
          const int64_t nr = min64(NR, nc - j0);
          ep.bias = bias ? bias + (n0 + j0) * bias_s : NULL;
          for (int64_t i0 = 0; i0 < mc; i0 += MR) {
            ep.rowsum = rowout ? rowout + m0 + i0 : NULL;
            t->ukernel(min64(MR, mc - i0), nr, kc, apack + i0 * kc, 1, MR, bpack + j0 * kc, NR,
                       C ? C + (m0 + i0) * ldc + n0 + j0 : NULL, ldc, &ep);
          }
        }
      }
    }
  }
}

/* ---- thread pool ----------------------------------------------------------
 * Workers are created lazily (never more than budget - 1; the caller is part
 * 0), persist, poll for the next job for up to 1 ms after each one, then park
 * on a condition variable. pool_lock is
 * held by the one submitter using the pool; a concurrent caller that cannot
 * take it runs single-threaded, so threads never exceed the budget. */
typedef struct {
  const kk_isa_table *t;
  int64_t M, N, K;
  const float *A;
  int64_t as0, as1;
  const float *B;
  int64_t bs0, bs1;
  const float *bias;
  int64_t bias_s;
  int act;
  float *C;
  float *rowout;
  int split_m;   /* split rows (else columns) */
  int nparts;    /* threads taking part, caller included */
  int64_t tiles; /* MR- (or NR-) tiles in the split dimension */
  int nchunks;   /* the split dimension in nchunks >= nparts chunks, claimed dynamically */
  unsigned fp;   /* the submitter's floating-point mode, which workers adopt */
  atomic_int next;
} gemm_job;

static void gemm_job_chunk(const gemm_job *j, int part)
{
  const int64_t T = j->split_m ? j->t->mr : j->t->nr, D = j->split_m ? j->M : j->N;
  const int64_t lo = j->tiles * part / j->nchunks * T, hi = min64(D, j->tiles * (part + 1) / j->nchunks * T);
  if (hi <= lo) return;
  if (j->split_m)
    gemm_st(j->t, hi - lo, j->N, j->K, j->A + lo * j->as0, j->as0, j->as1, j->B, j->bs0, j->bs1, j->bias,
            j->bias_s, j->act, j->C ? j->C + lo * j->N : NULL, j->N, j->rowout ? j->rowout + lo : NULL);
  else
    gemm_st(j->t, j->M, hi - lo, j->K, j->A, j->as0, j->as1, j->B + lo * j->bs1, j->bs0, j->bs1,
            j->bias ? j->bias + lo * j->bias_s : NULL, j->bias_s, j->act, j->C ? j->C + lo : NULL, j->N, NULL);
}

/* Each participant claims chunks until none are left: a worker that wakes up
 * late (busy machine) just gets fewer, the caller never idles waiting for it
 * to start. Chunk boundaries do not depend on who runs them. */
static void gemm_job_part(gemm_job *j)
{
  for (;;) {
    int c = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
    if (c >= j->nchunks) return;
    gemm_job_chunk(j, c);
  }
}

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER; /* one submitter at a time */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;   /* guards the fields below */
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static int pool_nworkers;                 /* created so far (ids 1..pool_nworkers) */
static uint64_t pool_gen;                 /* bumped per job */
/* Copies of pool_gen and pool_inside that a thread may poll without the mutex. */
static _Atomic uint64_t pool_gen_poll;
static atomic_int pool_inside_poll;
static atomic_int pool_polling;           /* workers polling for the next job now */
static _Atomic int64_t pool_mid_last_ns;  /* when the last mid-size GEMM asked (thread_budget_for) */
static uint64_t pool_gen0[KK_MAX_THREADS]; /* pool_gen when worker i was created */
static gemm_job *pool_job;                /* NULL once the submitter retired it */
static int pool_active;                   /* workers with id < pool_active may join */
static int pool_inside;                   /* workers currently inside pool_job */
static int pool_atfork_done;

/* Being woken from a condition variable took 50-250 us here: longer than a
 * 256^3 GEMM's half, so the caller had claimed both halves by the time the
 * worker came (2 threads no faster than one), and ~8% of 512^3. So before
 * sleeping a thread polls, for up to 1 ms (kk_set_pool_spin_us), for what it waits for:
 * a worker for the next job (back-to-back GEMMs: 256^3 at 2 threads 200 ->
 * 105 us, 512^3 860 -> 770 us), the caller for the workers still inside. No
 * sched_yield in the loop: with it the worker missed every 256^3 job. The
 * mutex and condition variables stay the source of truth; the polled copies
 * only decide when to stop polling. */
#define KK_POOL_SPIN_US_DEFAULT 1000
static atomic_int kk_pool_spin_us = KK_POOL_SPIN_US_DEFAULT; /* kk_set_pool_spin_us / KILN_POOL_SPIN_US */

void kk_set_pool_spin_us(int us)
{
  atomic_store(&kk_pool_spin_us, us < 0 ? KK_POOL_SPIN_US_DEFAULT : (us > 1000000 ? 1000000 : us));
}

static double mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static void spin_pause(void)
{
#if KK_X86
  _mm_pause();
#endif
}

static int gen_is(uint64_t seen) { return atomic_load_explicit(&pool_gen_poll, memory_order_relaxed) == seen; }

static int workers_inside(uint64_t unused)
{
  (void)unused;
  return atomic_load_explicit(&pool_inside_poll, memory_order_relaxed) > 0;
}

/* Polls while waiting(arg) holds, for up to kk_pool_spin_us. */
static void spin_while(int (*waiting)(uint64_t), uint64_t arg)
{
  const int us = atomic_load_explicit(&kk_pool_spin_us, memory_order_relaxed);
  if (us <= 0) return;
  const double end = mono_ns() + 1e3 * us;
  for (int i = 1; waiting(arg); i++) {
    spin_pause();
    if (i % 64 == 0 && mono_ns() > end) return;
  }
}

static void *pool_worker(void *arg)
{
  const int id = (int)(intptr_t)arg;
  pthread_mutex_lock(&pool_mu);
  uint64_t seen = pool_gen0[id];
  for (;;) {
    if (pool_gen == seen) {
      pthread_mutex_unlock(&pool_mu);
      atomic_fetch_add_explicit(&pool_polling, 1, memory_order_relaxed);
      spin_while(gen_is, seen);
      atomic_fetch_sub_explicit(&pool_polling, 1, memory_order_relaxed);
      pthread_mutex_lock(&pool_mu);
    }
    while (pool_gen == seen) pthread_cond_wait(&pool_wake, &pool_mu);
    seen = pool_gen;
    gemm_job *job = pool_job;
    if (!job || id >= pool_active) continue; /* already retired (woke late) or not needed */
    pool_inside++;
    atomic_store_explicit(&pool_inside_poll, pool_inside, memory_order_relaxed);
    pthread_mutex_unlock(&pool_mu);
    const unsigned own = fp_mode();
    fp_set_mode(job->fp);
    gemm_job_part(job);
    fp_set_mode(own);
    pthread_mutex_lock(&pool_mu);
    atomic_store_explicit(&pool_inside_poll, pool_inside - 1, memory_order_relaxed);
    if (--pool_inside == 0) pthread_cond_signal(&pool_done);
  }
  return NULL;
}

/* A forked child has none of the parent's workers: start over. */
static void pool_atfork_child(void)
{
  pthread_mutex_init(&pool_lock, NULL);
  pthread_mutex_init(&pool_mu, NULL);
  pthread_cond_init(&pool_wake, NULL);
  pthread_cond_init(&pool_done, NULL);
  pool_nworkers = 0;
  pool_job = NULL;
  pool_active = pool_inside = 0;
  atomic_store(&pool_inside_poll, 0);
  atomic_store(&pool_polling, 0);
}

/* Called with pool_lock held. Returns how many workers exist (<= want). */
static int pool_grow(int want)
{
  if (!pool_atfork_done) {
    pthread_atfork(NULL, NULL, pool_atfork_child);
    pool_atfork_done = 1;
  }
  while (pool_nworkers < want) {
    const int id = pool_nworkers + 1;
    pthread_mutex_lock(&pool_mu);
    pool_gen0[id] = pool_gen;
    pthread_mutex_unlock(&pool_mu);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* workers never take signals */
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    int rc = pthread_create(&th, &at, pool_worker, (void *)(intptr_t)id);
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) break;
    pool_nworkers = id;
  }
  return pool_nworkers;
}

/* Runs the job with up to nparts threads if the pool is free; 0 if it is busy
 * (the caller then runs single-threaded). The caller works on the job itself;
 * once every chunk is claimed it retires the job, so workers that have not
 * woken up yet skip it, and waits only for workers still inside. */
static int pool_run(gemm_job *job)
{
  if (pthread_mutex_trylock(&pool_lock) != 0) return 0;
  int nw = pool_grow(job->nparts - 1);
  if (nw + 1 < job->nparts) job->nparts = nw + 1;
  if (job->nparts > 1) {
    pthread_mutex_lock(&pool_mu);
    pool_job = job;
    pool_active = job->nparts;
    pool_gen++;
    atomic_store_explicit(&pool_gen_poll, pool_gen, memory_order_relaxed);
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_mu);
  }
  gemm_job_part(job);
  if (job->nparts > 1) {
    pthread_mutex_lock(&pool_mu);
    pool_job = NULL;
    if (pool_inside > 0) {
      pthread_mutex_unlock(&pool_mu);
      spin_while(workers_inside, 0);
      pthread_mutex_lock(&pool_mu);
    }
    while (pool_inside > 0) pthread_cond_wait(&pool_done, &pool_mu);
    pthread_mutex_unlock(&pool_mu);
  }
  pthread_mutex_unlock(&pool_lock);
  return 1;
}

static int online_cpus(void)
{
  static atomic_int n;
  int v = atomic_load_explicit(&n, memory_order_relaxed);
  if (v == 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    v = clamp_threads(c);
    atomic_store_explicit(&n, v, memory_order_relaxed);
  }
  return v;
}

/* The thread budget a GEMM of mnk multiply-adds gets: the whole budget from
 * the size threshold; from an eighth of it (1M) only while the pool is warm
 * (a worker polling, or the previous such call within the polling window),
 * else 1. Waking a sleeping worker costs the caller a syscall, and the
 * worker arrives after a call this size is over: isolated calls 3 ms apart
 * on two threads, 128^3 24.6 -> 26.2 us (the EPYC: 37 -> 44.5), while back
 * to back they gain 1.5-1.7x (1M multiply-adds, 9.6 -> 6.0 us). */
#define KK_THREAD_MID_DIV 8
static int thread_budget_for(double mnk)
{
  const int64_t tmin = atomic_load_explicit(&kk_thread_min, memory_order_relaxed);
  if (mnk >= (double)tmin) return current_budget();
  if (mnk < (double)(tmin / KK_THREAD_MID_DIV)) return 1;
  const int us = atomic_load_explicit(&kk_pool_spin_us, memory_order_relaxed);
  const int64_t now = (int64_t)mono_ns();
  const int64_t last = atomic_exchange_explicit(&pool_mid_last_ns, now, memory_order_relaxed);
  const int warm = atomic_load_explicit(&pool_polling, memory_order_relaxed) > 0 || (us > 0 && now - last < 1000LL * us);
  return warm ? current_budget() : 1;
}

/* out[i] /= N for a row mean (N == 0: 0/0 = NaN, as torch.mean). */
static void rows_to_means(int64_t M, int64_t N, float *out)
{
  const float fn = (float)N;
  for (int64_t i = 0; i < M; i++) out[i] = out[i] / fn;
}

/* Shared by kk_gemm (C != NULL) and kk_gemm_rowreduce (rowout != NULL,
 * zero-initialised by the caller; receives the raw row sums). */
static void gemm_driver(const kk_isa_table *t, int64_t M, int64_t N, int64_t K, const float *A,
                        int64_t as0, int64_t as1, const float *B, int64_t bs0, int64_t bs1,
                        const float *bias, int64_t bias_s, int act, float *C, float *rowout)
{
  if (M <= 0 || N <= 0) return;

  if (K <= 0) { /* C = act(bias or 0): one row computed, then replicated */
    float pre[KK_CHUNK], tmp[KK_CHUNK], rs = 0.0f;
    for (int64_t n0 = 0; n0 < N; n0 += KK_CHUNK) {
      int64_t nb = min64(KK_CHUNK, N - n0);
      for (int64_t j = 0; j < nb; j++) pre[j] = bias ? bias[(n0 + j) * bias_s] : 0.0f;
      t->act_row(act, nb, pre, tmp);
      if (C)
        for (int64_t i = 0; i < M; i++) memcpy(C + i * N + n0, tmp, (size_t)nb * sizeof(float));
      if (rowout) rs += t->sum_row(nb, tmp);
    }
    if (rowout)
      for (int64_t i = 0; i < M; i++) rowout[i] = rs;
    return;
  }

  /* A row reduction whose sums need K blocks (KK_SUM_KB): C goes to a
   * scratch buffer that keeps the blocks' partial sums, then rows are summed,
   * in row blocks of at most KK_SUMS_BLOCK_FLOATS (or 64 rows). Without the
   * buffer, one chain per output over all of K. */
  if (!C && K > KK_SUM_KB) {
    int64_t rb = KK_SUMS_BLOCK_FLOATS / N;
    rb = rb < 64 ? 64 : rb;
    rb = rb < M ? rb : M;
    float *sums = scratch_slot(KK_SCRATCH_SUMS, (size_t)rb * (size_t)N);
    if (sums) {
      for (int64_t i0 = 0; i0 < M; i0 += rb) {
        const int64_t r = min64(rb, M - i0);
        gemm_driver(t, r, N, K, A + i0 * as0, as0, as1, B, bs0, bs1, bias, bias_s, act, sums, NULL);
        for (int64_t i = 0; i < r; i++) rowout[i0 + i] += t->sum_row(N, sums + i * N);
      }
      /* a large C is not kept for the thread's lifetime; its K > 256
       * multiply-adds per element dwarf allocating it again */
      if ((size_t)rb * (size_t)N > KK_SUMS_KEEP_FLOATS) scratch_free(KK_SCRATCH_SUMS);
      return;
    }
  }

  const int64_t tmin = atomic_load_explicit(&kk_thread_min, memory_order_relaxed);
  /* saturate instead of overflowing for absurd shapes */
  const double mnk = (double)M * (double)N * (double)K;
  /* a few rows over a B past L2 are bound by reading B from memory: each
   * thread streams its own columns of it, whatever the multiply-adds */
  const int streamed = M <= KK_STREAM_MAX_M && C && (double)K * (double)N * sizeof(float) >= KK_STREAM_THREAD_BYTES;
  const int budget = streamed ? current_budget() : thread_budget_for(mnk);
  if (budget > 1) {
    int cpus = online_cpus();
    int nth = budget < cpus ? budget : cpus;
    /* each thread beyond two needs another half threshold of work */
    double per = tmin > 0 ? (double)tmin / 2.0 : 1.0;
    /* (a mid-size GEMM from a warm pool: two) */
    if (!streamed && mnk / per < (double)nth) nth = mnk / per < 2.0 ? 2 : (int)(mnk / per);
    gemm_job job;
    job.t = t; job.M = M; job.N = N; job.K = K; job.A = A; job.as0 = as0; job.as1 = as1;
    job.B = B; job.bs0 = bs0; job.bs1 = bs1; job.bias = bias; job.bias_s = bias_s; job.act = act;
    job.C = C; job.rowout = rowout; job.fp = fp_mode();
    const int64_t mt = (M + t->mr - 1) / t->mr, nt = (N + t->nr - 1) / t->nr;
    /* rows are independent (row sums too); split columns when rows are too
     * few, and in the AVX-512 packed path when A is read in place and rows
     * do not far outnumber columns: each row chunk packs all of B again,
     * while column chunks pack their part of B once and only re-read A
     * (2 threads, old/new alternating: 512^3 +4-6%, 1024^3 +7%, 2048^3 +9%,
     * 256x1024x1024 +9%). Not for B under 512 KiB: 256^3's halves of B fall
     * to the no-pack path, 3-4% slower than packing B for each row half. */
    const int cols_cheaper = TABLE_IS_AVX512(t) && as1 == 1 && C && nt >= nth * 2 && mt < nt * 4 &&
                             (double)K * (double)N * sizeof(float) >= 4.0 * KK_NOPACK_B_BYTES;
    job.split_m = rowout != NULL || (!cols_cheaper && (mt >= nth * 2 || mt >= nt));
    job.tiles = job.split_m ? mt : nt;
    if (job.tiles < nth) nth = (int)job.tiles;
    job.nparts = nth;
    /* chunks of >= ~192 rows/columns: each chunk re-packs the other operand.
     * A multiple of the thread count, so that on a quiet machine every
     * thread gets the same share (1024³ at 2 threads: 5 chunks ran 3 + 2,
     * 264 GFLOP/s; 4 chunks 314). */
    int64_t nch = job.tiles * (job.split_m ? t->mr : t->nr) / 192;
    if (nch > 4 * nth) nch = 4 * nth;
    /* Row chunks over a B that stays in place in L2 (the no-pack path)
     * re-pack nothing: KK_POOL_CHUNKS_NOPACK per thread, so that a worker
     * slowed down by another process's threads (torch's OpenMP workers spin
     * after each of its ops) holds back only a small chunk while the caller
     * takes the rest. */
    if (job.split_m && (double)K * (double)N * sizeof(float) <= KK_NOPACK_B_BYTES)
      nch = job.tiles < KK_POOL_CHUNKS_NOPACK * nth ? job.tiles : KK_POOL_CHUNKS_NOPACK * nth;
    if (nch < nth) nch = nth;
    nch = nch / nth * nth;
    job.nchunks = (int)nch;
    atomic_init(&job.next, 0);
    if (nth > 1 && pool_run(&job)) return;
  }
  gemm_st(t, M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, C, N, rowout);
}

void kk_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, int64_t as1, const float *B,
             int64_t bs0, int64_t bs1, const float *bias, int64_t bias_s, kk_act act, float *C)
{
  gemm_driver(isa(), M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, (int)act, C, NULL);
}

void kk_gemm_rowreduce(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, int64_t as1,
                       const float *B, int64_t bs0, int64_t bs1, const float *bias, int64_t bias_s,
                       kk_act act, int mean, float *out)
{
  if (M <= 0) return;
  for (int64_t i = 0; i < M; i++) out[i] = 0.0f;
  gemm_driver(isa(), M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, (int)act, NULL, out);
  if (mean) rows_to_means(M, N, out);
}

void kk_unary(kk_act act, int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y)
{
  const kk_isa_table *t = isa();
  if (M <= 0 || N <= 0) return;
  if ((xs1 == 1 || N == 1) && (xs0 == N || M == 1)) { /* dense: one long row */
    t->act_row((int)act, M * N, X, Y);
    return;
  }
  for (int64_t i = 0; i < M; i++) {
    const float *x = X + i * xs0;
    float *y = Y + i * N;
    if (xs1 == 1 || N == 1) {
      t->act_row((int)act, N, x, y);
      continue;
    }
    for (int64_t j0 = 0; j0 < N; j0 += KK_CHUNK) {
      float tmp[KK_CHUNK];
      int64_t nb = min64(KK_CHUNK, N - j0);
      for (int64_t j = 0; j < nb; j++) tmp[j] = x[(j0 + j) * xs1];
      t->act_row((int)act, nb, tmp, y + j0);
    }
  }
}

/* The unfused steps on rows [0, M) of C, in place. */
static void post_steps(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, int64_t as1, const float *B,
                       int64_t bs0, int64_t bs1, const float *bias, int64_t bias_s, kk_act act, const float *post,
                       int64_t post_s, int post_first, float *C, int reduce, float *out)
{
  kk_gemm(M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, C);
  if (post_first) kk_add(M, N, post, 0, post_s, C, N, 1, KK_ACT_NONE, C);
  else kk_add(M, N, C, N, 1, post, 0, post_s, KK_ACT_NONE, C);
  if (reduce) kk_rowsum(M, N, C, N, 1, reduce == 2, out);
}

int kk_gemm_post(int64_t M, int64_t N, int64_t K, const float *A, int64_t as0, int64_t as1, const float *B,
                 int64_t bs0, int64_t bs1, const float *bias, int64_t bias_s, kk_act act, const float *post,
                 int64_t post_s, int post_first, float *C, int reduce, float *out)
{
  const kk_isa_table *t = isa();
  if (M <= 0) return 0;
  /* One pass through the 64-column tiles when they take the whole problem,
   * it is too small to thread and its sums need no K blocks (KK_SUM_KB);
   * else the unfused steps, in place. */
  if (t->gemm_xw && N >= 64 && N % 64 == 0 && K > 0 && K <= KK_SUM_KB && as1 == 1 && bs1 == 1 &&
      K * N * (int64_t)sizeof(float) <= KK_NOPACK_B_BYTES &&
      thread_budget_for((double)M * (double)N * (double)K) <= 1) {
    if (!reduce) {
      t->gemm_xw(M, N, K, A, as0, B, bs0, 64, bias, bias_s, (int)act, post, post_s, post_first, KK_EPI_FINAL, C, N,
                 NULL);
      return 0;
    }
    for (int64_t i = 0; i < M; i++) out[i] = 0.0f;
    t->gemm_xw(M, N, K, A, as0, B, bs0, 64, bias, bias_s, (int)act, post, post_s, post_first, KK_EPI_FINAL, NULL, N,
               out);
    if (reduce == 2) rows_to_means(M, N, out);
    return 0;
  }
  if (C || !reduce || N <= 0) {
    post_steps(M, N, K, A, as0, as1, B, bs0, bs1, bias, bias_s, act, post, post_s, post_first, C, reduce, out);
    return 0;
  }
  /* A reduction without the caller's C: row blocks of C in thread scratch,
   * sized as the SUMS blocks are */
  int64_t rb = KK_SUMS_BLOCK_FLOATS / N;
  rb = rb < 64 ? 64 : rb;
  rb = rb < M ? rb : M;
  float *c = scratch_slot(KK_SCRATCH_POST, (size_t)rb * (size_t)N);
  if (!c) return -1;
  for (int64_t i0 = 0; i0 < M; i0 += rb)
    post_steps(min64(rb, M - i0), N, K, A + i0 * as0, as0, as1, B, bs0, bs1, bias, bias_s, act, post, post_s,
               post_first, c, reduce, out + i0);
  if ((size_t)rb * (size_t)N > KK_SUMS_KEEP_FLOATS) scratch_free(KK_SCRATCH_POST);
  return 0;
}

void kk_add(int64_t M, int64_t N, const float *A, int64_t as0, int64_t as1, const float *B, int64_t bs0,
            int64_t bs1, kk_act act, float *C)
{
  const kk_isa_table *t = isa();
  if (M <= 0 || N <= 0) return;
  if (N == 1) { as1 = 1; bs1 = 1; } /* inner stride is irrelevant */
  if (as1 == 1 && bs1 == 1 && (M == 1 || (as0 == N && bs0 == N))) {
    t->add_row((int)act, M * N, A, B, C);
    return;
  }
  if (as1 == 1 && bs1 == 1 && t->add_rows) {
    t->add_rows((int)act, M, N, A, as0, B, bs0, C);
    return;
  }
  for (int64_t i = 0; i < M; i++) {
    const float *a = A + i * as0, *b = B + i * bs0;
    float *c = C + i * N;
    if (as1 == 1 && bs1 == 1) {
      t->add_row((int)act, N, a, b, c);
      continue;
    }
    for (int64_t j0 = 0; j0 < N; j0 += KK_CHUNK) {
      float ta[KK_CHUNK], tb[KK_CHUNK];
      int64_t nb = min64(KK_CHUNK, N - j0);
      const float *pa = a + j0 * as1, *pb = b + j0 * bs1;
      if (as1 != 1) {
        for (int64_t j = 0; j < nb; j++) ta[j] = a[(j0 + j) * as1];
        pa = ta;
      }
      if (bs1 != 1) {
        for (int64_t j = 0; j < nb; j++) tb[j] = b[(j0 + j) * bs1];
        pb = tb;
      }
      t->add_row((int)act, nb, pa, pb, c + j0);
    }
  }
}

/* One operand's inner stride as bin_rows takes it: 1 (contiguous), 0 (one
 * value), or -1 (anything else: gathered through a buffer). */
static int64_t bin_inner(int64_t N, int64_t s0, int64_t s1)
{
  if (N == 1) return s0 == 0 ? 0 : 1; /* one column: only the row stride matters */
  return s1 == 0 || s1 == 1 ? s1 : -1;
}

void kk_binary(kk_binop op, int nan_b, int64_t M, int64_t N, const float *A, int64_t as0, int64_t as1,
               const float *B, int64_t bs0, int64_t bs1, float *C)
{
  const kk_isa_table *t = isa();
  if (M <= 0 || N <= 0) return;
  int64_t ai = bin_inner(N, as0, as1), bi = bin_inner(N, bs0, bs1);
  /* the whole block as one row: each operand is one value, or dense */
  bool a_flat = M == 1 || (ai == 0 && as0 == 0) || (ai == 1 && as0 == N);
  bool b_flat = M == 1 || (bi == 0 && bs0 == 0) || (bi == 1 && bs0 == N);
  if (ai >= 0 && bi >= 0) {
    if (a_flat && b_flat) t->bin_rows((int)op, nan_b, 1, M * N, A, 0, ai, B, 0, bi, C);
    else t->bin_rows((int)op, nan_b, M, N, A, as0, ai, B, bs0, bi, C);
    return;
  }
  for (int64_t i = 0; i < M; i++) { /* an operand with another inner stride: through a buffer */
    const float *a = A + i * as0, *b = B + i * bs0;
    float *c = C + i * N;
    for (int64_t j0 = 0; j0 < N; j0 += KK_CHUNK) {
      float ta[KK_CHUNK], tb[KK_CHUNK];
      int64_t nb = min64(KK_CHUNK, N - j0);
      const float *pa = a + j0 * (ai >= 0 ? ai : as1), *pb = b + j0 * (bi >= 0 ? bi : bs1);
      if (ai < 0) {
        for (int64_t j = 0; j < nb; j++) ta[j] = a[(j0 + j) * as1];
        pa = ta;
      }
      if (bi < 0) {
        for (int64_t j = 0; j < nb; j++) tb[j] = b[(j0 + j) * bs1];
        pb = tb;
      }
      t->bin_rows((int)op, nan_b, 1, nb, pa, 0, ai < 0 ? 1 : ai, pb, 0, bi < 0 ? 1 : bi, c + j0);
    }
  }
}

void kk_neg(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y)
{
  for (int64_t i = 0; i < M; i++) /* the sign bit flipped, NaNs and zeros included */
    for (int64_t j = 0; j < N; j++) Y[i * N + j] = u2f(f2u(X[i * xs0 + j * xs1]) ^ 0x80000000u);
}

/* An operand's strides over [M, N] as kk_ewise takes them: one column
 * reads x[i*s0] alone, so its inner stride is 0 (one value) or 1. */
static bool ew_strides(int64_t N, int64_t s0, int64_t *s1)
{
  if (N == 1) *s1 = s0 != 0;
  return *s1 == 0 || *s1 == 1;
}

int kk_ewise(int nsteps, const kk_ew_step *steps, int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1,
             float *Y)
{
  const kk_isa_table *t = isa();
  if (!t->ewise || nsteps < 1 || nsteps > KK_EW_MAX_STEPS || !ew_strides(N, xs0, &xs1)) return -1;
  kk_ew_step st[KK_EW_MAX_STEPS];
  int code[KK_EW_MAX_STEPS], depth = 0;
  /* every operand dense or one value: the whole result is one row */
  bool flat = M == 1 || (xs1 == 1 && xs0 == N) || (xs0 == 0 && xs1 == 0);
  for (int k = 0; k < nsteps; k++) {
    st[k] = steps[k];
    const int op = st[k].op, nb = !!st[k].nan_b, xl = !!st[k].x_left;
    switch (st[k].kind) {
    case KK_EW_ACT:
      if (op < 0 || op >= KK_NUM_ACTS) return -1;
      code[k] = op;
      break;
    case KK_EW_NEG: code[k] = KK_EW_CODE_NEG; break;
    case KK_EW_BIN:
    case KK_EW_PUSH:
      if ((st[k].kind == KK_EW_BIN && (op < KK_BIN_ADD || op > KK_BIN_LEAKY)) || !ew_strides(N, st[k].xs0, &st[k].xs1))
        return -1;
      if (st[k].kind == KK_EW_PUSH && ++depth > KK_EW_MAX_DEPTH) return -1;
      code[k] = st[k].kind == KK_EW_PUSH ? KK_EW_CODE_PUSH + (st[k].xs1 == 0)
                                         : KK_EW_CODE_BIN + ((op * 2 + nb) * 2 + xl) * 2 + (st[k].xs1 == 0);
      flat = flat && ((st[k].xs1 == 1 && st[k].xs0 == N) || (st[k].xs0 == 0 && st[k].xs1 == 0));
      break;
    case KK_EW_POP:
      if (op < KK_BIN_ADD || op > KK_BIN_LEAKY || --depth < 0) return -1;
      code[k] = KK_EW_CODE_POP + (op * 2 + nb) * 2 + xl;
      break;
    default: return -1;
    }
  }
  if (depth != 0) return -1;
  if (M <= 0 || N <= 0) return 0;
  /* one binary op: kk_binary's loops, with no step to dispatch per tile
   * (a row-broadcast 16×64 product: 88 -> 52 ns) */
  if (nsteps == 1 && st[0].kind == KK_EW_BIN) {
    const kk_ew_step *s = &st[0];
    if (s->x_left) kk_binary((kk_binop)s->op, s->nan_b, M, N, s->x, s->xs0, s->xs1, X, xs0, xs1, Y);
    else kk_binary((kk_binop)s->op, s->nan_b, M, N, X, xs0, xs1, s->x, s->xs0, s->xs1, Y);
    return 0;
  }
  if (flat && M > 1) {
    N *= M;
    M = 1;
  }
  t->ewise(nsteps, st, code, M, N, X, xs0, xs1, Y);
  return 0;
}

/* max of a strided row, NaN if the row holds one (as eager's max) */
static float row_max(int64_t N, const float *x, int64_t xs1)
{
  float m = -INFINITY;
  bool nan = false;
  for (int64_t j = 0; j < N; j++) {
    float v = x[j * xs1];
    nan |= v != v;
    m = v > m ? v : m;
  }
  return nan ? NAN : m;
}

static void softmax_rows(int tf, int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y)
{
  const kk_isa_table *t = isa();
  for (int64_t i = 0; i < M && N > 0; i++) {
    const float *x = X + i * xs0;
    float *y = Y + i * N;
    float m = row_max(N, x, xs1); /* a NaN anywhere makes the row NaN, as eager's max does */
    kk_binary(KK_BIN_SUB, 0, 1, N, x, 0, xs1, &m, 0, 0, y);
    t->exp_row(N, y, y);
    /* kiln's exp is within 1 ulp and 2^-125 is 18+ ulp from e^d for every
     * float d, so this decides d < -125 ln 2 as oneDNN does */
    if (tf)
      for (int64_t j = 0; j < N; j++) y[j] = y[j] < 0x1p-125f ? 0.0f : y[j];
    float inv = 1.0f / t->sum_row(N, y);
    kk_binary(KK_BIN_MUL, 0, 1, N, y, 0, 1, &inv, 0, 0, y);
  }
}

void kk_softmax(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y)
{
  softmax_rows(0, M, N, X, xs0, xs1, Y);
}

void kk_softmax_tf(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y)
{
  softmax_rows(1, M, N, X, xs0, xs1, Y);
}

void kk_log_softmax(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y)
{
  const kk_isa_table *t = isa();
  float e[256]; /* e^(x - max), a block at a time: only their sum is kept */
  for (int64_t i = 0; i < M && N > 0; i++) {
    const float *x = X + i * xs0;
    float *y = Y + i * N;
    float m = row_max(N, x, xs1);
    kk_binary(KK_BIN_SUB, 0, 1, N, x, 0, xs1, &m, 0, 0, y);
    float s = 0.0f;
    for (int64_t j = 0; j < N; j += 256) {
      const int64_t n = N - j < 256 ? N - j : 256;
      t->exp_row(n, y + j, e);
      s += t->sum_row(n, e);
    }
    float lse = logf(s);
    kk_binary(KK_BIN_SUB, 0, 1, N, y, 0, 1, &lse, 0, 0, y);
  }
}

void kk_moments(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, double *mean, double *var)
{
  const kk_isa_table *t = isa();
  for (int64_t i = 0; i < M; i++) {
    if (N <= 0) mean[i] = var[i] = 0.0;
    else if (xs1 == 1 || N == 1) t->moments_row(N, X + i * xs0, &mean[i], &var[i]);
    else moments_strided__ref(N, X + i * xs0, xs1, &mean[i], &var[i]);
  }
}

void kk_rowsum(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, int mean, float *out)
{
  const kk_isa_table *t = isa();
  if (M <= 0) return;
  if (N <= 0) {
    for (int64_t i = 0; i < M; i++) out[i] = 0.0f;
  } else if (xs1 == 1 || N == 1) {
    for (int64_t i = 0; i < M; i++) out[i] = t->sum_row(N, X + i * xs0);
  } else if (xs0 == 1) { /* column sums of a row-major block: vectorise across rows */
    t->sum_cols(M, N, X, xs1, out);
  } else {
    for (int64_t i = 0; i < M; i++) out[i] = sum_strided__ref(N, X + i * xs0, xs1);
  }
  if (mean) rows_to_means(M, N, out);
}

int kk_any_nan(int64_t n, const float *x, int64_t s)
{
  if (n <= 0) return 0;
  if (s == 0) n = 1;
  if (s == 0 || s == 1) return isa()->any_nan(n, x);
  for (int64_t j = 0; j < n; j++)
    if (x[j * s] != x[j * s]) return 1;
  return 0;
}
