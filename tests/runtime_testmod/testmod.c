/* testmod.c — a hand-written "generated-like" extension for testing the kiln
 * runtime through its KrApi table (tests/test_runtime.py builds it).
 *
 * It plays the role of a compiled module (module_init in exec mode with a
 * few functions, and a second module in bind mode) and exposes thin
 * wrappers over every KrApi entry so the tests can compare them with
 * Python/torch semantics.
 *
 * Build-time macros: KT_MODNAME (default kiln_testmod), KT_FILENAME (the .py
 * path recorded for tracebacks). */
#include "kiln_runtime.h"

#include <string.h>
#include <time.h>

#ifndef KT_MODNAME
#define KT_MODNAME kiln_testmod
#endif
#ifndef KT_FILENAME
#define KT_FILENAME "ktest_src.py"
#endif
#define KT_STR2(x) #x
#define KT_STR(x) KT_STR2(x)
#define KT_CAT2(a, b) a##b
#define KT_CAT(a, b) KT_CAT2(a, b)

static const KrApi *kr;

/* ---- the "compiled" module --------------------------------------------- */

static const char kt_source[] =
    "\"\"\"kiln runtime test module.\"\"\"\n"                  /* 1 */
    "def f(a, b, c=3, *, k, m=5):\n"                           /* 2 */
    "    \"doc of f\"\n"                                        /* 3 */
    "    return ('py', a, b, c, k, m)\n"                        /* 4 */
    "def q(a, b, c, *, x, y, z):\n"                            /* 5 */
    "    return ('py', a, b, c, x, y, z)\n"                     /* 6 */
    "def one(a):\n"                                            /* 7 */
    "    return ('py', a)\n"                                    /* 8 */
    "def g(x):\n"                                              /* 9 */
    "    return x + 1\n"                                        /* 10 */
    "def h(a, b):\n"                                           /* 11 */
    "    return a // b\n"                                       /* 12 */
    "def kwo(*, k=1):\n"                                       /* 13 */
    "    return ('py', k)\n";                                   /* 14 */

static PyObject *kg_globals;

#define SIG(NAME, NP, NPOS, ...)                                                        \
  static const char *const NAME##_pnames[] = {__VA_ARGS__};                            \
  static PyObject *NAME##_names[NP];                                                   \
  static PyObject *NAME##_defaults[NP];                                                \
  static KrSig NAME##_sig = {#NAME, NP, NPOS, NAME##_pnames, NAME##_names, NAME##_defaults, 0, 0, 0};

SIG(f, 5, 3, "a", "b", "c", "k", "m")
SIG(q, 6, 3, "a", "b", "c", "x", "y", "z")
SIG(one, 1, 1, "a")
SIG(g, 1, 1, "x")
SIG(h, 2, 2, "a", "b")
SIG(kwo, 1, 0, "k")

/* A native function that just returns its bound arguments. */
#define ECHO_FN(NAME)                                                                  \
  static PyObject *kf_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,  \
                             PyObject *kwnames) {                                      \
    (void)self;                                                                        \
    PyObject *out[8];                                                                  \
    if (kr->bind_args(&NAME##_sig, args, nargs, kwnames, out) < 0) return NULL;        \
    PyObject *t = PyTuple_New(NAME##_sig.nparams + 1);                                 \
    if (!t) return NULL;                                                               \
    PyTuple_SET_ITEM(t, 0, PyUnicode_FromString("native"));                            \
    for (int i = 0; i < NAME##_sig.nparams; i++) {                                     \
      Py_INCREF(out[i]);                                                               \
      PyTuple_SET_ITEM(t, i + 1, out[i]);                                              \
    }                                                                                  \
    return t;                                                                          \
  }

ECHO_FN(f)
ECHO_FN(q)
ECHO_FN(one)
ECHO_FN(kwo)

/* h(a: int, b: int) -> int: a // b with the runtime's helper; traceback at line 12. */
static PyObject *kf_h(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  PyObject *out[2];
  int64_t a, b, r;
  if (kr->bind_args(&h_sig, args, nargs, kwnames, out) < 0) return NULL;
  if (kr->unbox_int(out[0], "h", "a", &a) < 0 || kr->unbox_int(out[1], "h", "b", &b) < 0) goto error;
  if (kr->int_floordiv(a, b, &r, KT_FILENAME, 12) < 0) goto error_line;
  return PyLong_FromLongLong(r);
error_line:
  kr->add_traceback("h", KT_FILENAME, 12);
  return NULL;
error:
  kr->add_traceback("h", KT_FILENAME, 11);
  return NULL;
}

static KrFuncDef kt_funcs[] = {
    {"f", (PyCFunction)(void (*)(void))kf_f, &f_sig, "native", NULL, {0}, NULL, 0, 2, 2, NULL},
    {"q", (PyCFunction)(void (*)(void))kf_q, &q_sig, "native", NULL, {0}, NULL, 0, 5, 5, NULL},
    {"one", (PyCFunction)(void (*)(void))kf_one, &one_sig, "native", NULL, {0}, NULL, 0, 7, 7, NULL},
    {"g", NULL, &g_sig, "python", "uses an unsupported construct [KILN099]", {0}, NULL, 0, 9, 9, NULL},
    {"h", (PyCFunction)(void (*)(void))kf_h, &h_sig, "native", NULL, {0}, NULL, 0, 11, 11, NULL},
    {"kwo", (PyCFunction)(void (*)(void))kf_kwo, &kwo_sig, "native", NULL, {0}, NULL, 0, 13, 13, NULL},
};

static const char *const kt_strings[] = {"alpha", "beta", "x"};
static const Py_ssize_t kt_string_lens[] = {5, 4, 1};
static PyObject *kt_interned[3];

static KrModuleDef kt_def = {
    KT_FILENAME, kt_source, sizeof(kt_source) - 1, kt_funcs, (int)(sizeof kt_funcs / sizeof kt_funcs[0]),
    kt_strings, kt_string_lens, 3, kt_interned, &kg_globals, 0,
};

/* ---- a second module in bind mode -------------------------------------- */

static PyObject *kb_globals;
SIG(bf, 2, 1, "a", "k")
ECHO_FN(bf)
static KrFuncDef kb_funcs[] = {
    {"bf", (PyCFunction)(void (*)(void))kf_bf, &bf_sig, "native", NULL, {0}, NULL, 0, 0, 0, NULL}, /* lines unknown */
    {"bg", NULL, NULL, "python", "closure [KILN042]", {0}, NULL, 0, 0, 0, NULL},
};
static PyObject *kb_interned[1];
static KrModuleDef kb_def = {
    KT_FILENAME, "", 0, kb_funcs, 2, NULL, NULL, 0, kb_interned, &kb_globals, 1,
};

/* ---- wrappers ------------------------------------------------------------ */

static PyObject *w_globals(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  return Py_BuildValue("(OO)", kg_globals ? kg_globals : Py_None, kb_globals ? kb_globals : Py_None);
}

static PyObject *w_interned(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  return Py_BuildValue("(OOO)", kt_interned[0], kt_interned[1], kt_interned[2]);
}

static PyObject *w_unbox_int(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  const char *fn, *arg;
  int64_t v;
  if (!PyArg_ParseTuple(args, "Oss", &o, &fn, &arg)) return NULL;
  if (kr->unbox_int(o, fn, arg, &v) < 0) return NULL;
  return PyLong_FromLongLong(v);
}

static PyObject *w_unbox_float(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  const char *fn, *arg;
  double v;
  if (!PyArg_ParseTuple(args, "Oss", &o, &fn, &arg)) return NULL;
  if (kr->unbox_float(o, fn, arg, &v) < 0) return NULL;
  return PyFloat_FromDouble(v);
}

static PyObject *w_unbox_bool(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  const char *fn, *arg;
  int v;
  if (!PyArg_ParseTuple(args, "Oss", &o, &fn, &arg)) return NULL;
  if (kr->unbox_bool(o, fn, arg, &v) < 0) return NULL;
  return PyBool_FromLong(v);
}

#define INT2_FN(NAME, CALL)                                         \
  static PyObject *w_##NAME(PyObject *self, PyObject *args) {       \
    (void)self;                                                     \
    long long a, b;                                                 \
    int64_t r;                                                      \
    if (!PyArg_ParseTuple(args, "LL", &a, &b)) return NULL;         \
    if (CALL < 0) return NULL;                                      \
    return PyLong_FromLongLong(r);                                  \
  }
INT2_FN(int_floordiv, kr->int_floordiv(a, b, &r, "ovf.py", 7))
INT2_FN(int_mod, kr->int_mod(a, b, &r))
INT2_FN(int_pow, kr->int_pow(a, b, &r, "ovf.py", 7))
INT2_FN(int_lshift, kr->int_lshift(a, b, &r, "ovf.py", 7))

static PyObject *w_int_rshift(PyObject *self, PyObject *args) {
  (void)self;
  long long a, b;
  if (!PyArg_ParseTuple(args, "LL", &a, &b)) return NULL;
  return PyLong_FromLongLong(kr->int_rshift(a, b));
}

static PyObject *w_int_truediv(PyObject *self, PyObject *args) {
  (void)self;
  long long a, b;
  double r;
  if (!PyArg_ParseTuple(args, "LL", &a, &b)) return NULL;
  if (kr->int_truediv(a, b, &r) < 0) return NULL;
  return PyFloat_FromDouble(r);
}

#define FLT2_FN(NAME)                                                     \
  static PyObject *w_##NAME(PyObject *self, PyObject *args) {             \
    (void)self;                                                           \
    double a, b, r;                                                       \
    if (!PyArg_ParseTuple(args, "dd", &a, &b)) return NULL;               \
    int rc = kr->NAME(a, b, &r);                                          \
    if (rc < 0) return NULL;                                              \
    if (rc == 2) return PyUnicode_FromString("complex");                  \
    return PyFloat_FromDouble(r);                                         \
  }
FLT2_FN(float_div)
FLT2_FN(float_floordiv)
FLT2_FN(float_mod)
FLT2_FN(float_pow)

static PyObject *w_float_to_int(PyObject *self, PyObject *args) {
  (void)self;
  double a;
  int64_t r;
  if (!PyArg_ParseTuple(args, "d", &a)) return NULL;
  if (kr->float_to_int(a, &r, "ovf.py", 9) < 0) return NULL;
  return PyLong_FromLongLong(r);
}

static PyObject *w_int_float_cmp(PyObject *self, PyObject *args) {
  (void)self;
  long long a;
  double b;
  if (!PyArg_ParseTuple(args, "Ld", &a, &b)) return NULL;
  return PyLong_FromLong(kr->int_float_cmp(a, b));
}

static PyObject *w_negative_shift(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  if (kr->negative_shift() != -1) PyErr_SetString(PyExc_AssertionError, "negative_shift must return -1");
  return NULL;
}

static PyObject *w_raise_overflow(PyObject *self, PyObject *args) {
  (void)self;
  const char *file;
  int line;
  if (!PyArg_ParseTuple(args, "si", &file, &line)) return NULL;
  kr->raise_overflow(file, line);
  return NULL;
}

static PyObject *w_raise_with_tb(PyObject *self, PyObject *args) {
  (void)self;
  const char *func, *file;
  int line;
  if (!PyArg_ParseTuple(args, "ssi", &func, &file, &line)) return NULL;
  PyErr_SetString(PyExc_ValueError, "boom");
  kr->add_traceback(func, file, line);
  return NULL;
}

static PyObject *w_load_global(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *g, *name;
  if (!PyArg_ParseTuple(args, "O!U", &PyDict_Type, &g, &name)) return NULL;
  return kr->load_global(g, name);
}

static PyObject *w_unbound_local(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  kr->unbound_local(name);
  return NULL;
}

static PyObject *w_power(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
  return kr->power(a, b);
}

static PyObject *w_inplace_power(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
  return kr->inplace_power(a, b);
}

static PyObject *w_unpack(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *seq;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "On", &seq, &n)) return NULL;
  PyObject *out[16];
  if (n > 16) return NULL;
  if (kr->unpack(seq, n, out) < 0) return NULL;
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, out[i]); /* steals */
  return t;
}

/* tensor_unbox(o, fw, rank, arg) -> (shape, strides, data_ptr, source_is_o, framework) */
static PyObject *w_tensor_unbox(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  int fw, rank;
  const char *arg;
  if (!PyArg_ParseTuple(args, "Oiis", &o, &fw, &rank, &arg)) return NULL;
  KrTensor *t = kr->tensor_unbox(o, fw, rank, arg);
  if (!t) return NULL;
  PyObject *r;
  if (t->rank == 1)
    r = Py_BuildValue("((L)(L)nOi)", (long long)t->shape[0], (long long)t->strides[0], (Py_ssize_t)t->data,
                      t->source == o ? Py_True : Py_False, t->framework);
  else
    r = Py_BuildValue("((LL)(LL)nOi)", (long long)t->shape[0], (long long)t->shape[1], (long long)t->strides[0],
                      (long long)t->strides[1], (Py_ssize_t)t->data, t->source == o ? Py_True : Py_False,
                      t->framework);
  Py_DECREF(t);
  return r;
}

static PyObject *w_roundtrip(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  int fw, rank;
  if (!PyArg_ParseTuple(args, "Oii", &o, &fw, &rank)) return NULL;
  KrTensor *t = kr->tensor_unbox(o, fw, rank, "x");
  if (!t) return NULL;
  PyObject *r = kr->tensor_box(t);
  Py_DECREF(t);
  return r;
}

static PyObject *w_from_object(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  int fw, rank;
  if (!PyArg_ParseTuple(args, "Oii", &o, &fw, &rank)) return NULL;
  KrTensor *t = kr->tensor_from_object(o, fw, rank, "fo.py", 3);
  if (!t) return NULL;
  PyObject *r = kr->tensor_box(t);
  Py_DECREF(t);
  return r;
}

static int rank_of(PyObject *o, int fw) {
  if (fw == KR_FW_TEST) {
    PyObject *mv = PyMemoryView_FromObject(o);
    if (!mv) return -1;
    int nd = PyMemoryView_GET_BUFFER(mv)->ndim;
    Py_DECREF(mv);
    return nd;
  }
  PyObject *r = PyObject_GetAttrString(o, "ndim");
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  return (int)v;
}

static KrTensor *unbox_any(PyObject *o, int fw, const char *arg) {
  if (o == Py_None) return NULL;
  int rank = rank_of(o, fw);
  if (rank < 0) return NULL;
  return kr->tensor_unbox(o, fw, rank, arg);
}

/* tensor_op(op, a, b=None, c=None, fw=1, fwb=fw): b is unboxed as framework fwb */
static PyObject *w_tensor_op(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwlist[] = {"op", "a", "b", "c", "fw", "fwb", NULL};
  int op, fw = KR_FW_TORCH, fwb = -1;
  PyObject *a, *b = Py_None, *c = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "iO|OOii", kwlist, &op, &a, &b, &c, &fw, &fwb)) return NULL;
  if (fwb < 0) fwb = fw;
  KrTensor *ta = NULL, *tb = NULL, *tc = NULL, *r = NULL;
  PyObject *res = NULL;
  ta = unbox_any(a, fw, "a");
  if (!ta) goto done;
  if (b != Py_None && !(tb = unbox_any(b, fwb, "b"))) goto done;
  if (c != Py_None && !(tc = unbox_any(c, fw, "c"))) goto done;
  r = kr->tensor_op(op, ta, tb, tc, "model.py", 42);
  if (!r) goto done;
  res = kr->tensor_box(r);
done:
  Py_XDECREF(ta);
  Py_XDECREF(tb);
  Py_XDECREF(tc);
  Py_XDECREF(r);
  return res;
}

/* loop(o, fw, rank, n): n × (unbox; box; release both) — refcount checks */
static PyObject *w_loop(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  int fw, rank;
  long n;
  if (!PyArg_ParseTuple(args, "Oiil", &o, &fw, &rank, &n)) return NULL;
  for (long i = 0; i < n; i++) {
    KrTensor *t = kr->tensor_unbox(o, fw, rank, "x");
    if (!t) return NULL;
    PyObject *b = kr->tensor_box(t);
    Py_DECREF(t);
    if (!b) return NULL;
    Py_DECREF(b);
  }
  Py_RETURN_NONE;
}

/* loop_op(op, o, n): n × (unbox o; relu-like unary op; box result) */
static PyObject *w_loop_op(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  int op;
  long n;
  if (!PyArg_ParseTuple(args, "iOl", &op, &o, &n)) return NULL;
  for (long i = 0; i < n; i++) {
    KrTensor *t = unbox_any(o, KR_FW_TORCH, "x");
    if (!t) return NULL;
    KrTensor *r = kr->tensor_op(op, t, NULL, NULL, "model.py", 1);
    Py_DECREF(t);
    if (!r) return NULL;
    PyObject *b = kr->tensor_box(r);
    Py_DECREF(r);
    if (!b) return NULL;
    Py_DECREF(b);
  }
  Py_RETURN_NONE;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* bench(o, rank, n) -> dict of ns per call */
static PyObject *w_bench(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *o;
  int rank;
  long n;
  if (!PyArg_ParseTuple(args, "Oil", &o, &rank, &n)) return NULL;
  double t0 = now_ns();
  for (long i = 0; i < n; i++) {
    KrTensor *t = kr->tensor_unbox(o, KR_FW_TORCH, rank, "x");
    if (!t) return NULL;
    Py_DECREF(t);
  }
  double t1 = now_ns();
  KrTensor *t = kr->tensor_unbox(o, KR_FW_TORCH, rank, "x");
  if (!t) return NULL;
  double t2 = now_ns();
  for (long i = 0; i < n; i++) {
    PyObject *b = kr->tensor_box(t);
    if (!b) return NULL;
    Py_DECREF(b);
  }
  double t3 = now_ns();
  KrTensor *r = kr->tensor_op(KR_OP_RELU, t, NULL, NULL, "m.py", 1);
  Py_DECREF(t);
  if (!r) return NULL;
  double t4 = now_ns();
  for (long i = 0; i < n; i++) {
    PyObject *b = kr->tensor_box(r);
    if (!b) return NULL;
    Py_DECREF(b);
  }
  double t5 = now_ns();
  Py_DECREF(r);
  PyObject *i0 = PyLong_FromLong(1), *i1 = PyLong_FromLong(2);
  PyObject *argv[2] = {i0, i1};
  PyObject *kwn = NULL;
  PyObject *out[5];
  (void)kwn;
  double t6 = now_ns();
  for (long i = 0; i < n; i++) {
    if (kr->bind_args(&h_sig, argv, 2, NULL, out) < 0) return NULL;
  }
  double t7 = now_ns();
  Py_DECREF(i0);
  Py_DECREF(i1);
  return Py_BuildValue("{s:d,s:d,s:d,s:d}", "unbox", (t1 - t0) / n, "box_source", (t3 - t2) / n,
                       "box_new", (t5 - t4) / n, "bind_fast", (t7 - t6) / n);
}

static PyMethodDef kt_methods[] = {
    {"globals_", w_globals, METH_NOARGS, NULL},
    {"interned", w_interned, METH_NOARGS, NULL},
    {"unbox_int", w_unbox_int, METH_VARARGS, NULL},
    {"unbox_float", w_unbox_float, METH_VARARGS, NULL},
    {"unbox_bool", w_unbox_bool, METH_VARARGS, NULL},
    {"int_floordiv", w_int_floordiv, METH_VARARGS, NULL},
    {"int_mod", w_int_mod, METH_VARARGS, NULL},
    {"int_pow", w_int_pow, METH_VARARGS, NULL},
    {"int_lshift", w_int_lshift, METH_VARARGS, NULL},
    {"int_rshift", w_int_rshift, METH_VARARGS, NULL},
    {"int_truediv", w_int_truediv, METH_VARARGS, NULL},
    {"float_div", w_float_div, METH_VARARGS, NULL},
    {"float_floordiv", w_float_floordiv, METH_VARARGS, NULL},
    {"float_mod", w_float_mod, METH_VARARGS, NULL},
    {"float_pow", w_float_pow, METH_VARARGS, NULL},
    {"float_to_int", w_float_to_int, METH_VARARGS, NULL},
    {"int_float_cmp", w_int_float_cmp, METH_VARARGS, NULL},
    {"negative_shift", w_negative_shift, METH_NOARGS, NULL},
    {"raise_overflow", w_raise_overflow, METH_VARARGS, NULL},
    {"raise_with_tb", w_raise_with_tb, METH_VARARGS, NULL},
    {"load_global", w_load_global, METH_VARARGS, NULL},
    {"unbound_local", w_unbound_local, METH_VARARGS, NULL},
    {"power", w_power, METH_VARARGS, NULL},
    {"inplace_power", w_inplace_power, METH_VARARGS, NULL},
    {"unpack", w_unpack, METH_VARARGS, NULL},
    {"tensor_unbox", w_tensor_unbox, METH_VARARGS, NULL},
    {"roundtrip", w_roundtrip, METH_VARARGS, NULL},
    {"from_object", w_from_object, METH_VARARGS, NULL},
    {"tensor_op", (PyCFunction)(void (*)(void))w_tensor_op, METH_VARARGS | METH_KEYWORDS, NULL},
    {"loop", w_loop, METH_VARARGS, NULL},
    {"loop_op", w_loop_op, METH_VARARGS, NULL},
    {"bench", w_bench, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kt_module = {
    PyModuleDef_HEAD_INIT, KT_STR(KT_MODNAME), "kiln runtime test module", -1, kt_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC KT_CAT(PyInit_, KT_MODNAME)(void) {
  kr = kr_import();
  if (!kr) return NULL;
  PyObject *m = PyModule_Create(&kt_module);
  if (!m) return NULL;
  if (kr->module_init(m, &kt_def) < 0) goto fail;
  PyObject *bm = PyModule_New(KT_STR(KT_MODNAME) "_bound");
  if (!bm) goto fail;
  if (kr->module_init(bm, &kb_def) < 0 || PyModule_AddObject(m, "bound", bm) < 0) {
    Py_DECREF(bm);
    goto fail;
  }
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
