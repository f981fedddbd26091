/* tensor_ops.c — KrApi.tensor_op: shape checks, result allocation and the
 * calls into the float32 kernels (kernels.h).
 *
 * Shapes are checked before any memory is touched; a mismatch raises
 * RuntimeError "kiln: OP: incompatible shapes [..] and [..] (FILE:LINE)".
 * Results are fresh dense tensors (never aliasing an operand) of operand
 * a's framework, elementwise ones in the memory order eager torch gives
 * them (eager_column_major), the rest row-major. Rank-1 operands are
 * handled as one row (M = 1) and give rank-1 results. */
#include "runtime_internal.h"
#include "kernels.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const op_names[KR_NUM_OPS] = {"matmul", "linear", "add", "relu", "sigmoid", "tanh", "sum", "mean",
                                                 "sub", "mul", "div", "softmax", "neg", "abs", "sqrt", "square",
                                                 "exp", "silu", "log", "log_softmax", "rsqrt", "sum",
                                                 "mean", "relu6", "hardtanh", "clamp",
                                                 "hardtanh", "bias_add", "leaky_relu", "gelu", "gelu",
                                                 "maximum", "minimum"};

static bool is_arith(int op) { return op == KR_OP_ADD || op == KR_OP_SUB || op == KR_OP_MUL || op == KR_OP_DIV; }
static bool is_minmax(int op) { return op == KR_OP_MAXIMUM || op == KR_OP_MINIMUM; }
static bool is_clamp(int op) { return op == KR_OP_CLAMP || op == KR_OP_CLAMP_ORDERED; }

/* The kernel activation of an elementwise op of one tensor (KR_OP_RELU,
 * SIGMOID, TANH, ABS, SQRT, SQUARE, EXP, SILU, LOG, RSQRT, RELU6, HARDTANH, GELU, GELU_TANH) for a
 * framework: TF's relu
 * gives +0.0 for -0.0, torch's sigmoid flips a NaN's sign, torch's sqrt of
 * a negative number is +NaN where TF's is x86's -NaN, TF's log gives
 * all-ones NaNs, TF's silu is x * sigmoid(x), TF's relu6 flushes as its relu
 * (see kernels.h).
 * Anything else: KK_ACT_NONE. */
int kr_act_of(int op, int fw) {
  switch (op) {
  case KR_OP_RELU: return fw == KR_FW_TF ? KK_ACT_RELU_TF : KK_ACT_RELU;
  case KR_OP_SIGMOID: return fw == KR_FW_TF ? KK_ACT_SIGMOID_TF : KK_ACT_SIGMOID;
  case KR_OP_TANH: return KK_ACT_TANH;
  case KR_OP_ABS: return KK_ACT_ABS;
  case KR_OP_SQRT: return fw == KR_FW_TF ? KK_ACT_SQRT_TF : KK_ACT_SQRT;
  case KR_OP_SQUARE: return KK_ACT_SQUARE;
  case KR_OP_EXP: return KK_ACT_EXP;
  case KR_OP_SILU: return fw == KR_FW_TF ? KK_ACT_SILU_TF : KK_ACT_SILU;
  case KR_OP_LOG: return fw == KR_FW_TF ? KK_ACT_LOG_TF : KK_ACT_LOG;
  case KR_OP_RSQRT: return KK_ACT_RSQRT;
  case KR_OP_RELU6: return fw == KR_FW_TF ? KK_ACT_RELU6_TF : KK_ACT_RELU6;
  case KR_OP_HARDTANH: return KK_ACT_HARDTANH;
  case KR_OP_GELU: return fw == KR_FW_TF ? KK_ACT_GELU_TF : KK_ACT_GELU;
  case KR_OP_GELU_TANH: return fw == KR_FW_TF ? KK_ACT_GELU_TANH_TF : KK_ACT_GELU_TANH;
  default: return KK_ACT_NONE;
  }
}

/* Eager torch computes F.gelu's erf form in oneDNN for a row-major
 * contiguous tensor of more than one element while oneDNN is enabled, whose
 * +-inf give its own NaNs, and in its own loop (gelu(inf) = inf) otherwise:
 * act for an input of that layout and size. */
int kr_gelu_path(int act, int fw, bool row_major, int64_t numel) {
  return act == KK_ACT_GELU && fw == KR_FW_TORCH && row_major && numel > 1 && kr_torch_mkldnn_enabled()
             ? KK_ACT_GELU_ONEDNN
             : act;
}

static kk_binop binop_of(int op) {
  return op == KR_OP_SUB ? KK_BIN_SUB : op == KR_OP_MUL ? KK_BIN_MUL : op == KR_OP_DIV ? KK_BIN_DIV : KK_BIN_ADD;
}

static int tensor_nan_b(int op, int fw, bool b_one);



/* "[a]" or "[a, b]": n sizes. */
static void fmt_sizes(char *buf, size_t cap, int n, const int64_t *sizes) {
  if (n == 1) snprintf(buf, cap, "[%lld]", (long long)sizes[0]);
  else snprintf(buf, cap, "[%lld, %lld]", (long long)sizes[0], (long long)sizes[1]);
}

static void fmt_shape(char *buf, size_t n, const KrTensor *t) {
  if (!t) snprintf(buf, n, "None");
  else fmt_sizes(buf, n, t->rank, t->shape);
}

static KrTensor *shape_error(int op, const KrTensor *a, const KrTensor *b, const KrTensor *c, const char *file,
                             int line) {
  char sa[64], sb[64], sc[64];
  fmt_shape(sa, sizeof sa, a);
  fmt_shape(sb, sizeof sb, b);
  if (c) {
    fmt_shape(sc, sizeof sc, c);
    PyErr_Format(PyExc_RuntimeError, "kiln: %s: incompatible shapes %s and %s with bias %s (%s:%d)", op_names[op],
                 sa, sb, sc, file, line);
  } else if (b) {
    PyErr_Format(PyExc_RuntimeError, "kiln: %s: incompatible shapes %s and %s (%s:%d)", op_names[op], sa, sb, file,
                 line);
  } else {
    PyErr_Format(PyExc_RuntimeError, "kiln: %s: unsupported shape %s (%s:%d)", op_names[op], sa, file, line);
  }
  return NULL;
}

static const char *fw_name(int fw) {
  switch (fw) {
  case KR_FW_TORCH: return "torch";
  case KR_FW_TF: return "tensorflow";
  case KR_FW_TEST: return "test";
  default: return "unknown";
  }
}

KrKernelScope kr_kernel_enter(int framework, double work) {
  KrKernelScope s = {NULL, 0, framework == KR_FW_TF};
  if (s.fp_set) s.fp = kk_fp_flush_denormals();
  if (work > KR_GIL_RELEASE_WORK) s.ts = PyEval_SaveThread();
  return s;
}

void kr_kernel_leave(KrKernelScope s) {
  if (s.ts) PyEval_RestoreThread(s.ts);
  if (s.fp_set) kk_fp_restore(s.fp);
}

/* Operand as a [rows, cols] strided matrix (rank 1 = one row). */
typedef struct {
  int64_t m, n, s0, s1;
} Mat;

static Mat as_mat(const KrTensor *t) {
  Mat r;
  if (t->rank == 1) {
    r.m = 1;
    r.n = t->shape[0];
    r.s0 = 0;
    r.s1 = t->strides[0];
  } else {
    r.m = t->shape[0];
    r.n = t->shape[1];
    r.s0 = t->strides[0];
    r.s1 = t->strides[1];
  }
  return r;
}

/* torch's is_contiguous: row-major strides, size-1 dims' ignored */
static bool mat_row_major(Mat x) { return (x.n <= 1 || x.s1 == 1) && (x.m <= 1 || x.s0 == x.n); }
static bool is_row_major(const KrTensor *t) { return mat_row_major(as_mat(t)); }

/* The same elements, rows and columns exchanged: an elementwise kernel
 * writing its row-major result over the transposed problem writes a
 * column-major one. */
static Mat mat_t(Mat x) { return (Mat){x.n, x.m, x.s1, x.s0}; }

/* Eager torch allocates an elementwise op's result in its operands' memory
 * order (TensorIterator's reorder_dimensions): a [M, N] result (M, N > 1) is
 * column-major where the first operand whose strides in the result's frame
 * (s[k][0] down, s[k][1] across; 0 where it is stretched) are both nonzero
 * and differ has the smaller one down, or, with equal ones, where N > M.
 * kiln's results take that layout too, so their strides are eager's and so
 * is every later choice eager makes by layout (F.gelu's oneDNN path).
 * TensorFlow's tensors are always row-major. */
static bool eager_column_major(int fw, int64_t M, int64_t N, int n, const int64_t s[][2]) {
  if (fw != KR_FW_TORCH || M <= 1 || N <= 1) return false;
  for (int k = 0; k < n; k++) {
    if (s[k][0] == 0 || s[k][1] == 0) continue;
    if (s[k][1] != s[k][0]) return s[k][1] > s[k][0];
    if (N > M) return true;
  }
  return false;
}

/* Eager torch's maximum / minimum run in TensorIterator's loops, whose
 * vector code (KK_BIN_MAXIMUM / MINIMUM) takes 16 elements at a time with
 * every CPU capability, and whose scalar code (KK_BIN_..._TAIL) gives other
 * NaNs and the other of two zeros: each loop's last n % 16 elements and every
 * element of a loop over an operand neither dense nor one value along it
 * (read off eager). The loops run over the result's elements in memory
 * order, the row-major M x N problem here: one loop over all of them where
 * every operand's rows follow on (TensorIterator coalesces the two dims),
 * else one per row; and where eager threads the op (at least GRAIN_SIZE
 * elements and torch.get_num_threads() > 1), first over each thread's chunk
 * of ceil(numel / threads) elements, a row's piece in a chunk its own loop.
 * The result holds the vector code's values; this gives the scalar code's
 * elements theirs. threads: torch's thread count (read with the GIL). */
#define KR_TORCH_GRAIN_SIZE 32768
#define KR_TORCH_MINMAX_VEC 16

static void torch_minmax_tails(kk_binop tail_op, int threads, int64_t M, int64_t N, const float *a, int64_t as0,
                               int64_t as1, const float *b, int64_t bs0, int64_t bs1, float *r) {
  const int64_t numel = M * N;
  if (numel <= 0) return;
  int64_t len = N, sa = as1, sb = bs1; /* one loop's length and the operands' strides along it */
  if (N == 1) len = numel, sa = as0, sb = bs0;
  else if (M == 1 || (as0 == as1 * N && bs0 == bs1 * N)) len = numel;
  if (!((sa == 1 && sb == 1) || (sa == 0 && sb == 1) || (sa == 1 && sb == 0))) { /* no vector code */
    kk_binary(tail_op, 0, M, N, a, as0, as1, b, bs0, bs1, r);
    return;
  }
  int64_t chunk = numel;
  if (numel >= KR_TORCH_GRAIN_SIZE && threads > 1) {
    int64_t nt = (numel + KR_TORCH_GRAIN_SIZE - 1) / KR_TORCH_GRAIN_SIZE;
    if (nt > threads) nt = threads;
    chunk = (numel + nt - 1) / nt;
  }
  for (int64_t c0 = 0; c0 < numel; c0 += chunk) {
    const int64_t c1 = c0 + chunk < numel ? c0 + chunk : numel;
    for (int64_t p = c0; p < c1;) { /* one loop over the elements [p, q) */
      int64_t q = len == numel ? c1 : (p / len + 1) * len;
      if (q > c1) q = c1;
      const int64_t t = p + (q - p) / KR_TORCH_MINMAX_VEC * KR_TORCH_MINMAX_VEC; /* its scalar tail: [t, q) */
      if (t < q) {
        const int64_t oa = len == numel ? t * sa : t / N * as0 + t % N * sa;
        const int64_t ob = len == numel ? t * sb : t / N * bs0 + t % N * sb;
        kk_binary(tail_op, 0, 1, q - t, a + oa, 0, sa, b + ob, 0, sb, r + t);
      }
      p = q;
    }
  }
}

/* Eager TF's elementwise loops run over a tensor's elements in vectors of 8
 * and give the last n % 8 (its scalar tail) to scalar code: there relu and
 * relu6 are `x < 0 ? 0 : x` (and min(6, ...)), which keeps -0.0, where the
 * vector body gives +0.0 (KK_ACT_RELU_TF), and log has its own NaNs and
 * subnormals (KK_ACT_LOG_TF_TAIL). The tail's act, or NONE. */
#define KR_TF_VEC 8
static kk_act tf_tail_act(kk_act act) {
  return act == KK_ACT_RELU_TF ? KK_ACT_RELU : act == KK_ACT_RELU6_TF ? KK_ACT_RELU6
       : act == KK_ACT_LOG_TF ? KK_ACT_LOG_TF_TAIL : KK_ACT_NONE;
}

/* Whether a GEMM epilogue's act over numel (row-major) outputs misses TF's
 * tail: log's (its NaNs); not relu's or relu6's, whose tails differ only
 * at -0.0 and subnormals, and a GEMM's sum from +0.0 under TF's FTZ is
 * neither. */
bool kr_tf_epilogue_misses_tail(int act, int64_t numel) {
  return act == KK_ACT_LOG_TF && numel % KR_TF_VEC != 0;
}

/* by its bits: TF's kernels run with subnormals read as zero (DAZ), so
 * comparing v itself would see 0 */
static bool subnormal(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return (u & 0x7f800000u) == 0 && (u & 0x007fffffu) != 0;
}

/* y[n - n % 8 ..] of relu / relu6 / log (act: the _TF one) of a dense x[n],
 * as the tail computes it, subnormals included (TF reads them as zero, DAZ):
 * relu6's tail keeps a subnormal's bits, relu's its first element when the
 * tail is odd, and gives a zero of its sign elsewhere (read off eager). */
static void tf_tail(kk_act act, int64_t n, const float *x, float *y) {
  if (act == KK_ACT_LOG_TF) {
    kk_unary(KK_ACT_LOG_TF_TAIL, 1, n % KR_TF_VEC, x + n - n % KR_TF_VEC, n % KR_TF_VEC, 1, y + n - n % KR_TF_VEC);
    return;
  }
  for (int64_t i = n - n % KR_TF_VEC; i < n; i++) {
    const float v = x[i];
    if (subnormal(v))
      y[i] = act == KK_ACT_RELU6_TF || (n % 2 && i == n - n % KR_TF_VEC) ? v : copysignf(0.0f, v);
    else
      y[i] = v < 0.0f ? 0.0f : act == KK_ACT_RELU6_TF && v > 6.0f ? 6.0f : v;
  }
}

/* TF runs + and * with a one-element operand (a Python scalar, or a tensor
 * of one element: the other's numel elements come out) as a scalar op:
 * where both are NaN its vectorised loop gives the one element's NaN, and
 * its scalar tail, the last n % 8 elements, the other operand's, quietened
 * (read off eager, either order). After the loop's rule everywhere: the
 * tail's, v the other operand over the row-major result r[M x N]. */
static void tf_scalar_tail_nans(int64_t M, int64_t N, const float *v, int64_t vs0, int64_t vs1, float *r) {
  for (int64_t k = M * N - (M * N) % KR_TF_VEC; k < M * N; k++) {
    const float x = v[k / N * vs0 + k % N * vs1];
    if (isnan(x) && isnan(r[k])) r[k] = x + x;
  }
}

/* TF's tf.maximum / tf.minimum: each of its loops' scalar tail (the last
 * n % 8 elements of a loop over n) keeps the first of two zeros where the
 * vector code keeps the second. Its loops: one over the row-major result
 * r[M x N], but where one operand is a row or column the other stretches
 * (tiled: Eigen's tiled executor) one per block of KR_TF_MINMAX_BLOCK
 * elements rounded up to whole rows, or along a longer row pieces of that
 * many (read off eager; its cost model's block, whatever the threads).
 * tail_op computes those elements again. */
#define KR_TF_MINMAX_BLOCK 13913

static void tf_minmax_redo(kk_binop tail_op, int64_t k0, int64_t k1, int64_t N, const float *a, int64_t as0, int64_t as1,
                           const float *b, int64_t bs0, int64_t bs1, float *r) {
  for (int64_t k = k0; k < k1;) { /* the elements [k0, k1), row by row */
    const int64_t i = k / N, j = k % N, n = N - j < k1 - k ? N - j : k1 - k;
    kk_binary(tail_op, 0, 1, n, a + i * as0 + j * as1, 0, as1, b + i * bs0 + j * bs1, 0, bs1, r + k);
    k += n;
  }
}

static void tf_minmax_tail(kk_binop tail_op, bool tiled, int64_t M, int64_t N, const float *a, int64_t as0, int64_t as1,
                           const float *b, int64_t bs0, int64_t bs1, float *r) {
  const int64_t numel = M * N;
  if (!tiled || numel <= KR_TF_MINMAX_BLOCK) {
    tf_minmax_redo(tail_op, numel - numel % KR_TF_VEC, numel, N, a, as0, as1, b, bs0, bs1, r);
    return;
  }
  if (N <= KR_TF_MINMAX_BLOCK) { /* blocks of whole rows */
    const int64_t block = (KR_TF_MINMAX_BLOCK + N - 1) / N * N;
    for (int64_t k0 = 0; k0 < numel; k0 += block) {
      const int64_t k1 = k0 + block < numel ? k0 + block : numel;
      tf_minmax_redo(tail_op, k1 - (k1 - k0) % KR_TF_VEC, k1, N, a, as0, as1, b, bs0, bs1, r);
    }
    return;
  }
  for (int64_t row = 0; row < numel; row += N) /* each row in pieces */
    for (int64_t k0 = row; k0 < row + N; k0 += KR_TF_MINMAX_BLOCK) {
      const int64_t k1 = k0 + KR_TF_MINMAX_BLOCK < row + N ? k0 + KR_TF_MINMAX_BLOCK : row + N;
      tf_minmax_redo(tail_op, k1 - (k1 - k0) % KR_TF_VEC, k1, N, a, as0, as1, b, bs0, bs1, r);
    }
}

/* The layout eager gives the result of an op of one tensor. */
static bool unary_column_major(int fw, Mat x) {
  return eager_column_major(fw, x.m, x.n, 1, (const int64_t[][2]){{x.s0, x.s1}});
}

/* A fresh dense result: row-major, or column-major (strides 1 and M). */
static KrTensor *result_new(int fw, int rank, const int64_t *shape, bool column_major) {
  KrTensor *r = kr_tensor_new(fw, rank, shape);
  if (r && column_major && rank == 2) {
    r->strides[0] = 1;
    r->strides[1] = shape[0];
  }
  return r;
}

/* module.name, looked up once and kept for the process (borrowed). The
 * import can release the GIL and let another thread fill the slot
 * meanwhile: the first one stored stays, a later lookup's reference goes. */
static PyObject *cached_function(PyObject **slot, const char *module, const char *name) {
  if (*slot) return *slot;
  PyObject *m = PyImport_ImportModule(module);
  PyObject *fn = m ? PyObject_GetAttrString(m, name) : NULL;
  Py_XDECREF(m);
  if (!fn) return NULL;
  if (*slot) Py_DECREF(fn);
  else *slot = fn;
  return *slot;
}

/* TF's own tf.nn.softmax / log_softmax of t: where a row holds a NaN or an
 * inf, TF's result (which elements come out NaN, 0 or -inf) is its
 * kernel's. */
static KrTensor *tf_softmax_eager(int op, KrTensor *t, const char *file, int line) {
  static PyObject *fns[2]; /* tf.nn.softmax, tf.nn.log_softmax */
  const int k = op == KR_OP_LOG_SOFTMAX;
  PyObject *fn = cached_function(&fns[k], "tensorflow.nn", k ? "log_softmax" : "softmax");
  if (!fn) return NULL;
  PyObject *x = kr_tensor_box(t);
  PyObject *r = x ? PyObject_CallOneArg(fn, x) : NULL;
  Py_XDECREF(x);
  if (!r) return NULL;
  KrTensor *out = kr_tensor_from_object(r, KR_FW_TF, t->rank, file, line);
  Py_DECREF(r);
  return out;
}

/* Broadcast one dimension of size `sz` with stride `st` to `out`: stride 0
 * when it is stretched. Returns 0 if incompatible. */
static int bdim(int64_t sz, int64_t st, int64_t out, int64_t *stride) {
  if (sz == out) {
    *stride = (sz == 1) ? 0 : st;
    return 1;
  }
  if (sz == 1) {
    *stride = 0;
    return 1;
  }
  return 0;
}

static int bsize(int64_t x, int64_t y, int64_t *out) {
  if (x == y || y == 1) {
    *out = x;
    return 1;
  }
  if (x == 1) {
    *out = y;
    return 1;
  }
  return 0;
}

/* A product of one multiply-add per output (K == 1) comes out of eager
 * torch's MKL as the outer product of a's column and b's row -- plus the
 * bias, for F.linear's own -- where kiln's kernels sum from +0.0: the two
 * differ in the sign of a zero product (0.0 * -1.0 is -0.0 there, +0.0 in
 * the kernels). Without a bias, one row or one column (a matrix-vector
 * product, any rank-1 operand) sums from +0.0 in eager too, as TensorFlow
 * and NumPy always do. Whether torch's BLAS is such an MKL is asked once
 * (kr_torch_k1_outer). matrix: the result has rank 2. Needs the GIL. */
bool kr_gemm_outer(int fw, int64_t M, int64_t N, int64_t K, bool bias, bool matrix) {
  return fw == KR_FW_TORCH && K == 1 && (bias || (matrix && M >= 2 && N >= 2)) && kr_torch_k1_outer();
}

/* Such a product: r[M x N] = a's column (row stride as0) times b's row
 * (column stride bs1), then the bias; a NaN's payload is the product's. */
void kr_gemm_outer_run(int64_t M, int64_t N, const float *a, int64_t as0, const float *b, int64_t bs1,
                       const float *bias, int64_t bias_s, float *r) {
  kk_binary(KK_BIN_MUL, 0, M, N, a, as0, 0, b, 0, bs1, r);
  if (bias) kk_binary(KK_BIN_ADD, 0, M, N, r, N, 1, bias, 0, bias_s, r);
}

static bool is_reduction(int op) {
  return op == KR_OP_ROWSUM || op == KR_OP_ROWMEAN || op == KR_OP_COLSUM || op == KR_OP_COLMEAN;
}

KrTensor *kr_tensor_op(int op, KrTensor *a, KrTensor *b, KrTensor *c, const char *file, int line) {
  const bool keepdim = (op & KR_OP_KEEPDIM) && is_reduction(op & ~KR_OP_KEEPDIM);
  if (keepdim) op &= ~KR_OP_KEEPDIM;
  if (op < 0 || op >= KR_NUM_OPS || !a) {
    PyErr_Format(PyExc_SystemError, "kiln: bad tensor op %d (%s:%d)", op, file, line);
    return NULL;
  }
  int binary = op == KR_OP_MATMUL || op == KR_OP_LINEAR || is_arith(op) || op == KR_OP_BIAS_ADD || is_minmax(op);
  if (binary && !b) {
    PyErr_Format(PyExc_SystemError, "kiln: %s: missing operand (%s:%d)", op_names[op], file, line);
    return NULL;
  }
  if ((b && b->framework != a->framework) || (c && c->framework != a->framework)) {
    const KrTensor *o = (b && b->framework != a->framework) ? b : c;
    PyErr_Format(PyExc_TypeError, "kiln: %s: cannot mix %s and %s tensors (%s:%d)", op_names[op],
                 fw_name(a->framework), fw_name(o->framework), file, line);
    return NULL;
  }
  const int fw = a->framework;
  KrTensor *r = NULL;
  int64_t shape[2];
  double work;
  bool bias_add = false;

  switch (op) {
  case KR_OP_MATMUL:
  case KR_OP_LINEAR: {
    /* a: [M,K] or [K]. matmul b: [K,N] or [K]; linear b (weight): [N,K]. */
    int64_t M = a->rank == 2 ? a->shape[0] : 1, K = a->rank == 2 ? a->shape[1] : a->shape[0];
    int64_t as0 = a->rank == 2 ? a->strides[0] : 0, as1 = a->rank == 2 ? a->strides[1] : a->strides[0];
    int64_t N, bs0, bs1, bk;
    if (op == KR_OP_MATMUL) {
      if (a->rank == 1 && b->rank == 1) return shape_error(op, a, b, NULL, file, line); /* 0-d result */
      if (b->rank == 2) {
        bk = b->shape[0];
        N = b->shape[1];
        bs0 = b->strides[0];
        bs1 = b->strides[1];
      } else {
        bk = b->shape[0];
        N = 1;
        bs0 = b->strides[0];
        bs1 = 0;
      }
    } else {
      if (b->rank != 2) return shape_error(op, a, b, c, file, line);
      N = b->shape[0];
      bk = b->shape[1];
      bs0 = b->strides[1]; /* B = weight.T */
      bs1 = b->strides[0];
    }
    if (bk != K) return shape_error(op, a, b, c, file, line);
    const float *bias = NULL;
    int64_t bias_s = 0;
    if (c) {
      if (op != KR_OP_LINEAR || c->rank != 1 || (c->shape[0] != N && c->shape[0] != 1))
        return shape_error(op, a, b, c, file, line);
      bias = c->data;
      bias_s = c->shape[0] == 1 ? 0 : c->strides[0];
    }
    int rank;
    if (a->rank == 2 && (op == KR_OP_LINEAR || b->rank == 2)) {
      rank = 2;
      shape[0] = M;
      shape[1] = N;
    } else if (a->rank == 1) {
      rank = 1;
      shape[0] = N;
    } else { /* matmul [M,K] @ [K] */
      rank = 1;
      shape[0] = M;
    }
    r = kr_tensor_new(fw, rank, shape);
    if (!r) return NULL;
    work = (double)M * (double)N * (double)K;
    const bool outer = kr_gemm_outer(fw, M, N, K, bias != NULL, rank == 2); /* with the GIL */
    KrKernelScope ks = kr_kernel_enter(fw, work);
    if (outer) {
      kr_gemm_outer_run(M, N, a->data, as0, b->data, bs1, bias, bias_s, r->data);
    } else if (bias && kk_any_nan(N, bias, bias_s)) {
      /* F.linear has no + whose rule decides between a NaN product and a
       * NaN bias (eager's follows MKL's kernel): kiln's is the product's */
      kk_gemm(M, N, K, a->data, as0, as1, b->data, bs0, bs1, NULL, 0, KK_ACT_NONE, r->data);
      kk_binary(KK_BIN_ADD, 0, M, N, r->data, N, 1, bias, 0, bias_s, r->data);
    } else {
      kk_gemm(M, N, K, a->data, as0, as1, b->data, bs0, bs1, bias, bias_s, KK_ACT_NONE, r->data);
    }
    kr_kernel_leave(ks);
    return r;
  }
  case KR_OP_BIAS_ADD: /* TF's BiasAdd: a row exactly as long as a's rows, then a + b */
    if (a->rank != 2 || b->rank != 1 || b->shape[0] != a->shape[1]) return shape_error(op, a, b, NULL, file, line);
    bias_add = true;
    op = KR_OP_ADD;
    /* fall through */
  case KR_OP_ADD:
  case KR_OP_SUB:
  case KR_OP_MUL:
  case KR_OP_DIV:
  case KR_OP_MAXIMUM:
  case KR_OP_MINIMUM: {
    /* Broadcasting for ranks <= 2, aligned from the right like torch. */
    int rank = a->rank > b->rank ? a->rank : b->rank;
    int64_t ash[2], bsh[2], ast[2], bst[2];
    /* view both as rank-2 [rows, cols] with leading size-1 dims */
    ash[0] = a->rank == 2 ? a->shape[0] : 1;
    ash[1] = a->rank == 2 ? a->shape[1] : a->shape[0];
    ast[0] = a->rank == 2 ? a->strides[0] : 0;
    ast[1] = a->rank == 2 ? a->strides[1] : a->strides[0];
    bsh[0] = b->rank == 2 ? b->shape[0] : 1;
    bsh[1] = b->rank == 2 ? b->shape[1] : b->shape[0];
    bst[0] = b->rank == 2 ? b->strides[0] : 0;
    bst[1] = b->rank == 2 ? b->strides[1] : b->strides[0];
    int64_t M, N, as0, as1, bs0, bs1;
    if (!bsize(ash[0], bsh[0], &M) || !bsize(ash[1], bsh[1], &N)) return shape_error(op, a, b, NULL, file, line);
    if (!bdim(ash[0], ast[0], M, &as0) || !bdim(ash[1], ast[1], N, &as1) || !bdim(bsh[0], bst[0], M, &bs0) ||
        !bdim(bsh[1], bst[1], N, &bs1))
      return shape_error(op, a, b, NULL, file, line);
    if (rank == 2) {
      shape[0] = M;
      shape[1] = N;
    } else {
      shape[0] = N;
    }
    const bool cm = eager_column_major(fw, M, N, 2, (const int64_t[][2]){{as0, as1}, {bs0, bs1}});
    r = result_new(fw, rank, shape, cm);
    if (!r) return NULL;
    work = (double)M * (double)N;
    if (cm) { /* the transposed problem */
      int64_t t = M;
      M = N, N = t, t = as0, as0 = as1, as1 = t, t = bs0, bs0 = bs1, bs1 = t;
    }
    const bool max = op == KR_OP_MAXIMUM;
    const int threads = is_minmax(op) && fw == KR_FW_TORCH && M * N >= KR_TORCH_GRAIN_SIZE ? kr_torch_num_threads() : 1;
    KrKernelScope ks = kr_kernel_enter(fw, work);
    if (is_minmax(op) && fw == KR_FW_TF) {
      kk_binary(max ? KK_BIN_MAXIMUM_TF : KK_BIN_MINIMUM_TF, 0, M, N, a->data, as0, as1, b->data, bs0, bs1, r->data);
      /* TF's BCast: a row or column the other operand stretches (not one element) */
      const bool a_one = as0 == 0 && as1 == 0, b_one = bs0 == 0 && bs1 == 0;
      const bool tiled = M > 1 && N > 1 && !a_one && !b_one && (as0 == 0 || as1 == 0 || bs0 == 0 || bs1 == 0);
      tf_minmax_tail(max ? KK_BIN_MAXIMUM_TF_TAIL : KK_BIN_MINIMUM_TF_TAIL, tiled, M, N, a->data, as0, as1, b->data, bs0,
                     bs1, r->data);
    } else if (is_minmax(op)) {
      kk_binary(max ? KK_BIN_MAXIMUM : KK_BIN_MINIMUM, 0, M, N, a->data, as0, as1, b->data, bs0, bs1, r->data);
      torch_minmax_tails(max ? KK_BIN_MAXIMUM_TAIL : KK_BIN_MINIMUM_TAIL, threads, M, N, a->data, as0, as1, b->data,
                         bs0, bs1, r->data);
    } else if (op == KR_OP_ADD && fw != KR_FW_TF) /* torch's add: b's NaN wins */
      kk_add(M, N, a->data, as0, as1, b->data, bs0, bs1, KK_ACT_NONE, r->data);
    else /* (BiasAdd is no scalar op: a one-element bias is a row like any other) */
      kk_binary(binop_of(op), tensor_nan_b(op, fw, !bias_add && kr_numel(b->rank, b->shape) == 1), M, N, a->data, as0,
                as1, b->data, bs0, bs1, r->data);
    if (fw == KR_FW_TF && !bias_add && (op == KR_OP_ADD || op == KR_OP_MUL)) {
      if (kr_numel(b->rank, b->shape) == 1) tf_scalar_tail_nans(M, N, a->data, as0, as1, r->data);
      else if (kr_numel(a->rank, a->shape) == 1) tf_scalar_tail_nans(M, N, b->data, bs0, bs1, r->data);
    }
    kr_kernel_leave(ks);
    return r;
  }
  case KR_OP_RELU:
  case KR_OP_SIGMOID:
  case KR_OP_TANH:
  case KR_OP_ABS:
  case KR_OP_SQRT:
  case KR_OP_SQUARE:
  case KR_OP_EXP:
  case KR_OP_SILU:
  case KR_OP_LOG:
  case KR_OP_RSQRT:
  case KR_OP_RELU6:
  case KR_OP_HARDTANH:
  case KR_OP_GELU:
  case KR_OP_GELU_TANH: {
    Mat x = as_mat(a);
    kk_act act = kr_gelu_path(kr_act_of(op, fw), fw, is_row_major(a), x.m * x.n);
    const bool cm = unary_column_major(fw, x);
    r = result_new(fw, a->rank, a->shape, cm);
    if (!r) return NULL;
    if (cm) x = mat_t(x);
    work = (double)x.m * (double)x.n;
    KrKernelScope ks = kr_kernel_enter(fw, work);
    kk_unary(act, x.m, x.n, a->data, x.s0, x.s1, r->data);
    if (fw == KR_FW_TF && tf_tail_act(act) != KK_ACT_NONE && !cm && mat_row_major(x))
      tf_tail(act, x.m * x.n, a->data, r->data);
    kr_kernel_leave(ks);
    return r;
  }
  case KR_OP_NEG: {
    Mat x = as_mat(a);
    const bool cm = unary_column_major(fw, x);
    r = result_new(fw, a->rank, a->shape, cm);
    if (!r) return NULL;
    if (cm) x = mat_t(x);
    kk_neg(x.m, x.n, a->data, x.s0, x.s1, r->data);
    return r;
  }
  case KR_OP_SOFTMAX:
  case KR_OP_LOG_SOFTMAX: {
    Mat x = as_mat(a);
    r = kr_tensor_new(fw, a->rank, a->shape);
    if (!r) return NULL;
    KrKernelScope ks = kr_kernel_enter(fw, 8.0 * (double)x.m * (double)x.n);
    if (op == KR_OP_SOFTMAX)
      (fw == KR_FW_TF ? kk_softmax_tf : kk_softmax)(x.m, x.n, a->data, x.s0, x.s1, r->data);
    else kk_log_softmax(x.m, x.n, a->data, x.s0, x.s1, r->data);
    kr_kernel_leave(ks);
    /* NaN comes out of finite rows and rows with -inf only where they are
     * all -inf: a row with a NaN or +inf, or of -inf, is TF's to answer */
    if (fw == KR_FW_TF && kk_any_nan(x.m * x.n, r->data, 1)) {
      Py_DECREF(r);
      return tf_softmax_eager(op, a, file, line);
    }
    return r;
  }
  case KR_OP_ROWSUM:
  case KR_OP_ROWMEAN:
  case KR_OP_COLSUM:
  case KR_OP_COLMEAN: { /* over dim 1, or over dim 0 as the row sums of a viewed transposed */
    if (a->rank != 2) return shape_error(op, a, NULL, NULL, file, line);
    const int d = op == KR_OP_COLSUM || op == KR_OP_COLMEAN; /* the dim kept */
    shape[0] = a->shape[d];
    if (keepdim) { /* [M, 1] or [1, N]: the same values, as eager */
      shape[d] = a->shape[d];
      shape[!d] = 1;
    }
    r = kr_tensor_new(fw, keepdim ? 2 : 1, shape);
    if (!r) return NULL;
    if (fw == KR_FW_TF && a->shape[!d] == 1) { /* TF reduces a length-1 axis by copying it: -0.0, subnormals
                                                * and NaN payloads stay (a sum from +0.0 would not keep -0.0) */
      for (int64_t i = 0; i < a->shape[d]; i++) r->data[i] = a->data[i * a->strides[d]];
      return r;
    }
    work = (double)a->shape[0] * (double)a->shape[1];
    KrKernelScope ks = kr_kernel_enter(fw, work);
    kk_rowsum(a->shape[d], a->shape[!d], a->data, a->strides[d], a->strides[!d],
              op == KR_OP_ROWMEAN || op == KR_OP_COLMEAN, r->data);
    kr_kernel_leave(ks);
    return r;
  }
  default: break;
  }
  PyErr_Format(PyExc_SystemError, "kiln: bad tensor op %d (%s:%d)", op, file, line);
  return NULL;
}

/* Python scalars meet tensors as each framework converts them: torch casts
 * an int straight to float32, TensorFlow through a double (they differ past
 * 2**24 where the double rounds first); a float is rounded to float32 by
 * both, so 1e40 is inf. */
static float scalar_f32(int fw, double f, int64_t i, int is_int) {
  return !is_int ? (float)f : fw == KR_FW_TF ? (float)(double)i : (float)i;
}

/* How v op s (scalar_left: s op v) runs as kk_binary: which operand is A
 * (*scalar_a) and whose NaN wins where both are NaN (x86 gives an
 * instruction's first source). Eager torch computes v + s, s + v, v * s and
 * s * v as v op s and s / v as v.reciprocal() * s, with the scalar's NaN
 * winning, v - s and s - v with the right one's and v / s with v's;
 * TensorFlow computes s op v with s's NaN and v op s with s's for + and *,
 * v's for - and /. */
static kk_binop scalar_plan(int op, int fw, int scalar_left, int *scalar_a, int *nan_b) {
  kk_binop kop = binop_of(op);
  if (fw == KR_FW_TF) {
    *scalar_a = scalar_left;
    *nan_b = !scalar_left && (op == KR_OP_ADD || op == KR_OP_MUL);
    return op == KR_OP_MAXIMUM ? KK_BIN_MAXIMUM_TF : op == KR_OP_MINIMUM ? KK_BIN_MINIMUM_TF : kop;
  }
  *scalar_a = scalar_left && op == KR_OP_SUB; /* torch's + and * are commutative */
  *nan_b = op != KR_OP_DIV || scalar_left;
  return op == KR_OP_DIV && scalar_left ? KK_BIN_RECIP_MUL : kop; /* (1 / v) * s */
}

/* Where both operands of tensor + - * / tensor are NaN: b's NaN for torch's
 * + (kk_add), - and *, a's for /. TensorFlow's is a's, except where b has
 * one element (b_one): TF then runs the op as with a scalar b, whose NaN its
 * vectorised loop gives for + and * (as scalar_plan). */
static int tensor_nan_b(int op, int fw, bool b_one) {
  if (fw == KR_FW_TF) return b_one && (op == KR_OP_ADD || op == KR_OP_MUL);
  return op != KR_OP_DIV;
}

static int clamp_bound(int kind, double f, int64_t i, float *out);

/* leaky_relu's slope as the framework takes it: torch's F.leaky_relu
 * converts a Scalar to float (clamp_bound), TF's attr goes through a double;
 * is_int -1: the default (torch 0.01, TF 0.2). */
static int leaky_slope(int fw, double f, int64_t i, int is_int, float *s) {
  if (is_int < 0) {
    *s = fw == KR_FW_TF ? 0.2f : 0.01f;
    return 0;
  }
  if (fw == KR_FW_TF) {
    *s = scalar_f32(fw, f, i, is_int);
    return 0;
  }
  return clamp_bound(is_int ? KR_EW_INT : KR_EW_FLOAT, f, i, s);
}

/* t > 0 ? t : t * slope, both frameworks' leaky_relu. */
static KrTensor *leaky_relu(KrTensor *t, double f, int64_t i, int is_int) {
  float s;
  if (leaky_slope(t->framework, f, i, is_int, &s) < 0) return NULL;
  Mat x = as_mat(t);
  const bool cm = unary_column_major(t->framework, x);
  KrTensor *r = result_new(t->framework, t->rank, t->shape, cm);
  if (!r) return NULL;
  if (cm) x = mat_t(x);
  KrKernelScope ks = kr_kernel_enter(t->framework, (double)x.m * (double)x.n);
  kk_binary(KK_BIN_LEAKY, 0, x.m, x.n, &s, 0, 0, t->data, x.s0, x.s1, r->data);
  kr_kernel_leave(ks);
  return r;
}

KrTensor *kr_tensor_scalar_op(int op, KrTensor *t, double f, int64_t i, int is_int, int scalar_left, const char *file,
                              int line) {
  if (!t || (!is_arith(op) && (op != KR_OP_LEAKY_RELU || scalar_left) && !(is_minmax(op) && t->framework == KR_FW_TF))) {
    PyErr_Format(PyExc_SystemError, "kiln: bad tensor scalar op %d (%s:%d)", op, file, line);
    return NULL;
  }
  if (op == KR_OP_LEAKY_RELU) return leaky_relu(t, f, i, is_int);
  const int fw = t->framework;
  const float s = scalar_f32(fw, f, i, is_int);
  Mat x = as_mat(t);
  int scalar_a, nan_b;
  kk_binop kop = scalar_plan(op, fw, scalar_left, &scalar_a, &nan_b);
  const bool cm = unary_column_major(fw, x);
  KrTensor *r = result_new(fw, t->rank, t->shape, cm);
  if (!r) return NULL;
  if (cm) x = mat_t(x);
  KrKernelScope ks = kr_kernel_enter(fw, (double)x.m * (double)x.n);
  if (scalar_a) kk_binary(kop, nan_b, x.m, x.n, &s, 0, 0, t->data, x.s0, x.s1, r->data);
  else kk_binary(kop, nan_b, x.m, x.n, t->data, x.s0, x.s1, &s, 0, 0, r->data);
  if (is_minmax(op)) { /* TF's: its scalar tail */
    const kk_binop tail_op = op == KR_OP_MAXIMUM ? KK_BIN_MAXIMUM_TF_TAIL : KK_BIN_MINIMUM_TF_TAIL;
    if (scalar_a) tf_minmax_tail(tail_op, false, x.m, x.n, &s, 0, 0, t->data, x.s0, x.s1, r->data);
    else tf_minmax_tail(tail_op, false, x.m, x.n, t->data, x.s0, x.s1, &s, 0, 0, r->data);
  }
  if (fw == KR_FW_TF && isnan(s) && (op == KR_OP_ADD || op == KR_OP_MUL) && !cm)
    tf_scalar_tail_nans(x.m, x.n, t->data, x.s0, x.s1, r->data);
  kr_kernel_leave(ks);
  return r;
}

/* ---- clamp ----------------------------------------------------------------- */

/* A bound of torch.clamp (or leaky_relu's slope) as eager takes a Scalar: an
 * int (or bool) cast to float32, a float rounded to it, but a finite float
 * past float32's range refused. */
static int clamp_bound(int kind, double f, int64_t i, float *out) {
  if (kind == KR_EW_INT) {
    *out = (float)i;
    return 0;
  }
  if (isfinite(f) && (f > FLT_MAX || f < -FLT_MAX)) {
    PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type float without overflow");
    return -1;
  }
  *out = (float)f;
  return 0;
}

/* lo > hi as Python compares two numbers (a NaN: false). */
static bool bound_above(int lo_kind, double lo_f, int64_t lo_i, int hi_kind, double hi_f, int64_t hi_i) {
  if (lo_kind == KR_EW_INT && hi_kind == KR_EW_INT) return lo_i > hi_i;
  if (lo_kind == KR_EW_INT) return kr_int_float_cmp(lo_i, hi_f) == 1;
  if (hi_kind == KR_EW_INT) return kr_int_float_cmp(hi_i, lo_f) == -1;
  return lo_f > hi_f;
}

KrTensor *kr_tensor_clamp(KrTensor *t, int ordered, int lo_kind, double lo_f, int64_t lo_i, int hi_kind, double hi_f,
                          int64_t hi_i, const char *file, int line) {
  const bool has_lo = lo_kind >= 0, has_hi = hi_kind >= 0;
  if (!t || (!has_lo && !has_hi) || (ordered && (!has_lo || !has_hi))) {
    PyErr_Format(PyExc_SystemError, "kiln: clamp without bounds (%s:%d)", file, line);
    return NULL;
  }
  if (ordered && bound_above(lo_kind, lo_f, lo_i, hi_kind, hi_f, hi_i)) { /* F.hardtanh's own check */
    PyErr_SetString(PyExc_ValueError, "min_val cannot be greater than max_val");
    return NULL;
  }
  const int fw = t->framework;
  Mat x = as_mat(t);
  /* eager looks for a NaN bound first (every element NaN), then converts */
  bool nan_bound = (has_lo && lo_kind != KR_EW_INT && isnan(lo_f)) || (has_hi && hi_kind != KR_EW_INT && isnan(hi_f));
  float lo = 0.0f, hi = 0.0f;
  if (!nan_bound && ((has_lo && clamp_bound(lo_kind, lo_f, lo_i, &lo) < 0) ||
                     (has_hi && clamp_bound(hi_kind, hi_f, hi_i, &hi) < 0)))
    return NULL;
  const bool cm = unary_column_major(fw, x);
  KrTensor *r = result_new(fw, t->rank, t->shape, cm);
  if (!r) return NULL;
  if (cm) x = mat_t(x);
  const int64_t n = x.m * x.n;
  if (nan_bound) {
    const float qnan = NAN; /* std::numeric_limits<double>::quiet_NaN() as a float: 0x7fc00000 */
    for (int64_t k = 0; k < n; k++) r->data[k] = qnan;
    return r;
  }
  /* min(hi, max(lo, v)): the bound is x86's first source, v its second */
  kk_ew_step st[2];
  int ns = 0;
  if (has_lo) st[ns++] = (kk_ew_step){KK_EW_BIN, KK_BIN_MAX, 0, 1, &lo, 0, 0};
  if (has_hi) st[ns++] = (kk_ew_step){KK_EW_BIN, KK_BIN_MIN, 0, 1, &hi, 0, 0};
  KrKernelScope ks = kr_kernel_enter(fw, (double)n);
  if (kk_ewise(ns, st, x.m, x.n, t->data, x.s0, x.s1, r->data) != 0) {
    const float *u = t->data;
    int64_t us0 = x.s0, us1 = x.s1;
    for (int k = 0; k < ns; k++, u = r->data, us0 = x.n, us1 = 1)
      kk_binary((kk_binop)st[k].op, 0, x.m, x.n, st[k].x, 0, 0, u, us0, us1, r->data);
  }
  kr_kernel_leave(ks);
  return r;
}

/* ---- fused elementwise chains ------------------------------------------- */

/* A scalar step's is_int for kr_tensor_scalar_op: -1 for a leaky_relu step
 * with no operand (KR_EW_ACT: the framework's default slope). */
static int ew_is_int(const KrEwStep *st) { return st->kind == KR_EW_ACT ? -1 : st->kind == KR_EW_INT; }

/* The chain op by op, as the unfused code runs it: every error, in order.
 * (The program is well formed: ewise_valid.) */
static KrTensor *ewise_one_by_one(const KrEwise *p, KrTensor *first, const KrEwArg *args, const char *file) {
  KrTensor *aside[KR_EW_DEPTH]; /* the values set aside (KR_EW_PUSH), owned */
  int sp = 0;
  Py_INCREF(first);
  KrTensor *v = first;
  for (int k = 0; k < p->nsteps && v; k++) {
    const KrEwStep *st = &p->step[k];
    KrTensor *next;
    if (st->kind == KR_EW_PUSH) {
      aside[sp++] = v;
      Py_INCREF(args[k].t);
      v = args[k].t;
      continue;
    }
    if (st->kind == KR_EW_POP) {
      KrTensor *w = aside[--sp];
      next = st->swap ? kr_tensor_op(st->op, w, v, NULL, file, st->line) : kr_tensor_op(st->op, v, w, NULL, file, st->line);
      Py_DECREF(w);
    } else if (is_clamp(st->op)) { /* one bound, or (swap 2, 3) both */
      const KrEwArg *lo = st->swap != 1 ? &args[k] : NULL, *hi = st->swap == 1 ? &args[k] : NULL;
      int lo_kind = lo ? st->kind : -1, hi_kind = hi ? st->kind : -1, ordered = st->op == KR_OP_CLAMP_ORDERED;
      if (st->swap >= 2 && k + 1 < p->nsteps) hi = &args[k + 1], hi_kind = p->step[++k].kind;
      next = kr_tensor_clamp(v, ordered, lo_kind, lo ? lo->f : 0.0, lo ? lo->i : 0, hi_kind, hi ? hi->f : 0.0,
                             hi ? hi->i : 0, file, st->line);
    } else if (st->op == KR_OP_LEAKY_RELU) {
      next = kr_tensor_scalar_op(st->op, v, args[k].f, args[k].i, ew_is_int(st), 0, file, st->line);
    } else if (st->kind == KR_EW_ACT) next = kr_tensor_op(st->op, v, NULL, NULL, file, st->line);
    else if (st->kind == KR_EW_TENSOR)
      next = st->swap ? kr_tensor_op(st->op, args[k].t, v, NULL, file, st->line)
                      : kr_tensor_op(st->op, v, args[k].t, NULL, file, st->line);
    else
      next = kr_tensor_scalar_op(st->op, v, args[k].f, args[k].i, st->kind == KR_EW_INT, st->swap, file, st->line);
    Py_DECREF(v);
    v = next;
    if (!v) kr_fail_at(st->line); /* the traceback names this op's line */
  }
  while (sp > 0) Py_DECREF(aside[--sp]); /* left by an error */
  return v;
}

/* Whether each step is one the runtime knows, with its operand and a swap
 * in range (a clamp pair's first step followed by its second), and the
 * pushes and pops pair up within KR_EW_DEPTH (anything else is a compiler
 * bug: SystemError). */
static bool ewise_valid(const KrEwise *p, const KrEwArg *args, int fw) {
  int depth = 0;
  for (int k = 0; k < p->nsteps; k++) {
    const KrEwStep *st = &p->step[k];
    bool act = kr_act_of(st->op, fw) != KK_ACT_NONE || st->op == KR_OP_NEG;
    bool leaky = st->op == KR_OP_LEAKY_RELU && !st->swap;
    bool ok;
    bool side = st->swap == 0 || st->swap == 1; /* which operand is on the left */
    switch (st->kind) {
    case KR_EW_ACT: ok = act || leaky; break;
    case KR_EW_TENSOR: ok = is_arith(st->op) && side && args[k].t; break;
    case KR_EW_FLOAT: case KR_EW_INT:
      if (is_clamp(st->op)) /* a pair's max(lo, v) step: its min(hi, v) step next */
        ok = st->swap >= 0 && (st->swap < 2 || (k + 1 < p->nsteps && p->step[k + 1].op == st->op &&
                                                p->step[k + 1].swap == 1 && (p->step[k + 1].kind == KR_EW_FLOAT ||
                                                                             p->step[k + 1].kind == KR_EW_INT)));
      else ok = (is_arith(st->op) && side) || leaky;
      break;
    case KR_EW_PUSH: ok = args[k].t && ++depth <= KR_EW_DEPTH; break;
    case KR_EW_POP: ok = is_arith(st->op) && side && --depth >= 0; break;
    default: ok = false;
    }
    if (!ok) return false;
  }
  return depth == 0;
}

/* t's strides in the [M, N] frame of the result (0 where it is stretched). */
static bool frame_strides(const KrTensor *t, int64_t M, int64_t N, int64_t *s0, int64_t *s1) {
  Mat x = as_mat(t);
  return bdim(x.m, x.s0, M, s0) && bdim(x.n, x.s1, N, s1);
}

/* Rows of the result computed per block: ~8 KiB of it, so each step's pass
 * over the block finds it in L1. */
#define KR_EW_BLOCK_FLOATS 2048
_Static_assert(KR_EW_MAX <= KK_EW_MAX_STEPS, "kk_ewise takes every chain the compiler fuses");

/* An op that costs far more than the loads and stores around it. */
static bool costly_act(int op) {
  switch (op) {
  case KR_OP_SIGMOID: case KR_OP_TANH: case KR_OP_EXP: case KR_OP_SILU: case KR_OP_LOG: case KR_OP_RSQRT:
  case KR_OP_SQRT: case KR_OP_GELU: case KR_OP_GELU_TANH: return true;
  default: return false;
  }
}

/* Elements a pass would compute again before computing a value on its own
 * pays for the extra call (~0.1 us; a sigmoid costs ~0.3 ns an element,
 * an rsqrt ~0.15, measured in a pass over 16 x 64). */
#define KR_EW_SPLIT_MIN 512

/* The steps before *e compute a value the one pass would compute over and
 * over: the first value's chain, while the result stretches it (a row or a
 * column: `torch.sigmoid(g) * x`, g a row), has a costly op and many
 * elements fewer than the result. *e is where it first grows, or is set
 * aside. (The compiler pushes no subtree with such an op: fuse.c.) */
static bool stretched_first_value(const KrEwise *p, const int64_t *numel_in, const int64_t *numel_out, int64_t total,
                                  int *e) {
  bool costly = false;
  for (*e = 0; *e < p->nsteps; (*e)++) {
    const KrEwStep *st = &p->step[*e];
    if (st->kind == KR_EW_PUSH || numel_out[*e] > numel_in[0]) break;
    costly = costly || (st->kind == KR_EW_ACT && costly_act(st->op));
  }
  return costly && numel_in[0] > 0 && numel_in[0] <= total / 2 && total - numel_in[0] >= KR_EW_SPLIT_MIN;
}

/* The chain with its first value's chain (the steps before e) computed
 * first, on its own elements, as a chain of its own. Every shape was
 * checked, so computing it so is unobservable. */
static KrTensor *ewise_split(const KrEwise *p, KrTensor *first, const KrEwArg *args, const char *file, int e) {
  KrEwise head = {e, {{0}}}, rest = {p->nsteps - e, {{0}}};
  memcpy(head.step, p->step, sizeof(KrEwStep) * (size_t)e);
  memcpy(rest.step, p->step + e, sizeof(KrEwStep) * (size_t)(p->nsteps - e));
  /* (a part of one step is that op's own call: no second analysis) */
  KrTensor *v = e == 1 ? ewise_one_by_one(&head, first, args, file) : kr_tensor_ewise(&head, first, args, file);
  if (!v) return NULL;
  KrTensor *r = rest.nsteps == 1 ? ewise_one_by_one(&rest, v, args + e, file) : kr_tensor_ewise(&rest, v, args + e, file);
  Py_DECREF(v);
  return r;
}

KrTensor *kr_tensor_ewise(const KrEwise *p, KrTensor *first, const KrEwArg *args, const char *file) {
  if (!p || !first || !args || p->nsteps < 1 || p->nsteps > KR_EW_MAX || !ewise_valid(p, args, first->framework)) {
    PyErr_Format(PyExc_SystemError, "kiln: bad elementwise chain (%s)", file);
    return NULL;
  }
  const int fw = first->framework;
  /* the result's shape, folded step by step as the ops would broadcast it;
   * anything the ops would refuse goes op by op, for their errors */
  int rank = first->rank;
  Mat f = as_mat(first);
  int64_t M = f.m, N = f.n;
  /* (per-step arrays are set step by step, not zeroed whole: a rep stos
   * costs more than a short chain's pass) */
  bool right_one[KR_EW_MAX]; /* a tensor step's right operand has one element */
  /* the value each step takes, as eager has it: the first tensor, then
   * each op's result in the layout eager gives it (eager_column_major);
   * the values set aside by KR_EW_PUSH, with their shapes (val.m, val.n) */
  Mat val = f, aside[KR_EW_DEPTH];
  int sp = 0, depth = 0;
  bool row_major_in[KR_EW_MAX];
  int64_t numel_in[KR_EW_MAX], numel_out[KR_EW_MAX];
  for (int k = 0; k < p->nsteps; k++) {
    const KrEwStep *st = &p->step[k];
    row_major_in[k] = mat_row_major(val);
    numel_in[k] = M * N;
    right_one[k] = false;
    if (st->kind == KR_EW_PUSH) {
      const KrTensor *t = args[k].t;
      if (t->framework != fw) return ewise_one_by_one(p, first, args, file);
      if (t->rank > rank) rank = t->rank;
      aside[sp++] = val;
      depth = sp > depth ? sp : depth;
      val = as_mat(t);
      M = val.m, N = val.n;
      numel_out[k] = M * N;
      continue;
    }
    bool scalar = st->kind == KR_EW_FLOAT || st->kind == KR_EW_INT;
    bool clamp = is_clamp(st->op) && scalar, leaky = st->op == KR_OP_LEAKY_RELU && !st->swap;
    /* a NaN bound or one past float32's range (or such a slope): the ops one by one (eager's NaNs and error) */
    float bound;
    bool nan_bound = clamp && st->kind == KR_EW_FLOAT && isnan(args[k].f);
    if (nan_bound || (clamp && clamp_bound(st->kind, args[k].f, args[k].i, &bound) < 0) ||
        (leaky && leaky_slope(fw, args[k].f, args[k].i, ew_is_int(st), &bound) < 0)) {
      PyErr_Clear();
      return ewise_one_by_one(p, first, args, file);
    }
    /* an ordered pair (F.hardtanh) whose lo > hi: its ValueError, in order */
    if (clamp && st->swap == 3 && k + 1 < p->nsteps &&
        bound_above(st->kind, args[k].f, args[k].i, p->step[k + 1].kind, args[k + 1].f, args[k + 1].i))
      return ewise_one_by_one(p, first, args, file);
    int64_t s[2][2] = {{val.s0, val.s1}}; /* the step's operands in eager's order, in its result's frame */
    int n = 1;
    /* TF's scalar tail of + and * with a NaN scalar or one-element operand
     * (tf_scalar_tail_nans; a value of one element may be NaN): op by op */
    const bool tf_scalar_op = fw == KR_FW_TF && (st->op == KR_OP_ADD || st->op == KR_OP_MUL);
    if (tf_scalar_op && st->kind == KR_EW_FLOAT && isnan(args[k].f) && (M * N) % KR_TF_VEC)
      return ewise_one_by_one(p, first, args, file);
    if (st->kind == KR_EW_TENSOR || st->kind == KR_EW_POP) { /* v op x, or (swap) x op v */
      Mat x = st->kind == KR_EW_POP ? aside[--sp] : as_mat(args[k].t);
      if (st->kind == KR_EW_TENSOR && args[k].t->framework != fw) return ewise_one_by_one(p, first, args, file);
      right_one[k] = st->swap ? M == 1 && N == 1 : x.m == 1 && x.n == 1;
      const bool value_one = M * N == 1, x_one = x.m * x.n == 1;
      if (!bsize(M, x.m, &M) || !bsize(N, x.n, &N)) return ewise_one_by_one(p, first, args, file);
      if (tf_scalar_op && (M * N) % KR_TF_VEC &&
          (value_one || (x_one && (st->kind == KR_EW_POP || isnan(args[k].t->data[0])))))
        return ewise_one_by_one(p, first, args, file);
      if (st->kind == KR_EW_TENSOR && args[k].t->rank > rank) rank = args[k].t->rank;
      bdim(val.m, val.s0, M, &s[st->swap][0]);
      bdim(val.n, val.s1, N, &s[st->swap][1]);
      bdim(x.m, x.s0, M, &s[!st->swap][0]);
      bdim(x.n, x.s1, N, &s[!st->swap][1]);
      n = 2;
    }
    val = eager_column_major(fw, M, N, n, s) ? (Mat){M, N, 1, M} : (Mat){M, N, N, 1};
    numel_out[k] = M * N;
  }
  int split;
  if (stretched_first_value(p, numel_in, numel_out, M * N, &split)) return ewise_split(p, first, args, file, split);
  /* TF's relu / relu6 in the chain on a value with a scalar tail (tf_tail_act):
   * the pass, then its last elements again with the tail's acts. That takes
   * the value being the result's elements in order (its own tail is the
   * result's) and every operand dense or one value; else op by op. */
  bool tail_act = false;
  for (int k = 0; fw == KR_FW_TF && k < p->nsteps; k++) {
    const KrEwStep *st = &p->step[k];
    if (st->kind != KR_EW_ACT || tf_tail_act(kr_act_of(st->op, fw)) == KK_ACT_NONE || numel_in[k] % KR_TF_VEC == 0)
      continue;
    if (numel_in[k] != M * N || !row_major_in[k]) return ewise_one_by_one(p, first, args, file);
    tail_act = true;
  }
  const int64_t tail = tail_act ? (M * N) % KR_TF_VEC : 0;
  if (tail) {
    if (f.m * f.n != M * N || !mat_row_major(f) || !mat_row_major(val)) return ewise_one_by_one(p, first, args, file);
    /* (a subnormal in an input's tail may reach the act as itself, not as a
     * result TF flushed: tf_tail's rules, op by op) */
    for (int i = 0; i < tail; i++)
      if (subnormal(first->data[M * N - tail + i])) return ewise_one_by_one(p, first, args, file);
    for (int j = 0; j < p->nsteps; j++) {
      if (p->step[j].kind != KR_EW_TENSOR && p->step[j].kind != KR_EW_PUSH) continue;
      const KrTensor *t = args[j].t;
      const int64_t tn = as_mat(t).m * as_mat(t).n;
      if (tn == 1) continue;
      if (tn != M * N || !is_row_major(t)) return ewise_one_by_one(p, first, args, file);
      for (int i = 0; i < tail; i++)
        if (subnormal(t->data[M * N - tail + i])) return ewise_one_by_one(p, first, args, file);
    }
  }
  /* the result in eager's layout: a column-major one as the transposed
   * problem's row-major result (every operand's strides exchanged) */
  const bool cm = !mat_row_major(val);
  int64_t shape[2] = {M, N}, fs0 = 0, fs1 = 0;
  if (rank == 1) shape[0] = N;
  KrTensor *r = result_new(fw, rank, shape, cm);
  if (!r) return NULL;
  frame_strides(first, M, N, &fs0, &fs1);
  if (cm) {
    int64_t t = M;
    M = N, N = t, t = fs0, fs0 = fs1, fs1 = t;
  }
  /* each step as kk_ewise takes it; a scalar's float32 in sc */
  float sc[KR_EW_MAX];
  kk_ew_step ew[KR_EW_MAX];
  for (int k = 0; k < p->nsteps; k++) {
    const KrEwStep *st = &p->step[k];
    kk_ew_step *e = &ew[k];
    *e = (kk_ew_step){KK_EW_BIN, (int)binop_of(st->op), 0, st->swap, NULL, 0, 0};
    switch (st->kind) {
    case KR_EW_PUSH:
    case KR_EW_TENSOR: /* its strides in the result's frame (transposed with it) */
      e->kind = st->kind == KR_EW_PUSH ? KK_EW_PUSH : KK_EW_BIN;
      e->x = args[k].t->data;
      if (cm) frame_strides(args[k].t, N, M, &e->xs1, &e->xs0);
      else frame_strides(args[k].t, M, N, &e->xs0, &e->xs1);
      e->nan_b = st->kind == KR_EW_TENSOR ? tensor_nan_b(st->op, fw, right_one[k]) : 0;
      break;
    case KR_EW_POP:
      e->kind = KK_EW_POP;
      e->nan_b = tensor_nan_b(st->op, fw, right_one[k]);
      break;
    default:
      e->x = &sc[k];
      if (st->kind == KR_EW_ACT && st->op != KR_OP_LEAKY_RELU) {
        e->kind = st->op == KR_OP_NEG ? KK_EW_NEG : KK_EW_ACT;
        e->op = (int)kr_gelu_path(kr_act_of(st->op, fw), fw, row_major_in[k], numel_in[k]);
        e->x = NULL;
      } else if (is_clamp(st->op)) { /* max(lo, v) or min(hi, v): the bound is x86's first source */
        (void)clamp_bound(st->kind, args[k].f, args[k].i, &sc[k]);
        e->op = st->swap == 1 ? KK_BIN_MIN : KK_BIN_MAX;
        e->x_left = 1;
      } else if (st->op == KR_OP_LEAKY_RELU) { /* v > 0 ? v : v * slope: the slope is kk's A */
        (void)leaky_slope(fw, args[k].f, args[k].i, ew_is_int(st), &sc[k]);
        e->op = KK_BIN_LEAKY;
        e->x_left = 1;
      } else {
        sc[k] = scalar_f32(fw, args[k].f, args[k].i, st->kind == KR_EW_INT);
        e->op = (int)scalar_plan(st->op, fw, st->swap, &e->x_left, &e->nan_b);
      }
    }
  }
  /* one pass with the value in registers where the ISA has it and every
   * inner stride is 0 or 1; else each step over blocks of rows in L1 */
  KrKernelScope ks = kr_kernel_enter(fw, (double)M * (double)N * (double)p->nsteps);
  if (tail) { /* every value dense, the result row-major: its last `tail` elements as one row */
    const int64_t at = M * N - tail;
    kk_ew_step et[KR_EW_MAX];
    for (int k = 0; k < p->nsteps; k++) {
      et[k] = ew[k];
      if (et[k].kind == KK_EW_ACT && tf_tail_act((kk_act)et[k].op) != KK_ACT_NONE) et[k].op = tf_tail_act((kk_act)et[k].op);
      if ((et[k].kind == KK_EW_BIN || et[k].kind == KK_EW_PUSH) && (et[k].xs0 || et[k].xs1))
        et[k].x += at, et[k].xs0 = tail, et[k].xs1 = 1;
    }
    int bad = kk_ewise(p->nsteps, ew, M, N, first->data, fs0, fs1, r->data);
    bad = bad || kk_ewise(p->nsteps, et, 1, tail, first->data + at, tail, 1, r->data + at);
    kr_kernel_leave(ks);
    if (!bad) return r;
    Py_DECREF(r); /* no one-pass kernel on this ISA: op by op */
    return ewise_one_by_one(p, first, args, file);
  }
  if (kk_ewise(p->nsteps, ew, M, N, first->data, fs0, fs1, r->data) == 0) {
    kr_kernel_leave(ks);
    return r;
  }
  int64_t rb = N > 0 ? KR_EW_BLOCK_FLOATS / N : M;
  rb = rb < 1 ? 1 : rb;
  /* the block of each value set aside, below the result's own rows */
  float *held = NULL;
  /* (the GIL may be released here: the raw allocator) */
  if (depth > 0 && M > 0 && N > 0 && !(held = PyMem_RawMalloc(sizeof(float) * (size_t)(depth * rb * N)))) {
    kr_kernel_leave(ks);
    Py_DECREF(r);
    return (KrTensor *)PyErr_NoMemory();
  }
  for (int64_t i0 = 0; i0 < M && N > 0; i0 += rb) {
    int64_t m = M - i0 < rb ? M - i0 : rb;
    /* where the value at stack depth d is computed: the result's rows, or a held block */
    float *at[KR_EW_DEPTH + 1] = {r->data + i0 * N};
    for (int d = 1; d <= depth; d++) at[d] = held + (d - 1) * rb * N;
    /* the first step reads the first value where it is, the others v; a
     * pushed value too is read where it is until a step computes it */
    struct Held { const float *u; int64_t s0, s1; } set_aside[KR_EW_DEPTH];
    const float *u = first->data + i0 * fs0;
    int64_t us0 = fs0, us1 = fs1;
    sp = 0;
    for (int k = 0; k < p->nsteps; k++) {
      const kk_ew_step *e = &ew[k];
      const kk_binop op = (kk_binop)e->op;
      if (e->kind == KK_EW_PUSH) {
        set_aside[sp++] = (struct Held){u, us0, us1};
        u = e->x + i0 * e->xs0, us0 = e->xs0, us1 = e->xs1;
        continue;
      }
      float *v = at[e->kind == KK_EW_POP ? --sp : sp];
      if (e->kind == KK_EW_POP) {
        const struct Held w = set_aside[sp];
        if (e->x_left) kk_binary(op, e->nan_b, m, N, w.u, w.s0, w.s1, u, us0, us1, v);
        else kk_binary(op, e->nan_b, m, N, u, us0, us1, w.u, w.s0, w.s1, v);
      } else if (e->kind == KK_EW_NEG) {
        kk_neg(m, N, u, us0, us1, v);
      } else if (e->kind == KK_EW_ACT) {
        kk_unary((kk_act)e->op, m, N, u, us0, us1, v);
      } else { /* a tensor (its rows from i0) or one value */
        const float *x = e->x + i0 * e->xs0;
        if (e->x_left) kk_binary(op, e->nan_b, m, N, x, e->xs0, e->xs1, u, us0, us1, v);
        else kk_binary(op, e->nan_b, m, N, u, us0, us1, x, e->xs0, e->xs1, v);
      }
      u = v, us0 = N, us1 = 1;
    }
  }
  PyMem_RawFree(held);
  kr_kernel_leave(ks);
  return r;
}

/* ---- layer_norm ---------------------------------------------------------- */

/* normalized_shape in the native form: a tuple or list (torch.Size is a
 * tuple) holding one exact int. Its value in *n, or false. */
static bool one_int_shape(PyObject *shape, int64_t *n) {
  if ((!PyTuple_Check(shape) && !PyList_Check(shape)) || PySequence_Fast_GET_SIZE(shape) != 1) return false;
  PyObject *e = PySequence_Fast_GET_ITEM(shape, 0);
  if (!PyLong_CheckExact(e)) return false;
  int overflow;
  long long v = PyLong_AsLongLongAndOverflow(e, &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  *n = v;
  return true;
}

/* Eager's own F.layer_norm on the same arguments: every other form (more
 * dims, a shape that does not match, weights of another length, a
 * normalized_shape eager refuses) gives its result or raises its error. */
static KrTensor *layer_norm_eager(KrTensor *x, PyObject *shape, KrTensor *w, KrTensor *b, double eps, const char *file,
                                  int line) {
  static PyObject *slot;
  PyObject *fn = cached_function(&slot, "torch.nn.functional", "layer_norm");
  if (!fn) return NULL;
  PyObject *xo = kr_tensor_box(x), *wo = w ? kr_tensor_box(w) : Py_NewRef(Py_None);
  PyObject *bo = b ? kr_tensor_box(b) : Py_NewRef(Py_None), *eo = PyFloat_FromDouble(eps);
  PyObject *r = xo && wo && bo && eo ? PyObject_CallFunctionObjArgs(fn, xo, shape, wo, bo, eo, NULL) : NULL;
  Py_XDECREF(xo);
  Py_XDECREF(wo);
  Py_XDECREF(bo);
  Py_XDECREF(eo);
  /* a claimed site's result never requires grad, whichever path made it */
  PyObject *d = r ? PyObject_CallMethod(r, "detach", NULL) : NULL;
  Py_XDECREF(r);
  if (!d) return NULL;
  KrTensor *t = kr_tensor_from_object(d, KR_FW_TORCH, x->rank, file, line);
  Py_DECREF(d);
  return t;
}

static bool is_row_of(const KrTensor *v, int64_t n) { return !v || (v->rank == 1 && v->shape[0] == n); }

KrTensor *kr_tensor_layer_norm(KrTensor *x, PyObject *shape, KrTensor *w, KrTensor *b, double eps, const char *file,
                               int line) {
  if (!x || !shape || x->framework != KR_FW_TORCH || (w && w->framework != KR_FW_TORCH) ||
      (b && b->framework != KR_FW_TORCH)) {
    PyErr_Format(PyExc_SystemError, "kiln: bad layer_norm operands (%s:%d)", file, line);
    return NULL;
  }
  Mat m = as_mat(x);
  int64_t n;
  if (!one_int_shape(shape, &n) || n != m.n || !is_row_of(w, n) || !is_row_of(b, n))
    return layer_norm_eager(x, shape, w, b, eps, file, line);
  KrTensor *r = kr_tensor_new(KR_FW_TORCH, x->rank, x->shape);
  if (!r || m.m == 0 || n == 0) return r;
  /* per row: mean and variance (kk_moments; eager's float32 moments overflow
   * past |x| ~ 1e19, to zeros or NaN by the row's length; these do not),
   * rstd = 1 / sqrt(var + eps) rounded once to float32, then as eager:
   * -rstd * mean in float32, so x == mean gives exactly 0 */
  double stack[2 * 32];
  double *mean = m.m <= 32 ? stack : PyMem_Malloc(sizeof(double) * 2 * (size_t)m.m);
  float fstack[2 * 32], *coef = m.m <= 32 ? fstack : PyMem_Malloc(sizeof(float) * 2 * (size_t)m.m);
  if (!mean || !coef) {
    if (mean != stack) PyMem_Free(mean);
    if (coef != fstack) PyMem_Free(coef);
    Py_DECREF(r);
    return (KrTensor *)PyErr_NoMemory();
  }
  double *var = mean + m.m;
  float *scale = coef, *shift = coef + m.m;
  KrKernelScope ks = kr_kernel_enter(KR_FW_TORCH, 3.0 * (double)m.m * (double)n);
  kk_moments(m.m, n, x->data, m.s0, m.s1, mean, var);
  for (int64_t i = 0; i < m.m; i++) {
    scale[i] = (float)(1.0 / sqrt(var[i] + (double)(float)eps));
    shift[i] = -scale[i] * (float)mean[i];
  }
  /* y = (x * scale + shift) * w + b, eager's order, one pass; without a
   * bias eager adds 0.0 (its loop for a missing weight or bias), so a zero
   * result is +0.0 */
  static const float zero = 0.0f;
  kk_ew_step st[4] = {{KK_EW_BIN, KK_BIN_MUL, 0, 0, scale, 1, 0}, {KK_EW_BIN, KK_BIN_ADD, 0, 0, shift, 1, 0}};
  int ns = 2;
  if (w) st[ns++] = (kk_ew_step){KK_EW_BIN, KK_BIN_MUL, 0, 0, w->data, 0, w->strides[0]};
  st[ns++] = b ? (kk_ew_step){KK_EW_BIN, KK_BIN_ADD, 0, 0, b->data, 0, b->strides[0]}
               : (kk_ew_step){KK_EW_BIN, KK_BIN_ADD, 0, 0, &zero, 0, 0};
  if (kk_ewise(ns, st, m.m, n, x->data, m.s0, m.s1, r->data) != 0) {
    for (int64_t i = 0; i < m.m; i++) {
      float *y = r->data + i * n;
      kk_binary(KK_BIN_MUL, 0, 1, n, x->data + i * m.s0, 0, m.s1, &scale[i], 0, 0, y);
      kk_binary(KK_BIN_ADD, 0, 1, n, y, 0, 1, &shift[i], 0, 0, y);
      if (w) kk_binary(KK_BIN_MUL, 0, 1, n, y, 0, 1, w->data, 0, w->strides[0], y);
      kk_binary(KK_BIN_ADD, 0, 1, n, y, 0, 1, b ? b->data : &zero, 0, b ? b->strides[0] : 0, y);
    }
  }
  kr_kernel_leave(ks);
  if (mean != stack) PyMem_Free(mean);
  if (coef != fstack) PyMem_Free(coef);
  return r;
}

/* ---- normalize ----------------------------------------------------------- */

KrTensor *kr_tensor_normalize(KrTensor *x, int eps_kind, double eps_f, int64_t eps_i, const char *file, int line) {
  if (!x || x->framework != KR_FW_TORCH || (eps_kind != KR_EW_FLOAT && eps_kind != KR_EW_INT)) {
    PyErr_Format(PyExc_SystemError, "kiln: bad normalize operands (%s:%d)", file, line);
    return NULL;
  }
  /* eps is clamp_min's bound: a NaN makes every norm NaN, a float past
   * float32's range raises (as eager's clamp_min, after its norm) */
  const bool nan_eps = eps_kind == KR_EW_FLOAT && isnan(eps_f);
  float eps = 0.0f;
  if (!nan_eps && clamp_bound(eps_kind, eps_f, eps_i, &eps) < 0) return NULL;
  Mat m = as_mat(x);
  const bool cm = unary_column_major(KR_FW_TORCH, m); /* x / its norms: x's layout, as eager's division */
  KrTensor *r = result_new(KR_FW_TORCH, x->rank, x->shape, cm);
  if (!r || m.m == 0 || m.n == 0) return r;
  float stack[32], *denom = m.m <= 32 ? stack : PyMem_Malloc(sizeof(float) * (size_t)m.m);
  if (!denom) {
    Py_DECREF(r);
    return (KrTensor *)PyErr_NoMemory();
  }
  KrKernelScope ks = kr_kernel_enter(KR_FW_TORCH, 3.0 * (double)m.m * (double)m.n);
  /* x.norm(2, dim, keepdim=True): float32 sums of squares (the result holds
   * the squares meanwhile); over one element eager's norm is |x| itself */
  if (m.n == 1) {
    for (int64_t i = 0; i < m.m; i++) denom[i] = fabsf(x->data[i * m.s0]);
  } else {
    kk_unary(KK_ACT_SQUARE, m.m, m.n, x->data, m.s0, m.s1, r->data);
    kk_rowsum(m.m, m.n, r->data, m.n, 1, 0, denom);
    for (int64_t i = 0; i < m.m; i++) denom[i] = sqrtf(denom[i]);
  }
  for (int64_t i = 0; i < m.m; i++) {
    const float v = denom[i];
    denom[i] = nan_eps ? NAN : eps > v ? eps : v; /* clamp_min: x86's max(eps, v), a NaN v passing */
  }
  /* x / denom, x's NaN first */
  if (cm) kk_binary(KK_BIN_DIV, 0, m.n, m.m, x->data, m.s1, m.s0, denom, 0, 1, r->data);
  else kk_binary(KK_BIN_DIV, 0, m.m, m.n, x->data, m.s0, m.s1, denom, 1, 0, r->data);
  kr_kernel_leave(ks);
  if (denom != stack) PyMem_Free(denom);
  return r;
}

/* ---- cat and stack ------------------------------------------------------- */

/* Operand t of a join as the block of the result it fills: itself (rank 1
 * as one row), or for stack along dim 1 one column. */
static Mat join_block(const KrTensor *t, int dim, int stack) {
  if (stack && dim == 1) return (Mat){t->shape[0], 1, t->strides[0], 1};
  return as_mat(t);
}

KrTensor *kr_tensor_cat(KrTensor *const *ts, int n, int dim, int stack, const char *file, int line) {
  const KrTensor *t0 = n >= 1 && ts ? ts[0] : NULL;
  const int rank = t0 ? t0->rank + (stack ? 1 : 0) : 0; /* the result's */
  if (!t0 || dim < 0 || dim >= rank || rank > 2) {
    PyErr_Format(PyExc_SystemError, "kiln: bad cat operands (%s:%d)", file, line);
    return NULL;
  }
  const char *name = stack ? "stack" : t0->framework == KR_FW_TF ? "concat" : "cat";
  for (int i = 0; i < n; i++) {
    const KrTensor *t = ts[i];
    if (!t || t->rank != t0->rank) {
      PyErr_Format(PyExc_SystemError, "kiln: bad cat operands (%s:%d)", file, line);
      return NULL;
    }
    if (t->framework != t0->framework) {
      PyErr_Format(PyExc_TypeError, "kiln: %s: cannot mix %s and %s tensors (%s:%d)", name, fw_name(t0->framework),
                   fw_name(t->framework), file, line);
      return NULL;
    }
    for (int d = 0; d < t0->rank; d++) {
      if ((d == dim && !stack) || t->shape[d] == t0->shape[d]) continue;
      char s0[64], si[64];
      fmt_shape(s0, sizeof s0, t0);
      fmt_shape(si, sizeof si, t);
      if (stack)
        PyErr_Format(PyExc_RuntimeError, "kiln: stack: sizes must match, but tensor 0 is %s and tensor %d is %s (%s:%d)",
                     s0, i, si, file, line);
      else
        PyErr_Format(PyExc_RuntimeError,
                     "kiln: %s: sizes must match except in dim %d, but tensor 0 is %s and tensor %d is %s (%s:%d)",
                     name, dim, s0, i, si, file, line);
      return NULL;
    }
  }
  /* the result's shape: the blocks side by side along dim */
  const bool rows = rank == 2 && dim == 0;
  const Mat b0 = join_block(t0, dim, stack);
  int64_t shape[2] = {b0.m, b0.n}, total = 0;
  for (int i = 0; i < n; i++) {
    const Mat b = join_block(ts[i], dim, stack);
    if (__builtin_add_overflow(total, rows ? b.m : b.n, &total)) { /* eager: a negative size */
      PyErr_Format(PyExc_RuntimeError, "kiln: %s: the joined size does not fit in int64 (%s:%d)", name, file, line);
      return NULL;
    }
  }
  if (rank == 1) shape[0] = total;
  else shape[dim] = total;
  KrTensor *r = kr_tensor_new(t0->framework, rank, shape);
  if (!r) return NULL;
  /* each block below the ones before it (dim 0 of a rank-2 result), or
   * right of them; a dense block below the others is one copy */
  const int64_t row = rank == 2 ? shape[1] : shape[0];
  int64_t at = 0;
  for (int i = 0; i < n; i++) {
    const Mat b = join_block(ts[i], dim, stack);
    const int64_t first = at;
    at += rows ? b.m : b.n;
    if (b.m == 0 || b.n == 0) continue;
    float *dst = r->data + (rows ? first * row : first);
    if (rows && (b.s1 == 1 || b.n == 1) && (b.m == 1 || b.s0 == b.n)) {
      memcpy(dst, ts[i]->data, sizeof(float) * (size_t)(b.m * b.n));
      continue;
    }
    for (int64_t y = 0; y < b.m; y++) {
      const float *src = ts[i]->data + y * b.s0;
      float *out = dst + y * row;
      if (b.s1 == 1 || b.n == 1) memcpy(out, src, sizeof(float) * (size_t)b.n);
      else for (int64_t x = 0; x < b.n; x++) out[x] = src[x * b.s1];
    }
  }
  return r;
}

/* ---- view / reshape / flatten / squeeze / unsqueeze ----------------------- */

/* The elements of the [m.m, m.n] strided matrix at src into dst, row-major. */
static void copy_row_major(Mat m, const float *src, float *dst) {
  if (m.m == 0 || m.n == 0) return;
  if (mat_row_major(m)) memcpy(dst, src, sizeof(float) * (size_t)(m.m * m.n));
  else kk_unary(KK_ACT_NONE, m.m, m.n, src, m.s0, m.s1, dst);
}

/* How a dense copy of a [shape] tensor can have the strides vs wherever a
 * dim is longer than 1 (a size-1 dim's stride decides nothing): 1 row-major,
 * 2 column-major, 0 neither (gaps, overlaps, stretched dims). */
static int compact_layout(int rank, const int64_t *shape, const int64_t *vs) {
  const int64_t m = rank == 2 ? shape[0] : 1, n = rank == 2 ? shape[1] : shape[0];
  const int64_t v0 = rank == 2 ? vs[0] : 0, v1 = rank == 2 ? vs[1] : vs[0];
  if (m == 0 || n == 0 || ((m <= 1 || v0 == n) && (n <= 1 || v1 == 1))) return 1; /* empty: nothing to lay out */
  if ((m <= 1 || v0 == 1) && (n <= 1 || v1 == m)) return 2;
  return 0;
}

/* A dense copy of the [shape] tensor at src with strides vs, in `layout`
 * (compact_layout's 1 or 2). */
static KrTensor *compact_copy(int fw, int rank, const int64_t *shape, const float *src, const int64_t *vs, int layout) {
  const int64_t m = rank == 2 ? shape[0] : 1, n = rank == 2 ? shape[1] : shape[0];
  const int64_t v0 = rank == 2 ? vs[0] : 0, v1 = rank == 2 ? vs[1] : vs[0];
  if (layout != 2 || rank == 1) {
    KrTensor *r = kr_tensor_new(fw, rank, shape);
    if (r) copy_row_major((Mat){m, n, v0, v1}, src, r->data);
    return r;
  }
  const int64_t flipped[2] = {n, m}; /* column j of the result is row j of its transpose */
  KrTensor *r = kr_tensor_new(fw, 2, flipped);
  if (!r) return NULL;
  copy_row_major((Mat){n, m, v1, v0}, src, r->data);
  r->shape[0] = m;
  r->shape[1] = n;
  r->strides[0] = 1;
  r->strides[1] = m;
  return r;
}

/* The [shape] tensor at src with strides vs copied to the same places in a
 * buffer of `span` floats (its extent, which lies inside x's memory): the
 * copy has vs itself. An extent at most four times the elements is copied
 * whole (eager's view shows x's floats in its gaps too; an overlapping or
 * stretched view costs no more than its extent); a sparser one element by
 * element, once per place (a stretched dim's places are one). */
static KrTensor *span_copy(int fw, int rank, const int64_t *shape, const float *src, const int64_t *vs, int64_t span,
                           bool whole) {
  KrTensor *r = kr_tensor_new(fw, 1, &span);
  if (!r) return NULL;
  r->rank = rank;
  for (int d = 0; d < rank; d++) {
    r->shape[d] = shape[d];
    r->strides[d] = vs[d];
  }
  if (rank == 1) {
    r->shape[1] = 1;
    r->strides[1] = 1;
  }
  if (whole) {
    memcpy(r->data, src, sizeof(float) * (size_t)span);
    return r;
  }
  const int64_t v0 = rank == 2 ? vs[0] : 0, v1 = rank == 2 ? vs[1] : vs[0];
  const int64_t m = rank == 2 && v0 ? shape[0] : 1, n = v1 ? (rank == 2 ? shape[1] : shape[0]) : 1;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) memcpy(r->data + i * v0 + j * v1, src + i * v0 + j * v1, sizeof(float));
  return r;
}

/* The dense layout eager gives a copy of a tensor with strides vs (clone's
 * preserve_format, an elementwise result): compact_layout's 1 or 2. */
static int dense_order(int fw, int rank, const int64_t *shape, const int64_t *vs) {
  const int layout = compact_layout(rank, shape, vs);
  if (layout || rank == 1) return layout ? layout : 1;
  return eager_column_major(fw, shape[0], shape[1], 1, (const int64_t[][2]){{vs[0], vs[1]}}) ? 2 : 1;
}

/* What eager's view ops (an index, view, squeeze, detach) return is a view
 * of x: (src, shape, vs) in x's memory, whose layout decides what eager does
 * with it later (whether a view of it exists, F.gelu's path, maximum's
 * NaNs, an elementwise result's layout, its strides in Python). kiln's
 * result is a copy with eager's strides (kiln's tensors are values): dense
 * where a dense tensor can have them, else with eager's gaps (or overlaps)
 * in a buffer of the view's extent (virtual memory: a sparse view touches
 * only its elements' pages). Only a view spread over more than 1 GiB and
 * four times its elements is copied densely, in eager's order: its strides,
 * and what eager would decide from them, then differ. TF's tensors are
 * dense row-major: always a copy. */
static KrTensor *view_result(KrTensor *x, int rank, const int64_t *shape, const float *src, const int64_t *vs) {
  const int fw = x->framework;
  const int layout = fw == KR_FW_TF ? 1 : compact_layout(rank, shape, vs);
  if (layout) return compact_copy(fw, rank, shape, src, vs, layout);
  int64_t span = 1, step; /* the extent: no dim is empty here (compact_layout) */
  bool ok = true;
  for (int d = 0; d < rank; d++)
    ok = ok && vs[d] >= 0 && !__builtin_mul_overflow(shape[d] - 1, vs[d], &step) && !__builtin_add_overflow(span, step, &span);
  const int64_t numel = kr_numel(rank, shape);
  const bool whole = (span - 4096) / 4 <= numel; /* span <= 4 numel + 4096, without overflow */
  if (ok && (whole || span <= ((int64_t)1 << 28))) return span_copy(fw, rank, shape, src, vs, span, whole);
  return compact_copy(fw, rank, shape, src, vs, dense_order(fw, rank, shape, vs));
}

/* torch's infer_size: sizes with at most one -1, into shape; false with
 * eager's RuntimeError. */
static bool torch_reshape_shape(const KrTensor *x, int n, const int64_t *sizes, int64_t *shape, const char *name,
                                const char *file, int line) {
  const int64_t numel = kr_numel(x->rank, x->shape);
  char want[64];
  fmt_sizes(want, sizeof want, n, sizes);
  int infer = -1;
  int64_t known = 1;
  bool overflow = false;
  for (int i = 0; i < n; i++) {
    shape[i] = sizes[i];
    if (sizes[i] == -1) {
      if (infer >= 0) {
        PyErr_Format(PyExc_RuntimeError, "kiln: %s: only one dimension can be inferred (%s:%d)", name, file, line);
        return false;
      }
      infer = i;
    } else if (sizes[i] < 0) {
      PyErr_Format(PyExc_RuntimeError, "kiln: %s: invalid shape dimension %lld at index %d of shape %s (%s:%d)", name,
                   (long long)sizes[i], i, want, file, line);
      return false;
    } else {
      overflow |= __builtin_mul_overflow(known, sizes[i], &known);
    }
  }
  if (!overflow && (numel == known || (infer >= 0 && known > 0 && numel % known == 0))) {
    if (infer < 0) return true;
    if (known == 0) {
      PyErr_Format(PyExc_RuntimeError,
                   "kiln: %s: cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size "
                   "-1 can be any value and is ambiguous (%s:%d)",
                   name, want, file, line);
      return false;
    }
    shape[infer] = numel / known;
    return true;
  }
  PyErr_Format(PyExc_RuntimeError, "kiln: %s: shape '%s' is invalid for input of size %lld (%s:%d)", name, want,
               (long long)numel, file, line);
  return false;
}

/* torch's computeStride: the strides of a view of x with this shape, in
 * vs; false when no view of x's strides has it. (x's dims are walked from
 * the last, in chunks of dims contiguous with each other; each chunk must be
 * made of whole dims of the new shape.) */
static bool torch_view_strides(const KrTensor *x, int n, const int64_t *shape, int64_t *vs) {
  if (kr_numel(x->rank, x->shape) == 0) { /* any shape: row-major strides, empty dims counted as 1 */
    for (int d = n - 1; d >= 0; d--) vs[d] = d == n - 1 ? 1 : vs[d + 1] * (shape[d + 1] > 1 ? shape[d + 1] : 1);
    return true;
  }
  const int64_t *os = x->shape, *ost = x->strides;
  int view_d = n - 1;
  int64_t chunk = ost[x->rank - 1], tensor_numel = 1, view_numel = 1;
  for (int td = x->rank - 1; td >= 0; td--) {
    tensor_numel *= os[td];
    int64_t span;
    if (td == 0 || (os[td - 1] != 1 && (__builtin_mul_overflow(tensor_numel, chunk, &span) || ost[td - 1] != span))) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        vs[view_d] = view_numel * chunk;
        view_numel *= shape[view_d--];
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk = ost[td - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

/* TF's Reshape: sizes with at most one -1 (a zero size left out of the
 * product the -1 is inferred from), into shape; false with TF's message
 * (as RuntimeError: kiln's error for shapes in an op). */
static bool tf_reshape_shape(const KrTensor *x, int n, const int64_t *sizes, int64_t *shape, const char *file,
                             int line) {
  const int64_t numel = kr_numel(x->rank, x->shape);
  int unknown = -1;
  int64_t product = 1;
  bool zero = false;
  for (int i = 0; i < n; i++) {
    shape[i] = sizes[i];
    if (sizes[i] == -1) {
      if (unknown >= 0) {
        PyErr_Format(PyExc_RuntimeError, "kiln: reshape: Only one input size may be -1, not both %d and %d (%s:%d)",
                     unknown, i, file, line);
        return false;
      }
      unknown = i;
    } else if (sizes[i] < 0) {
      PyErr_Format(PyExc_RuntimeError, "kiln: reshape: Size %d must be non-negative, not %lld (%s:%d)", i,
                   (long long)sizes[i], file, line);
      return false;
    } else if (sizes[i] == 0) {
      zero = true;
    } else if (__builtin_mul_overflow(product, sizes[i], &product)) {
      char want[64];
      fmt_sizes(want, sizeof want, n, sizes);
      PyErr_Format(PyExc_RuntimeError, "kiln: reshape: Shape %s has too many elements (%s:%d)", want, file, line);
      return false;
    }
  }
  if (unknown >= 0) {
    int64_t input = 1;
    bool input_zero = false;
    for (int d = 0; d < x->rank; d++) {
      if (x->shape[d] > 0 || !zero) input *= x->shape[d];
      else input_zero = true;
    }
    const int64_t missing = input / product;
    if (!input_zero && product * missing != input) {
      PyErr_Format(PyExc_RuntimeError,
                   "kiln: reshape: Input to reshape is a tensor with %lld values, but the requested shape requires a "
                   "multiple of %lld (%s:%d)",
                   (long long)input, (long long)product, file, line);
      return false;
    }
    shape[unknown] = missing;
  }
  const int64_t total = zero ? 0 : n == 1 ? shape[0] : shape[0] * shape[1];
  if (total != numel) {
    PyErr_Format(PyExc_RuntimeError,
                 "kiln: reshape: Input to reshape is a tensor with %lld values, but the requested shape has %lld (%s:%d)",
                 (long long)numel, (long long)total, file, line);
    return false;
  }
  return true;
}

KrTensor *kr_tensor_reshape(KrTensor *x, int how, int dim, int n, const int64_t *sizes, const char *file, int line) {
  const bool squeeze = how == KR_SHAPE_SQUEEZE, unsqueeze = how == KR_SHAPE_UNSQUEEZE;
  const bool torch = x && x->framework != KR_FW_TF;
  if (x && how >= KR_SHAPE_CONTIGUOUS && how <= KR_SHAPE_DETACH) {
    if (how == KR_SHAPE_CONTIGUOUS && (mat_row_major(as_mat(x)) || kr_numel(x->rank, x->shape) == 0)) {
      Py_INCREF(x); /* eager returns x itself (an empty tensor is contiguous) */
      return x;
    }
    if (how == KR_SHAPE_DETACH) /* a view of x */
      return view_result(x, x->rank, x->shape, x->data, x->strides);
    /* clone's preserve_format: x's strides when x is dense, else dense in x's order; contiguous: row-major */
    const int layout = how == KR_SHAPE_CLONE ? dense_order(x->framework, x->rank, x->shape, x->strides) : 1;
    return compact_copy(x->framework, x->rank, x->shape, x->data, x->strides, layout);
  }
  if (!x || how < KR_SHAPE_RESHAPE || how > KR_SHAPE_UNSQUEEZE || ((squeeze || unsqueeze) && (dim < 0 || dim > 1)) ||
      (squeeze && x->rank != 2) || (unsqueeze && x->rank != 1) || (!squeeze && !unsqueeze && (n < 1 || n > 2))) {
    PyErr_Format(PyExc_SystemError, "kiln: bad reshape operands (%s:%d)", file, line);
    return NULL;
  }
  int64_t shape[2], vs[2];
  if (squeeze) {
    if (x->shape[dim] != 1) {
      char have[64];
      fmt_shape(have, sizeof have, x);
      if (torch)
        PyErr_Format(PyExc_RuntimeError,
                     "kiln-torch: squeeze(%d) of a %s tensor: dim %d is not of size 1, so the result would keep rank 2 "
                     "where kiln compiled a rank-1 tensor (%s:%d)",
                     dim, have, dim, file, line);
      else
        PyErr_Format(PyExc_RuntimeError,
                     "kiln: squeeze: Can not squeeze dim[%d], expected a dimension of 1, got %lld (%s:%d)", dim,
                     (long long)x->shape[dim], file, line);
      return NULL;
    }
    shape[0] = x->shape[1 - dim];
    vs[0] = x->strides[1 - dim];
    return view_result(x, 1, shape, x->data, vs);
  } else if (unsqueeze) {
    shape[dim] = 1;
    shape[1 - dim] = x->shape[0];
    vs[1 - dim] = x->strides[0];
    vs[dim] = dim == 0 ? x->shape[0] * x->strides[0] : 1; /* torch's stride for the new dim */
    return view_result(x, 2, shape, x->data, vs);
  } else {
    const int rank = n;
    const char *name = how == KR_SHAPE_VIEW ? "view" : "reshape";
    if (torch ? !torch_reshape_shape(x, n, sizes, shape, name, file, line)
              : !tf_reshape_shape(x, n, sizes, shape, file, line))
      return NULL;
    const bool viewable = torch && torch_view_strides(x, n, shape, vs);
    if (how == KR_SHAPE_VIEW && !viewable) {
      PyErr_Format(PyExc_RuntimeError,
                   "kiln: view: view size is not compatible with input tensor's size and stride (at least one "
                   "dimension spans across two contiguous subspaces). Use .reshape(...) instead. (%s:%d)",
                   file, line);
      return NULL;
    }
    if (viewable) return view_result(x, rank, shape, x->data, vs); /* eager's result is that view */
    /* no view has the shape: eager's reshape copies, row-major (TF's always is) */
    KrTensor *r = kr_tensor_new(x->framework, rank, shape);
    if (r) copy_row_major(as_mat(x), x->data, r->data);
    return r;
  }
}

/* x[ix...]: each dim's first place and step in x, and the places taken. */
KrTensor *kr_tensor_index(KrTensor *x, int n, const KrIndex *ix, const char *file, int line) {
  if (!x || !ix || n < 1 || n > x->rank) {
    PyErr_Format(PyExc_SystemError, "kiln: bad index operands (%s:%d)", file, line);
    return NULL;
  }
  const float *data = x->data;
  int64_t shape[2], strides[2];
  int rank = 0;
  for (int d = 0; d < x->rank; d++) {
    const int64_t size = x->shape[d], stride = x->strides[d];
    if (d < n && ix[d].kind == KR_IX_INT) {
      const int64_t i = ix[d].start;
      if (i < -size || i >= size) {
        if (x->framework == KR_FW_TF) /* TF names a negative index counted from the end */
          PyErr_Format(PyExc_IndexError, "kiln: index: slice index %lld of dimension %d out of bounds. (%s:%d)",
                       (long long)(i < 0 ? i + size : i), d, file, line);
        else
          PyErr_Format(PyExc_IndexError, "kiln: index: index %lld is out of bounds for dimension %d with size %lld (%s:%d)",
                       (long long)i, d, (long long)size, file, line);
        return NULL;
      }
      data += (i < 0 ? i + size : i) * stride;
      continue;
    }
    int64_t start = 0, stop = size, step = 1;
    if (d < n) {
      if (ix[d].kind != KR_IX_SLICE || ix[d].step < 1) {
        PyErr_Format(PyExc_SystemError, "kiln: bad index operands (%s:%d)", file, line);
        return NULL;
      }
      step = ix[d].step;
      /* Python's slice bounds for a positive step: from the end when
       * negative, then clamped to [0, size] */
      if (ix[d].given & 1) start = ix[d].start < 0 ? (ix[d].start < -size ? 0 : ix[d].start + size)
                                                   : (ix[d].start > size ? size : ix[d].start);
      if (ix[d].given & 2) stop = ix[d].stop < 0 ? (ix[d].stop < -size ? 0 : ix[d].stop + size)
                                                 : (ix[d].stop > size ? size : ix[d].stop);
    }
    const int64_t len = stop > start ? (stop - start - 1) / step + 1 : 0;
    if (len) data += start * stride;
    shape[rank] = len;
    strides[rank++] = stride * (len > 1 ? step : 1);
  }
  if (rank < 1) {
    PyErr_Format(PyExc_SystemError, "kiln: an index to rank 0 (%s:%d)", file, line);
    return NULL;
  }
  return view_result(x, rank, shape, data, strides);
}
