/* torch_bridge.c — the torch boundary.
 *
 * Fastest path, for plain dense float32 CPU tensors under torch 2.13: their
 * c10::TensorImpl read directly ("direct read" below), after a self-test.
 * Fast path: the public DLPack C exchange API that torch (>= 2.10) publishes
 * as the capsule `torch.Tensor.__dlpack_c_exchange_api__` (capsule name
 * "dlpack_exchange_api"):
 *   in:  dltensor_from_py_object_no_sync — fills a caller-owned DLTensor,
 *        non-owning, no allocation (but ~45 ns: see "direct read");
 *   out: managed_tensor_to_py_object_no_sync — a DLManagedTensorVersioned
 *        wrapping our KrBuffer (its deleter releases the buffer, possibly
 *        from another thread without the GIL) becomes a plain torch.Tensor
 *        (requires_grad=False) without copying.
 * Public path (the API is missing or its version does not match, or
 * KILN_TORCH_PUBLIC=1 when torch is first seen): reads through Python
 * attributes (device, dtype, dim(), data_ptr(), stride(), shape) and boxes
 * through torch.from_dlpack on a legacy "dltensor" capsule we build.
 *
 * torch is never imported here: if "torch" is not in sys.modules, no object
 * can be a torch.Tensor. torch's C++ headers are not included either; the
 * few DLPack declarations and TensorImpl/StorageImpl layouts needed are
 * copied below. */
#include "runtime_internal.h"
#include "kernels.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- from torch/include/ATen/dlpack.h (DLPack v1.3, DLPACK_MAJOR_VERSION 1).
 * Only layouts are copied; the ABI of major version 1 is stable. ---------- */
typedef struct {
  uint32_t major;
  uint32_t minor;
} KDLPackVersion;
enum { kDLCPU_ = 1 };
enum { kDLFloat_ = 2 };
typedef struct {
  int32_t device_type;
  int32_t device_id;
} KDLDevice;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} KDLDataType;
typedef struct {
  void *data;
  KDLDevice device;
  int32_t ndim;
  KDLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} KDLTensor;
typedef struct KDLManagedTensor { /* legacy, for the public path's capsule */
  KDLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct KDLManagedTensor *self);
} KDLManagedTensor;
typedef struct KDLManagedTensorVersioned {
  KDLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct KDLManagedTensorVersioned *self);
  uint64_t flags;
  KDLTensor dl_tensor;
} KDLManagedTensorVersioned;
typedef struct KDLPackExchangeAPIHeader {
  KDLPackVersion version;
  struct KDLPackExchangeAPIHeader *prev_api;
} KDLPackExchangeAPIHeader;
typedef struct {
  KDLPackExchangeAPIHeader header;
  int (*managed_tensor_allocator)(KDLTensor *prototype, KDLManagedTensorVersioned **out, void *error_ctx,
                                  void (*SetError)(void *error_ctx, const char *kind, const char *message));
  int (*managed_tensor_from_py_object_no_sync)(void *py_object, KDLManagedTensorVersioned **out);
  int (*managed_tensor_to_py_object_no_sync)(KDLManagedTensorVersioned *tensor, void **out_py_object);
  int (*dltensor_from_py_object_no_sync)(void *py_object, KDLTensor *out);
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_current_stream);
} KDLPackExchangeAPI;
#define KDLPACK_MAJOR 1
/* ------------------------------------------------------------------------- */

static PyTypeObject *torch_tensor_type;   /* torch.Tensor (strong ref) once torch is seen */
static const KDLPackExchangeAPI *xapi;    /* NULL: public path */
static PyObject *is_neg_descr;            /* torch.Tensor.is_neg */
static PyObject *from_dlpack_fn;          /* torch.from_dlpack (public path) */
static PyObject *plain_dispatch;          /* torch.Tensor's __torch_dispatch__ (the disabled one) */
static PyObject *plain_function;          /* torch.Tensor's own __torch_function__ (a classmethod) */
static PyObject *disabled_function;       /* torch._C._disabled_torch_function_impl (nn.Parameter's) */
static PyObject *s_torch_dispatch, *s_torch_function; /* the interned hook names */

/* Resolves torch.Tensor and the exchange API the first time torch is seen
 * in sys.modules. Returns 1 when torch is available, 0 when not (no
 * exception), -1 with an exception. */
typedef _Bool (*CxxIsNeg)(const void *tensor);
static void *find_torch_symbol(PyObject *torch_mod, const char *in_lib, const char *sym);
static int cxx_is_neg_selftest(PyObject *torch_mod, CxxIsNeg fn);
static CxxIsNeg cxx_is_neg;

static int direct_calibrate(PyObject *torch_mod);
static int direct_on; /* 1 once direct_calibrate passed: kr_torch_unbox may read tensors directly */
static const char *direct_off = "torch not loaded"; /* why not, for boundary_paths() */
static int reuse_calibrate(PyObject *torch_mod); /* result reuse: see "result reuse" */
static int reuse_on;

/* KILN_TORCH_PUBLIC set to anything but "" or "0": use only torch's public API. */
static int public_path_forced(void) {
  const char *pub = getenv("KILN_TORCH_PUBLIC");
  return pub && pub[0] && strcmp(pub, "0") != 0;
}

static int torch_resolve(void) {
  if (torch_tensor_type) return 1;
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
  if (!mod) return 0;
  PyObject *cls = PyObject_GetAttrString(mod, "Tensor");
  if (!cls) { /* torch is still being imported */
    PyErr_Clear();
    return 0;
  }
  if (!PyType_Check(cls)) {
    Py_DECREF(cls);
    return 0;
  }
  /* as found in the class dicts (_PyType_Lookup: no binding), for
   * subclass_override(); missing in old torch, which then accepts subclasses */
  s_torch_dispatch = PyUnicode_InternFromString("__torch_dispatch__");
  s_torch_function = PyUnicode_InternFromString("__torch_function__");
  if (s_torch_dispatch && s_torch_function) {
    plain_dispatch = _PyType_Lookup((PyTypeObject *)cls, s_torch_dispatch);
    plain_function = _PyType_Lookup((PyTypeObject *)cls, s_torch_function);
  }
  PyObject *tc = PyObject_GetAttrString(mod, "_C");
  disabled_function = tc ? PyObject_GetAttrString(tc, "_disabled_torch_function_impl") : NULL;
  Py_XDECREF(tc);
  Py_XINCREF(plain_dispatch);
  Py_XINCREF(plain_function);
  PyErr_Clear();
  PyObject *isneg = PyObject_GetAttrString(cls, "is_neg");
  if (!isneg) PyErr_Clear(); /* very old torch: no negative-bit views */
  const KDLPackExchangeAPI *api = NULL;
  if (!public_path_forced()) {
    PyObject *cap = PyObject_GetAttrString(cls, "__dlpack_c_exchange_api__");
    if (!cap) {
      PyErr_Clear();
    } else {
      if (PyCapsule_IsValid(cap, "dlpack_exchange_api")) {
        const KDLPackExchangeAPIHeader *h = (const KDLPackExchangeAPIHeader *)PyCapsule_GetPointer(cap, "dlpack_exchange_api");
        /* Walk to the newest version we understand (same major). */
        while (h && h->version.major != KDLPACK_MAJOR) h = h->prev_api;
        if (h) {
          const KDLPackExchangeAPI *a = (const KDLPackExchangeAPI *)h;
          if (a->dltensor_from_py_object_no_sync && a->managed_tensor_to_py_object_no_sync) api = a;
        }
      }
      /* The API pointer stays valid for the process lifetime (DLPack spec). */
      Py_DECREF(cap);
    }
  }
  torch_tensor_type = (PyTypeObject *)cls; /* keeps the reference */
  if (api) {
    /* at::native::is_neg reads the key set directly (3 instructions); the
     * operator entry point goes through the dispatcher (~20 ns). */
    static const char *const syms[] = {"_ZN2at6native6is_negERKNS_6TensorE",
                                       "_ZN2at4_ops6is_neg4callERKNS_6TensorE"};
    for (size_t i = 0; i < sizeof syms / sizeof *syms && !cxx_is_neg; i++) {
      CxxIsNeg fn = (CxxIsNeg)(uintptr_t)find_torch_symbol(mod, "libtorch_cpu.so", syms[i]);
      if (fn && cxx_is_neg_selftest(mod, fn)) cxx_is_neg = fn;
    }
  }
  /* Thread budget for large GEMMs: torch's own (never more threads than the
   * caller allows torch), unless KILN_NUM_THREADS or
   * kiln._runtime.set_num_threads decided it. */
  if (!getenv("KILN_NUM_THREADS") && !kr_threads_set_explicitly) {
    PyObject *n = PyObject_CallMethod(mod, "get_num_threads", NULL);
    long now = n && PyLong_Check(n) ? PyLong_AsLong(n) : -1;
    Py_XDECREF(n);
    PyErr_Clear();
    if (now > 0) {
      kk_set_num_threads((int)now);
      /* follow later torch.set_num_threads calls: `int at::get_num_threads()`
       * (a plain C++ function, no arguments) is asked before each GEMM large
       * enough to thread, once it agreed with the Python answer */
      int (*fn)(void) = (int (*)(void))(uintptr_t)find_torch_symbol(mod, "libtorch_cpu.so", "_ZN2at15get_num_threadsEv");
      if (api && fn && fn() == now) kk_set_thread_budget_fn(fn);
    }
  }
  is_neg_descr = isneg;
  xapi = api;
  if (api) {
    const char *d = getenv("KILN_TORCH_DIRECT");
    if (d && strcmp(d, "0") == 0)
      direct_off = "off (KILN_TORCH_DIRECT=0)";
    else
      direct_on = direct_calibrate(mod);
  } else {
    direct_off = "off (no exchange API)";
  }
  reuse_on = reuse_calibrate(mod);
  return 1;
}

/* ---- torch.backends.mkldnn.enabled ----------------------------------------
 * Eager's F.gelu takes its oneDNN path only while the user leaves oneDNN on
 * (at::globalContext().userEnabledMkldnn(), torch.backends.mkldnn.enabled).
 * Read through that C++ accessor (a pointer from at::globalContext(), then
 * a const member function: `this` its one argument) once it answered like
 * torch._C._get_mkldnn_enabled() with the flag off and on; otherwise
 * through the Python function. */
static void *(*mkldnn_context)(void);
static _Bool (*mkldnn_user_enabled)(const void *ctx);
static PyObject *py_mkldnn_get, *py_mkldnn_set;

/* A torch flag through its Python getter (0 or 1, -1 with an error) and
 * setter (0, -1 with an error): the grad mode's and oneDNN's. */
static int py_flag(PyObject *get) {
  PyObject *r = PyObject_CallNoArgs(get);
  int on = r ? PyObject_IsTrue(r) : -1;
  Py_XDECREF(r);
  return on;
}

static int py_set_flag(PyObject *set, int on) {
  PyObject *r = PyObject_CallOneArg(set, on ? Py_True : Py_False);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

static int py_mkldnn_enabled(void) { return py_flag(py_mkldnn_get); }
static int py_mkldnn_set_enabled(int on) { return py_set_flag(py_mkldnn_set, on); }

static int mkldnn_init(void) {
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
  PyObject *c = mod ? PyObject_GetAttrString(mod, "_C") : NULL;
  py_mkldnn_get = c ? PyObject_GetAttrString(c, "_get_mkldnn_enabled") : NULL;
  py_mkldnn_set = c ? PyObject_GetAttrString(c, "_set_mkldnn_enabled") : NULL;
  Py_XDECREF(c);
  if (!py_mkldnn_get || !py_mkldnn_set) {
    Py_CLEAR(py_mkldnn_get);
    Py_CLEAR(py_mkldnn_set);
    return -1;
  }
  if (public_path_forced()) return 0;
  void *(*ctx)(void) =
      (void *(*)(void))(uintptr_t)find_torch_symbol(mod, "libtorch_cpu.so", "_ZN2at13globalContextEv");
  const char *getter = "_ZNK2at7Context17userEnabledMkldnnEv"; /* at::Context::userEnabledMkldnn() const */
  _Bool (*get)(const void *) = (_Bool(*)(const void *))(uintptr_t)find_torch_symbol(mod, "libtorch_cpu.so", getter);
  int was = py_mkldnn_enabled();
  if (!ctx || !get || was < 0) {
    PyErr_Clear();
    return 0;
  }
  bool agree = get(ctx()) == was;
  for (int k = 0; k < 2 && agree; k++) { /* the flag flipped, then back */
    int want = k ? was : !was;
    agree = py_mkldnn_set_enabled(want) == 0 && py_mkldnn_enabled() == want && get(ctx()) == want;
  }
  if (py_mkldnn_enabled() != was) (void)py_mkldnn_set_enabled(was);
  PyErr_Clear();
  if (agree) mkldnn_context = ctx, mkldnn_user_enabled = get;
  return 0;
}

int kr_torch_mkldnn_enabled(void) {
  static int ready; /* 1: mkldnn_init ran; -1: torch has no such flag (eager's default, on) */
  if (!ready) {
    ready = mkldnn_init() < 0 ? -1 : 1;
    PyErr_Clear();
  }
  if (mkldnn_user_enabled) return mkldnn_user_enabled(mkldnn_context());
  if (ready < 0) return 1;
  int on = py_mkldnn_enabled();
  if (on < 0) PyErr_Clear();
  return on != 0;
}

/* ---- products of one multiply-add per output ----------------------------
 * Eager's mm with K == 1 is its BLAS's: MKL computes an outer product
 * (0.0 * -1.0 stays -0.0), a BLAS that sums from +0.0 gives +0.0.
 * Asked once, on the first such product (tensor_ops.c, kr_gemm_outer):
 * torch.mm of a 2x1 column of zeros and a 1x2 row of -1.0. An error
 * answers "sums", kiln's kernels' own rule. */
int kr_torch_k1_outer(void) {
  static int outer = -1;
  if (outer < 0) {
    PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
    /* float32 on the CPU whatever the user's defaults (float64 is dgemm; a
     * `with torch.device(...)` block moves factories) */
    PyObject *f32 = mod ? PyObject_GetAttrString(mod, "float32") : NULL;
    PyObject *kw = f32 ? Py_BuildValue("{sOss}", "dtype", f32, "device", "cpu") : NULL;
    PyObject *full = kw ? PyObject_GetAttrString(mod, "full") : NULL;
    PyObject *za = full ? Py_BuildValue("((ii)d)", 2, 1, 0.0) : NULL;
    PyObject *wa = za ? Py_BuildValue("((ii)d)", 1, 2, -1.0) : NULL;
    PyObject *z = wa ? PyObject_Call(full, za, kw) : NULL;
    PyObject *w = z ? PyObject_Call(full, wa, kw) : NULL;
    PyObject *p = w ? PyObject_CallMethod(mod, "mm", "OO", z, w) : NULL;
    PyObject *sb = p ? PyObject_CallMethod(mod, "signbit", "O", p) : NULL;
    PyObject *all = sb ? PyObject_CallMethod(sb, "all", NULL) : NULL;
    outer = all ? PyObject_IsTrue(all) == 1 : 0;
    PyObject *refs[] = {all, sb, p, w, z, wa, za, full, kw, f32};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) Py_XDECREF(refs[i]);
    PyErr_Clear();
  }
  return outer;
}

/* torch.get_num_threads(): how many threads eager's own loops take now (an
 * error answers 1). Needs the GIL. */
int kr_torch_num_threads(void) {
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
  PyObject *n = mod ? PyObject_CallMethod(mod, "get_num_threads", NULL) : NULL;
  long v = n && PyLong_Check(n) ? PyLong_AsLong(n) : 1;
  Py_XDECREF(n);
  PyErr_Clear();
  return v > 1 ? (int)(v < 1024 ? v : 1024) : 1;
}

const char *kr_torch_path(void) {
  int r = torch_resolve();
  if (r < 0) PyErr_Clear();
  if (r <= 0) return "not loaded";
  return xapi ? "dlpack-c-exchange-api" : "public";
}

const char *kr_torch_direct(void) {
  int r = torch_resolve();
  if (r < 0) PyErr_Clear();
  return direct_on ? "on" : direct_off;
}

/* ---- entry checks -------------------------------------------------------- */

static KrTensor *type_error(PyObject *o, const char *arg) {
  PyErr_Format(PyExc_TypeError, "kiln-torch: argument '%s': expected a torch.Tensor, got %.200s", arg,
               Py_TYPE(o)->tp_name);
  return NULL;
}

/* str(o.<attr>), or NULL */
static PyObject *attr_str(PyObject *o, const char *attr) {
  PyObject *v = PyObject_GetAttrString(o, attr);
  if (!v) return NULL;
  PyObject *s = PyObject_Str(v);
  Py_DECREF(v);
  return s;
}

static KrTensor *device_error(PyObject *o, const char *arg) {
  PyObject *dev = attr_str(o, "device");
  if (!dev) return NULL;
  PyErr_Format(PyExc_ValueError, "kiln-torch: argument '%s': expected a CPU tensor, got %U", arg, dev);
  Py_DECREF(dev);
  return NULL;
}

static KrTensor *dtype_error(PyObject *o, const char *arg) {
  PyObject *dt = attr_str(o, "dtype");
  if (!dt) return NULL;
  PyErr_Format(PyExc_ValueError, "kiln-torch: argument '%s': expected a float32 tensor, got %U", arg, dt);
  Py_DECREF(dt);
  return NULL;
}

static KrTensor *rank_error(int rank, long got, const char *arg) {
  PyErr_Format(PyExc_ValueError, "kiln-torch: argument '%s': expected rank-%d tensor, got rank %ld", arg, rank,
               got);
  return NULL;
}

/* The negative-bit check through torch's C++ operator instead of the Python
 * method (whose argument parsing costs ~80 ns per tensor, most of an input's
 * boundary cost). torch's installed headers (torch/csrc/autograd/
 * python_variable.h) define a tensor object as PyObject_HEAD followed by its
 * at::Tensor, the layout every torch C++ extension relies on, and libtorch_cpu
 * exports `bool at::native::is_neg(const at::Tensor&)` and the operator
 * `bool at::_ops::is_neg::call(const at::Tensor&)`. Either is used only
 * after it answered a self-test on known tensors correctly; otherwise, or
 * with KILN_TORCH_PUBLIC=1, the Python method is used. */

/* A function exported by the already-loaded libtorch_cpu next to torch's
 * __init__.py, or by a library it links (dlsym searches those too) whose
 * name contains `in_lib` (RTLD_NOLOAD: never loads anything; provenance
 * checked with dladdr), or NULL. */
static void *find_torch_symbol(PyObject *torch_mod, const char *in_lib, const char *sym) {
  PyObject *file = PyObject_GetAttrString(torch_mod, "__file__");
  if (!file) return NULL;
  PyObject *dir = NULL, *path = NULL;
  const char *f = PyUnicode_Check(file) ? PyUnicode_AsUTF8(file) : NULL;
  void *fn = NULL;
  if (f) {
    const char *slash = strrchr(f, '/');
    if (slash) {
      dir = PyUnicode_FromStringAndSize(f, slash - f);
      if (dir) path = PyUnicode_FromFormat("%U/lib/libtorch_cpu.so", dir);
    }
  }
  const char *p = path ? PyUnicode_AsUTF8(path) : NULL;
  void *lib = p ? dlopen(p, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) : NULL;
  if (lib) {
    void *addr = dlsym(lib, sym);
    Dl_info info;
    if (addr && dladdr(addr, &info) && info.dli_fname && strstr(info.dli_fname, in_lib))
      fn = addr;
    dlclose(lib); /* RTLD_NOLOAD took a reference; torch keeps the library loaded */
  }
  Py_XDECREF(path);
  Py_XDECREF(dir);
  Py_DECREF(file);
  PyErr_Clear();
  return fn;
}

/* Is the C++ answer right on tensors whose answer we know? */
static int cxx_is_neg_selftest(PyObject *torch_mod, CxxIsNeg fn) {
  int ok = 0;
  PyObject *plain = PyObject_CallMethod(torch_mod, "zeros", "i", 2);
  PyObject *neg = plain ? PyObject_CallMethod(torch_mod, "_neg_view", "O", plain) : NULL;
  PyObject *det = neg ? PyObject_CallMethod(neg, "detach", NULL) : NULL;
  if (plain && neg && det && Py_TYPE(plain) == torch_tensor_type && Py_TYPE(neg) == torch_tensor_type) {
    PyObject *py_neg = PyObject_CallMethod(neg, "is_neg", NULL);
    ok = py_neg == Py_True && !fn((const char *)plain + sizeof(PyObject)) &&
         fn((const char *)neg + sizeof(PyObject)) && fn((const char *)det + sizeof(PyObject));
    Py_XDECREF(py_neg);
  }
  Py_XDECREF(det);
  Py_XDECREF(neg);
  Py_XDECREF(plain);
  PyErr_Clear();
  return ok;
}

/* 1 if o is a negative-bit view (its memory holds -value), 0 if not, -1 error. */
static int check_neg(PyObject *o) {
  if (cxx_is_neg) return cxx_is_neg((const char *)o + sizeof(PyObject));
  if (!is_neg_descr) return 0;
  PyObject *r = PyObject_Vectorcall(is_neg_descr, &o, 1, NULL);
  if (!r) return -1;
  int v = PyObject_IsTrue(r);
  Py_DECREF(r);
  return v;
}

static KrTensor *neg_error(const char *arg) {
  PyErr_Format(PyExc_ValueError,
               "kiln-torch: argument '%s': negative-bit views are not supported; call .resolve_neg() first", arg);
  return NULL;
}

/* A tensor subclass that defines __torch_function__ or __torch_dispatch__
 * decides what operations on it mean (and a __torch_dispatch__ wrapper has no
 * data of its own): kiln's native code cannot honour that, so such an
 * argument is refused rather than computed differently from eager. Plain
 * subclasses and nn.Parameter (whose __torch_function__ is the disabled
 * one) pass. Returns the name of the overriding hook, or NULL. The verdict
 * for the last subclass seen is kept until its type changes (version tag). */
static const char *subclass_override(PyTypeObject *tp) {
  static PyTypeObject *seen;
  static unsigned int seen_tag;
  static const char *seen_verdict;
  if (tp == seen && PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG) && tp->tp_version_tag == seen_tag)
    return seen_verdict;
  const char *verdict = NULL;
  if (s_torch_dispatch && s_torch_function) {
    PyObject *d = _PyType_Lookup(tp, s_torch_dispatch), *f = _PyType_Lookup(tp, s_torch_function);
    if (plain_dispatch && d != plain_dispatch)
      verdict = "__torch_dispatch__";
    else if (plain_function && f != plain_function && f != disabled_function)
      verdict = "__torch_function__";
  }
  PyErr_Clear();
  if (PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG)) {
    seen = tp;
    seen_tag = tp->tp_version_tag;
    seen_verdict = verdict;
  }
  return verdict;
}

static KrTensor *override_error(PyObject *o, const char *hook, const char *arg) {
  PyErr_Format(PyExc_TypeError,
               "kiln-torch: argument '%s': %s defines %s; tensor subclasses that redefine operations are not "
               "supported (kiln's native code would not call it)",
               arg, Py_TYPE(o)->tp_name, hook);
  return NULL;
}

/* Data torch reported as missing although the tensor has elements. */
static KrTensor *no_data_error(const char *arg) {
  PyErr_Format(PyExc_ValueError,
               "kiln-torch: argument '%s': torch reports no data for this tensor (was its storage freed?)", arg);
  return NULL;
}

static int has_elements(int rank, const int64_t *shape) {
  return shape[0] > 0 && (rank == 1 || shape[1] > 0);
}

/* Python-level checks in the contract's order (device, dtype, rank, then
 * layout), used when the exchange API refused the tensor and by the public
 * path. Returns 0 when every check passes, -1 with the exception. */
static int public_checks(PyObject *o, int rank, const char *arg) {
  PyObject *dev = PyObject_GetAttrString(o, "device");
  if (!dev) return -1;
  PyObject *dtype_name = NULL;
  PyObject *devtype = PyObject_GetAttrString(dev, "type");
  Py_DECREF(dev);
  if (!devtype) return -1;
  int cpu = PyUnicode_Check(devtype) && PyUnicode_CompareWithASCIIString(devtype, "cpu") == 0;
  Py_DECREF(devtype);
  if (!cpu) {
    device_error(o, arg);
    return -1;
  }
  dtype_name = attr_str(o, "dtype");
  if (!dtype_name) return -1;
  int f32 = PyUnicode_CompareWithASCIIString(dtype_name, "torch.float32") == 0;
  Py_DECREF(dtype_name);
  if (!f32) {
    dtype_error(o, arg);
    return -1;
  }
  PyObject *nd = PyObject_CallMethod(o, "dim", NULL);
  if (!nd) return -1;
  long ndim = PyLong_AsLong(nd);
  Py_DECREF(nd);
  if (ndim == -1 && PyErr_Occurred()) return -1;
  if (ndim != rank) {
    rank_error(rank, ndim, arg);
    return -1;
  }
  PyObject *layout = attr_str(o, "layout");
  if (!layout) return -1;
  int strided = PyUnicode_CompareWithASCIIString(layout, "torch.strided") == 0;
  if (!strided) {
    PyErr_Format(PyExc_ValueError, "kiln-torch: argument '%s': expected a dense (strided) tensor, got %U", arg,
                 layout);
    Py_DECREF(layout);
    return -1;
  }
  Py_DECREF(layout);
  int neg = check_neg(o);
  if (neg < 0) return -1;
  if (neg) {
    neg_error(arg);
    return -1;
  }
  return 0;
}

/* The exchange API refused o: report the contract's check that fails, or
 * else the API's own error (first line only; torch appends a C++ trace). */
static KrTensor *exchange_failed(PyObject *o, int rank, const char *arg) {
  PyObject *exc, *val, *tb;
  PyErr_Fetch(&exc, &val, &tb);
  PyErr_NormalizeException(&exc, &val, &tb);
  if (public_checks(o, rank, arg) < 0) {
    Py_XDECREF(exc);
    Py_XDECREF(val);
    Py_XDECREF(tb);
    return NULL;
  }
  PyObject *msg = val ? PyObject_Str(val) : NULL;
  PyObject *first = NULL;
  if (msg) {
    Py_ssize_t nl = PyUnicode_FindChar(msg, '\n', 0, PyUnicode_GET_LENGTH(msg), 1);
    first = nl >= 0 ? PyUnicode_Substring(msg, 0, nl) : (Py_INCREF(msg), msg);
    Py_DECREF(msg);
  }
  if (!first) PyErr_Clear();
  PyErr_Format(PyExc_ValueError, "kiln-torch: argument '%s': torch cannot export this tensor's data: %S", arg,
               first ? first : Py_None);
  Py_XDECREF(first);
  /* chain the original as __cause__ */
  PyObject *e2, *v2, *t2;
  PyErr_Fetch(&e2, &v2, &t2);
  PyErr_NormalizeException(&e2, &v2, &t2);
  if (v2 && val) {
    PyException_SetCause(v2, val); /* steals val */
    val = NULL;
  }
  PyErr_Restore(e2, v2, t2);
  Py_XDECREF(exc);
  Py_XDECREF(val);
  Py_XDECREF(tb);
  return NULL;
}

static KrTensor *public_unbox(PyObject *o, int rank, const char *arg) {
  if (public_checks(o, rank, arg) < 0) return NULL;
  int64_t shape[2] = {1, 1}, strides[2] = {1, 1};
  PyObject *sh = PyObject_GetAttrString(o, "shape");
  PyObject *st = sh ? PyObject_CallMethod(o, "stride", NULL) : NULL;
  PyObject *dp = st ? PyObject_CallMethod(o, "data_ptr", NULL) : NULL;
  KrTensor *t = NULL;
  if (!dp) goto done;
  for (int i = 0; i < rank; i++) {
    PyObject *a = PySequence_GetItem(sh, i);
    PyObject *b = a ? PySequence_GetItem(st, i) : NULL;
    if (b) {
      shape[i] = PyLong_AsLongLong(a);
      strides[i] = PyLong_AsLongLong(b);
    }
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (PyErr_Occurred()) goto done;
  }
  void *ptr = PyLong_AsVoidPtr(dp);
  if (!ptr && PyErr_Occurred()) goto done;
  if (!ptr && has_elements(rank, shape)) {
    no_data_error(arg);
    goto done;
  }
  t = kr_tensor_view(KR_FW_TORCH, rank, (float *)ptr, shape, strides, o);
done:
  Py_XDECREF(sh);
  Py_XDECREF(st);
  Py_XDECREF(dp);
  return t;
}

/* ---- direct read -----------------------------------------------------------
 * The exchange API's dltensor_from_py_object_no_sync costs ~45 ns per tensor,
 * most of it in making a temporary at::Tensor copy through pybind11 (GIL
 * state lookups, two atomic refcount updates and a PyObject incref/decref
 * round trip), about half of a three-tensor call's fixed cost. The facts
 * kiln needs (data, shape, strides, and that the tensor is a plain dense
 * float32 CPU tensor) are fields of the tensor's c10::TensorImpl. For the
 * layout below, copied from torch 2.13's installed headers (x86-64), they
 * are read directly, but only for a tensor that provably has nothing
 * special about it:
 *   - (the caller checked that it is a torch.Tensor, so it has the layout of
 *     torch's tensor object, and that a subclass redefines nothing:
 *     subclass_override; nn.Parameter is read like torch.Tensor);
 *   - its TensorImpl is exactly c10::TensorImpl (same vtable as a probe's),
 *     so no functorch, nested, sparse, functional or lazy wrapper;
 *   - its dispatch key set equals a probe's plain CPU tensor's (normal or
 *     inference-mode), so it is CPU, dense, not a negative/conjugate view,
 *     not a zero tensor, no Python key (so no __torch_dispatch__ wrapper);
 *   - dtype float32, rank as declared, CPU device, default size/stride and
 *     device policies, storage access allowed, and a storage with no
 *     data-pointer hook (copy-on-write materialisation, fake tensors).
 * Anything else takes the exchange API, which also produces its errors. One
 * more check only this path can make: the elements must lie inside the
 * storage (a storage resized smaller, as FSDP does to free parameters,
 * would otherwise be read past its end; eager torch crashes on it).
 * direct_calibrate enables the read only for torch 2.13 and only after it
 * reproduced, on probe tensors, what torch's Python API says (data_ptr,
 * shape, stride, storage, _cdata) and the exchange API's DLTensor, and
 * rejected the probes it must reject (float64, a negative view, a lazy
 * clone, a meta tensor, a sparse tensor, the wrong rank) and refused one
 * whose storage was resized below it. KILN_TORCH_DIRECT=0 turns it off. */

typedef struct {         /* c10::StorageImpl (c10/core/StorageImpl.h), prefix */
  void *vptr;
  uint64_t combined_refcount; /* c10::intrusive_ptr_target */
  char *data;                 /* data_ptr_ (c10::DataPtr): its UniqueVoidPtr's data_ */
  void *ctx, *ctx_deleter;
  int8_t device[2];
  int64_t size_bytes;         /* size_bytes_ (c10::SymInt: the value itself unless symbolic) */
  _Bool size_bytes_is_heap_allocated, resizable, received_cuda;
  _Bool has_mutable_data_ptr_check; /* any hook on data access: materialise, throw, warn */
} KStorageImpl;

typedef struct {         /* c10::TensorImpl (c10/core/TensorImpl.h), prefix */
  const void *vptr;
  uint64_t combined_refcount;
  const KStorageImpl *storage; /* c10::Storage: an intrusive_ptr<StorageImpl> */
  void *autograd_meta, *extra_meta, *version_counter, *pyobj_slot;
  uint64_t ndim;               /* sizes_and_strides_ (c10::impl::SizesAndStrides) */
  int64_t sizes[5], strides[5]; /* its inline storage, used while ndim <= 5 */
  int64_t storage_offset, numel;
  uint16_t dtype;              /* data_type_: the ScalarType's index */
  int8_t device_type, device_index; /* device_opt_ */
  _Bool has_device;
  uint8_t bits[3];             /* the bool/uint8 bit-fields, first declared lowest */
  uint64_t key_set;            /* c10::DispatchKeySet */
} KTensorImpl;

_Static_assert(offsetof(KStorageImpl, has_mutable_data_ptr_check) == 0x3b, "StorageImpl layout");
_Static_assert(offsetof(KTensorImpl, sizes) == 0x40 && offsetof(KTensorImpl, storage_offset) == 0x90 &&
                   offsetof(KTensorImpl, dtype) == 0xa0 && offsetof(KTensorImpl, key_set) == 0xa8,
               "TensorImpl layout");

enum {
  KT_CPU = 0,                      /* c10::DeviceType::CPU */
  KT_FLOAT = 6,                    /* c10::ScalarType::Float */
  KT_BITS0_STORAGE_THROWS = 1 << 1, /* storage_access_should_throw_ */
  /* sizes_strides_policy_ (2 bits), has_symbolic_sizes_strides_, device_policy_ */
  KT_BITS1_CUSTOM = (3 << 2) | (1 << 4) | (1 << 7),
};

static const void *direct_vptr;      /* c10::TensorImpl's vtable */
static uint64_t direct_keys[2];      /* a plain CPU tensor's key set; inference mode's */

static const KTensorImpl *impl_of(PyObject *o) {
  /* THPVariable: PyObject_HEAD, then its at::Tensor, an intrusive_ptr<TensorImpl> */
  return *(const KTensorImpl *const *)((const char *)o + sizeof(PyObject));
}

/* Do the elements of t (rank 1 or 2) lie inside storage s? Nothing is read
 * from a tensor without elements. Sizes and strides are below 2^63, so the
 * last element's index cannot overflow 128 bits. */
static inline int inside_storage(const KTensorImpl *t, int rank, const KStorageImpl *s) {
  const int64_t n0 = t->sizes[0], d0 = t->strides[0];
  const int64_t n1 = rank == 2 ? t->sizes[1] : 1, d1 = rank == 2 ? t->strides[1] : 0;
  if (n0 == 0 || n1 == 0) return 1;
  if ((n0 | n1 | d0 | d1 | t->storage_offset | s->size_bytes) < 0 || s->size_bytes_is_heap_allocated || !s->data)
    return 0;
  unsigned __int128 last = (unsigned __int128)(uint64_t)(n0 - 1) * (uint64_t)d0 +
                           (unsigned __int128)(uint64_t)(n1 - 1) * (uint64_t)d1 + (uint64_t)t->storage_offset;
  return last < (uint64_t)s->size_bytes / sizeof(float);
}

/* o is a torch.Tensor. Fills data/shape/strides and returns 1 when it is a
 * plain dense float32 CPU tensor of rank `rank` (see above); 0 when the
 * exchange API must decide; -1 when it is plain but its elements do not lie
 * inside its storage. */
static inline int direct_read(PyObject *o, int rank, float **data, const int64_t **shape,
                              const int64_t **strides) {
  const KTensorImpl *t = impl_of(o);
  if (!t || t->vptr != direct_vptr) return 0;
  if (t->key_set != direct_keys[0] && t->key_set != direct_keys[1]) return 0;
  if (t->dtype != KT_FLOAT || t->ndim != (uint64_t)rank || !t->has_device || t->device_type != KT_CPU) return 0;
  if ((t->bits[0] & KT_BITS0_STORAGE_THROWS) || (t->bits[1] & KT_BITS1_CUSTOM)) return 0;
  const KStorageImpl *s = t->storage;
  if (!s || s->has_mutable_data_ptr_check) return 0;
  if (!inside_storage(t, rank, s)) return -1;
  *data = (float *)(void *)((uintptr_t)s->data + (uintptr_t)t->storage_offset * sizeof(float));
  *shape = t->sizes;
  *strides = t->strides;
  return 1;
}

/* Probe tensors: `accept` must be read directly with these facts, `reject`
 * must not be. Built by Python so that every expected value is torch's own. */
static const char direct_probes_src[] =
    "import torch\n"
    "base = torch.zeros(4, 6)\n"
    "with torch.inference_mode():\n"
    "    inf = torch.zeros(3, 2)\n"
    "keys = (torch.zeros(1), inf)\n"
    "accept = [base, base[1:, 1:5], base[1:, 1:5].t(), torch.arange(5.0)[1::2], torch.zeros(0, 3),\n"
    "          torch.ones(2, 2, requires_grad=True), inf, torch.empty(7, 2).as_strided((3, 2), (2, 3), 1),\n"
    "          torch.nn.Parameter(torch.zeros(3))]\n"
    "accept = [(t, t.dim(), t._cdata, t.untyped_storage()._cdata, t.data_ptr(), t.untyped_storage().nbytes(),\n"
    "           tuple(t.shape), t.stride()) for t in accept]\n"
    "shrunk = torch.zeros(4, 4)\n"
    "shrunk.untyped_storage().resize_(60)\n"
    "reject = [(torch.zeros(2, dtype=torch.float64), 1), (torch._neg_view(torch.zeros(2)), 1),\n"
    "          (torch.zeros(2, 2)._lazy_clone(), 2), (torch.zeros(2, device='meta'), 1),\n"
    "          (torch.zeros(2, 2).to_sparse(), 2), (torch.zeros(2, 2), 1)]\n";

static int direct_check_accept(PyObject *item) {
  PyObject *o;
  int rank;
  unsigned long long impl, storage, ptr;
  long long nbytes;
  PyObject *shape, *stride;
  if (!PyArg_ParseTuple(item, "OiKKKLOO", &o, &rank, &impl, &storage, &ptr, &nbytes, &shape, &stride)) return 0;
  if (rank < 1 || rank > 2 || !PyObject_TypeCheck(o, torch_tensor_type)) return 0;
  if ((uintptr_t)impl_of(o) != impl || (uintptr_t)impl_of(o)->storage != storage) return 0;
  float *data;
  const int64_t *sh, *st;
  if (direct_read(o, rank, &data, &sh, &st) != 1 || (uintptr_t)data != ptr) return 0;
  if (impl_of(o)->storage->size_bytes != nbytes) return 0;
  KDLTensor dl;
  if (xapi->dltensor_from_py_object_no_sync(o, &dl) != 0) return 0;
  if ((char *)dl.data + dl.byte_offset != (char *)data || dl.ndim != rank) return 0;
  for (int i = 0; i < rank; i++) {
    long long want_sh = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
    long long want_st = PyLong_AsLongLong(PyTuple_GetItem(stride, i));
    if (PyErr_Occurred()) return 0;
    if (sh[i] != want_sh || st[i] != want_st || dl.shape[i] != want_sh || dl.strides[i] != want_st) return 0;
  }
  return 1;
}

/* Enters the guard object torch._C._InferenceMode(on), given that class.
 * New reference, or NULL. */
static PyObject *guard_enter(PyObject *cls, int on) {
  PyObject *guard = PyObject_CallOneArg(cls, on ? Py_True : Py_False);
  PyObject *in = guard ? PyObject_CallMethod(guard, "__enter__", NULL) : NULL;
  if (!in) Py_CLEAR(guard);
  Py_XDECREF(in);
  return guard;
}

/* Leaves and releases a guard from guard_enter; 0 when __exit__ raised. */
static int guard_exit(PyObject *guard) {
  PyObject *out = PyObject_CallMethod(guard, "__exit__", "OOO", Py_None, Py_None, Py_None);
  Py_XDECREF(out);
  Py_DECREF(guard);
  return out != NULL;
}

/* torch._C._InferenceMode(on): InferenceMode is `on` from here until
 * inference_mode_end (the calibrations must not depend on whether kiln was
 * first used inside `with torch.inference_mode()`). New reference or NULL. */
static PyObject *inference_mode_begin(PyObject *torch_mod, int on) {
  PyObject *c = PyObject_GetAttrString(torch_mod, "_C");
  PyObject *cls = c ? PyObject_GetAttrString(c, "_InferenceMode") : NULL;
  PyObject *guard = cls ? guard_enter(cls, on) : NULL;
  Py_XDECREF(cls);
  Py_XDECREF(c);
  return guard;
}

/* Restores the mode inference_mode_begin found; 0 on failure. */
static int inference_mode_end(PyObject *guard) { return guard_exit(guard); }

/* 1 when the direct read may be used (it then is), 0 otherwise with
 * direct_off saying why. Never leaves an exception. */
static int direct_calibrate(PyObject *torch_mod) {
  int ok = 0;
  PyObject *ver = PyObject_GetAttrString(torch_mod, "__version__");
  PyObject *vs = ver ? PyObject_Str(ver) : NULL;
  const char *v = vs ? PyUnicode_AsUTF8(vs) : NULL;
  int known = v && strncmp(v, "2.13.", 5) == 0;
  Py_XDECREF(ver);
  Py_XDECREF(vs);
  if (!known) {
    PyErr_Clear();
    direct_off = "off (TensorImpl layout known for torch 2.13 only)";
    return 0;
  }
  direct_off = "off (self-test failed)";
  PyObject *g = PyDict_New();
  PyObject *mode = inference_mode_begin(torch_mod, 0);
  PyObject *r = mode && g && PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) == 0
                    ? PyRun_String(direct_probes_src, Py_file_input, g, g)
                    : NULL;
  if (mode && !inference_mode_end(mode)) Py_CLEAR(r);
  PyObject *keys = r ? PyDict_GetItemString(g, "keys") : NULL;
  PyObject *accept = r ? PyDict_GetItemString(g, "accept") : NULL;
  PyObject *reject = r ? PyDict_GetItemString(g, "reject") : NULL;
  if (!keys || !accept || !reject || !PyTuple_Check(keys) || PyTuple_GET_SIZE(keys) != 2 || !PyList_Check(accept) ||
      !PyList_Check(reject))
    goto done;
  for (int i = 0; i < 2; i++) {
    PyObject *k = PyTuple_GET_ITEM(keys, i);
    if (Py_TYPE(k) != torch_tensor_type) goto done;
    const KTensorImpl *t = impl_of(k);
    if (i == 0) direct_vptr = t->vptr;
    if (t->vptr != direct_vptr) goto done;
    direct_keys[i] = t->key_set;
  }
  if (direct_keys[0] == direct_keys[1]) goto done; /* inference mode must show in the key set */
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(accept); i++)
    if (!direct_check_accept(PyList_GET_ITEM(accept, i))) goto done;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(reject); i++) {
    PyObject *o;
    int rank;
    float *data;
    const int64_t *sh, *st;
    if (!PyArg_ParseTuple(PyList_GET_ITEM(reject, i), "Oi", &o, &rank) || !PyObject_TypeCheck(o, torch_tensor_type) ||
        direct_read(o, rank, &data, &sh, &st) != 0)
      goto done;
  }
  PyObject *shrunk = PyDict_GetItemString(g, "shrunk");
  float *data;
  const int64_t *sh, *st;
  if (!shrunk || !PyObject_TypeCheck(shrunk, torch_tensor_type) || direct_read(shrunk, 2, &data, &sh, &st) != -1)
    goto done;
  ok = 1;
done:
  if (!ok) direct_vptr = NULL; /* direct_read then refuses everything */
  Py_XDECREF(r);
  Py_XDECREF(g);
  PyErr_Clear();
  return ok;
}

KrTensor *kr_torch_unbox(PyObject *o, int rank, const char *arg) {
  if (!torch_tensor_type) {
    int r = torch_resolve();
    if (r < 0) return NULL;
    if (r == 0) return type_error(o, arg);
  }
  if (!PyObject_TypeCheck(o, torch_tensor_type)) return type_error(o, arg);
  const char *hook = Py_TYPE(o) == torch_tensor_type ? NULL : subclass_override(Py_TYPE(o));
  if (hook) return override_error(o, hook, arg);
  float *data;
  const int64_t *shape, *strides;
  int direct = direct_on ? direct_read(o, rank, &data, &shape, &strides) : 0;
  if (direct > 0) return kr_tensor_view(KR_FW_TORCH, rank, data, shape, strides, o);
  if (direct < 0) {
    PyErr_Format(PyExc_ValueError,
                 "kiln-torch: argument '%s': the tensor's elements extend past the end of its storage "
                 "(was the storage resized?)",
                 arg);
    return NULL;
  }
  if (!xapi) return public_unbox(o, rank, arg);
  KDLTensor dl;
  if (xapi->dltensor_from_py_object_no_sync(o, &dl) != 0) return exchange_failed(o, rank, arg);
  if (dl.device.device_type != kDLCPU_) return device_error(o, arg);
  if (dl.dtype.code != kDLFloat_ || dl.dtype.bits != 32 || dl.dtype.lanes != 1) return dtype_error(o, arg);
  if (dl.ndim != rank) return rank_error(rank, dl.ndim, arg);
  /* torch exports negative-bit views (e.g. complex.conj().imag) without
   * resolving them; their memory holds the negated values. */
  int neg = check_neg(o);
  if (neg) return neg < 0 ? NULL : neg_error(arg);
  if (!dl.data && has_elements(rank, dl.shape)) return no_data_error(arg);
  data = (float *)((char *)dl.data + dl.byte_offset);
  return kr_tensor_view(KR_FW_TORCH, rank, data, dl.shape, dl.strides, o);
}

/* ---- boxing -------------------------------------------------------------- */

typedef struct {
  KDLManagedTensorVersioned mt;
  int64_t shape[2];
  int64_t strides[2];
  KrBuffer *buf;
} BoxCtx;

/* Called by torch when the tensor's storage dies: any thread, maybe without
 * the GIL. No Python API here. */
static void box_deleter(KDLManagedTensorVersioned *self) {
  BoxCtx *c = (BoxCtx *)self->manager_ctx;
  kr_buffer_release(c->buf);
  free(c);
}

typedef struct {
  KDLManagedTensor mt;
  int64_t shape[2];
  int64_t strides[2];
  KrBuffer *buf;
} LegacyCtx;

static void legacy_deleter(KDLManagedTensor *self) {
  LegacyCtx *c = (LegacyCtx *)self->manager_ctx;
  kr_buffer_release(c->buf);
  free(c);
}

static void legacy_capsule_destructor(PyObject *cap) {
  /* Only an unconsumed capsule still owns its tensor. */
  if (PyCapsule_IsValid(cap, "dltensor")) {
    KDLManagedTensor *mt = (KDLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
    if (mt && mt->deleter) mt->deleter(mt);
  } else {
    PyErr_Clear();
  }
}

static void fill_dl(KDLTensor *dl, KrTensor *t, int64_t *shape, int64_t *strides) {
  dl->data = t->data;
  dl->device.device_type = kDLCPU_;
  dl->device.device_id = 0;
  dl->ndim = t->rank;
  dl->dtype.code = kDLFloat_;
  dl->dtype.bits = 32;
  dl->dtype.lanes = 1;
  for (int i = 0; i < t->rank; i++) {
    shape[i] = t->shape[i];
    strides[i] = t->strides[i];
  }
  dl->shape = shape;
  dl->strides = strides;
  dl->byte_offset = 0;
}

/* A torch tensor sharing t's buffer (t must own one). New reference. */
static PyObject *box_buffer(KrTensor *t) {
  if (xapi) {
    BoxCtx *c = (BoxCtx *)malloc(sizeof(BoxCtx));
    if (!c) return PyErr_NoMemory();
    c->mt.version.major = KDLPACK_MAJOR;
    c->mt.version.minor = xapi->header.version.minor;
    c->mt.manager_ctx = c;
    c->mt.deleter = box_deleter;
    c->mt.flags = 0;
    fill_dl(&c->mt.dl_tensor, t, c->shape, c->strides);
    kr_buffer_retain(t->buf);
    c->buf = t->buf;
    void *out = NULL;
    if (xapi->managed_tensor_to_py_object_no_sync(&c->mt, &out) != 0) {
      /* Whether torch already owns `c` on failure is not specified; leak it
       * rather than risk a double free (only reachable on out-of-memory). */
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "kiln-torch: torch refused the result tensor");
      return NULL;
    }
    return (PyObject *)out;
  }
  if (!from_dlpack_fn) {
    PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
    if (!mod) {
      PyErr_SetString(PyExc_RuntimeError, "kiln-torch: torch is not imported");
      return NULL;
    }
    from_dlpack_fn = PyObject_GetAttrString(mod, "from_dlpack");
    if (!from_dlpack_fn) return NULL;
  }
  LegacyCtx *c = (LegacyCtx *)malloc(sizeof(LegacyCtx));
  if (!c) return PyErr_NoMemory();
  c->mt.manager_ctx = c;
  c->mt.deleter = legacy_deleter;
  fill_dl(&c->mt.dl_tensor, t, c->shape, c->strides);
  kr_buffer_retain(t->buf);
  c->buf = t->buf;
  PyObject *cap = PyCapsule_New(&c->mt, "dltensor", legacy_capsule_destructor);
  if (!cap) {
    legacy_deleter(&c->mt);
    return NULL;
  }
  PyObject *r = PyObject_CallOneArg(from_dlpack_fn, cap);
  Py_DECREF(cap);
  return r;
}

/* ---- result reuse ----------------------------------------------------------
 * Making a torch tensor for a result and destroying it later costs ~250 ns
 * (at::fromDLPack, THPVariable_Wrap, and at its death a GIL release in
 * THPVariable_clear): most of a small call. So the last few small results
 * are kept (one strong reference each). When one of them is referenced by
 * nothing but this cache and is exactly as it was made, the next result of
 * its shape is copied into it and it is returned again: a free list, as
 * CPython keeps for floats and tuples, for objects nobody can reach.
 *
 * "Exactly as made" is a byte comparison with a snapshot taken when it was
 * made: the THPVariable's fields (backward hooks), the TensorImpl prefix
 * (strong and weak reference counts, storage, autograd and extra metadata,
 * version counter, sizes, strides, dtype, device, key set), the version
 * counter's count and version, and the StorageImpl prefix (reference counts,
 * data pointer, size). Anything that holds, views, exports, grads, hooks,
 * renames, resizes or changes the tensor in place changes one of those; so do
 * a Python weak reference or an attribute set on it, which are checked
 * directly. InferenceMode must be as it was when the tensor was made, since
 * a result made under it is an inference tensor. What stays observable: a
 * kept result that is weakly referenced (or held from C++) when its last
 * Python reference goes dies at the next small result instead (weakref
 * callbacks run then). Only with the direct read (its layouts verified on
 * this torch) and KILN_TORCH_REUSE unset or not 0. */

enum {
  REUSE_SLOTS = 4,
  REUSE_MAX_BYTES = 4096,
  REUSE_VAR_MAX = 64, /* THPVariable bytes after PyObject_HEAD, at most */
  VC_COUNTS = 8,      /* VersionCounter: vptr, then the combined refcount (8 bytes) */
  VC_VERSION = 16,    /* and the version (uint32) */
  VC_SNAP = 12,       /* bytes snapshotted from VC_COUNTS: refcount and version */
};

typedef struct {
  PyObject *obj;     /* strong reference, or NULL */
  KrBuffer *buf;     /* its storage's buffer; the BoxCtx holds the reference */
  int32_t rank;
  int inference;     /* InferenceMode was on when it was made */
  int idle;          /* found reusable while only the cache held it (and it has not been handed out since) */
  int64_t shape[2], strides[2];
  unsigned char var[REUSE_VAR_MAX];
  unsigned char impl[sizeof(KTensorImpl)];
  unsigned char storage[sizeof(KStorageImpl)];
  unsigned char version[VC_SNAP];
} ReuseSlot;

static ReuseSlot reuse_slots[REUSE_SLOTS];
static int reuse_next;             /* round-robin victim */
static const char *reuse_off = "torch not loaded";
static size_t reuse_var_bytes;     /* THPVariable's size after PyObject_HEAD */
static _Bool (*inference_enabled)(void); /* c10::InferenceMode::is_enabled */

static void reuse_snapshot(PyObject *o, unsigned char var[REUSE_VAR_MAX], unsigned char impl[sizeof(KTensorImpl)],
                           unsigned char storage[sizeof(KStorageImpl)], unsigned char version[VC_SNAP]) {
  const KTensorImpl *t = impl_of(o);
  memcpy(var, (const char *)o + sizeof(PyObject), reuse_var_bytes);
  memcpy(impl, t, sizeof(KTensorImpl));
  memcpy(storage, t->storage, sizeof(KStorageImpl));
  if (t->version_counter)
    memcpy(version, (const char *)t->version_counter + VC_COUNTS, VC_SNAP);
  else
    memset(version, 0, VC_SNAP);
}

/* Is the slot's tensor reachable only from the slot, and unchanged? */
static int reuse_free(const ReuseSlot *s) {
  PyObject *o = s->obj;
  if (Py_REFCNT(o) != 1 || Py_TYPE(o) != torch_tensor_type) return 0;
  if (atomic_load_explicit(&s->buf->refcnt, memory_order_acquire) != 1) return 0;
  Py_ssize_t wl = torch_tensor_type->tp_weaklistoffset;
  if (wl && *(PyObject **)((char *)o + wl)) return 0;
  unsigned char var[REUSE_VAR_MAX], impl[sizeof(KTensorImpl)], storage[sizeof(KStorageImpl)], version[VC_SNAP];
  reuse_snapshot(o, var, impl, storage, version); /* the same storage: impl compares its pointer first */
  if (memcmp(impl, s->impl, sizeof impl) || memcmp(var, s->var, reuse_var_bytes) ||
      memcmp(storage, s->storage, sizeof storage) || memcmp(version, s->version, sizeof version))
    return 0;
  if (inference_enabled() != s->inference) return 0;
  PyObject *dict = PyObject_GenericGetDict(o, NULL);
  Py_ssize_t n = dict ? PyDict_GET_SIZE(dict) : -1;
  Py_XDECREF(dict);
  if (n) PyErr_Clear();
  return n == 0;
}

static int reuse_fits(const ReuseSlot *s, const KrTensor *t) {
  if (s->rank != t->rank) return 0;
  for (int i = 0; i < t->rank; i++)
    if (s->shape[i] != t->shape[i] || s->strides[i] != t->strides[i]) return 0;
  return 1;
}

/* A kept tensor holding t's values, t then sharing its buffer (so that t
 * and the tensor stay one value, as a fresh box makes them); or NULL.
 * Kept tensors that only the cache references but that cannot be reused
 * (weakly referenced, held from C++, given attributes, changed) are
 * released on the way: their death was only postponed to this call. */
/* Results handed back refilled so far (buffer_stats()'s "reused_results"). */
static long reuse_hits;
long kr_torch_reused_results(void) { return reuse_hits; }

static PyObject *reuse_take(KrTensor *t, size_t nbytes) {
  PyObject *dead[REUSE_SLOTS], *found = NULL;
  int ndead = 0;
  for (int i = 0; i < REUSE_SLOTS; i++) {
    ReuseSlot *s = &reuse_slots[i];
    if (!s->obj || Py_REFCNT(s->obj) != 1) continue;
    int fits = !found && reuse_fits(s, t);
    if (!fits && s->idle) continue; /* found free before, and nobody can have reached it since */
    if (!reuse_free(s)) {
      dead[ndead++] = s->obj;
      s->obj = NULL;
      continue;
    }
    s->idle = !fits;
    if (!fits) continue;
    memcpy(s->buf->data, t->data, nbytes);
    kr_buffer_retain(s->buf);
    kr_buffer_release(t->buf);
    t->buf = s->buf;
    t->data = s->buf->data;
    Py_INCREF(s->obj);
    found = s->obj;
    reuse_hits++;
  }
  for (int i = 0; i < ndead; i++) Py_DECREF(dead[i]); /* last: a death may run Python code that calls kiln */
  return found;
}

/* Keep o, just made for t, in a free slot or the next one round. */
static void reuse_keep(PyObject *o, const KrTensor *t) {
  int i = 0;
  while (i < REUSE_SLOTS && reuse_slots[i].obj) i++;
  if (i == REUSE_SLOTS) i = reuse_next = (reuse_next + 1) % REUSE_SLOTS;
  ReuseSlot *s = &reuse_slots[i];
  PyObject *victim = s->obj;
  Py_INCREF(o);
  s->obj = o;
  s->buf = t->buf;
  s->rank = t->rank;
  s->inference = inference_enabled();
  s->idle = 0;
  for (int d = 0; d < 2; d++) {
    s->shape[d] = d < t->rank ? t->shape[d] : 0;
    s->strides[d] = d < t->rank ? t->strides[d] : 0;
  }
  reuse_snapshot(o, s->var, s->impl, s->storage, s->version);
  Py_XDECREF(victim); /* last: its death may run Python code that calls kiln */
}

/* Enables reuse when the layouts it relies on say what torch says: the
 * version counter's count (after two in-place adds) and InferenceMode's
 * flag before, inside and after a torch._C._InferenceMode that flips it. */
static int reuse_calibrate(PyObject *torch_mod) {
  const char *env = getenv("KILN_TORCH_REUSE");
  if (env && strcmp(env, "0") == 0) {
    reuse_off = "off (KILN_TORCH_REUSE=0)";
    return 0;
  }
  if (!direct_on) {
    reuse_off = "off (needs the direct read)";
    return 0;
  }
  reuse_off = "off (self-test failed)";
  PyTypeObject *base = torch_tensor_type->tp_base;
  if (!base || base->tp_basicsize < (Py_ssize_t)(sizeof(PyObject) + sizeof(void *)) ||
      base->tp_basicsize > (Py_ssize_t)(sizeof(PyObject) + REUSE_VAR_MAX))
    return 0;
  reuse_var_bytes = (size_t)base->tp_basicsize - sizeof(PyObject);
  inference_enabled = (_Bool(*)(void))(uintptr_t)find_torch_symbol(torch_mod, "libc10.so",
                                                                     "_ZN3c1013InferenceMode10is_enabledEv");
  if (!inference_enabled) return 0;
  int before = inference_enabled(), ok = 0;
  PyObject *mode = inference_mode_begin(torch_mod, 0);
  PyObject *t = mode ? PyObject_CallMethod(torch_mod, "zeros", "i", 2) : NULL;
  PyObject *r1 = t ? PyObject_CallMethod(t, "add_", "i", 1) : NULL;
  PyObject *r2 = r1 ? PyObject_CallMethod(t, "add_", "i", 1) : NULL;
  PyObject *ver = r2 ? PyObject_GetAttrString(t, "_version") : NULL;
  if (ver && Py_TYPE(t) == torch_tensor_type && PyLong_Check(ver) && PyLong_AsLong(ver) == 2 && !inference_enabled()) {
    const KTensorImpl *ti = impl_of(t);
    uint32_t count;
    if (ti->version_counter) {
      memcpy(&count, (const char *)ti->version_counter + VC_VERSION, sizeof count);
      ok = count == 2;
    }
  }
  Py_XDECREF(ver);
  Py_XDECREF(r2);
  Py_XDECREF(r1);
  Py_XDECREF(t);
  if (mode && !inference_mode_end(mode)) ok = 0;
  if (ok) { /* the flipped mode and back */
    mode = inference_mode_begin(torch_mod, !before);
    int inside = inference_enabled();
    ok = mode && inside == !before && inference_mode_end(mode) && inference_enabled() == before;
  }
  PyErr_Clear();
  return ok;
}

const char *kr_torch_reuse(void) {
  int r = torch_resolve();
  if (r < 0) PyErr_Clear();
  return reuse_on ? "on" : reuse_off;
}

/* A KrTensor with a source is always the unboxed view of that very tensor
 * (kr_torch_unbox is the only producer of torch views; kiln tensors are
 * values, the runtime never makes views of them). So its data, shape and
 * strides are the source's as of unboxing, and boxing returns the source
 * itself: Python's `return x` identity. If fallback Python code changed the
 * source's metadata in place meanwhile (x.resize_()), `x` is still the
 * object Python would return. */
static int same_as_source(KrTensor *t) {
  return torch_tensor_type && PyObject_TypeCheck(t->source, torch_tensor_type);
}

/* t's elements fill the first numel floats of its buffer: row-major, or the
 * column-major result an elementwise op gives a transposed operand
 * (tensor_ops.c result_new). Result reuse copies those bytes. */
static int fills_buffer(const KrTensor *t) {
  return kr_tensor_is_dense(t) || (t->rank == 2 && t->strides[0] == 1 && t->strides[1] == t->shape[0]);
}

PyObject *kr_torch_box(KrTensor *t) {
  if (t->source) {
    /* `return x`: the argument itself (Python identity semantics). */
    if (same_as_source(t)) {
      Py_INCREF(t->source);
      return t->source;
    }
    /* A different view of framework memory: copy, so that results never
     * alias inputs. */
    KrTensor *c = kr_tensor_new(KR_FW_TORCH, t->rank, t->shape);
    if (!c) return NULL;
    int64_t M = t->rank == 2 ? t->shape[0] : 1, N = t->rank == 2 ? t->shape[1] : t->shape[0];
    int64_t s0 = t->rank == 2 ? t->strides[0] : 0, s1 = t->rank == 2 ? t->strides[1] : t->strides[0];
    kk_unary(KK_ACT_NONE, M, N, t->data, s0, s1, c->data);
    PyObject *r = box_buffer(c);
    Py_DECREF(c);
    return r;
  }
  if (!t->buf) {
    PyErr_SetString(PyExc_SystemError, "kiln-torch: tensor has neither source nor buffer");
    return NULL;
  }
  if (!torch_tensor_type) {
    int r = torch_resolve();
    if (r < 0) return NULL;
    if (r == 0) {
      PyErr_SetString(PyExc_RuntimeError, "kiln-torch: cannot box a tensor result: torch is not imported");
      return NULL;
    }
  }
  size_t nbytes = reuse_on && fills_buffer(t) ? (size_t)kr_numel(t->rank, t->shape) * sizeof(float) : 0;
  if (nbytes == 0 || nbytes > REUSE_MAX_BYTES) return box_buffer(t);
  PyObject *o = reuse_take(t, nbytes);
  if (o) return o;
  o = box_buffer(t);
  if (o && Py_TYPE(o) == torch_tensor_type) reuse_keep(o, t);
  return o;
}

/* ---- autograd state for @torch.no_grad() and @torch.inference_mode() -----
 * no_grad: c10's thread-local GradMode, through the functions libc10
 * exports, once they answered like torch.is_grad_enabled() with the mode on
 * and off; otherwise torch.is_grad_enabled() and torch._C._set_grad_enabled. */
static _Bool (*grad_is_enabled)(void);
static void (*grad_set_enabled)(_Bool);
static PyObject *py_grad_is_enabled, *py_grad_set_enabled;
static int grad_ready;

static int py_grad_mode(void) { return py_flag(py_grad_is_enabled); }
static int py_grad_set(int enabled) { return py_set_flag(py_grad_set_enabled, enabled); }

/* sys.modules["torch"] (borrowed), or NULL with an error naming `decorator`. */
static PyObject *torch_for_guard(const char *decorator) {
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
  if (!mod) PyErr_Format(PyExc_RuntimeError, "kiln-torch: @%s function called without torch imported", decorator);
  return mod;
}

static int grad_init(void) {
  PyObject *mod = torch_for_guard("torch.no_grad()");
  if (!mod) return -1;
  PyObject *c = PyObject_GetAttrString(mod, "_C");
  py_grad_is_enabled = PyObject_GetAttrString(mod, "is_grad_enabled");
  py_grad_set_enabled = c ? PyObject_GetAttrString(c, "_set_grad_enabled") : NULL;
  Py_XDECREF(c);
  if (!py_grad_is_enabled || !py_grad_set_enabled) {
    Py_CLEAR(py_grad_is_enabled);
    Py_CLEAR(py_grad_set_enabled);
    return -1;
  }
  if (!public_path_forced()) {
    _Bool (*is_on)(void) = (_Bool (*)(void))(uintptr_t)find_torch_symbol(mod, "libc10.so", "_ZN3c108GradMode10is_enabledEv");
    void (*set)(_Bool) = (void (*)(_Bool))(uintptr_t)find_torch_symbol(mod, "libc10.so", "_ZN3c108GradMode11set_enabledEb");
    const int before = py_grad_mode();
    int ok = is_on && set && before >= 0;
    for (int want = 0; ok && want < 2; want++) {
      set((_Bool)want);
      ok = py_grad_mode() == want && is_on() == want;
    }
    if (before >= 0 && set) set((_Bool)before);
    PyErr_Clear();
    if (ok) {
      grad_is_enabled = is_on;
      grad_set_enabled = set;
    }
  }
  grad_ready = 1;
  return 0;
}

/* Sets grad mode to `enabled`; returns the mode found (0/1), or -1. */
static int grad_mode_set(int enabled) {
  if (!grad_ready && grad_init() < 0) return -1;
  if (grad_set_enabled) {
    const int was = grad_is_enabled();
    if (was != enabled) grad_set_enabled((_Bool)enabled);
    return was;
  }
  const int was = py_grad_mode();
  if (was < 0 || (was != enabled && py_grad_set(enabled) < 0)) return -1;
  return was;
}

static void grad_mode_restore(int mode) {
  if (grad_set_enabled) {
    if (grad_is_enabled() != mode) grad_set_enabled((_Bool)mode);
    return;
  }
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  if (py_grad_mode() != mode && py_grad_set(mode) < 0) PyErr_WriteUnraisable(py_grad_set_enabled);
  PyErr_Clear();
  PyErr_Restore(et, ev, tb);
}

/* inference_mode: what c10::InferenceMode's constructor does. It is inline
 * C++, so kiln repeats it: it replaces the mode bits of the thread's
 * AutogradState (grad, inference, forward grad, multithreading, view replay,
 * layout enforcement) and forces some bits of the thread's local dispatch
 * key set (ADInplaceOrView no longer included, the autograd keys excluded);
 * the destructor puts both back. Both are thread-locals of libc10:
 * AutogradState::get_tls_state() returns the first, and the exported
 * raw_local_dispatch_key_set lies a fixed distance from it in libc10's TLS
 * block. Which key bits are forced, and to what, is learnt from torch's own
 * guard (torch._C._InferenceMode), and the recipe is used only after it
 * reproduced that guard from six starting states, with the distance checked
 * in a second thread. Otherwise (or KILN_TORCH_PUBLIC=1, or a state holding
 * a graph-exec group, which the constructor would reset) torch's guard
 * object is entered and left through Python (~0.5 us). */
enum {
  AG_ENGAGED = 16,    /* AutogradState: graph_exec_group_ (an optional of 16 bytes): has a value */
  AG_BITS = 24,       /* then its bit-fields, grad_mode_ lowest */
  AG_MODE_MASK = 0x3f, /* the six */
  AG_INFERENCE = 0x22, /* as InferenceMode(true) sets them: inference, layout enforcement */
};
static unsigned char *(*ag_tls)(void); /* c10::AutogradState::get_tls_state */
static ptrdiff_t keys_delta;           /* raw_local_dispatch_key_set's address minus ag_tls()'s */
static uint64_t keys_mask[2], keys_value[2]; /* the key-set bits InferenceMode forces, and to what */
static int inference_native;           /* the recipe passed its self-test */
static int inference_ready;
static PyObject *py_inference_mode;    /* torch._C._InferenceMode */
static const char raw_keys_symbol[] = "_ZN3c104impl26raw_local_dispatch_key_setE";

/* The thread's state as (mode bits, graph-exec group set, included, excluded). */
static PyObject *inference_probe_read(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  const unsigned char *st = ag_tls();
  const uint64_t *k = (const uint64_t *)(const void *)(st + keys_delta);
  return Py_BuildValue("(iiKK)", st[AG_BITS], st[AG_ENGAGED], (unsigned long long)k[0], (unsigned long long)k[1]);
}

/* collect(read) enters torch's guard from each starting state and returns
 * (before, inside, after) for each: read() plus torch's own answers for
 * grad and inference mode. The first starting state, inference_mode(False),
 * has every forced bit at the value the guard does not force. */
static const char inference_probe_src[] =
    "import contextlib, torch\n"
    "def collect(read):\n"
    "    def look():\n"
    "        return read() + (int(torch.is_grad_enabled()), int(torch.is_inference_mode_enabled()))\n"
    "    setups = [lambda: torch.inference_mode(False), contextlib.nullcontext, torch.no_grad,\n"
    "              torch.inference_mode, lambda: torch.autograd.set_multithreading_enabled(False),\n"
    "              lambda: torch.autograd.grad_mode._force_original_view_tracking(True)]\n"
    "    out = []\n"
    "    for setup in setups:\n"
    "        with setup():\n"
    "            before = look()\n"
    "            with torch._C._InferenceMode(True):\n"
    "                inside = look()\n"
    "            out.append((before, inside, look()))\n"
    "    return out\n";

typedef struct {
  int bits, engaged;
  unsigned long long keys[2];
  int grad, inference;
} InferenceLook;

static int inference_look(PyObject *t, InferenceLook *l) {
  return PyArg_ParseTuple(t, "iiKKii", &l->bits, &l->engaged, &l->keys[0], &l->keys[1], &l->grad, &l->inference);
}

/* Does the recipe turn `before` into `inside`, with the bits where torch
 * says they are? */
static int inference_predicts(const InferenceLook *before, const InferenceLook *inside) {
  for (int i = 0; i < 2; i++)
    if (((before->keys[i] & ~keys_mask[i]) | keys_value[i]) != inside->keys[i]) return 0;
  const InferenceLook *l[2] = {before, inside};
  for (int i = 0; i < 2; i++)
    if ((l[i]->bits & 1) != l[i]->grad || ((l[i]->bits >> 1) & 1) != l[i]->inference || l[i]->engaged) return 0;
  return inside->bits == ((before->bits & ~AG_MODE_MASK) | AG_INFERENCE);
}

/* raw_local_dispatch_key_set's address minus ag_tls()'s in the calling
 * thread, into *arg (untouched when not found). dlsym gives a thread-local's
 * address in the calling thread; libc10 is found from ag_tls, as dladdr
 * cannot place a thread-local's address in a library. */
static void *keys_delta_here(void *arg) {
  Dl_info info;
  void *lib = dladdr((void *)(uintptr_t)ag_tls, &info) && info.dli_fname && strstr(info.dli_fname, "libc10.so")
                  ? dlopen(info.dli_fname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)
                  : NULL;
  if (lib) {
    char *keys = dlsym(lib, raw_keys_symbol);
    if (keys) *(ptrdiff_t *)arg = keys - (char *)ag_tls();
    dlclose(lib);
  }
  return NULL;
}

static int inference_selftest(void) {
  static PyMethodDef read_def = {"read", inference_probe_read, METH_NOARGS, NULL};
  const ptrdiff_t unset = PTRDIFF_MIN;
  ptrdiff_t here = unset, other = unset;
  pthread_t th;
  if (!ag_tls || (keys_delta_here(&here), here == unset)) return 0;
  if (pthread_create(&th, NULL, keys_delta_here, &other) != 0) return 0;
  pthread_join(th, NULL);
  if (other != here) return 0;
  keys_delta = here;
  PyObject *g = PyDict_New();
  PyObject *r = g && PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) == 0
                    ? PyRun_String(inference_probe_src, Py_file_input, g, g)
                    : NULL;
  PyObject *collect = r ? PyDict_GetItemString(g, "collect") : NULL;
  PyObject *read = collect ? PyCFunction_New(&read_def, NULL) : NULL;
  PyObject *looks = read ? PyObject_CallOneArg(collect, read) : NULL;
  int ok = looks && PyList_Check(looks) && PyList_GET_SIZE(looks) == 6;
  for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(looks); i++) {
    InferenceLook before, inside, after;
    PyObject *t = PyList_GET_ITEM(looks, i);
    ok = PyTuple_Check(t) && PyTuple_GET_SIZE(t) == 3 && inference_look(PyTuple_GET_ITEM(t, 0), &before) &&
         inference_look(PyTuple_GET_ITEM(t, 1), &inside) && inference_look(PyTuple_GET_ITEM(t, 2), &after);
    if (ok && i == 0)
      for (int w = 0; w < 2; w++) {
        keys_mask[w] = before.keys[w] ^ inside.keys[w];
        keys_value[w] = inside.keys[w] & keys_mask[w];
      }
    ok = ok && (keys_mask[0] | keys_mask[1]) && inference_predicts(&before, &inside) &&
         memcmp(&before, &after, sizeof before) == 0;
  }
  Py_XDECREF(looks);
  Py_XDECREF(read);
  Py_XDECREF(r);
  Py_XDECREF(g);
  PyErr_Clear();
  return ok;
}

static int inference_init(void) {
  PyObject *mod = torch_for_guard("torch.inference_mode()");
  if (!mod) return -1;
  PyObject *c = PyObject_GetAttrString(mod, "_C");
  py_inference_mode = c ? PyObject_GetAttrString(c, "_InferenceMode") : NULL;
  Py_XDECREF(c);
  if (!py_inference_mode) return -1;
  if (!public_path_forced()) {
    ag_tls = (unsigned char *(*)(void))(uintptr_t)find_torch_symbol(mod, "libc10.so", "_ZN3c1013AutogradState13get_tls_stateEv");
    inference_native = inference_selftest();
  }
  inference_ready = 1;
  return 0;
}

static int inference_enter(KrGradGuard *g) {
  if (!inference_ready && inference_init() < 0) return -1;
  unsigned char *st = inference_native ? ag_tls() : NULL;
  if (st && !st[AG_ENGAGED]) {
    uint64_t *k = (uint64_t *)(void *)(st + keys_delta);
    g->saved[0] = st[AG_BITS];
    g->saved[1] = k[0];
    g->saved[2] = k[1];
    st[AG_BITS] = (unsigned char)((st[AG_BITS] & ~AG_MODE_MASK) | AG_INFERENCE);
    for (int i = 0; i < 2; i++) k[i] = (k[i] & ~keys_mask[i]) | keys_value[i];
    g->kind = KR_GUARD_INFERENCE;
    return 0;
  }
  if (!(g->guard = guard_enter(py_inference_mode, 1))) return -1;
  g->kind = KR_GUARD_INFERENCE;
  return 0;
}

static void inference_exit(KrGradGuard *g) {
  if (!g->guard) {
    unsigned char *st = ag_tls();
    uint64_t *k = (uint64_t *)(void *)(st + keys_delta);
    st[AG_BITS] = (unsigned char)g->saved[0];
    k[0] = g->saved[1];
    k[1] = g->saved[2];
    return;
  }
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  if (!guard_exit(g->guard)) PyErr_WriteUnraisable(py_inference_mode);
  g->guard = NULL;
  PyErr_Restore(et, ev, tb);
}

int kr_grad_guard_enter(KrGradGuard *g, int kind) {
  if (kind == KR_GUARD_INFERENCE) return inference_enter(g);
  if (kind != KR_GUARD_NO_GRAD) {
    PyErr_Format(PyExc_SystemError, "kiln: unknown grad guard %d", kind);
    return -1;
  }
  const int was = grad_mode_set(0);
  if (was < 0) return -1;
  g->saved[0] = (uint64_t)was;
  g->kind = kind;
  return 0;
}

void kr_grad_guard_exit(KrGradGuard *g) {
  if (g->kind == KR_GUARD_NO_GRAD) grad_mode_restore((int)g->saved[0]);
  else if (g->kind == KR_GUARD_INFERENCE) inference_exit(g);
  g->kind = 0;
}

/* How each guard is applied: "c10" (libc10's thread-locals), "python"
 * (torch's Python API), or "torch not loaded". Asking sets the guard up. */
const char *kr_torch_guard_path(int kind) {
  int *ready = kind == KR_GUARD_INFERENCE ? &inference_ready : &grad_ready;
  if (!*ready && PyDict_GetItemString(PyImport_GetModuleDict(), "torch")) {
    if ((kind == KR_GUARD_INFERENCE ? inference_init() : grad_init()) < 0) PyErr_Clear();
  }
  if (!*ready) return "torch not loaded";
  return (kind == KR_GUARD_INFERENCE ? inference_native : grad_set_enabled != NULL) ? "c10" : "python";
}
