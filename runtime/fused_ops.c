/* fused_ops.c — KrApi.tensor_fused: a chain of claimed ops in one kernel call.
 *
 * The common case — a rank-2 matmul or linear, optionally followed by a
 * bias row, an activation, a row added after the activation (the TF
 * reference chain's `relu(x @ w) + b`) and a row reduction — becomes one
 * kk_gemm, kk_gemm_rowreduce or kk_gemm_post call: bias, activation, the
 * added row and the reduction are applied to the register tile, and no
 * intermediate tensor exists; a rank-1 x (one sample) is one row. Anything
 * else (a rank-1 right operand, any shape mismatch) runs the same ops one by
 * one through kr_tensor_op, which also produces exactly the unfused errors. */
#include "runtime_internal.h"
#include "kernels.h"

/* Replaces *r by op(*r [, other]); consumes the old *r. */
static int step(KrTensor **r, int op, KrTensor *other, int other_first, const char *file, int line) {
  KrTensor *t = other_first ? kr_tensor_op(op, other, *r, NULL, file, line) : kr_tensor_op(op, *r, other, NULL, file, line);
  Py_DECREF(*r);
  *r = t;
  if (!t) kr_fail_at(line); /* the traceback names this op's line */
  return t ? 0 : -1;
}

static KrTensor *one_by_one(const KrFused *f, KrTensor *a, KrTensor *b, KrTensor *c, KrTensor *d, KrTensor *e,
                            const char *file) {
  KrTensor *r;
  if (f->base >= 0) {
    r = kr_tensor_op(f->base, a, b, c, file, f->base_line);
    if (!r) {
      kr_fail_at(f->base_line);
      return NULL;
    }
  } else {
    Py_INCREF(a);
    r = a;
  }
  if (f->bias_line > 0 && step(&r, f->bias_op, d, f->bias_first, file, f->bias_line) < 0) return NULL;
  if (f->act >= 0 && step(&r, f->act, NULL, 0, file, f->act_line) < 0) return NULL;
  if (f->post_line > 0 && step(&r, f->post_op, e, f->post_first, file, f->post_line) < 0) return NULL;
  if (f->reduce >= 0 && step(&r, f->reduce, NULL, 0, file, f->reduce_line) < 0) return NULL;
  return r;
}

KrTensor *kr_tensor_fused(const KrFused *f, KrTensor *a, KrTensor *b, KrTensor *c, KrTensor *d, KrTensor *e,
                          const char *file) {
  bool gemm = f->base == KR_OP_MATMUL || f->base == KR_OP_LINEAR;
  bool post = f->post_line > 0;
  /* a is a batch of rows, or one sample (rank 1: one row, a rank-1 result) */
  if (!gemm || (a->rank != 2 && (a->rank != 1 || f->reduce >= 0)) || b->rank != 2 || (c && c->rank != 1) ||
      (f->bias_line > 0 && (!d || d->rank != 1)) || (post && (!e || e->rank != 1 || f->act < 0)))
    return one_by_one(f, a, b, c, d, e, file);
  int fw = a->framework;
  if (b->framework != fw || (c && c->framework != fw) || (d && f->bias_line > 0 && d->framework != fw) ||
      (post && e->framework != fw))
    return one_by_one(f, a, b, c, d, e, file);
  const bool vec = a->rank == 1;
  const int64_t M = vec ? 1 : a->shape[0], K = a->shape[vec ? 0 : 1];
  const int64_t as0 = vec ? 0 : a->strides[0], as1 = a->strides[vec ? 0 : 1];
  int64_t N, bs0, bs1, bk;
  if (f->base == KR_OP_MATMUL) {
    bk = b->shape[0];
    N = b->shape[1];
    bs0 = b->strides[0];
    bs1 = b->strides[1];
  } else { /* linear: b is the weight [N, K], used transposed */
    N = b->shape[0];
    bk = b->shape[1];
    bs0 = b->strides[1];
    bs1 = b->strides[0];
  }
  if (bk != K) return one_by_one(f, a, b, c, d, e, file);
  /* torch's K == 1 products (kr_gemm_outer): below, in steps on the result;
   * one reduced, the ops one by one */
  const bool outer = kr_gemm_outer(fw, M, N, K, f->base == KR_OP_LINEAR && c, !vec);
  if (outer && f->reduce >= 0) return one_by_one(f, a, b, c, d, e, file);
  const float *bias = NULL;
  int64_t bias_s = 0;
  /* linear's own bias, else the row a bias node adds (F.linear(x, w) + b counts as x @ w.T + b) */
  KrTensor *row = f->base == KR_OP_LINEAR && c ? c : (f->bias_line > 0 ? d : NULL);
  if (f->base == KR_OP_LINEAR && c && f->bias_line > 0) return one_by_one(f, a, b, c, d, e, file); /* two biases */
  /* a row that does not fit (or, for bias_add, is not exactly N long): the ops' own errors */
  if (row) {
    if ((row->shape[0] != N && row->shape[0] != 1) || (row == d && f->bias_op == KR_OP_BIAS_ADD && row->shape[0] != N))
      return one_by_one(f, a, b, c, d, e, file);
    bias = row->data;
    bias_s = row->shape[0] == 1 ? 0 : row->strides[0];
  }
  if (post && ((e->shape[0] != N && e->shape[0] != 1) || (f->post_op == KR_OP_BIAS_ADD && e->shape[0] != N)))
    return one_by_one(f, a, b, c, d, e, file);
  /* Where an added row and the product are both NaN, the framework's +
   * decides whose NaN comes out (torch: the right operand's, TF: the left
   * one's); a fused kernel's add does not, so a row holding a NaN is added
   * by the ops one by one. */
  const int64_t post_s = post ? (e->shape[0] == 1 ? 0 : e->strides[0]) : 0;
  if ((bias && kk_any_nan(N, bias, bias_s)) || (post && kk_any_nan(N, e->data, post_s)))
    return one_by_one(f, a, b, c, d, e, file);
  kk_act act = kr_gelu_path(kr_act_of(f->act, fw), fw, true, M * N); /* the product is row-major */
  if (fw == KR_FW_TF && kr_tf_epilogue_misses_tail(act, M * N)) return one_by_one(f, a, b, c, d, e, file);
  const int reduce = f->reduce < 0 ? -1 : f->reduce & ~KR_OP_KEEPDIM;
  int64_t shape[2] = {M, N};
  KrTensor *r;
  if (vec) r = kr_tensor_new(fw, 1, shape + 1);
  else if (reduce < 0) r = kr_tensor_new(fw, 2, shape);
  else if (f->reduce != reduce) r = kr_tensor_new(fw, 2, (int64_t[2]){M, 1}); /* keepdim */
  else r = kr_tensor_new(fw, 1, shape);
  if (!r) return NULL;
  int failed = 0;
  KrKernelScope ks = kr_kernel_enter(fw, (double)M * (double)N * (double)K);
  if (outer) { /* a's column times b's row, then the steps in place, as the ops compute them */
    kr_gemm_outer_run(M, N, a->data, as0, b->data, bs1, bias, bias_s, r->data);
    if (act != KK_ACT_NONE) kk_unary(act, M, N, r->data, N, 1, r->data);
    if (post && f->post_first)
      kk_add(M, N, e->data, 0, post_s, r->data, N, 1, KK_ACT_NONE, r->data);
    else if (post)
      kk_add(M, N, r->data, N, 1, e->data, 0, post_s, KK_ACT_NONE, r->data);
  } else if (post) /* a reduction passes no C: the kernels find scratch for the M x N values if they need it */
    failed = kk_gemm_post(M, N, K, a->data, as0, as1, b->data, bs0, bs1, bias, bias_s, act,
                          e->data, post_s, f->post_first,
                          reduce < 0 ? r->data : NULL, reduce < 0 ? 0 : reduce == KR_OP_ROWMEAN ? 2 : 1,
                          r->data);
  else if (reduce >= 0)
    kk_gemm_rowreduce(M, N, K, a->data, as0, as1, b->data, bs0, bs1, bias, bias_s, act, reduce == KR_OP_ROWMEAN,
                      r->data);
  else
    kk_gemm(M, N, K, a->data, as0, as1, b->data, bs0, bs1, bias, bias_s, act, r->data);
  kr_kernel_leave(ks);
  if (failed) {
    Py_DECREF(r);
    return (KrTensor *)PyErr_NoMemory();
  }
  return r;
}
