/* tf_bridge.c — the TensorFlow boundary of the kiln runtime.
 *
 * Two paths, chosen once, lazily, on first use (with the GIL held):
 *
 * "tfe-c-api" (fast): the TFE C API of the TensorFlow wheel that is already
 *   loaded in this process, plus three private symbols of its pywrap image
 *   that convert between a Python EagerTensor and a TFE_TensorHandle.
 *   - The three images (libtensorflow_cc.so.2, libtensorflow_framework.so.2,
 *     python/lib_pywrap_tensorflow_common.so under the `tensorflow` package
 *     directory) are opened with RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD: we only
 *     take handles on what `import tensorflow` mapped, never a second copy.
 *   - Each symbol is looked up in the image that owns it, and dladdr() must
 *     place it in that very file (same st_dev/st_ino), because dlsym on a
 *     handle also searches the image's dependencies.
 *   - TF_Version() must equal tensorflow.__version__ (a mismatch means the C
 *     library and the Python package disagree: public path). Versions other
 *     than the one verified (2.21.0) are used if the self-test passes, and
 *     recorded in kr_tf_path_detail().
 *   - A self-test with a probe tensor checks the private bridge end to end
 *     (handle dtype/shape/device/pointer agree with the public view, and a
 *     tensor we create reads back with the right values) before the path is
 *     enabled.
 *   In:  EagerTensor_CheckExact -> EagerTensor_Handle (borrowed) ->
 *        TFE_TensorHandle{DeviceName,BackingDeviceName,DataType,NumDims,Dim,
 *        DevicePointer}: zero-copy view; KrTensor.source = the EagerTensor.
 *        Up to 128 checked tensors are remembered by (address, TF tensor
 *        id), so a weight passed on every call is not checked again
 *        ("checked tensors" below; kr_tf_checked() says whether it is on).
 *   Out: TF_NewTensor over the KrBuffer's storage (64-byte aligned, so TF does
 *        not copy; the deallocator releases the KrBuffer from whatever thread
 *        TF frees it on) -> TFE_NewTensorHandle -> TF_DeleteTensor ->
 *        EagerTensorFromHandle (takes ownership of the handle).
 *
 * "public" (KILN_TF_PUBLIC=1, or anything above missing or mismatched):
 *   In:  exact type check against tensorflow.python.framework.ops.EagerTensor,
 *        `.device` / `.backing_device` / `.dtype`, then the EagerTensor's
 *        buffer protocol (PyBUF_RECORDS_RO). TF implements it by resolving the
 *        handle to a NumPy array that aliases the tensor's buffer (zero-copy
 *        for every dtype but string/resource); the buffer stays alive as long
 *        as the EagerTensor, which KrTensor.source holds.
 *   Out: tf.experimental.dlpack.from_dlpack on a DLPack capsule that wraps
 *        the KrBuffer (zero-copy; the DLPack deleter releases the buffer).
 *
 * tf.Variable arguments: read like eager TensorFlow does for any op input,
 * i.e. tf.convert_to_tensor(v) (a snapshot of the current value; TF copies on
 * a later in-place assign while the snapshot is referenced), then checked as
 * an EagerTensor (device, dtype, rank). The boxed value of an unchanged
 * Variable argument is that snapshot EagerTensor, not the Variable.
 *
 * Every call into TensorFlow or Python here holds the GIL. The only code that
 * may run without it is the deallocators (they only touch KrBuffer).
 */
#define _GNU_SOURCE 1 /* dladdr; spelt as pyconfig.h spells it (3.10 defines it unguarded) */
#include "runtime_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the few TensorFlow C API declarations we need -------------------------
 * Opaque types and prototypes copied from the wheel's headers
 * (tensorflow/include/tensorflow/c/...), so that we do not pull in the
 * headers' include chain. */
typedef struct TF_Status TF_Status;               /* c/tf_status.h */
typedef struct TF_Tensor TF_Tensor;               /* c/tf_tensor.h */
typedef struct TFE_TensorHandle TFE_TensorHandle; /* c/eager/c_api.h */
enum { KR_TF_OK = 0, KR_TF_FLOAT = 1 };           /* TF_Code TF_OK, TF_DataType TF_FLOAT (c/tf_datatype.h) */

/* c/c_api.h */
typedef const char *(*fn_TF_Version)(void);
/* c/tf_status.h */
typedef TF_Status *(*fn_TF_NewStatus)(void);
typedef void (*fn_TF_DeleteStatus)(TF_Status *);
typedef int (*fn_TF_GetCode)(const TF_Status *); /* returns TF_Code (an int enum) */
typedef const char *(*fn_TF_Message)(const TF_Status *);
/* c/tf_tensor.h: "May return NULL (and invoke the deallocator) if the provided
 * data buffer (data, len) is inconsistent with a tensor of the given
 * TF_DataType and the shape" — so on NULL the deallocator already ran. */
typedef TF_Tensor *(*fn_TF_NewTensor)(int dtype, const int64_t *dims, int num_dims, void *data,
                                      size_t len, void (*deallocator)(void *, size_t, void *),
                                      void *deallocator_arg);
typedef void (*fn_TF_DeleteTensor)(TF_Tensor *);
/* c/eager/c_api.h */
typedef TFE_TensorHandle *(*fn_TFE_NewTensorHandle)(const TF_Tensor *, TF_Status *);
typedef void (*fn_TFE_DeleteTensorHandle)(TFE_TensorHandle *);
typedef int (*fn_TFE_TensorHandleDataType)(TFE_TensorHandle *);
typedef int (*fn_TFE_TensorHandleNumDims)(TFE_TensorHandle *, TF_Status *);
typedef int64_t (*fn_TFE_TensorHandleDim)(TFE_TensorHandle *, int, TF_Status *);
typedef const char *(*fn_TFE_TensorHandleDeviceName)(TFE_TensorHandle *, TF_Status *);
/* c/eager/c_api_experimental.h */
typedef void *(*fn_TFE_TensorHandleDevicePointer)(TFE_TensorHandle *, TF_Status *);
/* python/eager/pywrap_tfe.h (private, C++ linkage; Itanium-mangled names) */
typedef bool (*fn_EagerTensor_CheckExact)(const PyObject *);
typedef TFE_TensorHandle *(*fn_EagerTensor_Handle)(const PyObject *);
typedef PyObject *(*fn_EagerTensorFromHandle)(TFE_TensorHandle *, bool is_packed);

#define KR_TF_VERIFIED_VERSION "2.21.0"

/* ---- state ---------------------------------------------------------------- */

enum { ST_UNINIT = 0, ST_PUBLIC = 1, ST_FAST = 2 };

static struct {
  int state;
  char detail[512];

  /* fast path */
  void *h_cc, *h_fw, *h_py;
  fn_TF_Version TF_Version;
  fn_TF_NewStatus TF_NewStatus;
  fn_TF_DeleteStatus TF_DeleteStatus;
  fn_TF_GetCode TF_GetCode;
  fn_TF_Message TF_Message;
  fn_TF_NewTensor TF_NewTensor;
  fn_TF_DeleteTensor TF_DeleteTensor;
  fn_TFE_NewTensorHandle TFE_NewTensorHandle;
  fn_TFE_DeleteTensorHandle TFE_DeleteTensorHandle;
  fn_TFE_TensorHandleDataType TFE_TensorHandleDataType;
  fn_TFE_TensorHandleNumDims TFE_TensorHandleNumDims;
  fn_TFE_TensorHandleDim TFE_TensorHandleDim;
  fn_TFE_TensorHandleDeviceName TFE_TensorHandleDeviceName;
  fn_TFE_TensorHandleDeviceName TFE_TensorHandleBackingDeviceName;
  fn_TFE_TensorHandleDevicePointer TFE_TensorHandleDevicePointer;
  fn_EagerTensor_CheckExact EagerTensor_CheckExact;
  fn_EagerTensor_Handle EagerTensor_Handle;
  fn_EagerTensorFromHandle EagerTensorFromHandle;
  TF_Status *status; /* reused under the GIL */
  Py_ssize_t id_offset; /* where an EagerTensor keeps TF's unique tensor id (`_id`), or -1 */

  /* both paths (strong references, kept for the life of the process) */
  PyObject *eager_type;     /* tensorflow.python.framework.ops.EagerTensor */
  PyObject *variable_type;  /* tf.Variable */
  PyObject *convert;        /* tf.convert_to_tensor */
  PyObject *float32;        /* tf.float32 */
  PyObject *from_dlpack;    /* tf.experimental.dlpack.from_dlpack */
} S;

/* Zero-element tensors may have a NULL data pointer on the TF side; kiln
 * tensors always get a valid, aligned (never dereferenced) pointer. */
static _Alignas(64) float kr_tf_empty[16];

const char *kr_tf_path(void);

/* ---- small helpers -------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static int is_cpu0(const char *dev) { return dev && ends_with(dev, "/device:CPU:0"); }

/* Dense row-major strides (in elements) for a shape. */
static void dense_strides(int rank, const int64_t *shape, int64_t *strides) {
  if (rank == 1) strides[0] = 1;
  else { strides[1] = 1; strides[0] = shape[1]; }
}

/* "numpy.ndarray", "list", "ResourceVariable" -> module-qualified when not builtins. */
static PyObject *type_name(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  PyObject *qual = PyObject_GetAttrString((PyObject *)tp, "__qualname__");
  PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
  PyObject *r = NULL;
  if (qual && PyUnicode_Check(qual)) {
    if (mod && PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "builtins") != 0)
      r = PyUnicode_FromFormat("%U.%U", mod, qual);
    else {
      r = qual;
      Py_INCREF(r);
    }
  }
  PyErr_Clear();
  Py_XDECREF(qual);
  Py_XDECREF(mod);
  if (!r) r = PyUnicode_FromString(tp->tp_name);
  return r;
}

static void *err_type(PyObject *o, const char *arg) {
  PyObject *tn = type_name(o);
  if (!tn) return NULL;
  PyErr_Format(PyExc_TypeError,
               "kiln-tensorflow: argument '%s': expected a TensorFlow EagerTensor, got %U", arg, tn);
  Py_DECREF(tn);
  return NULL;
}

static void *err_device(const char *arg, const char *dev) {
  PyErr_Format(PyExc_ValueError, "kiln-tensorflow: argument '%s': expected a CPU tensor, got %s", arg,
               dev ? dev : "an unknown device");
  return NULL;
}

/* The dtype name as TensorFlow spells it (o.dtype.name), e.g. "float64". */
static void *err_dtype(PyObject *o, const char *arg) {
  PyObject *dt = PyObject_GetAttrString(o, "dtype");
  PyObject *name = dt ? PyObject_GetAttrString(dt, "name") : NULL;
  Py_XDECREF(dt);
  if (!name) {
    PyErr_Clear();
    name = PyUnicode_FromString("a non-float32 dtype");
    if (!name) return NULL;
  }
  PyErr_Format(PyExc_ValueError, "kiln-tensorflow: argument '%s': expected a float32 tensor, got %S",
               arg, name);
  Py_DECREF(name);
  return NULL;
}

static void *err_rank(const char *arg, int want, int got) {
  PyErr_Format(PyExc_ValueError, "kiln-tensorflow: argument '%s': expected rank-%d tensor, got rank %d",
               arg, want, got);
  return NULL;
}

/* ---- lazy initialisation -------------------------------------------------- */

static void note(const char *fmt, const char *a, const char *b) {
  size_t n = strlen(S.detail);
  if (n >= sizeof S.detail - 2) return;
  if (n) S.detail[n++] = ';', S.detail[n++] = ' ', S.detail[n] = 0;
  snprintf(S.detail + n, sizeof S.detail - n, fmt, a ? a : "", b ? b : "");
}

/* Python-side objects both paths need. Returns 0, or -1 with an exception. */
static int init_python_objects(PyObject *tf) {
  PyObject *ops = PyImport_ImportModule("tensorflow.python.framework.ops");
  if (!ops) return -1;
  S.eager_type = PyObject_GetAttrString(ops, "EagerTensor");
  Py_DECREF(ops);
  if (!S.eager_type) return -1;
  if (!PyType_Check(S.eager_type)) {
    PyErr_SetString(PyExc_RuntimeError, "kiln-tensorflow: tensorflow's EagerTensor is not a type");
    return -1;
  }
  S.variable_type = PyObject_GetAttrString(tf, "Variable");
  S.convert = S.variable_type ? PyObject_GetAttrString(tf, "convert_to_tensor") : NULL;
  S.float32 = S.convert ? PyObject_GetAttrString(tf, "float32") : NULL;
  if (!S.float32) return -1;
  PyObject *dl = PyImport_ImportModule("tensorflow.experimental.dlpack");
  if (dl) {
    S.from_dlpack = PyObject_GetAttrString(dl, "from_dlpack");
    Py_DECREF(dl);
  }
  if (!S.from_dlpack) return -1;
  return 0;
}

/* dladdr must place `sym` in the file `path` (compared by device and inode). */
static int provenance_ok(void *sym, const char *path) {
  Dl_info info;
  struct stat a, b;
  if (!sym || !dladdr(sym, &info) || !info.dli_fname) return 0;
  if (stat(info.dli_fname, &a) != 0 || stat(path, &b) != 0) return 0;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void *bind(void *handle, const char *path, const char *name, int *ok) {
  void *p = dlsym(handle, name);
  if (!p) {
    note("symbol %s missing%s", name, NULL);
    *ok = 0;
    return NULL;
  }
  if (!provenance_ok(p, path)) {
    note("symbol %s not owned by %s", name, path);
    *ok = 0;
    return NULL;
  }
  return p;
}

static void *open_loaded(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) note("%s is not loaded%s", path, NULL);
  return h;
}

static PyObject *probe_tensor(PyObject *tf, int n) {
  /* tf.constant([0.5, 1.5, ...], dtype=tf.float32) built from a list. */
  PyObject *lst = PyList_New(n);
  if (!lst) return NULL;
  for (int i = 0; i < n; i++) PyList_SET_ITEM(lst, i, PyFloat_FromDouble(i + 0.5));
  PyObject *constant = PyObject_GetAttrString(tf, "constant");
  PyObject *r = constant ? PyObject_CallFunctionObjArgs(constant, lst, S.float32, NULL) : NULL;
  Py_XDECREF(constant);
  Py_DECREF(lst);
  return r;
}

static PyObject *fast_box_buffer(KrBuffer *b, float *data, int rank, const int64_t *shape);
static Py_ssize_t find_id_offset(PyObject *tf);

/* End-to-end check of the private bridge on this wheel. 1 = pass. */
static int fast_self_test(PyObject *tf) {
  int ok = 0;
  PyObject *x = probe_tensor(tf, 3), *y = NULL, *arr = NULL;
  Py_buffer view = {0};
  if (!x) goto out;
  if (!S.EagerTensor_CheckExact(x) || Py_TYPE(x) != (PyTypeObject *)S.eager_type) {
    note("self-test: EagerTensor_CheckExact disagrees with the EagerTensor type%s%s", NULL, NULL);
    goto out;
  }
  TFE_TensorHandle *h = S.EagerTensor_Handle(x);
  if (!h || S.TFE_TensorHandleDataType(h) != KR_TF_FLOAT ||
      S.TFE_TensorHandleNumDims(h, S.status) != 1 || S.TF_GetCode(S.status) != KR_TF_OK ||
      S.TFE_TensorHandleDim(h, 0, S.status) != 3 || S.TF_GetCode(S.status) != KR_TF_OK ||
      !is_cpu0(S.TFE_TensorHandleDeviceName(h, S.status))) {
    note("self-test: handle metadata mismatch%s%s", NULL, NULL);
    goto out;
  }
  void *p = S.TFE_TensorHandleDevicePointer(h, S.status);
  if (S.TF_GetCode(S.status) != KR_TF_OK) goto out;
  if (PyObject_GetBuffer(x, &view, PyBUF_RECORDS_RO) < 0) goto out;
  if (view.buf != p || ((float *)p)[2] != 2.5f) {
    note("self-test: device pointer mismatch%s%s", NULL, NULL);
    goto out;
  }
  /* out: a kiln-owned buffer through TF_NewTensor/EagerTensorFromHandle */
  KrBuffer *b = kr_buffer_new(4);
  if (!b) goto out;
  for (int i = 0; i < 4; i++) b->data[i] = (float)i * 0.25f - 1.0f;
  int64_t shape[2] = {2, 2};
  y = fast_box_buffer(b, b->data, 2, shape);
  kr_buffer_release(b);
  if (!y) goto out;
  if (Py_TYPE(y) != (PyTypeObject *)S.eager_type) goto out;
  arr = PyObject_CallMethod(y, "numpy", NULL);
  if (!arr) goto out;
  Py_buffer v2;
  if (PyObject_GetBuffer(arr, &v2, PyBUF_RECORDS_RO) < 0) goto out;
  ok = v2.ndim == 2 && v2.shape[0] == 2 && v2.shape[1] == 2 && v2.itemsize == 4 &&
       ((float *)v2.buf)[3] == -0.25f && ((float *)v2.buf)[0] == -1.0f;
  PyBuffer_Release(&v2);
  if (!ok) note("self-test: boxed tensor reads back wrong%s%s", NULL, NULL);
out:
  if (view.obj) PyBuffer_Release(&view);
  if (PyErr_Occurred()) {
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *s = v ? PyObject_Str(v) : NULL;
    note("self-test raised: %s%s", s && PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : "?", NULL);
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
  }
  Py_XDECREF(arr);
  Py_XDECREF(y);
  Py_XDECREF(x);
  return ok;
}

/* Tries to bind the fast path. 1 = usable. Never raises. */
static int init_fast(PyObject *tf) {
  int ok = 1;
  S.id_offset = -1;
  PyObject *file = PyObject_GetAttrString(tf, "__file__");
  const char *f = file && PyUnicode_Check(file) ? PyUnicode_AsUTF8(file) : NULL;
  if (!f) {
    PyErr_Clear();
    Py_XDECREF(file);
    note("tensorflow.__file__ unknown%s%s", NULL, NULL);
    return 0;
  }
  char dir[4096], p_cc[4200], p_fw[4200], p_py[4200];
  snprintf(dir, sizeof dir, "%s", f);
  Py_DECREF(file);
  char *slash = strrchr(dir, '/');
  if (!slash) return 0;
  *slash = 0;
  snprintf(p_cc, sizeof p_cc, "%s/libtensorflow_cc.so.2", dir);
  snprintf(p_fw, sizeof p_fw, "%s/libtensorflow_framework.so.2", dir);
  snprintf(p_py, sizeof p_py, "%s/python/lib_pywrap_tensorflow_common.so", dir);

  S.h_cc = open_loaded(p_cc);
  S.h_fw = open_loaded(p_fw);
  S.h_py = open_loaded(p_py);
  if (!S.h_cc || !S.h_fw || !S.h_py) return 0;

  /* dlsym gives a void *; copy it into the function pointer (POSIX guarantees
   * the representation; a cast is not ISO C). */
#define SET_FN(dst, img, sym)                      \
  do {                                             \
    void *p_ = bind(S.h_##img, p_##img, sym, &ok); \
    memcpy(&(dst), &p_, sizeof p_);                \
  } while (0)
#define BIND(img, name) SET_FN(S.name, img, #name)
  BIND(cc, TF_Version);
  BIND(cc, TFE_NewTensorHandle);
  BIND(cc, TFE_DeleteTensorHandle);
  BIND(cc, TFE_TensorHandleDataType);
  BIND(cc, TFE_TensorHandleNumDims);
  BIND(cc, TFE_TensorHandleDim);
  BIND(cc, TFE_TensorHandleDeviceName);
  BIND(cc, TFE_TensorHandleDevicePointer);
  BIND(fw, TF_NewStatus);
  BIND(fw, TF_DeleteStatus);
  BIND(fw, TF_GetCode);
  BIND(fw, TF_Message);
  BIND(fw, TF_NewTensor);
  BIND(fw, TF_DeleteTensor);
#undef BIND
  SET_FN(S.TFE_TensorHandleBackingDeviceName, cc, "TFE_TensorHandleBackingDeviceName");
  /* private, python/eager/pywrap_tfe.h (C++): bool EagerTensor_CheckExact(const PyObject*),
   * TFE_TensorHandle* EagerTensor_Handle(const PyObject*),
   * PyObject* EagerTensorFromHandle(TFE_TensorHandle*, bool is_packed) */
  SET_FN(S.EagerTensor_CheckExact, py, "_Z22EagerTensor_CheckExactPK7_object");
  SET_FN(S.EagerTensor_Handle, py, "_Z18EagerTensor_HandlePK7_object");
  SET_FN(S.EagerTensorFromHandle, py, "_Z21EagerTensorFromHandleP16TFE_TensorHandleb");
#undef SET_FN
  if (!ok) return 0;

  /* TF_Version() must be the version of the Python package we run under. */
  const char *cver = S.TF_Version();
  PyObject *pyver = PyObject_GetAttrString(tf, "__version__");
  const char *pv = pyver && PyUnicode_Check(pyver) ? PyUnicode_AsUTF8(pyver) : NULL;
  PyErr_Clear();
  if (!cver || !pv || strcmp(cver, pv) != 0) {
    note("TF_Version() %s != tensorflow.__version__ %s", cver ? cver : "?", pv ? pv : "?");
    Py_XDECREF(pyver);
    return 0;
  }
  if (strcmp(cver, KR_TF_VERIFIED_VERSION) != 0)
    note("TensorFlow %s is not the verified " KR_TF_VERIFIED_VERSION "; self-test passed%s", cver, NULL);
  Py_XDECREF(pyver);

  S.status = S.TF_NewStatus();
  if (!S.status) return 0;
  if (!fast_self_test(tf)) {
    S.TF_DeleteStatus(S.status);
    S.status = NULL;
    return 0;
  }
  S.id_offset = find_id_offset(tf);
  if (S.id_offset < 0) note("EagerTensor id not found: checked tensors are not remembered%s%s", NULL, NULL);
  return 1;
}

/* Returns 0 when initialised; -1 with an exception when TensorFlow is not
 * loaded (`need_tf`: raise) or the public objects cannot be found; -1
 * without one when TensorFlow is not loaded and !need_tf.
 * The state is published last: if the Python calls inside let another thread
 * in (imports may drop the GIL), it may initialise too; the results are
 * equivalent and the first set of references is merely kept forever. */
static int ensure_init(int need_tf) {
  if (S.state != ST_UNINIT) return 0;
  PyObject *mods = PyImport_GetModuleDict();
  PyObject *tf = PyDict_GetItemString(mods, "tensorflow"); /* borrowed */
  if (!tf) {
    if (need_tf)
      PyErr_SetString(PyExc_RuntimeError,
                      "kiln-tensorflow: TensorFlow is not imported in this process");
    return -1;
  }
  Py_INCREF(tf);
  if (init_python_objects(tf) < 0) {
    Py_DECREF(tf);
    Py_CLEAR(S.eager_type);
    Py_CLEAR(S.variable_type);
    Py_CLEAR(S.convert);
    Py_CLEAR(S.float32);
    Py_CLEAR(S.from_dlpack);
    return -1;
  }
  S.detail[0] = 0;
  const char *env = getenv("KILN_TF_PUBLIC");
  int fast = 0;
  if (env && strcmp(env, "1") == 0)
    note("KILN_TF_PUBLIC=1%s%s", NULL, NULL);
  else
    fast = init_fast(tf);
  PyErr_Clear();
  Py_DECREF(tf);
  S.state = fast ? ST_FAST : ST_PUBLIC;
  if (fast && !S.detail[0]) note("TensorFlow %s", S.TF_Version(), NULL);
  return 0;
}

const char *kr_tf_path(void) {
  if (S.state == ST_UNINIT) {
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    (void)ensure_init(0);
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
  }
  return S.state == ST_FAST ? "tfe-c-api" : S.state == ST_PUBLIC ? "public" : "not loaded";
}

/* Whether checked tensors are remembered (see "checked tensors" below). */
const char *kr_tf_checked(void) {
  (void)kr_tf_path();
  if (S.state == ST_UNINIT) return "not loaded";
  if (S.state != ST_FAST) return "off (public path)";
  return S.id_offset >= 0 ? "on" : "off (EagerTensor id not found)";
}

/* Why the path is what it is (for `kiln doctor`). Not in runtime_internal.h yet. */
const char *kr_tf_path_detail(void) {
  (void)kr_tf_path();
  return S.state == ST_UNINIT ? "tensorflow is not imported" : S.detail;
}

/* ---- checked tensors ------------------------------------------------------
 * An EagerTensor is immutable: its handle, and with it its device, dtype,
 * shape and buffer, stay what they were when it was made. So the fast path
 * remembers up to 128 tensors whose check passed (a weight passed on every
 * call skips its ~8 TFE calls, ~100 ns), keyed by address and TensorFlow's
 * tensor id: ids come from one process-wide counter and are never reused, so
 * a new tensor at a freed one's address never matches. The key holds no
 * reference. The id is read from the object at an offset found, and checked
 * against `_id`, at start-up (find_id_offset); if it cannot be, nothing is
 * remembered. The table is 32 sets of 4 by address. A way is held while
 * its tensor is read back at least once in every 8 additions to its set (a
 * model's weights, passed on every call); a fresh tensor takes the least
 * recently used way among the others (fresh inputs of earlier calls, tensors
 * gone), and only when none is left the least recently used. So up to three
 * weights sharing a set stay while fresh inputs come and go, and weights of
 * a model no longer called give their ways up after 8 additions. Only
 * touched with the GIL held. */
#define KR_TF_SEEN_SETS 32
#define KR_TF_SEEN_WAYS 4
#define KR_TF_SEEN_HOLD 8 /* additions to a set a read-back tensor is held for */
typedef struct {
  const PyObject *obj; /* NULL: empty */
  int64_t id;
  int rank;
  int reused;    /* read back since it was added */
  uint32_t mark; /* its set's `added` when last added or read */
  uint64_t used; /* seen_clock when last added or read */
  int64_t shape[2];
  float *data;
} SeenTensor;
typedef struct {
  SeenTensor way[KR_TF_SEEN_WAYS];
  uint32_t added; /* tensors added to this set so far (wraps) */
} SeenSet;
static SeenSet seen[KR_TF_SEEN_SETS];
static uint64_t seen_clock;
static long seen_hits;

static int64_t tensor_id(const PyObject *o) {
  int64_t id;
  memcpy(&id, (const char *)o + S.id_offset, sizeof id);
  return id;
}

static unsigned seen_set(const PyObject *o) {
  return (unsigned)(((uintptr_t)o >> 4) * 0x9e3779b1u >> 16) % KR_TF_SEEN_SETS;
}

/* Tensors read from memory so far, and the set a tensor goes to (for
 * tests). Not in runtime_internal.h. */
long kr_tf_checked_hits(void) { return seen_hits; }
int kr_tf_checked_set(const PyObject *o) { return (int)seen_set(o); }
int kr_tf_checked_ways(void) { return KR_TF_SEEN_WAYS; }
int kr_tf_checked_hold(void) { return KR_TF_SEEN_HOLD; }

static KrTensor *seen_view(PyObject *o, int rank) {
  if (S.id_offset < 0) return NULL;
  const int64_t id = tensor_id(o);
  SeenSet *set = &seen[seen_set(o)];
  for (int w = 0; w < KR_TF_SEEN_WAYS; w++) {
    SeenTensor *e = &set->way[w];
    if (e->obj == o && e->id == id && e->rank == rank) {
      e->reused = 1;
      e->mark = set->added;
      e->used = ++seen_clock;
      seen_hits++;
      int64_t strides[2];
      dense_strides(rank, e->shape, strides);
      return kr_tensor_view(KR_FW_TF, rank, e->data, e->shape, strides, o);
    }
  }
  return NULL;
}

/* The way a fresh tensor replaces: an empty one, else the least recently
 * used not held, else the least recently used. */
static SeenTensor *seen_victim(SeenSet *set) {
  SeenTensor *spare = NULL, *any = &set->way[0];
  for (int w = 0; w < KR_TF_SEEN_WAYS; w++) {
    SeenTensor *e = &set->way[w];
    if (!e->obj) return e;
    const int held = e->reused && set->added - e->mark < KR_TF_SEEN_HOLD;
    if (!held && (!spare || e->used < spare->used)) spare = e;
    if (e->used < any->used) any = e;
  }
  return spare ? spare : any;
}

static void seen_add(const PyObject *o, const KrTensor *t) {
  if (S.id_offset < 0) return;
  SeenSet *set = &seen[seen_set(o)];
  SeenTensor *e = seen_victim(set);
  set->added++;
  e->obj = o;
  e->id = tensor_id(o);
  e->rank = t->rank;
  e->reused = 0;
  e->mark = set->added;
  e->used = ++seen_clock;
  e->shape[0] = t->shape[0];
  e->shape[1] = t->shape[1];
  e->data = t->data;
}

/* The offset in an EagerTensor of an int64 equal to `_id` on every probe
 * (distinct ids, so a coincidence cannot pass), or -1. */
static Py_ssize_t find_id_offset(PyObject *tf) {
  enum { NPROBE = 6 };
  PyObject *probe[NPROBE] = {0};
  int64_t ids[NPROBE];
  Py_ssize_t found = -1;
  const Py_ssize_t size = ((PyTypeObject *)S.eager_type)->tp_basicsize;
  for (int i = 0; i < NPROBE; i++) {
    probe[i] = probe_tensor(tf, 1 + i);
    PyObject *id = probe[i] ? PyObject_GetAttrString(probe[i], "_id") : NULL;
    ids[i] = id && PyLong_Check(id) ? PyLong_AsLongLong(id) : -1;
    Py_XDECREF(id);
    if (ids[i] < 0 || Py_TYPE(probe[i]) != (PyTypeObject *)S.eager_type) goto out;
    for (int j = 0; j < i; j++)
      if (ids[j] == ids[i]) goto out;
  }
  for (Py_ssize_t off = (Py_ssize_t)sizeof(PyObject); off + 8 <= size; off += 8) {
    int all = 1;
    for (int i = 0; i < NPROBE && all; i++) {
      int64_t v;
      memcpy(&v, (const char *)probe[i] + off, sizeof v);
      all = v == ids[i];
    }
    if (all) {
      if (found >= 0) { /* two candidates: trust neither */
        found = -1;
        goto out;
      }
      found = off;
    }
  }
out:
  PyErr_Clear();
  for (int i = 0; i < NPROBE; i++) Py_XDECREF(probe[i]);
  return found;
}

/* ---- unbox ---------------------------------------------------------------- */

static KrTensor *unbox_fast(PyObject *o, int rank, const char *arg) {
  TFE_TensorHandle *h = S.EagerTensor_Handle(o);
  if (!h) {
    PyErr_Format(PyExc_RuntimeError, "kiln-tensorflow: argument '%s': EagerTensor has no handle", arg);
    return NULL;
  }
  const char *dev = S.TFE_TensorHandleDeviceName(h, S.status);
  if (S.TF_GetCode(S.status) != KR_TF_OK || !is_cpu0(dev)) return err_device(arg, dev);
  dev = S.TFE_TensorHandleBackingDeviceName(h, S.status);
  if (S.TF_GetCode(S.status) != KR_TF_OK || !is_cpu0(dev)) return err_device(arg, dev);
  if (S.TFE_TensorHandleDataType(h) != KR_TF_FLOAT) return err_dtype(o, arg);
  int nd = S.TFE_TensorHandleNumDims(h, S.status);
  if (S.TF_GetCode(S.status) != KR_TF_OK) goto tf_error;
  if (nd != rank) return err_rank(arg, rank, nd);
  int64_t shape[2] = {0, 0}, strides[2];
  for (int i = 0; i < rank; i++) {
    shape[i] = S.TFE_TensorHandleDim(h, i, S.status);
    if (S.TF_GetCode(S.status) != KR_TF_OK) goto tf_error;
  }
  dense_strides(rank, shape, strides);
  float *data = (float *)S.TFE_TensorHandleDevicePointer(h, S.status);
  if (S.TF_GetCode(S.status) != KR_TF_OK) goto tf_error;
  if (!data) {
    if (kr_numel(rank, shape) != 0) {
      PyErr_Format(PyExc_RuntimeError, "kiln-tensorflow: argument '%s': tensor has no data", arg);
      return NULL;
    }
    data = kr_tf_empty;
  }
  return kr_tensor_view(KR_FW_TF, rank, data, shape, strides, o);
tf_error:
  PyErr_Format(PyExc_RuntimeError, "kiln-tensorflow: argument '%s': %s", arg, S.TF_Message(S.status));
  return NULL;
}

static int device_attr_ok(PyObject *o, const char *attr, const char *arg) {
  PyObject *d = PyObject_GetAttrString(o, attr);
  if (!d) return -1;
  const char *s = PyUnicode_Check(d) ? PyUnicode_AsUTF8(d) : NULL;
  if (!s) PyErr_Clear();
  int ok = is_cpu0(s);
  if (!ok) err_device(arg, s);
  Py_DECREF(d);
  return ok ? 0 : -1;
}

static KrTensor *unbox_public(PyObject *o, int rank, const char *arg) {
  if (device_attr_ok(o, "device", arg) < 0 || device_attr_ok(o, "backing_device", arg) < 0) return NULL;
  PyObject *dt = PyObject_GetAttrString(o, "dtype");
  if (!dt) return NULL;
  int is_f32 = dt == S.float32 ? 1 : PyObject_RichCompareBool(dt, S.float32, Py_EQ);
  Py_DECREF(dt);
  if (is_f32 < 0) return NULL;
  if (!is_f32) return err_dtype(o, arg);
  Py_buffer v;
  if (PyObject_GetBuffer(o, &v, PyBUF_RECORDS_RO) < 0) return NULL;
  KrTensor *t = NULL;
  if (v.ndim != rank) {
    err_rank(arg, rank, v.ndim);
    goto out;
  }
  if (v.itemsize != 4 || !v.format || strcmp(v.format, "f") != 0) {
    PyErr_Format(PyExc_RuntimeError, "kiln-tensorflow: argument '%s': unexpected buffer format", arg);
    goto out;
  }
  int64_t shape[2] = {0, 0}, strides[2] = {0, 0};
  for (int i = 0; i < rank; i++) {
    shape[i] = v.shape[i];
    strides[i] = v.strides ? v.strides[i] / 4 : 0;
  }
  if (!v.strides) dense_strides(rank, shape, strides);
  float *data = (float *)v.buf;
  if (!data || kr_numel(rank, shape) == 0) {
    data = kr_tf_empty;
    dense_strides(rank, shape, strides);
  }
  /* The view's exporter is a NumPy array aliasing the EagerTensor's own
   * buffer, which lives as long as the EagerTensor (our source). */
  t = kr_tensor_view(KR_FW_TF, rank, data, shape, strides, o);
out:
  PyBuffer_Release(&v);
  return t;
}

KrTensor *kr_tf_unbox(PyObject *o, int rank, const char *arg) {
  if (S.state == ST_UNINIT) {
    /* An EagerTensor implies TensorFlow is loaded; without it, nothing can be one. */
    if (ensure_init(0) < 0) {
      if (PyErr_Occurred()) return NULL;
      return err_type(o, arg);
    }
  }
  int exact = S.state == ST_FAST ? S.EagerTensor_CheckExact(o) : Py_TYPE(o) == (PyTypeObject *)S.eager_type;
  if (exact && S.state == ST_FAST) {
    KrTensor *t = seen_view(o, rank);
    if (!t && !PyErr_Occurred()) {
      t = unbox_fast(o, rank, arg);
      if (t) seen_add(o, t);
    }
    return t;
  }
  if (exact) return unbox_public(o, rank, arg);

  /* tf.Variable: read its value the way eager ops do (tf.convert_to_tensor). */
  int is_var = PyObject_IsInstance(o, S.variable_type);
  if (is_var < 0) return NULL;
  if (!is_var) return err_type(o, arg);
  PyObject *val = PyObject_CallOneArg(S.convert, o);
  if (!val) return NULL;
  KrTensor *t = NULL;
  if (Py_TYPE(val) != (PyTypeObject *)S.eager_type)
    err_type(o, arg);
  else
    t = S.state == ST_FAST ? unbox_fast(val, rank, arg) : unbox_public(val, rank, arg);
  Py_DECREF(val);
  return t;
}

/* ---- box ------------------------------------------------------------------ */

static void release_buffer_dealloc(void *data, size_t len, void *arg) {
  (void)data;
  (void)len;
  kr_buffer_release((KrBuffer *)arg); /* any thread, no GIL needed */
}

/* A new EagerTensor over `data` (dense, rank/shape) kept alive by a new
 * reference to `b`. */
static PyObject *fast_box_buffer(KrBuffer *b, float *data, int rank, const int64_t *shape) {
  size_t nbytes = (size_t)kr_numel(rank, shape) * sizeof(float);
  kr_buffer_retain(b);
  /* data is 64-byte aligned (KrBuffer), so TF keeps it instead of copying. */
  TF_Tensor *tt = S.TF_NewTensor(KR_TF_FLOAT, shape, rank, data ? (void *)data : (void *)kr_tf_empty,
                                 nbytes, release_buffer_dealloc, b);
  if (!tt) { /* the deallocator has run */
    PyErr_SetString(PyExc_RuntimeError, "kiln-tensorflow: TF_NewTensor failed");
    return NULL;
  }
  TFE_TensorHandle *h = S.TFE_NewTensorHandle(tt, S.status);
  S.TF_DeleteTensor(tt); /* the handle keeps its own reference to the buffer */
  if (!h || S.TF_GetCode(S.status) != KR_TF_OK) {
    PyErr_Format(PyExc_RuntimeError, "kiln-tensorflow: TFE_NewTensorHandle failed: %s",
                 S.TF_Message(S.status));
    if (h) S.TFE_DeleteTensorHandle(h);
    return NULL;
  }
  PyObject *r = S.EagerTensorFromHandle(h, false); /* takes ownership of h */
  if (!r && !PyErr_Occurred())
    PyErr_SetString(PyExc_RuntimeError, "kiln-tensorflow: EagerTensorFromHandle failed");
  return r;
}

/* DLPack (v0.x ABI, dlpack.h) for the public path. */
typedef struct {
  int32_t device_type;
  int32_t device_id;
} KrDLDevice;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} KrDLDataType;
typedef struct {
  void *data;
  KrDLDevice device;
  int32_t ndim;
  KrDLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} KrDLTensor;
typedef struct KrDLManagedTensor {
  KrDLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct KrDLManagedTensor *self);
} KrDLManagedTensor;

typedef struct {
  KrDLManagedTensor m;
  int64_t shape[2];
  KrBuffer *buf;
} KrDLBox;

static void dl_deleter(KrDLManagedTensor *self) { /* any thread, no GIL needed */
  KrDLBox *b = (KrDLBox *)self;
  kr_buffer_release(b->buf);
  free(b);
}

static void dl_capsule_destructor(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) { /* never consumed */
    KrDLManagedTensor *m = (KrDLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
    if (m && m->deleter) m->deleter(m);
  }
}

static PyObject *public_box_buffer(KrBuffer *buf, float *data, int rank, const int64_t *shape) {
  KrDLBox *b = (KrDLBox *)calloc(1, sizeof *b);
  if (!b) return PyErr_NoMemory();
  kr_buffer_retain(buf);
  b->buf = buf;
  b->shape[0] = shape[0];
  b->shape[1] = rank == 2 ? shape[1] : 0;
  b->m.dl_tensor.data = data ? (void *)data : (void *)kr_tf_empty;
  b->m.dl_tensor.device.device_type = 1; /* kDLCPU */
  b->m.dl_tensor.device.device_id = 0;
  b->m.dl_tensor.ndim = rank;
  b->m.dl_tensor.dtype.code = 2; /* kDLFloat */
  b->m.dl_tensor.dtype.bits = 32;
  b->m.dl_tensor.dtype.lanes = 1;
  b->m.dl_tensor.shape = b->shape;
  b->m.dl_tensor.strides = NULL; /* compact row-major */
  b->m.dl_tensor.byte_offset = 0;
  b->m.manager_ctx = b;
  b->m.deleter = dl_deleter;
  PyObject *cap = PyCapsule_New(&b->m, "dltensor", dl_capsule_destructor);
  if (!cap) {
    dl_deleter(&b->m);
    return NULL;
  }
  PyObject *r = PyObject_CallOneArg(S.from_dlpack, cap);
  Py_DECREF(cap);
  return r;
}

/* Is `t` exactly the whole of its source EagerTensor? */
static int is_whole_source(const KrTensor *t) {
  PyObject *src = t->source;
  if (!src || t->framework != KR_FW_TF || Py_TYPE(src) != (PyTypeObject *)S.eager_type || !kr_tensor_is_dense(t))
    return 0;
  int64_t n = kr_numel(t->rank, t->shape);
  if (S.state == ST_FAST) {
    TFE_TensorHandle *h = S.EagerTensor_Handle(src);
    if (!h || S.TFE_TensorHandleNumDims(h, S.status) != t->rank || S.TF_GetCode(S.status) != KR_TF_OK)
      return 0;
    for (int i = 0; i < t->rank; i++)
      if (S.TFE_TensorHandleDim(h, i, S.status) != t->shape[i] || S.TF_GetCode(S.status) != KR_TF_OK)
        return 0;
    if (n == 0) return 1;
    void *p = S.TFE_TensorHandleDevicePointer(h, S.status);
    return S.TF_GetCode(S.status) == KR_TF_OK && p == (void *)t->data;
  }
  Py_buffer v;
  if (PyObject_GetBuffer(src, &v, PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    return 0;
  }
  int same = v.ndim == t->rank && v.itemsize == 4;
  for (int i = 0; same && i < t->rank; i++) same = v.shape[i] == t->shape[i];
  if (same && n != 0) same = v.buf == (void *)t->data;
  PyBuffer_Release(&v);
  return same;
}

PyObject *kr_tf_box(KrTensor *t) {
  if (ensure_init(1) < 0) return NULL;
  if (t->rank < 1 || t->rank > 2) {
    PyErr_Format(PyExc_SystemError, "kiln-tensorflow: cannot box a rank-%d tensor", (int)t->rank);
    return NULL;
  }
  if (is_whole_source(t)) {
    Py_INCREF(t->source);
    return t->source;
  }
  /* Dense kiln storage: hand it to TensorFlow without copying. */
  if (t->buf && kr_tensor_is_dense(t))
    return S.state == ST_FAST ? fast_box_buffer(t->buf, t->data, t->rank, t->shape)
                              : public_box_buffer(t->buf, t->data, t->rank, t->shape);

  /* A strided view, or memory kiln does not own: copy into a dense buffer. */
  int64_t n = kr_numel(t->rank, t->shape);
  KrBuffer *b = kr_buffer_new((size_t)(n > 0 ? n : 1));
  if (!b) return NULL;
  float *dst = b->data;
  if (t->rank == 1) {
    for (int64_t i = 0; i < t->shape[0]; i++) dst[i] = t->data[i * t->strides[0]];
  } else {
    for (int64_t i = 0; i < t->shape[0]; i++)
      for (int64_t j = 0; j < t->shape[1]; j++)
        *dst++ = t->data[i * t->strides[0] + j * t->strides[1]];
  }
  PyObject *r = S.state == ST_FAST ? fast_box_buffer(b, b->data, t->rank, t->shape)
                                   : public_box_buffer(b, b->data, t->rank, t->shape);
  kr_buffer_release(b);
  return r;
}
