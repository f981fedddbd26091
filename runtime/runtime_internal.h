/* runtime_internal.h — shared between the runtime's own files (not generated code). */
#ifndef KILN_RUNTIME_INTERNAL_H
#define KILN_RUNTIME_INTERNAL_H

#include "kiln_runtime.h"
#include <stdatomic.h>

struct KrBuffer {
  atomic_long refcnt;
  size_t nbytes;
  float *data;    /* 64-byte aligned, inside the same allocation */
  size_t cap;     /* data bytes allocated (>= nbytes) */
  int size_class; /* recycling pool class, -1 for large buffers */
};

/* The GIL is released around a kernel only when the work is large enough
 * (M*N*K > 1e6 multiply-adds, or elements for elementwise ops) to amortise
 * the release/reacquire and let other Python threads run meanwhile. Small
 * calls keep the GIL: releasing costs more than they take. Operands stay
 * alive (the caller holds them) and are never mutated while we run.
 * (tensor_ops.c, fused_ops.c) */
#define KR_GIL_RELEASE_WORK 1000000.0

/* Around each kernel call: the GIL released for large work (above), and a TF
 * op run in TF's floating-point mode, subnormals flushed to zero and read as
 * zero (TF sets FTZ + DAZ around every op), so results match eager TF there
 * too. Torch ops run in the caller's mode, as eager torch does
 * (torch.set_flush_denormal). */
typedef struct {
  PyThreadState *ts;
  unsigned fp;
  int fp_set;
} KrKernelScope;
KrKernelScope kr_kernel_enter(int framework, double work);
void kr_kernel_leave(KrKernelScope s);

/* runtime.c: the line a fused call failed at (KrApi.fail_line): a step of
 * tensor_ewise or tensor_fused that raises records its .py line. */
void kr_fail_at(int line);
int kr_fail_line(int line);

/* tensor_ops.c, fused_ops.c: KrApi.tensor_op and KrApi.tensor_fused */
KrTensor *kr_tensor_op(int op, KrTensor *a, KrTensor *b, KrTensor *c, const char *file, int line);
int kr_act_of(int op, int fw); /* a kk_act for KR_OP_RELU/SIGMOID/TANH in framework fw (tensor_ops.c) */
int kr_gelu_path(int act, int fw, bool row_major, int64_t numel); /* torch's oneDNN gelu (tensor_ops.c) */
bool kr_tf_epilogue_misses_tail(int act, int64_t numel); /* TF's scalar tail of an act (tensor_ops.c) */
bool kr_gemm_outer(int fw, int64_t M, int64_t N, int64_t K, bool bias, bool matrix); /* torch's K == 1 (tensor_ops.c) */
void kr_gemm_outer_run(int64_t M, int64_t N, const float *a, int64_t as0, const float *b, int64_t bs1,
                       const float *bias, int64_t bias_s, float *r); /* such a product (tensor_ops.c) */
KrTensor *kr_tensor_scalar_op(int op, KrTensor *t, double f, int64_t i, int is_int, int scalar_left, const char *file,
                              int line);
KrTensor *kr_tensor_ewise(const KrEwise *p, KrTensor *first, const KrEwArg *args, const char *file);
KrTensor *kr_tensor_clamp(KrTensor *t, int ordered, int lo_kind, double lo_f, int64_t lo_i, int hi_kind, double hi_f,
                          int64_t hi_i, const char *file, int line);
/* a vs b exactly, as Python compares an int and a float: -1, 0, 1, or 2 (b is NaN) */
int kr_int_float_cmp(int64_t a, double b);
KrTensor *kr_tensor_fused(const KrFused *f, KrTensor *a, KrTensor *b, KrTensor *c, KrTensor *d, KrTensor *e,
                          const char *file);
KrTensor *kr_tensor_layer_norm(KrTensor *x, PyObject *shape, KrTensor *w, KrTensor *b, double eps, const char *file,
                               int line);
KrTensor *kr_tensor_normalize(KrTensor *x, int eps_kind, double eps_f, int64_t eps_i, const char *file, int line);
KrTensor *kr_tensor_cat(KrTensor *const *ts, int n, int dim, int stack, const char *file, int line);
KrTensor *kr_tensor_reshape(KrTensor *x, int how, int dim, int n, const int64_t *sizes, const char *file, int line);
KrTensor *kr_tensor_index(KrTensor *x, int n, const KrIndex *ix, const char *file, int line);

/* runtime.c */
extern PyTypeObject KrTensor_Type;
PyObject *kr_tensor_box(KrTensor *t); /* KrApi.tensor_box */
KrTensor *kr_tensor_from_object(PyObject *o, int framework, int rank, const char *file, int line);
KrBuffer *kr_buffer_new(size_t nfloats);      /* refcnt 1; NULL + MemoryError */
void kr_buffer_retain(KrBuffer *b);
void kr_buffer_release(KrBuffer *b);          /* safe without the GIL */
long kr_buffer_allocations(void);             /* blocks obtained from the C allocator so far */
size_t kr_buffer_idle_bytes(void);            /* bytes held for reuse */
/* A new dense (row-major) tensor owning fresh storage. */
KrTensor *kr_tensor_new(int framework, int rank, const int64_t *shape);
/* Inline: the bridges are also built alone into test extensions. */
static inline int64_t kr_numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= shape[i];
  return n;
}
/* Row-major with no gaps (any tensor without elements is). */
static inline int kr_tensor_is_dense(const KrTensor *t) {
  if (kr_numel(t->rank, t->shape) == 0) return 1;
  if (t->rank == 1) return t->shape[0] <= 1 || t->strides[0] == 1;
  return (t->shape[1] <= 1 || t->strides[1] == 1) && (t->shape[0] <= 1 || t->strides[0] == t->shape[1]);
}
/* A tensor viewing framework memory; takes a new reference to source. */
KrTensor *kr_tensor_view(int framework, int rank, float *data, const int64_t *shape,
                         const int64_t *strides, PyObject *source);

/* runtime.c: set once a user chose the GEMM thread budget */
extern int kr_threads_set_explicitly;

/* torch_bridge.c: DLPack C exchange API (torch >= 2.10), public fallback otherwise. */
KrTensor *kr_torch_unbox(PyObject *o, int rank, const char *arg);
PyObject *kr_torch_box(KrTensor *t);
const char *kr_torch_path(void);   /* "dlpack-c-exchange-api", "public", or "not loaded" */
const char *kr_torch_direct(void); /* "on", or "off (why)" / "torch not loaded" */
const char *kr_torch_reuse(void);  /* result reuse: "on", or "off (why)" / "torch not loaded" */
long kr_torch_reused_results(void); /* results refilled by result reuse so far */
int kr_grad_guard_enter(KrGradGuard *g, int kind); /* KrApi.grad_guard_enter / grad_guard_exit */
void kr_grad_guard_exit(KrGradGuard *g);
const char *kr_torch_guard_path(int kind); /* KR_GUARD_*: "c10", "python" or "torch not loaded" */
int kr_torch_mkldnn_enabled(void); /* torch.backends.mkldnn.enabled (eager's F.gelu path); needs the GIL */
int kr_torch_k1_outer(void); /* eager's BLAS keeps -0.0 at K == 1 (kr_gemm_outer); needs the GIL */
int kr_torch_num_threads(void); /* torch.get_num_threads(), 1 on error; needs the GIL */

/* tf_bridge.c: TFE C API of the loaded wheel, public fallback otherwise. */
KrTensor *kr_tf_unbox(PyObject *o, int rank, const char *arg);
PyObject *kr_tf_box(KrTensor *t);
const char *kr_tf_path(void);
const char *kr_tf_checked(void); /* "on" when checked EagerTensors are remembered */

#endif
