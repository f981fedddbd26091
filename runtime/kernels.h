/* kernels.h — float32 CPU kernels used by code that kiln emits.
 *
 * All kernels never allocate (except kk_gemm* which keep one grow-only
 * thread-local packing buffer per thread), never print and never exit. All are
 * single-threaded except kk_gemm / kk_gemm_rowreduce on large shapes
 * (M*N*K >= ~8e6), which split the work over a persistent worker pool of at
 * most kk_set_num_threads() - 1 threads plus the caller (default budget 1 =
 * never threaded). Every entry point may be called concurrently from several
 * threads: only one call at a time uses the pool, the others run
 * single-threaded, so the budget is never exceeded. kk_init() picks the widest ISA the CPU supports (AVX-512, AVX2+FMA,
 * portable C); the env var KILN_ISA=reference|avx2|avx512 may force a lower
 * one. Every entry point calls kk_init() lazily, so calling it is optional. */
#ifndef KILN_KERNELS_H
#define KILN_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  KK_ACT_NONE = 0,
  KK_ACT_RELU,    /* eager torch.relu: x < 0 ? +0 : x, so relu(-0.0) = -0.0, NaN passes bit-exact */
  KK_ACT_SIGMOID, /* eager torch.sigmoid, 1 / (1 + e^-x): torch negates x first, so a NaN comes
                    out quietened with its sign flipped (payload kept) */
  KK_ACT_TANH,
  /* tf.nn.relu as TF's vectorised (8-wide Eigen packet) path computes it with
   * TF's flush-to-zero/denormals-are-zero mode on: x >= FLT_MIN ? x : +0, NaN
   * passes bit-exact. So -0.0 -> +0.0 and positive denormals -> +0.0. TF's own
   * scalar tail (the last n % 8 elements of a tensor) keeps -0.0 instead: the
   * runtime computes those elements as the tail does (tensor_ops.c tf_tail). */
  KK_ACT_RELU_TF,
  KK_ACT_SIGMOID_TF, /* tf.nn.sigmoid: as KK_ACT_SIGMOID, but a NaN keeps its sign */
  /* Elementwise functions both frameworks compute alike. A NaN comes out
   * quietened with its sign (abs: its sign cleared, not quietened). */
  KK_ACT_ABS,    /* |x|: the sign bit cleared, bit for bit */
  KK_ACT_SQRT,   /* eager torch.sqrt: IEEE sqrt, correctly rounded (torch's Sleef one is within 1 ulp),
                    sqrt(-0.0) = -0.0, and for x < 0 the positive quiet NaN 0x7fc00000 (torch's) */
  KK_ACT_SQUARE, /* x * x, bit for bit (torch.square, x ** 2, tf.square) */
  KK_ACT_EXP,    /* e^x within 1 ulp of the true value where normal (torch's Sleef exp too, TF's
                    Eigen exp within 2 of kiln's); inf from x = 88.7228394, 0 below -103.97 */
  KK_ACT_SILU,   /* eager torch's F.silu, x / (1 + e^-x): silu(-inf) is NaN, as eager's */
  KK_ACT_SQRT_TF, /* tf.sqrt: IEEE sqrt, bit for bit; for x < 0 the x86 default NaN 0xffc00000 */
  KK_ACT_LOG,     /* eager torch.log, within 1 ulp of the true value: log(+-0) = -inf, for x < 0
                     torch's 0x7fc00000, a NaN quietened with its sign */
  KK_ACT_LOG_TF,  /* tf.math.log: as KK_ACT_LOG, but every NaN result is 0xffffffff, as TF's
                     vectorised loop gives it; its scalar tail (the last n % 8 elements of a
                     tensor) differs: the runtime computes it with KK_ACT_LOG_TF_TAIL */
  KK_ACT_RSQRT,   /* eager torch.rsqrt, 1 / sqrt(x) in two IEEE operations, bit for bit */
  /* eager F.relu6 and F.hardtanh, clamps to [0, 6] and [-1, 1] as eager's x86
   * min(hi, max(lo, x)): a NaN passes as itself (unquietened), -0.0 stays */
  KK_ACT_RELU6,
  KK_ACT_HARDTANH,
  KK_ACT_SILU_TF, /* tf.nn.silu, x * sigmoid(x) with KK_ACT_SIGMOID_TF: silu(-inf) is the x86
                    default NaN 0xffc00000, a NaN x itself quietened */
  /* F.gelu / tf.nn.gelu, x/2 (1 + erf(x/sqrt 2)), within 8 ulp of the true value: the
   * frameworks' float formula loses every digit of 1 + erf below x = -3 (eager's results
   * there are within 4e-7 |x| of kiln's); below the point where it gives exactly -0.0 on
   * every path, kiln's is -0.0 too (kernels.c KK_GELU_ZERO_BELOW). gelu(-inf) is the x86
   * default NaN (eager's -inf * 0), gelu(inf) inf: TF's, and eager torch's for a strided
   * tensor or one element. */
  KK_ACT_GELU,
  KK_ACT_GELU_TANH, /* approximate='tanh' / approximate=True: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
                      as x / (1 + e^-2w): within 10 ulp for |x| <= 2 (w's rounding magnified by |2w|),
                      1.6e-7 |x| everywhere; NaN at -inf, as eager's */
  KK_ACT_GELU_ONEDNN, /* KK_ACT_GELU as eager torch's contiguous path computes it (oneDNN, for a
                        contiguous tensor of more than one element): gelu(+inf) is 0xffc00000,
                        gelu(-inf) 0x7fc00000 */
  KK_ACT_RELU6_TF, /* tf.nn.relu6 as TF's vectorised loop computes it, min(6, relu_tf(x)): -0.0 and
                     denormals -> +0.0, a NaN passes bit-exact; TF's scalar tail (the last n % 8
                     elements, or all of a shorter tensor) keeps -0.0 and denormals: the runtime
                     computes those as the tail does (see KK_ACT_RELU_TF) */
  KK_ACT_GELU_TF,     /* tf.nn.gelu: TF computes x/2 erfc(-x/sqrt 2), -0.0 only where its erfc is
                         subnormal (flushed to 0; kernels.c KK_GELU_ZERO_BELOW_TF) */
  KK_ACT_GELU_TANH_TF, /* tf.nn.gelu(approximate=True): -0.0 from TF's own edge */
  /* tf.math.log as TF's scalar tail computes it (read off eager, by the input's bits, in
     any subnormal mode): a NaN quietened (payload and sign kept), a negative number or
     subnormal and -inf the x86 default NaN 0xffc00000, a positive subnormal -103.972084
     (0xc2cff1b4, log 2^-150, whatever its value), else KK_ACT_LOG_TF's */
  KK_ACT_LOG_TF_TAIL
} kk_act;
#define KK_NUM_ACTS 25

void kk_init(void);            /* idempotent; picks ISA */
const char *kk_isa_name(void); /* "avx512", "avx2", "reference" */

/* C[M×N] (dense row-major, row stride N) = act(A[M×K] · B[K×N] + bias[N]).
   A element (i,k) at A[i*as0 + k*as1]; B element (k,n) at B[k*bs0 + n*bs1]; any non-negative strides
   (so torch linear's x @ w.T is B=w with bs0=w.stride(1), bs1=w.stride(0)). bias may be NULL; else bias[n*bias_s].
   M, N or K may be 0 (K==0 → C = act(bias or 0)). Never reads C before writing it.
   Where a product and its bias are both NaN, the result is one of the two quietened, which
   one depending on the kernel's path (so kk_any_nan(bias) first, where that matters).
   Fastest when B has bs1 == 1 (weights stored K×N row-major): calls with small M,
   or with K*N*4 <= 128 KiB at any M, then stream B without packing. */
void kk_gemm(int64_t M, int64_t N, int64_t K,
             const float *A, int64_t as0, int64_t as1,
             const float *B, int64_t bs0, int64_t bs1,
             const float *bias, int64_t bias_s, kk_act act, float *C);
/* Same, but instead of storing C, writes out[i] = sum_n act(...)[i,n] (mean=0) or that sum / N (mean=1).
   N==0 with mean=1 gives NaN like torch (0/0). */
void kk_gemm_rowreduce(int64_t M, int64_t N, int64_t K,
             const float *A, int64_t as0, int64_t as1,
             const float *B, int64_t bs0, int64_t bs1,
             const float *bias, int64_t bias_s, kk_act act, int mean, float *out);
/* C[M×N] (dense) = act(A·B + bias) + post, post a row added after the activation
   (post[n*post_s]; post_s 0 broadcasts one value), computed as kk_add does (post_first:
   post is the left operand, which decides which NaN payload wins). reduce 1 / 2: instead
   out[i] = the row's sum / mean, and C is either scratch the caller provides (M×N floats,
   which may or may not be written) or NULL: then the kernels use their own per-thread
   scratch when they need one, and only then can fail (returns -1: no memory; else 0).
   Small problems whose every column falls in a 64-column tile take one pass; others run
   kk_gemm, kk_add and kk_rowsum in place. */
int kk_gemm_post(int64_t M, int64_t N, int64_t K,
                  const float *A, int64_t as0, int64_t as1,
                  const float *B, int64_t bs0, int64_t bs1,
                  const float *bias, int64_t bias_s, kk_act act,
                  const float *post, int64_t post_s, int post_first,
                  float *C, int reduce, float *out);
/* Y[M×N] dense = act(X) ; X strided. act NONE = copy (bit-exact). */
void kk_unary(kk_act act, int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y);
/* C[M×N] dense = act(A + B), A and B strided; broadcasting is expressed with stride 0 (a 1-D bias row: bs0 = 0).
   Bit-identical to eager torch.add on x86-64, including which NaN payload wins (B's). */
void kk_add(int64_t M, int64_t N, const float *A, int64_t as0, int64_t as1,
            const float *B, int64_t bs0, int64_t bs1, kk_act act, float *C);
/* Elementwise binary ops of kk_binary. KK_BIN_RECIP_MUL is (1 / A) * B: eager torch's
   `s / x` (Tensor.__rtruediv__ is x.reciprocal() * s). KK_BIN_MAX / MIN are x86's
   maxps / minps: A > B ? A : B (A < B ? A : B), so where either is NaN or both are
   zeros the result is B as it is (nan_b has no effect): eager torch's clamp is
   min(hi, max(lo, x)) in these instructions, NaN and -0.0 passing as themselves.
   KK_BIN_LEAKY is eager's leaky_relu with slope A: B > 0 ? B : B * A, B's NaN
   quieted where B is NaN (nan_b has no effect). KK_BIN_MAXIMUM / MINIMUM are eager
   torch.maximum / minimum as its vector loop computes them: maxps / minps, and
   the all-ones NaN 0xffffffff where either is NaN (so both zeros give B);
   KK_BIN_MAXIMUM_TAIL / MINIMUM_TAIL as its scalar code does: 0x7fc00000 where
   either is NaN, else A < B ? B : A (B < A ? B : A), so both zeros give A. Neither
   pair has a place in kk_ewise's chains. KK_BIN_MAXIMUM_TF / MINIMUM_TF are
   eager tf.maximum / tf.minimum as its vector loop computes them: A where A is
   NaN, else B where B is NaN (NaNs as they are, signalling ones too), else the
   larger (smaller) of the two with subnormals read as zeros of their sign
   (TF's DAZ), the result such a zero, and of two zeros B; the _TF_TAIL forms
   as its scalar tail does: the same, but of two zeros A. */
typedef enum {
  KK_BIN_ADD, KK_BIN_SUB, KK_BIN_MUL, KK_BIN_DIV, KK_BIN_RECIP_MUL, KK_BIN_MAX, KK_BIN_MIN, KK_BIN_LEAKY,
  KK_BIN_MAXIMUM, KK_BIN_MINIMUM, KK_BIN_MAXIMUM_TAIL, KK_BIN_MINIMUM_TAIL,
  KK_BIN_MAXIMUM_TF, KK_BIN_MINIMUM_TF, KK_BIN_MAXIMUM_TF_TAIL, KK_BIN_MINIMUM_TF_TAIL
} kk_binop;
/* C[M×N] dense = A op B, A and B strided; stride 0 broadcasts (as0 = as1 = 0: A is one
   value). Each element is the IEEE operation's result (two for RECIP_MUL) in the caller's
   rounding and subnormal mode. Where both operands are NaN the result is A's NaN quieted,
   or B's with nan_b: which one the frameworks give depends on the op (tensor_ops.c). */
void kk_binary(kk_binop op, int nan_b, int64_t M, int64_t N, const float *A, int64_t as0, int64_t as1,
               const float *B, int64_t bs0, int64_t bs1, float *C);
/* One step of kk_ewise on the running value v: KK_EW_ACT: v = op(v), op a kk_act;
   KK_EW_NEG: v = -v (kk_neg); KK_EW_BIN: v = v op x, or x op v with x_left, op a
   kk_binop and nan_b kk_binary's for the left operand first. x[i*xs0 + j*xs1];
   xs0 = xs1 = 0: one value. A tree of ops runs as a stack program: KK_EW_PUSH
   sets v aside (at most KK_EW_MAX_DEPTH values deep) and starts a new v = x;
   KK_EW_POP: v = w op v with x_left, else v op w, w the value set aside last,
   which it drops (op, nan_b as KK_EW_BIN's). */
enum { KK_EW_ACT, KK_EW_NEG, KK_EW_BIN, KK_EW_PUSH, KK_EW_POP };
typedef struct {
  int kind, op, nan_b, x_left;
  const float *x;
  int64_t xs0, xs1;
} kk_ew_step;
#define KK_EW_MAX_STEPS 16
#define KK_EW_MAX_DEPTH 4
/* Y[M×N] dense = the steps applied in order to X (strided), each element as the
   steps one by one give it (kk_unary, kk_neg, kk_binary: bit for bit), in one
   pass that keeps the value in registers. Returns -1, writing nothing, where
   the ISA has no such pass, nsteps is out of 1..KK_EW_MAX_STEPS, an inner
   stride (of X or an x) is not 0 or 1, or the pushes and pops do not pair up
   within KK_EW_MAX_DEPTH: the caller then runs the steps one by one. */
int kk_ewise(int nsteps, const kk_ew_step *steps, int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1,
             float *Y);
/* Y[M×N] dense = -X (X strided): the sign bit flipped, as torch.neg and
   tf.negative do (a NaN's sign too), bit for bit. */
void kk_neg(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y);
/* Y[M×N] dense = softmax of each row of a strided X, as eager torch computes it:
   e^(x - max) / sum, times 1 / sum; a NaN in a row, or a +inf (inf - inf), makes
   the row NaN, as does a row of -inf. Within float32 rounding of eager's exp. */
void kk_softmax(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y);
/* tf.nn.softmax as eager TensorFlow computes it (oneDNN's softmax on x86): as
   kk_softmax, but e^(x - max) is 0 where x - max < -125 ln 2 (about -86.6434),
   not only where it is subnormal: oneDNN forms e^d as 2 (2^(n-1) p), whose
   2^(n-1) p is subnormal there and flushed (TF runs with FTZ). */
void kk_softmax_tf(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y);
/* Y[M×N] dense = log_softmax of each row of a strided X, as eager torch computes it:
   (x - max) - log(sum(e^(x - max))); the rows kk_softmax makes NaN are NaN. Within
   float32 rounding of eager's. */
void kk_log_softmax(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, float *Y);
/* out[i] = sum_j X[i,j]  (mean: / N) for a strided X[M×N]. */
void kk_rowsum(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, int mean, float *out);
/* mean[i], var[i]: row i's mean and mean squared deviation (divided by N), two
   passes (the squares about the mean: no cancellation). In double, or on
   AVX-512 for rows of <= 4096 in float32 with the mean corrected in the second
   pass (within a few ulp of the double result), in double where that
   overflows: no float32 row overflows. A NaN or inf in a row makes both NaN
   or inf. N = 0: both 0. */
void kk_moments(int64_t M, int64_t N, const float *X, int64_t xs0, int64_t xs1, double *mean, double *var);
/* Whether x[j * s], j < n, holds a NaN (s 0: x[0] alone). */
int kk_any_nan(int64_t n, const float *x, int64_t s);

/* ---- floating-point mode ------------------------------------------------------
   Kernels run in the calling thread's mode (x86: MXCSR), pool threads in the
   submitter's. TF runs every op with subnormals flushed to zero and read as
   zero (FTZ + DAZ); kiln's TF ops do the same between these two calls. */
unsigned kk_fp_flush_denormals(void); /* sets FTZ + DAZ; returns the mode to restore */
void kk_fp_restore(unsigned mode);

/* ---- threading ------------------------------------------------------------ */

/* Thread budget for large GEMMs (caller included): n <= 1 = single-threaded
   (the default), capped at 64 and at the number of online CPUs. Call it with
   torch.get_num_threads() or a kiln setting. If never called, kk_init()
   takes KILN_NUM_THREADS from the environment when set. */
void kk_set_num_threads(int n);
/* Optional live budget, e.g. the framework's own thread setting: when set,
   each GEMM large enough to be threaded asks it instead of the fixed budget,
   so a setting changed after kiln started is followed. NULL removes it;
   kk_set_num_threads removes it too. fn must be cheap and thread-safe. */
typedef int (*kk_budget_fn)(void);
void kk_set_thread_budget_fn(kk_budget_fn fn);
int kk_get_num_threads(void); /* the budget now (the hook's answer when set) */
/* Test/tuning hook: smallest M*N*K that is split over 2 threads (each further
   thread needs another half of it; default 8M); from an eighth of it, GEMMs
   split over 2 threads only while the pool is warm (a worker still polling,
   or back-to-back calls). < 0 restores the default. kk_init() also reads
   KILN_GEMM_THREAD_MIN. */
void kk_set_gemm_thread_min(int64_t mnk);
/* How long (microseconds, <= 1e6) a pool thread polls for its next job, or
   for workers to finish, before sleeping on a condition variable; 0 never
   polls, < 0 restores the default (1000). kk_init() also reads
   KILN_POOL_SPIN_US. */
void kk_set_pool_spin_us(int us);

/* ---- testing / housekeeping ------------------------------------------- */

/* Small-M (M <= 16) GEMMs with torch linear's layout (bs0 == 1, as1 == 1)
   choose between three kernels by shape; tests force one of them. A forced
   kernel the ISA lacks falls back to TILE. Not thread-safe with respect to
   concurrently running kernels. kk_init() also reads KILN_GEMM_SMALLM
   (tile|dot|lt) for A/B benchmarks. */
enum {
  KK_SMALLM_AUTO = 0,
  KK_SMALLM_TILE, /* pack B panels, register-tile micro-kernel */
  KK_SMALLM_DOT,  /* dot products along k (AVX-512 only) */
  KK_SMALLM_LT    /* transposed: C^T = B^T A^T, B read in place (AVX-512 only) */
};
void kk_set_small_m_path(int path);

/* Re-resolves the kernel table for the named ISA ("reference", "avx2",
   "avx512"). Returns 0 on success, -1 if unknown or unsupported by this CPU.
   Not thread-safe with respect to concurrently running kernels; for tests. */
int kk_force_isa(const char *name);
/* Frees the calling thread's GEMM packing buffer now (it is otherwise kept
   and reused by later calls on the same thread, and freed when the thread
   exits). */
void kk_release_scratch(void);

/* ---- micro-kernel interface (exposed for tests and benchmarks) ---------- */

enum {
  KK_EPI_ACCUM = 1, /* C already holds a partial sum over earlier K blocks: add it */
  KK_EPI_FINAL = 2  /* last K block: add bias, apply act, feed rowsum */
};
typedef struct {
  const float *bias; /* bias of the tile's column 0, or NULL */
  int64_t bias_s;
  float *rowsum;     /* NULL, or rowsum[i] += sum over the tile's nr columns of the final value */
  int act;           /* kk_act */
  int flags;         /* KK_EPI_* */
} kk_epilogue;

/* One signature for every variant: C tile [mr×nr] (row stride ldc; c may be
   NULL when only rowsum is wanted) from A (element (i,k) at a[i*a_rs + k*a_cs])
   and a B panel with unit column stride (element (k,j) at b[k*b_rs + j]).
   mr <= MR and nr <= NR of the variant; B columns >= nr are never read. */
typedef void (*kk_ukernel_fn)(int64_t mr, int64_t nr, int64_t K,
                              const float *a, int64_t a_rs, int64_t a_cs,
                              const float *b, int64_t b_rs,
                              float *c, int64_t ldc, const kk_epilogue *ep);
void kk_sgemm_ukernel_4x16__ref(int64_t mr, int64_t nr, int64_t K, const float *a, int64_t a_rs,
                                int64_t a_cs, const float *b, int64_t b_rs, float *c, int64_t ldc,
                                const kk_epilogue *ep);
void kk_sgemm_ukernel_6x16__avx2(int64_t mr, int64_t nr, int64_t K, const float *a, int64_t a_rs,
                                 int64_t a_cs, const float *b, int64_t b_rs, float *c, int64_t ldc,
                                 const kk_epilogue *ep);
void kk_sgemm_ukernel_12x32__avx512(int64_t mr, int64_t nr, int64_t K, const float *a,
                                    int64_t a_rs, int64_t a_cs, const float *b, int64_t b_rs,
                                    float *c, int64_t ldc, const kk_epilogue *ep);

#ifdef __cplusplus
}
#endif
#endif /* KILN_KERNELS_H */
