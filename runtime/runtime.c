/* runtime.c — the `kiln._runtime` extension module.
 *
 * Exports the KrApi function table (capsule `kiln._runtime._C_API`) that
 * generated modules import with kr_import(), plus a few introspection
 * functions for `kiln doctor`. This file holds module setup, argument
 * binding, tracebacks, scalar helpers with Python's exact semantics, the
 * Python-fallback helpers, KrBuffer/KrTensor and the framework dispatch of
 * the tensor boundary. Tensor operations are in tensor_ops.c, the torch
 * boundary in torch_bridge.c, the TensorFlow boundary in tf_bridge.c. */
#include "runtime_internal.h"
#include "kernels.h"

#include <frameobject.h> /* PyFrame_New */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* KrBuffer                                                                  */
/* ------------------------------------------------------------------------ */

/* Buffers are one aligned block (header, then data at +64). They are
 * recycled, so a steady-state call reuses the memory of the previous call's
 * intermediates (and of outputs the framework has freed) instead of calling
 * malloc: small ones through per-size-class free lists, large ones (above
 * 256 KiB, sized in 64 KiB steps) through a few slots taken best-fit, where a
 * power-of-two class would waste up to half the block, the least recently
 * kept giving way to new ones. Buffers may be
 * released from any thread without the GIL (framework deleters), so the
 * lists are guarded by a spinlock: critical sections are a few instructions. */
#define KR_POOL_CLASSES 13     /* 64 B .. 256 KiB (power-of-two classes) */
#define KR_POOL_DEPTH 8        /* buffers kept per class */
#define KR_LARGE_SLOTS 8       /* large buffers kept */
#define KR_LARGE_STEP ((size_t)64 << 10)
#define KR_POOL_MAX_BYTES ((size_t)32 << 20) /* never keep more than this idle */
#define KR_HEADER 64

static struct {
  atomic_flag lock;
  KrBuffer *free[KR_POOL_CLASSES][KR_POOL_DEPTH];
  int count[KR_POOL_CLASSES];
  KrBuffer *large[KR_LARGE_SLOTS]; /* NULL: empty slot */
  unsigned long large_kept[KR_LARGE_SLOTS]; /* kept_clock when its buffer was kept */
  unsigned long kept_clock;
  size_t bytes; /* idle bytes held */
} pool = {.lock = ATOMIC_FLAG_INIT};
static atomic_long allocations;

static int size_class(size_t bytes) {
  size_t cap = 64;
  for (int c = 0; c < KR_POOL_CLASSES; c++, cap <<= 1)
    if (bytes <= cap) return c;
  return -1;
}

static void pool_lock(void) {
  while (atomic_flag_test_and_set_explicit(&pool.lock, memory_order_acquire)) {
  }
}

static void pool_unlock(void) { atomic_flag_clear_explicit(&pool.lock, memory_order_release); }

long kr_buffer_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

/* A lane in front of the pool for the GIL holder: a tensor being destroyed
 * that holds the only reference to its (small) buffer parks it here, one
 * per size class, and the next new tensor of that class takes it, with
 * neither the lock nor a refcount atomic. That is the loop-carried tensor of
 * a compiled loop (`h = (h @ w + b).relu()`), every iteration. Only code
 * holding the GIL touches it (KrTensors are made and destroyed with it),
 * so a free-threaded build has none. */
#ifdef Py_GIL_DISABLED
#define KR_STASH 0
#else
#define KR_STASH 1
static KrBuffer *stash[KR_POOL_CLASSES];
static size_t stash_bytes;
#endif

size_t kr_buffer_idle_bytes(void) { /* called with the GIL */
  pool_lock();
  size_t n = pool.bytes;
  pool_unlock();
#if KR_STASH
  n += stash_bytes;
#endif
  return n;
}

/* The smallest idle large buffer holding nbytes without wasting more than a
 * quarter of itself, or NULL. Caller holds the lock. */
static KrBuffer *take_large(size_t nbytes) {
  int best = -1;
  for (int i = 0; i < KR_LARGE_SLOTS; i++) {
    KrBuffer *b = pool.large[i];
    if (b && b->cap >= nbytes && b->cap - nbytes <= b->cap / 4 && (best < 0 || b->cap < pool.large[best]->cap))
      best = i;
  }
  if (best < 0) return NULL;
  KrBuffer *b = pool.large[best];
  pool.large[best] = NULL;
  pool.bytes -= b->cap;
  return b;
}

/* Keeps an idle large buffer, in place of the least recently kept ones
 * when the slots or the idle budget are full: a working set that moved on
 * (other shapes, another model) must not leave every later call to malloc.
 * Buffers given up go to evicted[] (at most KR_LARGE_SLOTS), to be freed
 * after the lock. Returns whether b was kept. Caller holds the lock. */
static int keep_large(KrBuffer *b, KrBuffer **evicted, int *nevicted) {
  if (b->cap > KR_POOL_MAX_BYTES) return 0;
  for (;;) {
    int empty = -1, oldest = -1;
    for (int i = 0; i < KR_LARGE_SLOTS; i++) {
      if (!pool.large[i]) empty = i;
      else if (oldest < 0 || pool.large_kept[i] < pool.large_kept[oldest]) oldest = i;
    }
    if (empty >= 0 && pool.bytes + b->cap <= KR_POOL_MAX_BYTES) {
      pool.large[empty] = b;
      pool.large_kept[empty] = ++pool.kept_clock;
      pool.bytes += b->cap;
      return 1;
    }
    if (oldest < 0) return 0; /* the budget is held by small buffers */
    evicted[(*nevicted)++] = pool.large[oldest];
    pool.bytes -= pool.large[oldest]->cap;
    pool.large[oldest] = NULL;
  }
}

KrBuffer *kr_buffer_new(size_t nfloats) {
  if (nfloats > (SIZE_MAX - 2 * KR_HEADER) / sizeof(float)) {
    PyErr_NoMemory();
    return NULL;
  }
  size_t nbytes = nfloats * sizeof(float);
  int cls = size_class(nbytes);
  KrBuffer *b = NULL;
  pool_lock();
  if (cls >= 0) {
    if (pool.count[cls] > 0) {
      b = pool.free[cls][--pool.count[cls]];
      pool.bytes -= b->cap;
    }
  } else {
    b = take_large(nbytes);
  }
  pool_unlock();
  if (!b) {
    /* zero-size tensors still get a valid, aligned pointer */
    size_t cap = cls >= 0 ? (size_t)64 << cls : (nbytes + KR_LARGE_STEP - 1) / KR_LARGE_STEP * KR_LARGE_STEP;
    if (cap < nbytes || cap > SIZE_MAX - KR_HEADER) {
      PyErr_NoMemory();
      return NULL;
    }
    char *block = aligned_alloc(64, KR_HEADER + cap);
    if (!block) {
      PyErr_NoMemory();
      return NULL;
    }
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    b = (KrBuffer *)block;
    b->data = (float *)(block + KR_HEADER);
    b->cap = cap;
    b->size_class = cls;
  }
  atomic_init(&b->refcnt, 1);
  b->nbytes = nbytes;
  return b;
}

void kr_buffer_retain(KrBuffer *b) { atomic_fetch_add_explicit(&b->refcnt, 1, memory_order_relaxed); }

void kr_buffer_release(KrBuffer *b) {
  if (!b) return;
  if (atomic_fetch_sub_explicit(&b->refcnt, 1, memory_order_acq_rel) != 1) return;
  int cls = b->size_class;
  KrBuffer *evicted[KR_LARGE_SLOTS];
  int nevicted = 0;
  pool_lock();
  if (cls >= 0) {
    if (pool.count[cls] < KR_POOL_DEPTH && pool.bytes + b->cap <= KR_POOL_MAX_BYTES) {
      pool.free[cls][pool.count[cls]++] = b;
      pool.bytes += b->cap;
      b = NULL;
    }
  } else if (keep_large(b, evicted, &nevicted)) {
    b = NULL;
  }
  pool_unlock();
  free(b);
  for (int i = 0; i < nevicted; i++) free(evicted[i]);
}

/* ------------------------------------------------------------------------ */
/* KrTensor                                                                  */
/* ------------------------------------------------------------------------ */

/* Freed KrTensors are kept for reuse, as CPython keeps floats: a compiled
 * call makes one per tensor argument and per result, and a pop from this
 * array is cheaper than pymalloc's allocation and free. Every KrTensor is
 * made and destroyed with the GIL held, which guards the array (so there is
 * none in a free-threaded build). */
#ifdef Py_GIL_DISABLED
#define KR_TENSOR_FREE_MAX 0
#else
#define KR_TENSOR_FREE_MAX 64
#endif
static KrTensor *tensor_free[KR_TENSOR_FREE_MAX + 1];
static int tensor_nfree;

static void krtensor_dealloc(PyObject *self) {
  KrTensor *t = (KrTensor *)self;
  Py_CLEAR(t->source);
  if (t->buf) {
#if KR_STASH
    KrBuffer *b = t->buf;
    /* refcnt 1 is this tensor's reference: no other thread can reach b */
    if (b->size_class >= 0 && !stash[b->size_class] && atomic_load_explicit(&b->refcnt, memory_order_acquire) == 1) {
      stash[b->size_class] = b;
      stash_bytes += b->cap;
    } else
#endif
      kr_buffer_release(t->buf);
    t->buf = NULL;
  }
  if (tensor_nfree < KR_TENSOR_FREE_MAX)
    tensor_free[tensor_nfree++] = t;
  else
    PyObject_Free(self);
}

static PyObject *krtensor_repr(PyObject *self) {
  KrTensor *t = (KrTensor *)self;
  if (t->rank == 1)
    return PyUnicode_FromFormat("<kiln tensor [%lld] fw=%d>", (long long)t->shape[0], (int)t->framework);
  return PyUnicode_FromFormat("<kiln tensor [%lld, %lld] fw=%d>", (long long)t->shape[0],
                              (long long)t->shape[1], (int)t->framework);
}

/* Not GC-tracked: a KrTensor only references framework tensors and kiln
 * buffers, neither of which can reference a KrTensor (KrTensors are boxed
 * before Python code sees them), so no cycle can go through one. */
PyTypeObject KrTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kiln._runtime.KrTensor",
    .tp_basicsize = sizeof(KrTensor),
    .tp_dealloc = krtensor_dealloc,
    .tp_repr = krtensor_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "kiln's internal tensor value (never exposed to user code).",
};

static KrTensor *krtensor_alloc(void) {
  KrTensor *t = tensor_nfree ? tensor_free[--tensor_nfree] : (KrTensor *)PyObject_Malloc(sizeof(KrTensor));
  if (!t) return (KrTensor *)PyErr_NoMemory();
  PyObject_Init((PyObject *)t, &KrTensor_Type);
  t->source = NULL;
  t->buf = NULL;
  return t;
}

KrTensor *kr_tensor_new(int framework, int rank, const int64_t *shape) {
  int64_t n = 1;
  bool bad = false;
  for (int i = 0; i < rank; i++) /* no division: an idiv was half this function's time */
    bad |= shape[i] < 0 || __builtin_mul_overflow(n, shape[i], &n);
  if (bad || n > INT64_MAX / 4) { /* the count, not a dim: [2**62, 0] is empty, as eager's */
    PyErr_SetString(PyExc_MemoryError, "kiln: tensor too large");
    return NULL;
  }
  KrBuffer *b = NULL;
#if KR_STASH
  int cls = size_class((size_t)n * sizeof(float));
  if (cls >= 0 && stash[cls]) { /* refcnt still 1: it passes to this tensor */
    b = stash[cls];
    stash[cls] = NULL;
    stash_bytes -= b->cap;
    b->nbytes = (size_t)n * sizeof(float);
  }
#endif
  if (!b) b = kr_buffer_new((size_t)n);
  if (!b) return NULL;
  KrTensor *t = krtensor_alloc();
  if (!t) {
    kr_buffer_release(b);
    return NULL;
  }
  t->data = b->data;
  t->rank = rank;
  t->framework = framework;
  t->buf = b;
  if (rank == 1) {
    t->shape[0] = shape[0];
    t->shape[1] = 1;
    t->strides[0] = 1;
    t->strides[1] = 1;
  } else {
    t->shape[0] = shape[0];
    t->shape[1] = shape[1];
    t->strides[0] = shape[1] > 0 ? shape[1] : 1; /* torch's contiguous strides: [N, 0] is (1, 1) */
    t->strides[1] = 1;
  }
  return t;
}

KrTensor *kr_tensor_view(int framework, int rank, float *data, const int64_t *shape,
                         const int64_t *strides, PyObject *source) {
  KrTensor *t = krtensor_alloc();
  if (!t) return NULL;
  t->data = data;
  t->rank = rank;
  t->framework = framework;
  t->shape[0] = shape[0];
  t->strides[0] = strides[0];
  if (rank == 2) {
    t->shape[1] = shape[1];
    t->strides[1] = strides[1];
  } else {
    t->shape[1] = 1;
    t->strides[1] = 1;
  }
  Py_XINCREF(source);
  t->source = source;
  return t;
}

/* ------------------------------------------------------------------------ */
/* module setup                                                              */
/* ------------------------------------------------------------------------ */

enum { MODE_AUTO, MODE_NATIVE, MODE_PYTHON };

/* KILN_MODE from os.environ, read now. Returns -1 with ValueError. */
static int read_mode(void) {
  PyObject *os = PyImport_ImportModule("os");
  if (!os) return -1;
  PyObject *environ = PyObject_GetAttrString(os, "environ");
  Py_DECREF(os);
  if (!environ) return -1;
  PyObject *v = PyMapping_GetItemString(environ, "KILN_MODE");
  Py_DECREF(environ);
  if (!v) {
    if (!PyErr_ExceptionMatches(PyExc_KeyError)) return -1;
    PyErr_Clear();
    return MODE_AUTO;
  }
  int mode = -1;
  if (PyUnicode_Check(v)) {
    if (PyUnicode_CompareWithASCIIString(v, "auto") == 0 || PyUnicode_GET_LENGTH(v) == 0)
      mode = MODE_AUTO;
    else if (PyUnicode_CompareWithASCIIString(v, "native") == 0)
      mode = MODE_NATIVE;
    else if (PyUnicode_CompareWithASCIIString(v, "python") == 0)
      mode = MODE_PYTHON;
  }
  if (mode < 0)
    PyErr_Format(PyExc_ValueError, "kiln: invalid KILN_MODE %R (expected auto, native or python)", v);
  Py_DECREF(v);
  return mode;
}

static PyObject *raise_not_native(PyObject *msg, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
  (void)args;
  (void)nargs;
  (void)kwnames;
  PyErr_SetObject(PyExc_RuntimeError, msg);
  return NULL;
}

/* A builtin function object for a compiled function. Its PyMethodDef must
 * outlive the function object: it is the KrFuncDef's own `method`, static
 * in the generated module (which is never unloaded), filled on first use
 * and reused by every later binding. */
static PyObject *make_cfunction(PyMethodDef *ml, const char *name, PyCFunction fn, PyObject *orig,
                                PyObject *self, PyObject *modname) {
  if (!ml->ml_name) {
    ml->ml_meth = fn;
    ml->ml_flags = METH_FASTCALL | METH_KEYWORDS;
    ml->ml_doc = NULL;
    PyObject *doc = orig ? PyObject_GetAttrString(orig, "__doc__") : NULL;
    if (!doc) {
      PyErr_Clear();
    } else {
      Py_ssize_t len;
      const char *s = PyUnicode_Check(doc) ? PyUnicode_AsUTF8AndSize(doc, &len) : NULL;
      if (s) {
        char *copy = (char *)PyMem_RawMalloc((size_t)len + 1); /* kept with the method def */
        if (copy) {
          memcpy(copy, s, (size_t)len + 1);
          ml->ml_doc = copy;
        }
      }
      PyErr_Clear();
      Py_DECREF(doc);
    }
    ml->ml_name = name; /* last: marks the def complete */
  }
  return PyCFunction_NewEx(ml, self, modname);
}

/* The function under decorators that keep it as __wrapped__ (functools.wraps,
 * as @torch.no_grad() does): its defaults are the compiled function's.
 * Borrowed; at most 16 levels. */
static PyObject *unwrapped(PyObject *fn) {
  for (int depth = 0; depth < 16; depth++) {
    PyObject *inner = PyObject_GetAttrString(fn, "__wrapped__");
    if (!inner) {
      PyErr_Clear();
      break;
    }
    Py_DECREF(inner); /* still referenced by fn */
    fn = inner;
  }
  return fn;
}

/* Fills sig->defaults from the original function's __defaults__ and
 * __kwdefaults__ (strong references, replacing earlier ones). */
static int fill_defaults(KrSig *sig, PyObject *orig) {
  PyObject *defs = PyObject_GetAttrString(orig, "__defaults__");
  if (!defs) return -1;
  PyObject *kwdefs = PyObject_GetAttrString(orig, "__kwdefaults__");
  if (!kwdefs) {
    Py_DECREF(defs);
    return -1;
  }
  int rc = -1;
  Py_ssize_t ndef = PyTuple_Check(defs) ? PyTuple_GET_SIZE(defs) : 0;
  if (ndef > sig->nposparams) {
    PyErr_Format(PyExc_RuntimeError,
                 "kiln: function '%s' has %zd defaults but %d positional parameters; rebuild the module",
                 sig->name, ndef, sig->nposparams);
    goto done;
  }
  for (int i = 0; i < sig->nparams; i++) {
    PyObject *d = NULL;
    if (i < sig->nposparams) {
      Py_ssize_t first = sig->nposparams - ndef;
      if (i >= first) d = PyTuple_GET_ITEM(defs, i - first);
    } else if (PyDict_Check(kwdefs)) {
      d = PyDict_GetItemWithError(kwdefs, sig->names[i]);
      if (!d && PyErr_Occurred()) goto done;
    }
    Py_XINCREF(d);
    Py_XSETREF(sig->defaults[i], d);
  }
  rc = 0;
done:
  Py_DECREF(defs);
  Py_DECREF(kwdefs);
  return rc;
}

/* ---- lambdas and nested defs (KrLambda) ---- */

static int is_comprehension(PyObject *name) {
  return PyUnicode_CompareWithASCIIString(name, "<listcomp>") == 0 ||
         PyUnicode_CompareWithASCIIString(name, "<setcomp>") == 0 ||
         PyUnicode_CompareWithASCIIString(name, "<dictcomp>") == 0 ||
         PyUnicode_CompareWithASCIIString(name, "<genexpr>") == 0;
}

/* Appends (code, line, col, qualname, parent) for each function (lambda,
 * def or generator expression) whose code object `code` loads, and for
 * those of the comprehensions it makes (which 3.10 and 3.11 compile as
 * functions of their own; 3.12 inlines them) and of its generator
 * expressions, in the order the instructions load them; parent is the
 * index of the generator expression's entry it is in, or -1. `prefix` is what
 * a comprehension's functions' 3.10 __qualname__ starts with
 * ("f.<locals>.<listcomp>"); a function's own is the string 3.10 loads
 * right after its code for MAKE_FUNCTION (`helper` for a def a `global`
 * names). */
static int collect_functions(PyObject *dis, PyObject *code, PyObject *prefix, PyObject *out, Py_ssize_t parent,
                             int depth) {
  if (depth > 64) return 0;
  PyObject *insts = PyObject_CallMethod(dis, "get_instructions", "O", code);
  PyObject *list = insts ? PySequence_List(insts) : NULL;
  Py_XDECREF(insts);
  if (!list) return -1;
  int rc = 0;
  for (Py_ssize_t k = 0; rc == 0 && k < PyList_GET_SIZE(list); k++) {
    PyObject *ins = Py_NewRef(PyList_GET_ITEM(list, k));
    PyObject *opname = PyObject_GetAttrString(ins, "opname");
    PyObject *arg = opname ? PyObject_GetAttrString(ins, "argval") : NULL;
    PyObject *name = arg && PyCode_Check(arg) ? PyObject_GetAttrString(arg, "co_name") : NULL;
    if (!opname || !arg) rc = -1;
    else if (name && PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(opname, "LOAD_CONST") == 0) {
      PyObject *qual = NULL;
#if PY_VERSION_HEX < 0x030B0000
      if (!is_comprehension(name) && k + 1 < PyList_GET_SIZE(list)) {
        PyObject *after = PyObject_GetAttrString(PyList_GET_ITEM(list, k + 1), "argval");
        if (after && PyUnicode_Check(after)) qual = after;
        else Py_XDECREF(after);
        PyErr_Clear();
      }
#endif
      if (!qual) qual = PyUnicode_FromFormat("%U.%U", prefix, name);
      const int genexpr = qual && PyUnicode_CompareWithASCIIString(name, "<genexpr>") == 0;
      if (!qual) rc = -1;
      else if (is_comprehension(name) && !genexpr) {
        rc = collect_functions(dis, arg, qual, out, parent, depth + 1);
      } else { /* a function (a generator expression's too, then the functions in it) */
        PyObject *line = PyObject_GetAttrString(arg, "co_firstlineno");
#if PY_VERSION_HEX >= 0x030B0000
        PyObject *pos = PyObject_GetAttrString(ins, "positions");
        PyObject *col = pos ? PyObject_GetAttrString(pos, "col_offset") : NULL;
        Py_XDECREF(pos);
        if (col == Py_None) { /* -X no_debug_ranges: no columns, as on 3.10 */
          Py_DECREF(col);
          col = PyLong_FromLong(-1);
        }
#else
        PyObject *col = PyLong_FromLong(-1);
#endif
        PyObject *up = PyLong_FromSsize_t(parent);
        PyObject *entry = line && col && up ? PyTuple_Pack(5, arg, line, col, qual, up) : NULL;
        const Py_ssize_t here = PyList_GET_SIZE(out);
        if (!entry || PyList_Append(out, entry) < 0) rc = -1;
        Py_XDECREF(entry);
        Py_XDECREF(up);
        Py_XDECREF(col);
        Py_XDECREF(line);
        if (rc == 0 && genexpr) rc = collect_functions(dis, arg, qual, out, here, depth + 1);
      }
      Py_XDECREF(qual);
    }
    Py_XDECREF(name);
    Py_XDECREF(arg);
    Py_XDECREF(opname);
    Py_DECREF(ins);
  }
  Py_DECREF(list);
  return rc < 0 || PyErr_Occurred() ? -1 : 0;
}

/* want split at commas: a new list of str. */
static PyObject *split_names(const char *want) {
  PyObject *s = PyUnicode_FromString(want);
  PyObject *sep = s ? PyUnicode_FromString(",") : NULL;
  PyObject *parts = sep && *want ? PyUnicode_Split(s, sep, -1) : sep ? PyList_New(0) : NULL;
  Py_XDECREF(sep);
  Py_XDECREF(s);
  return parts;
}

/* Does code have l's name and parameters, and do l's cells include its
 * free variables (a lambda's: are they)? On a match, *select is which of
 * them (see KrLambda). 1, 0, or -1 with an exception. */
static int function_code_matches(const KrLambda *l, PyObject *code, PyObject **select) {
  PyObject *name = PyObject_GetAttrString(code, "co_name");
  PyObject *argc = name ? PyObject_GetAttrString(code, "co_argcount") : NULL;
  PyObject *kwc = argc ? PyObject_GetAttrString(code, "co_kwonlyargcount") : NULL;
  PyObject *free = kwc ? PyObject_GetAttrString(code, "co_freevars") : NULL;
  PyObject *names = free ? PyObject_GetAttrString(code, "co_varnames") : NULL;
  PyObject *params = names ? split_names(l->varnames) : NULL;
  PyObject *cells = params ? split_names(l->freevars) : NULL;
  int ok = -1;
  *select = NULL;
  if (cells && PyTuple_Check(names) && PyTuple_Check(free)) {
    Py_ssize_t np = PyList_GET_SIZE(params), nf = PyTuple_GET_SIZE(free);
    PyObject *want = PyUnicode_FromString(l->name);
    ok = want && PyUnicode_Check(name) && PyUnicode_Compare(name, want) == 0 &&
         PyLong_AsLong(argc) == l->argcount && PyLong_AsLong(kwc) == l->kwonlyargcount &&
         PyTuple_GET_SIZE(names) >= np;
    Py_XDECREF(want);
    for (Py_ssize_t i = 0; ok == 1 && i < np; i++) {
      int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(names, i), PyList_GET_ITEM(params, i), Py_EQ);
      ok = eq < 0 ? -1 : eq;
    }
    int identity = nf == PyList_GET_SIZE(cells);
    if (!identity && !strcmp(l->name, "<lambda>")) ok = ok < 0 ? ok : 0; /* kiln knows a lambda's exactly */
    PyObject *sel = ok == 1 ? PyTuple_New(nf) : NULL;
    if (ok == 1 && !sel) ok = -1;
    for (Py_ssize_t i = 0; ok == 1 && i < nf; i++) {
      Py_ssize_t k = PySequence_Index(cells, PyTuple_GET_ITEM(free, i));
      if (k < 0) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) ok = -1;
        else PyErr_Clear(), ok = 0;
        break;
      }
      identity = identity && k == i;
      PyObject *ki = PyLong_FromSsize_t(k);
      if (!ki) ok = -1;
      else PyTuple_SET_ITEM(sel, i, ki);
    }
    if (ok == 1 && !identity) *select = Py_NewRef(sel);
    Py_XDECREF(sel);
    if (PyErr_Occurred()) ok = -1;
  }
  Py_XDECREF(cells);
  Py_XDECREF(params);
  Py_XDECREF(names);
  Py_XDECREF(free);
  Py_XDECREF(kwc);
  Py_XDECREF(argc);
  Py_XDECREF(name);
  if (ok != 1) Py_CLEAR(*select);
  return ok;
}

static int same_signature(const KrLambda *a, const KrLambda *b) {
  return a->line == b->line && a->argcount == b->argcount && a->kwonlyargcount == b->kwonlyargcount &&
         !strcmp(a->name, b->name) && !strcmp(a->varnames, b->varnames) && !strcmp(a->freevars, b->freevars);
}

/* Fills each KrLambda's code object (and 3.10 qualname) from the original
 * function. With columns (3.11+), the function at l's line and column.
 * Without (3.10, or -X no_debug_ranges), among the functions on l's line
 * whose code matches l, the one in l's place among kiln's functions that
 * look the same (KrLambda.nth orders them as 3.10's compiler does); a
 * while loop's test and a finally block are compiled more than once, so
 * there may be more, but there are fewer when CPython dropped one as
 * unreachable (`(lambda: 1) if False else (lambda: 2)`): which one is then
 * unknown, and this returns 1: the function runs as Python (2: a line
 * with a generator expression, see below). One not found stays NULL:
 * make_lambda raises if it is ever made. 0, 1, 2, or -1 with an exception. */
static int find_lambdas(KrFuncDef *f, PyObject *orig) {
  PyObject *fn = unwrapped(orig);
  if (!PyFunction_Check(fn)) return 0; /* nothing to find */
  PyObject *code = PyFunction_GET_CODE(fn), *qual = ((PyFunctionObject *)fn)->func_qualname;
  Py_INCREF(code);
  Py_INCREF(qual);
  PyObject *prefix = PyUnicode_FromFormat("%S.<locals>", qual);
  PyObject *dis = prefix ? PyImport_ImportModule("dis") : NULL;
  PyObject *found = dis ? PyList_New(0) : NULL;
  int rc = found ? collect_functions(dis, code, prefix, found, -1, 0) : -1;
  /* Without columns, kiln's generator expression is told from another on
   * its line (one a consumer takes, which kiln runs itself, or one in its
   * own body) by nothing: on such a line it must be the one function. */
  for (int i = 0; rc == 0 && i < f->nlambdas; i++) {
    const KrLambda *l = &f->lambdas[i];
    if (strcmp(l->name, "<genexpr>")) continue;
    int kiln_here = 0, found_here = 0, columns = 1;
    for (int j = 0; j < f->nlambdas; j++) kiln_here += f->lambdas[j].line == l->line;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(found); j++) {
      PyObject *e = PyList_GET_ITEM(found, j);
      if (PyLong_AsLong(PyTuple_GET_ITEM(e, 1)) != l->line) continue;
      found_here++;
      columns = columns && PyLong_AsLong(PyTuple_GET_ITEM(e, 2)) >= 0;
    }
    if (!columns && (kiln_here != 1 || found_here != 1)) rc = 2;
  }
  /* The generator expressions kiln makes first: the functions in their
   * bodies are CPython's own, none of kiln's (phantoms, skipped after). */
  const Py_ssize_t nfound = found ? PyList_GET_SIZE(found) : 0;
  char *made = rc == 0 ? PyMem_Calloc((size_t)nfound + 1, 1) : NULL;
  if (rc == 0 && !made) {
    PyErr_NoMemory();
    rc = -1;
  }
  for (int k = 0; rc == 0 && k < 2 * f->nlambdas; k++) {
    KrLambda *l = &f->lambdas[k % f->nlambdas];
    if ((k < f->nlambdas) != !strcmp(l->name, "<genexpr>")) continue;
    Py_CLEAR(l->code);
    Py_CLEAR(l->qualname);
    Py_CLEAR(l->select);
    int place = 0, alike = 0; /* l's place among kiln's functions like it, and how many there are */
    for (int j = 0; j < f->nlambdas; j++)
      if (same_signature(l, &f->lambdas[j])) place += f->lambdas[j].nth < l->nth, alike++;
    int seen = 0; /* matching functions without columns met so far */
    PyObject *pick = NULL, *select = NULL;
    for (Py_ssize_t j = 0; rc == 0 && j < nfound; j++) {
      PyObject *e = PyList_GET_ITEM(found, j);
      if (PyLong_AsLong(PyTuple_GET_ITEM(e, 1)) != l->line) continue;
      long col = PyLong_AsLong(PyTuple_GET_ITEM(e, 2));
      if (col >= 0 && col != l->col) continue;
      int phantom = 0;
      for (Py_ssize_t up = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 4)); up >= 0 && !phantom;
           up = PyLong_AsSsize_t(PyTuple_GET_ITEM(PyList_GET_ITEM(found, up), 4)))
        phantom = made[up];
      if (phantom) continue;
      PyObject *sel = NULL;
      int ok = function_code_matches(l, PyTuple_GET_ITEM(e, 0), &sel);
      if (ok < 0) rc = -1;
      if (ok <= 0) continue;
      if (col >= 0 || seen++ == place) {
        if (!pick) {
          pick = e;
          select = sel;
          sel = NULL;
          made[j] = !strcmp(l->name, "<genexpr>");
        }
        if (col >= 0) break;
      }
      Py_XDECREF(sel);
    }
    if (rc == 0 && seen && seen < alike) rc = 1; /* some were dropped: which is unknown */
    if (rc == 0 && pick) {
      l->code = Py_NewRef(PyTuple_GET_ITEM(pick, 0));
      l->select = select;
      select = NULL;
#if PY_VERSION_HEX < 0x030B0000
      l->qualname = Py_NewRef(PyTuple_GET_ITEM(pick, 3));
#endif
    }
    Py_XDECREF(select);
  }
  PyMem_Free(made);
  Py_XDECREF(found);
  Py_XDECREF(dis);
  Py_XDECREF(prefix);
  Py_XDECREF(qual);
  Py_XDECREF(code);
  return rc;
}

/* builtins.globals: called from a compiled function, which has no frame,
 * it would return the calling Python frame's globals. */
static PyObject *builtin_globals;

static int optimize_level; /* sys.flags.optimize, read at import */
static int kr_asserts_enabled(void) { return optimize_level == 0; }

static PyObject *kr_call_noargs(PyObject *callee, PyObject *globals) {
  if (callee == builtin_globals) return Py_NewRef(globals);
  return PyObject_CallNoArgs(callee);
}

static PyObject *kr_make_lambda(const KrLambda *l, PyObject *globals, PyObject *defaults, PyObject *kwdefaults,
                                PyObject *closure) {
  if (!l->code) {
    PyErr_Format(PyExc_RuntimeError,
                 "kiln: the %s at line %d, column %d has no code object: none was found in the original "
                 "function at import; rebuild the module from its current source",
                 !strcmp(l->name, "<lambda>") ? "lambda" : !strcmp(l->name, "<genexpr>") ? "generator expression" : "function",
                 l->line, l->col + 1);
    return NULL;
  }
  PyObject *fn = PyFunction_NewWithQualName(l->code, globals, l->qualname);
  if (!fn) return NULL;
  PyObject *cells = NULL;
  if (closure && l->select) { /* the cells its code wants, of those kiln passed */
    Py_ssize_t n = PyTuple_GET_SIZE(l->select);
    cells = n ? PyTuple_New(n) : NULL;
    for (Py_ssize_t i = 0; cells && i < n; i++)
      PyTuple_SET_ITEM(cells, i, Py_NewRef(PyTuple_GET_ITEM(closure, PyLong_AsSsize_t(PyTuple_GET_ITEM(l->select, i)))));
    if (n && !cells) {
      Py_DECREF(fn);
      return NULL;
    }
  } else {
    cells = Py_XNewRef(closure);
  }
  int rc = (defaults && PyFunction_SetDefaults(fn, defaults) < 0) ||
           (kwdefaults && PyFunction_SetKwDefaults(fn, kwdefaults) < 0) || (cells && PyFunction_SetClosure(fn, cells) < 0);
  Py_XDECREF(cells);
  if (rc) {
    Py_DECREF(fn);
    return NULL;
  }
  return fn;
}

/* The module's value under f's name is still what its def statement made:
 * the function itself, or with decorators one that keeps it as __wrapped__.
 * A name rebound since (`f = g`, a later def, a match capture) keeps its
 * value: the compiled function is not the one it names. */
static int made_by_def(const KrFuncDef *f, PyObject *orig) {
  if (f->def_line <= 0) return 1; /* a table that does not say (tests/runtime_testmod) */
  PyObject *fn = f->first_line < f->def_line ? unwrapped(orig) : orig;
  if (!PyFunction_Check(fn)) return 0;
  PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(fn);
  if (code->co_firstlineno < f->first_line || code->co_firstlineno > f->def_line) return 0;
  for (const char *c = f->name; *c; c++)
    if ((unsigned char)*c >= 0x80) return 1; /* CPython's name is its NFKC form: the lines say */
  return PyUnicode_CompareWithASCIIString(code->co_name, f->name) == 0;
}

/* The object at a dotted path ("torch.nn.functional", "math.sqrt"): the
 * module sys.modules holds under its first name, then attributes (no
 * import is run). NULL with no error if there is none. */
static PyObject *object_at_path(const char *path) {
  const char *dot = strchr(path, '.');
  PyObject *top = PyUnicode_FromStringAndSize(path, dot ? (Py_ssize_t)(dot - path) : (Py_ssize_t)strlen(path));
  if (!top) return NULL;
  PyObject *obj = PyImport_GetModule(top);
  Py_DECREF(top);
  while (obj && dot) {
    const char *next = strchr(dot + 1, '.');
    PyObject *name = PyUnicode_FromStringAndSize(dot + 1, next ? (Py_ssize_t)(next - dot - 1) : (Py_ssize_t)strlen(dot + 1));
    PyObject *attr = name ? PyObject_GetAttr(obj, name) : NULL;
    Py_XDECREF(name);
    Py_SETREF(obj, attr);
    dot = next;
  }
  if (!obj && PyErr_ExceptionMatches(PyExc_Exception)) PyErr_Clear(); /* a module's __getattr__ may raise anything */
  return obj;
}

/* The first of f's import guards (name, path pairs) whose global is not the
 * object at its path now that the module has run (`torch = None` in an
 * `except ImportError:`): what kiln resolved through it does not hold.
 * NULL when all hold; *failed = -1 on an error to propagate. */
static const char *const *broken_import_guard(const KrFuncDef *f, PyObject *globals, int *failed) {
  *failed = 0;
  for (const char *const *g = f->import_guards; g && g[0] && g[1]; g += 2) {
    PyObject *bound = PyMapping_GetItemString(globals, g[0]);
    if (!bound) {
      if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
        *failed = -1;
        return NULL;
      }
      PyErr_Clear();
      return g;
    }
    PyObject *want = object_at_path(g[1]);
    int same = want == bound;
    Py_DECREF(bound);
    Py_XDECREF(want);
    if (PyErr_Occurred()) {
      *failed = -1;
      return NULL;
    }
    if (!same) return g;
  }
  return NULL;
}

/* Looks up the originals, fills defaults, records __kiln_python__ and
 * installs the functions by mode. `originals` is a mapping (or the globals
 * dict); `install` is where the chosen callables go: the module dict (exec
 * mode) or the module object's attributes (bind mode). */
static int install_functions(PyObject *module, KrModuleDef *def, PyObject *originals) {
  PyObject *mdict = PyModule_GetDict(module);
  PyObject *modname = PyModule_GetNameObject(module);
  if (!modname) return -1;
  int mode = read_mode();
  if (mode < 0) goto fail;
  /* one __kiln_python__ per module, extended by every bind */
  PyObject *pydict = PyDict_GetItemString(mdict, "__kiln_python__");
  if (!pydict || !PyDict_Check(pydict)) {
    pydict = PyDict_New();
    if (!pydict) goto fail;
    if (PyDict_SetItemString(mdict, "__kiln_python__", pydict) < 0) {
      Py_DECREF(pydict);
      goto fail;
    }
    Py_DECREF(pydict);
  }
  for (int i = 0; i < def->nfuncs; i++) {
    KrFuncDef *f = &def->funcs[i];
    PyObject *orig = PyMapping_GetItemString(originals, f->name);
    if (!orig) {
      /* Not (yet) defined: a function deleted at import, or, for
       * kiln.compile, one that is bound later by its own decorator. */
      if (!PyErr_ExceptionMatches(PyExc_KeyError)) goto fail;
      PyErr_Clear();
      continue;
    }
    if (!made_by_def(f, orig)) {
      Py_DECREF(orig);
      continue;
    }
    if (PyDict_SetItemString(pydict, f->name, orig) < 0 || (f->sig && fill_defaults(f->sig, unwrapped(orig)) < 0)) {
      Py_DECREF(orig);
      goto fail;
    }
    int is_native = f->status && strcmp(f->status, "native") == 0 && f->fn;
    const char *reason = f->reason; /* why it runs as Python */
    if (is_native && mode != MODE_PYTHON && f->nlambdas) {
      int found = find_lambdas(f, orig);
      if (found != 0) { /* the original, exact, rather than a guess */
        if (found < 0) PyErr_Clear();
        is_native = 0;
        reason = found < 0   ? "the code of its lambdas could not be read from the original function"
                 : found == 1 ? "this Python dropped one of a line's lambdas as unreachable, so they cannot be told apart"
                              : "this Python's code has no columns, and a line with a generator expression kiln makes "
                                "has other functions, so they cannot be told apart";
      }
    }
    PyObject *guard_msg = NULL;
    if (is_native && mode != MODE_PYTHON && f->import_guards) {
      int failed;
      const char *const *guard = broken_import_guard(f, originals, &failed);
      if (failed) {
        Py_DECREF(orig);
        goto fail;
      }
      if (guard) {
        is_native = 0;
        guard_msg = PyUnicode_FromFormat("kiln resolved the global '%s' to %s ahead of time, but once the module "
                                         "ran it was not that object (did an `except` handler bind it?)",
                                         guard[0], guard[1]);
        if (!guard_msg) {
          Py_DECREF(orig);
          goto fail;
        }
        reason = PyUnicode_AsUTF8(guard_msg);
      }
    }
    PyObject *obj = NULL;
    if (mode == MODE_PYTHON || (!is_native && mode == MODE_AUTO)) {
      obj = orig;
      Py_INCREF(obj);
    } else if (is_native) {
      obj = make_cfunction(&f->method, f->name, f->fn, orig, module, modname);
    } else {
      PyObject *msg = PyUnicode_FromFormat(
          "kiln: function '%s' was not compiled natively: %s (KILN_MODE=native)", f->name,
          reason ? reason : "unsupported");
      if (msg) {
        obj = make_cfunction(&f->method, f->name, (PyCFunction)(void (*)(void))raise_not_native, orig, msg, modname);
        Py_DECREF(msg);
      }
    }
    Py_DECREF(orig);
    Py_XDECREF(guard_msg);
    if (!obj) goto fail;
    int rc = PyDict_SetItemString(mdict, f->name, obj);
    Py_DECREF(obj);
    if (rc < 0) goto fail;
  }
  Py_DECREF(modname);
  return 0;
fail:
  Py_DECREF(modname);
  return -1;
}

/* _kiln_bind(globals, originals=None); self = (module, capsule(def)). */
static PyObject *kiln_bind(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"globals", "originals", NULL};
  PyObject *globals, *originals = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|O:_kiln_bind", kwlist, &PyDict_Type, &globals,
                                   &originals))
    return NULL;
  PyObject *module = PyTuple_GET_ITEM(self, 0);
  KrModuleDef *def = (KrModuleDef *)PyCapsule_GetPointer(PyTuple_GET_ITEM(self, 1), "kiln.moduledef");
  if (!def) return NULL;
  if (originals == Py_None) originals = globals;
  if (def->globals) {
    Py_INCREF(globals);
    Py_XSETREF(*def->globals, globals);
  }
  if (install_functions(module, def, originals) < 0) return NULL;
  Py_RETURN_NONE;
}

int kr_threads_set_explicitly;

/* kiln._runtime.set_num_threads(n): threads kiln's large GEMMs may use. */
static PyObject *py_set_num_threads(PyObject *self, PyObject *arg) {
  (void)self;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  if (n < 1) {
    PyErr_SetString(PyExc_ValueError, "kiln: set_num_threads needs n >= 1");
    return NULL;
  }
  kr_threads_set_explicitly = 1;
  kk_set_num_threads((int)n);
  Py_RETURN_NONE;
}

static PyObject *py_get_num_threads(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyLong_FromLong(kk_get_num_threads());
}

static PyMethodDef kiln_bind_def = {"_kiln_bind", (PyCFunction)(void (*)(void))kiln_bind,
                                    METH_VARARGS | METH_KEYWORDS,
                                    "_kiln_bind(globals, originals=None)\n--\n\n"
                                    "Bind the compiled functions to a globals dict; originals maps "
                                    "names to the original Python functions (default: globals)."};

static int kr_module_init(PyObject *module, KrModuleDef *def) {
  for (int i = 0; i < def->nstrings; i++) {
    if (def->interned[i]) continue;
    Py_ssize_t len = def->string_lens ? def->string_lens[i] : (Py_ssize_t)strlen(def->strings[i]);
    /* surrogatepass: a str literal may hold lone surrogates (lex.c put_utf8) */
    PyObject *s = PyUnicode_DecodeUTF8(def->strings[i], len, "surrogatepass");
    if (!s) {
      /* not UTF-8: a bytes literal's contents (b"\xff"), only ever read as
       * bytes from the strings table; no str is made of it */
      if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return -1;
      PyErr_Clear();
      def->interned[i] = Py_NewRef(Py_None);
      continue;
    }
    PyUnicode_InternInPlace(&s);
    def->interned[i] = s;
  }
  for (int i = 0; i < def->nfuncs; i++) {
    KrSig *sig = def->funcs[i].sig;
    if (!sig) continue;
    for (int j = 0; j < sig->nparams; j++) {
      if (sig->names[j]) continue;
      sig->names[j] = PyUnicode_InternFromString(sig->param_names[j]);
      if (!sig->names[j]) return -1;
    }
  }
  PyObject *d = PyModule_GetDict(module);
  if (PyDict_SetItemString(d, "__kiln_native__", Py_True) < 0) return -1;

  if (def->bind_globals) {
    PyObject *cap = PyCapsule_New(def, "kiln.moduledef", NULL);
    if (!cap) return -1;
    PyObject *self = PyTuple_Pack(2, module, cap);
    Py_DECREF(cap);
    if (!self) return -1;
    PyObject *modname = PyModule_GetNameObject(module);
    PyObject *fn = modname ? PyCFunction_NewEx(&kiln_bind_def, self, modname) : NULL;
    Py_XDECREF(modname);
    Py_DECREF(self);
    if (!fn) return -1;
    int rc = PyDict_SetItemString(d, "_kiln_bind", fn);
    Py_DECREF(fn);
    return rc;
  }

  if (!PyDict_GetItemString(d, "__builtins__")) {
    if (PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins()) < 0) return -1;
  }
  if (!PyDict_GetItemString(d, "__file__")) {
    PyObject *fn = PyUnicode_DecodeFSDefault(def->filename);
    if (!fn) return -1;
    int rc = PyDict_SetItemString(d, "__file__", fn);
    Py_DECREF(fn);
    if (rc < 0) return -1;
  }
  char *src = (char *)PyMem_Malloc((size_t)def->source_len + 1);
  if (!src) {
    PyErr_NoMemory();
    return -1;
  }
  memcpy(src, def->source, (size_t)def->source_len);
  src[def->source_len] = '\0';
  PyObject *fname = PyUnicode_DecodeFSDefault(def->filename);
  PyObject *code = fname ? Py_CompileStringObject(src, fname, Py_file_input, NULL, -1) : NULL;
  Py_XDECREF(fname);
  PyMem_Free(src);
  if (!code) return -1;
  PyObject *res = PyEval_EvalCode(code, d, d);
  Py_DECREF(code);
  if (!res) return -1;
  Py_DECREF(res);
  if (def->globals) {
    Py_INCREF(d);
    Py_XSETREF(*def->globals, d);
  }
  return install_functions(module, def, d);
}

/* ------------------------------------------------------------------------ */
/* argument binding (CPython 3.11 messages)                                   */
/* ------------------------------------------------------------------------ */

static void format_missing(const KrSig *sig, const char *kind, PyObject *names) {
  Py_ssize_t len = PyList_GET_SIZE(names);
  PyObject *name_str = NULL;
  if (len == 1) {
    name_str = PyList_GET_ITEM(names, 0);
    Py_INCREF(name_str);
  } else if (len == 2) {
    name_str = PyUnicode_FromFormat("%U and %U", PyList_GET_ITEM(names, 0), PyList_GET_ITEM(names, 1));
  } else {
    PyObject *tail = PyUnicode_FromFormat(", %U, and %U", PyList_GET_ITEM(names, len - 2),
                                          PyList_GET_ITEM(names, len - 1));
    if (!tail) return;
    if (PyList_SetSlice(names, len - 2, len, NULL) < 0) {
      Py_DECREF(tail);
      return;
    }
    PyObject *comma = PyUnicode_FromString(", ");
    PyObject *head = comma ? PyUnicode_Join(comma, names) : NULL;
    Py_XDECREF(comma);
    if (head) name_str = PyUnicode_Concat(head, tail);
    Py_XDECREF(head);
    Py_DECREF(tail);
  }
  if (!name_str) return;
  PyErr_Format(PyExc_TypeError, "%s() missing %zd required %s argument%s: %U", sig->name, len, kind,
               len == 1 ? "" : "s", name_str);
  Py_DECREF(name_str);
}

static int missing_arguments(const KrSig *sig, int lo, int hi, PyObject **out, const char *kind) {
  PyObject *names = PyList_New(0);
  if (!names) return -1;
  for (int i = lo; i < hi; i++) {
    if (out[i] || sig->defaults[i]) continue;
    PyObject *r = PyObject_Repr(sig->names[i]);
    if (!r || PyList_Append(names, r) < 0) {
      Py_XDECREF(r);
      Py_DECREF(names);
      return -1;
    }
    Py_DECREF(r);
  }
  if (PyList_GET_SIZE(names) == 0) {
    Py_DECREF(names);
    return 0;
  }
  format_missing(sig, kind, names);
  Py_DECREF(names);
  return -1;
}

static void too_many_positional(const KrSig *sig, Py_ssize_t given, PyObject **out) {
  Py_ssize_t kwonly_given = 0;
  for (int i = sig->nposparams; i < sig->nparams; i++)
    if (out[i]) kwonly_given++;
  int defcount = 0;
  for (int i = 0; i < sig->nposparams; i++)
    if (sig->defaults[i]) defcount++;
  char sigbuf[64], kwbuf[96];
  int plural;
  if (defcount) {
    plural = 1;
    snprintf(sigbuf, sizeof sigbuf, "from %d to %d", sig->nposparams - defcount, sig->nposparams);
  } else {
    plural = sig->nposparams != 1;
    snprintf(sigbuf, sizeof sigbuf, "%d", sig->nposparams);
  }
  if (kwonly_given)
    snprintf(kwbuf, sizeof kwbuf, " positional argument%s (and %zd keyword-only argument%s)",
             given != 1 ? "s" : "", kwonly_given, kwonly_given != 1 ? "s" : "");
  else
    kwbuf[0] = '\0';
  PyErr_Format(PyExc_TypeError, "%s() takes %s positional argument%s but %zd%s %s given", sig->name, sigbuf,
               plural ? "s" : "", given, kwbuf, given == 1 && !kwonly_given ? "was" : "were");
}

/* CPython's error for keywords naming positional-only parameters (when
 * there is no **kwargs to take them): every such keyword, in parameter order. */
static void positional_only_as_keyword(const KrSig *sig, PyObject *kwnames) {
  PyObject *names = PyList_New(0);
  if (!names) return;
  for (int i = 0; i < sig->nposonly; i++)
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kwnames); j++) {
      PyObject *key = PyTuple_GET_ITEM(kwnames, j);
      int eq = key == sig->names[i] ? 1 : PyObject_RichCompareBool(sig->names[i], key, Py_EQ);
      if (eq < 0 || (eq && PyList_Append(names, key) < 0)) {
        Py_DECREF(names);
        return;
      }
    }
  if (PyList_GET_SIZE(names) == 0) { /* none: the caller says which keyword is unexpected */
    Py_DECREF(names);
    return;
  }
  PyObject *comma = PyUnicode_FromString(", ");
  PyObject *joined = comma ? PyUnicode_Join(comma, names) : NULL;
  if (joined)
    PyErr_Format(PyExc_TypeError, "%s() got some positional-only arguments passed as keyword arguments: '%U'",
                 sig->name, joined);
  Py_XDECREF(joined);
  Py_XDECREF(comma);
  Py_DECREF(names);
}

/* "f() got an unexpected keyword argument 'x'", from 3.13 with CPython's
 * "Did you mean" among the names a keyword can give (_suggestions, as its
 * ceval asks _Py_CalculateSuggestions; any failure there: no suggestion). */
static void unexpected_keyword(const KrSig *sig, PyObject *key) {
  PyObject *hint = NULL;
#if PY_VERSION_HEX >= 0x030D0000
  if (sig->nparams > sig->nposonly) {
    PyObject *names = PyList_New(sig->nparams - sig->nposonly);
    for (int i = sig->nposonly; names && i < sig->nparams; i++)
      PyList_SET_ITEM(names, i - sig->nposonly, Py_NewRef(sig->names[i]));
    PyObject *mod = names ? PyImport_ImportModule("_suggestions") : NULL;
    hint = mod ? PyObject_CallMethod(mod, "_generate_suggestions", "OO", names, key) : NULL;
    Py_XDECREF(mod);
    Py_XDECREF(names);
    if (!hint) PyErr_Clear();
    if (hint == Py_None) Py_CLEAR(hint);
  }
#endif
  if (hint) PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'. Did you mean '%S'?", sig->name,
                         key, hint);
  else PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", sig->name, key);
  Py_XDECREF(hint);
}

/* The index of the named parameter a keyword names (positional-only ones
 * excepted), -1 for none, -2 on error. */
static int keyword_index(const KrSig *sig, PyObject *key) {
  for (int i = sig->nposonly; i < sig->nparams; i++)
    if (sig->names[i] == key) return i;
  for (int i = sig->nposonly; i < sig->nparams; i++) {
    int eq = PyObject_RichCompareBool(key, sig->names[i], Py_EQ);
    if (eq) return eq < 0 ? -2 : i;
  }
  return -1;
}

/* As CPython's initialize_locals: positionals, the *args tuple, keywords
 * (a **kwargs dict takes the unknown ones), then the counts and defaults. */
static int kr_bind_args(const KrSig *sig, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                        PyObject **out) {
  const int np = sig->nparams, npos = sig->nposparams;
  if (!kwnames && nargs == np && nargs <= npos && !sig->varargs && !sig->varkw) {
    for (int i = 0; i < np; i++) out[i] = args[i];
    return 0;
  }
  PyObject *rest = NULL, *kwdict = NULL;
  if (sig->varkw && !(kwdict = PyDict_New())) return -1;
  for (int i = 0; i < np; i++) out[i] = NULL;
  Py_ssize_t n = nargs < npos ? nargs : npos;
  for (Py_ssize_t i = 0; i < n; i++) out[i] = args[i];
  if (sig->varargs) {
    rest = PyTuple_New(nargs - n);
    if (!rest) goto fail;
    for (Py_ssize_t i = n; i < nargs; i++) PyTuple_SET_ITEM(rest, i - n, Py_NewRef(args[i]));
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nkw; j++) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, j);
    int idx = keyword_index(sig, key);
    if (idx == -2) goto fail;
    if (idx < 0) {
      if (kwdict) {
        if (PyDict_SetItem(kwdict, key, args[nargs + j]) < 0) goto fail;
        continue;
      }
      if (sig->nposonly) {
        positional_only_as_keyword(sig, kwnames);
        if (PyErr_Occurred()) goto fail;
      }
      unexpected_keyword(sig, key);
      goto fail;
    }
    if (out[idx]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%S'", sig->name, key);
      goto fail;
    }
    out[idx] = args[nargs + j];
  }
  if (nargs > npos && !sig->varargs) {
    too_many_positional(sig, nargs, out);
    goto fail;
  }
  if (nargs < npos) {
    if (missing_arguments(sig, (int)nargs, npos, out, "positional") < 0) goto fail;
    for (int i = (int)nargs; i < npos; i++)
      if (!out[i]) out[i] = sig->defaults[i];
  }
  if (np > npos) {
    if (missing_arguments(sig, npos, np, out, "keyword-only") < 0) goto fail;
    for (int i = npos; i < np; i++)
      if (!out[i]) out[i] = sig->defaults[i];
  }
  if (sig->varargs) out[np] = rest;
  if (sig->varkw) out[np + sig->varargs] = kwdict;
  return 0;
fail:
  Py_XDECREF(rest);
  Py_XDECREF(kwdict);
  return -1;
}

/* ------------------------------------------------------------------------ */
/* tracebacks (the Cython __Pyx_AddTraceback pattern)                        */
/* ------------------------------------------------------------------------ */

static PyObject *tb_globals; /* an empty dict used as the frames' globals */

/* The .py line of the op a fused call (tensor_ewise, tensor_fused) raised
 * at: set by the step that failed, taken by the call site as it fails
 * (KrApi.fail_line), so it never outlives the failing call. Per thread:
 * another thread may run compiled code between a set and its take when
 * the GIL is released inside a kernel. */
static _Thread_local int kr_failed_line;

void kr_fail_at(int line) { kr_failed_line = line; }

int kr_fail_line(int line) {
  int at = kr_failed_line;
  kr_failed_line = 0;
  return at > 0 ? at : line;
}

/* The frame a traceback entry "File FILE, line LINE, in FUNC" points at,
 * new ref. Building its code object and the frame costs more than the rest
 * of raising an exception, and a handler in a loop can catch one per
 * iteration, so they are kept (as Cython keeps its code objects): one per
 * (func, file, line) in a small direct-mapped table, keyed by the generated
 * module's static strings (an extension module is never unloaded). Such a
 * frame runs nothing and holds nothing; sharing one between tracebacks is
 * what CPython does for a frame an exception passes twice. */
static struct {
  const char *func, *file;
  int line;
  PyFrameObject *frame;
} tb_frames[512];

static PyFrameObject *traceback_frame(const char *func, const char *file, int line) {
  uintptr_t h = ((uintptr_t)func * 31u + (uintptr_t)file) * 31u + (uintptr_t)(unsigned)line;
  h = (h ^ (h >> 15)) * 0x9E3779B1u;
  size_t i = (size_t)(h >> 7) % (sizeof tb_frames / sizeof tb_frames[0]);
  if (tb_frames[i].frame && tb_frames[i].func == func && tb_frames[i].file == file && tb_frames[i].line == line)
    return (PyFrameObject *)Py_NewRef(tb_frames[i].frame);
  /* PyCode_NewEmpty's code has an empty line table, so the frame's line is
   * its co_firstlineno: `line`. */
  PyCodeObject *code = PyCode_NewEmpty(file, func, line);
  if (!code) return NULL;
  PyFrameObject *frame = PyFrame_New(PyThreadState_Get(), code, tb_globals, NULL);
  Py_DECREF(code);
  if (!frame) return NULL;
#if PY_VERSION_HEX < 0x030B0000
  Py_CLEAR(frame->f_back); /* 3.10 links the frame running now: a kept frame must not keep it */
#endif
  Py_XSETREF(tb_frames[i].frame, (PyFrameObject *)Py_NewRef(frame));
  tb_frames[i].func = func, tb_frames[i].file = file, tb_frames[i].line = line;
  return frame;
}

static void kr_add_traceback(const char *func, const char *file, int line) {
  PyObject *exc, *val, *tb;
  PyErr_Fetch(&exc, &val, &tb);
  PyFrameObject *frame = traceback_frame(func, file, line);
  if (!frame) {
    PyErr_Clear(); /* keep the original exception */
    PyErr_Restore(exc, val, tb);
    return;
  }
  PyErr_Restore(exc, val, tb);
  PyTraceBack_Here(frame);
  Py_DECREF(frame);
}

/* ------------------------------------------------------------------------ */
/* unboxing scalar parameters                                                 */
/* ------------------------------------------------------------------------ */

static int kr_unbox_int(PyObject *o, const char *fname, const char *arg, int64_t *out) {
  if (PyLong_CheckExact(o) || PyLong_Check(o)) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "%s() argument '%s' does not fit in a 64-bit int (kiln int is int64)",
                   fname, arg);
      return -1;
    }
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
  }
  if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index) {
    PyObject *i = PyNumber_Index(o);
    if (!i) return -1;
    int rc = kr_unbox_int(i, fname, arg, out);
    Py_DECREF(i);
    return rc;
  }
  PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be int, not %.200s", fname, arg, Py_TYPE(o)->tp_name);
  return -1;
}

static int kr_unbox_float(PyObject *o, const char *fname, const char *arg, double *out) {
  if (PyFloat_Check(o)) {
    *out = PyFloat_AS_DOUBLE(o);
    return 0;
  }
  PyObject *i = NULL;
  if (PyLong_Check(o)) {
    i = o;
    Py_INCREF(i);
  } else if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index) {
    i = PyNumber_Index(o);
    if (!i) return -1;
  } else {
    PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be float, not %.200s", fname, arg,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  double d = PyLong_AsDouble(i);
  Py_DECREF(i);
  if (d == -1.0 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "%s() argument '%s': int too large to convert to float", fname, arg);
    }
    return -1;
  }
  *out = d;
  return 0;
}

static int kr_unbox_bool(PyObject *o, const char *fname, const char *arg, int *out) {
  if (o == Py_True) {
    *out = 1;
    return 0;
  }
  if (o == Py_False) {
    *out = 0;
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be bool, not %.200s", fname, arg, Py_TYPE(o)->tp_name);
  return -1;
}

/* ------------------------------------------------------------------------ */
/* tensors: framework dispatch                                                */
/* ------------------------------------------------------------------------ */

/* KR_FW_TEST: framework-free tensors for tests. Unboxing accepts any object
 * exporting a float32 ('f') buffer of the right rank (array.array('f'),
 * memoryview casts, numpy float32); boxing returns nested lists of floats. */
static void test_buffer_release(PyObject *cap) {
  Py_buffer *view = (Py_buffer *)PyCapsule_GetPointer(cap, "kiln.testbuf");
  if (view) {
    PyBuffer_Release(view);
    PyMem_Free(view);
  }
}

static KrTensor *test_unbox(PyObject *o, int rank, const char *arg) {
  if (!PyObject_CheckBuffer(o)) {
    PyErr_Format(PyExc_TypeError, "kiln-test: argument '%s': expected a float32 buffer, got %.200s", arg,
                 Py_TYPE(o)->tp_name);
    return NULL;
  }
  Py_buffer *view = (Py_buffer *)PyMem_Calloc(1, sizeof(Py_buffer));
  if (!view) return (KrTensor *)PyErr_NoMemory();
  if (PyObject_GetBuffer(o, view, PyBUF_RECORDS_RO) < 0) {
    PyMem_Free(view);
    return NULL;
  }
  PyObject *cap = PyCapsule_New(view, "kiln.testbuf", test_buffer_release);
  if (!cap) {
    PyBuffer_Release(view);
    PyMem_Free(view);
    return NULL;
  }
  if (!view->format || strcmp(view->format, "f") != 0 || view->itemsize != 4) {
    PyErr_Format(PyExc_ValueError, "kiln-test: argument '%s': expected a float32 tensor, got format %s", arg,
                 view->format ? view->format : "B");
    Py_DECREF(cap);
    return NULL;
  }
  if (view->ndim != rank) {
    PyErr_Format(PyExc_ValueError, "kiln-test: argument '%s': expected rank-%d tensor, got rank %d", arg, rank,
                 view->ndim);
    Py_DECREF(cap);
    return NULL;
  }
  int64_t shape[2] = {1, 1}, strides[2] = {1, 1};
  for (int i = 0; i < rank; i++) {
    shape[i] = view->shape[i];
    if (view->strides[i] % 4) {
      PyErr_Format(PyExc_ValueError, "kiln-test: argument '%s': unaligned strides", arg);
      Py_DECREF(cap);
      return NULL;
    }
    strides[i] = view->strides[i] / 4;
  }
  KrTensor *t = kr_tensor_view(KR_FW_TEST, rank, (float *)view->buf, shape, strides, cap);
  Py_DECREF(cap);
  return t;
}

static PyObject *test_box(KrTensor *t) {
  int64_t rows = t->rank == 2 ? t->shape[0] : 1, cols = t->rank == 2 ? t->shape[1] : t->shape[0];
  PyObject *outer = t->rank == 2 ? PyList_New((Py_ssize_t)rows) : NULL;
  if (t->rank == 2 && !outer) return NULL;
  for (int64_t i = 0; i < rows; i++) {
    PyObject *row = PyList_New((Py_ssize_t)cols);
    if (!row) {
      Py_XDECREF(outer);
      return NULL;
    }
    for (int64_t j = 0; j < cols; j++) {
      const float *p = t->rank == 2 ? t->data + i * t->strides[0] + j * t->strides[1] : t->data + j * t->strides[0];
      PyObject *f = PyFloat_FromDouble((double)*p);
      if (!f) {
        Py_DECREF(row);
        Py_XDECREF(outer);
        return NULL;
      }
      PyList_SET_ITEM(row, (Py_ssize_t)j, f);
    }
    if (!outer) return row;
    PyList_SET_ITEM(outer, (Py_ssize_t)i, row);
  }
  return outer;
}

static KrTensor *kr_tensor_unbox(PyObject *o, int framework, int rank, const char *arg) {
  switch (framework) {
  case KR_FW_TORCH: return kr_torch_unbox(o, rank, arg);
  case KR_FW_TF: return kr_tf_unbox(o, rank, arg);
  case KR_FW_TEST: return test_unbox(o, rank, arg);
  default: PyErr_Format(PyExc_SystemError, "kiln: unknown framework %d", framework); return NULL;
  }
}

PyObject *kr_tensor_box(KrTensor *t) {
  PyObject *o;
  switch (t->framework) {
  case KR_FW_TORCH: o = kr_torch_box(t); break;
  case KR_FW_TF: o = kr_tf_box(t); break;
  case KR_FW_TEST: return test_box(t);
  default: PyErr_Format(PyExc_SystemError, "kiln: unknown framework %d", (int)t->framework); return NULL;
  }
  /* one framework object per value: later boxes return the same one */
  if (o && !t->source) {
    Py_INCREF(o);
    t->source = o;
  }
  return o;
}

static int same_view(const KrTensor *a, const KrTensor *b) {
  if (a->data != b->data || a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i]) return 0;
  return 1;
}

static int kr_tensor_refresh(PyObject **slot, const char *name, const char *file, int line) {
  KrTensor *t = (KrTensor *)*slot;
  if (!t || !t->source || t->framework != KR_FW_TORCH) return 0; /* TF tensors are immutable */
  KrTensor *n = kr_tensor_unbox(t->source, t->framework, t->rank, name);
  if (!n) {
    /* the tensor was changed in place into something the types no longer prove */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyErr_Format(PyExc_RuntimeError, "kiln-torch: tensor '%s' was changed in place by Python code (%s:%d): %S",
                 name, file, line, value ? value : Py_None);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return -1;
  }
  if (same_view(n, t)) {
    Py_DECREF(n);
    return 0;
  }
  Py_SETREF(*slot, (PyObject *)n);
  return 0;
}

static PyObject *kr_convert_value(PyObject *v, int conv) {
  switch (conv) {
  case 's': return PyObject_Str(v);
  case 'r': return PyObject_Repr(v);
  case 'a': return PyObject_ASCII(v);
  default: return Py_NewRef(v);
  }
}

static PyObject *kr_format_value(PyObject *v, int conv, PyObject *spec) {
  PyObject *c = kr_convert_value(v, conv);
  if (!c || (!spec && PyUnicode_CheckExact(c))) return c;
  PyObject *r = PyObject_Format(c, spec);
  Py_DECREF(c);
  return r;
}

static int kr_tensor_pin(PyObject **slot, const char *name) {
  KrTensor *t = (KrTensor *)*slot;
  if (!t || t->framework != KR_FW_TORCH) return 0;
  PyObject *o = kr_tensor_box(t); /* the source itself when t is all of it; sets it when t had none */
  if (!o) return -1;
  if (o == t->source) {
    Py_DECREF(o);
    return 0;
  }
  /* a different view of its source: boxing made a copy, which *slot now views */
  KrTensor *n = kr_tensor_unbox(o, KR_FW_TORCH, t->rank, name);
  Py_DECREF(o);
  if (!n) return -1;
  Py_SETREF(*slot, (PyObject *)n);
  return 0;
}

static int is_framework_tensor(PyObject *o, int framework) {
  const char *modname;
  switch (framework) {
  case KR_FW_TORCH: modname = "torch"; break;
  case KR_FW_TF: modname = "tensorflow"; break;
  case KR_FW_TEST: return PyObject_CheckBuffer(o);
  default: return 0;
  }
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), modname);
  if (!mod) return 0;
  PyObject *cls = PyObject_GetAttrString(mod, "Tensor");
  if (!cls) {
    PyErr_Clear();
    return 0;
  }
  int r = PyObject_IsInstance(o, cls);
  Py_DECREF(cls);
  if (r < 0) PyErr_Clear();
  return r > 0;
}

KrTensor *kr_tensor_from_object(PyObject *o, int framework, int rank, const char *file, int line) {
  static const char *const fwname[] = {"?", "torch.Tensor", "TensorFlow EagerTensor", "float32 buffer"};
  if (framework >= KR_FW_TORCH && framework <= KR_FW_TEST && is_framework_tensor(o, framework)) {
    KrTensor *t = kr_tensor_unbox(o, framework, rank, "<result>");
    if (t) return t;
    /* Re-raise with the location: a fallback result of the wrong kind. */
    PyObject *exc, *val, *tb;
    PyErr_Fetch(&exc, &val, &tb);
    PyErr_NormalizeException(&exc, &val, &tb);
    PyObject *s = val ? PyObject_Str(val) : NULL;
    if (s) {
      PyErr_Format(exc, "%U (%s:%d)", s, file, line);
      Py_DECREF(s);
      Py_XDECREF(exc);
      Py_XDECREF(val);
      Py_XDECREF(tb);
    } else {
      PyErr_Restore(exc, val, tb);
    }
    return NULL;
  }
  PyErr_Format(PyExc_TypeError, "kiln: expected a %s value of rank %d here, got %.200s (%s:%d)",
               framework >= KR_FW_TORCH && framework <= KR_FW_TEST ? fwname[framework] : "tensor", rank,
               Py_TYPE(o)->tp_name, file, line);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* scalar helpers                                                             */
/* ------------------------------------------------------------------------ */

static void kr_raise_overflow(const char *file, int line) {
  PyErr_Format(PyExc_OverflowError, "integer overflow (%s:%d)", file, line);
}

/* Raises the error Python raises for `a op b` (a division by zero, 0.0 to a
 * negative power) by asking the running interpreter: its messages change
 * between versions ("float modulo" became "float modulo by zero" in 3.13). */
static int raise_like_python(binaryfunc op, PyObject *a, PyObject *b) {
  PyObject *r = a && b ? op(a, b) : NULL;
  Py_XDECREF(a);
  Py_XDECREF(b);
  if (r) { /* cannot happen for the operands passed here */
    Py_DECREF(r);
    PyErr_SetString(PyExc_SystemError, "kiln: expected Python to raise here");
  }
  return -1;
}

static PyObject *number_power(PyObject *a, PyObject *b) { return PyNumber_Power(a, b, Py_None); }

static int raise_int_op(binaryfunc op, int64_t a, int64_t b) {
  return raise_like_python(op, PyLong_FromLongLong(a), PyLong_FromLongLong(b));
}

static int raise_float_op(binaryfunc op, double a, double b) {
  return raise_like_python(op, PyFloat_FromDouble(a), PyFloat_FromDouble(b));
}

static int kr_int_floordiv(int64_t a, int64_t b, int64_t *out, const char *file, int line) {
  if (b == 0) return raise_int_op(PyNumber_FloorDivide, a, b);
  if (a == INT64_MIN && b == -1) {
    kr_raise_overflow(file, line);
    return -1;
  }
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  *out = q;
  return 0;
}

static int kr_int_mod(int64_t a, int64_t b, int64_t *out) {
  if (b == 0) return raise_int_op(PyNumber_Remainder, a, b);
  if (b == -1) {
    *out = 0;
    return 0;
  }
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  *out = r;
  return 0;
}

static int kr_int_pow(int64_t a, int64_t b, int64_t *out, const char *file, int line) {
  int64_t result = 1, base = a;
  while (b > 0) {
    if (b & 1) {
      if (__builtin_mul_overflow(result, base, &result)) goto ovf;
    }
    b >>= 1;
    if (b) {
      if (__builtin_mul_overflow(base, base, &base)) goto ovf;
    }
  }
  *out = result;
  return 0;
ovf:
  kr_raise_overflow(file, line);
  return -1;
}

static int kr_int_lshift(int64_t a, int64_t b, int64_t *out, const char *file, int line) {
  if (a == 0) {
    *out = 0;
    return 0;
  }
  if (b >= 63) {
    /* only a == -1, b == 63 fits (INT64_MIN) */
    if (b == 63 && a == -1) {
      *out = INT64_MIN;
      return 0;
    }
    kr_raise_overflow(file, line);
    return -1;
  }
  int64_t r = (int64_t)((uint64_t)a << b);
  if ((r >> b) != a) {
    kr_raise_overflow(file, line);
    return -1;
  }
  *out = r;
  return 0;
}

static int64_t kr_int_rshift(int64_t a, int64_t b) {
  if (b >= 64) return a < 0 ? -1 : 0;
  return a >> b; /* arithmetic shift on every compiler kiln supports (gcc, clang) */
}

static int kr_int_truediv(int64_t a, int64_t b, double *out) {
  if (b == 0) return raise_int_op(PyNumber_TrueDivide, a, b);
  const int64_t lim = (int64_t)1 << 53;
  if (a >= -lim && a <= lim && b >= -lim && b <= lim) {
    *out = (double)a / (double)b; /* both exact: one correctly rounded division */
    return 0;
  }
  PyObject *pa = PyLong_FromLongLong(a), *pb = PyLong_FromLongLong(b);
  PyObject *r = (pa && pb) ? PyNumber_TrueDivide(pa, pb) : NULL;
  Py_XDECREF(pa);
  Py_XDECREF(pb);
  if (!r) return -1;
  *out = PyFloat_AS_DOUBLE(r);
  Py_DECREF(r);
  return 0;
}

static int kr_float_div(double a, double b, double *out) {
  if (b == 0.0) return raise_float_op(PyNumber_TrueDivide, a, b);
  *out = a / b;
  return 0;
}

/* CPython's _float_div_mod (Objects/floatobject.c). */
static void float_div_mod(double vx, double wx, double *floordiv, double *mod) {
  double div;
  *mod = fmod(vx, wx);
  div = (vx - *mod) / wx;
  if (*mod) {
    if ((wx < 0) != (*mod < 0)) {
      *mod += wx;
      div -= 1.0;
    }
  } else {
    *mod = copysign(0.0, wx);
  }
  if (div) {
    *floordiv = floor(div);
    if (div - *floordiv > 0.5) *floordiv += 1.0;
  } else {
    *floordiv = copysign(0.0, vx / wx);
  }
}

static int kr_float_floordiv(double a, double b, double *out) {
  if (b == 0.0) return raise_float_op(PyNumber_FloorDivide, a, b);
  double mod;
  float_div_mod(a, b, out, &mod);
  return 0;
}

static int kr_float_mod(double a, double b, double *out) {
  if (b == 0.0) return raise_float_op(PyNumber_Remainder, a, b);
  double mod = fmod(a, b);
  if (mod) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = copysign(0.0, b);
  }
  *out = mod;
  return 0;
}

#define DOUBLE_IS_ODD_INTEGER(x) (fmod(fabs(x), 2.0) == 1.0)

/* CPython's float_pow. Returns 0 with *out set, -1 with an exception, or 2
 * when the result is complex (negative base, non-integer exponent): the
 * caller must then compute a ** b through the object path (kr->power). */
static int kr_float_pow(double iv, double iw, double *out) {
  int negate_result = 0;
  if (iw == 0) {
    *out = 1.0;
    return 0;
  }
  if (isnan(iv)) {
    *out = iv;
    return 0;
  }
  if (isnan(iw)) {
    *out = iv == 1.0 ? 1.0 : iw;
    return 0;
  }
  if (isinf(iw)) {
    iv = fabs(iv);
    if (iv == 1.0)
      *out = 1.0;
    else if ((iw > 0.0) == (iv > 1.0))
      *out = fabs(iw);
    else
      *out = 0.0;
    return 0;
  }
  if (isinf(iv)) {
    int iw_is_odd = DOUBLE_IS_ODD_INTEGER(iw);
    if (iw > 0.0)
      *out = iw_is_odd ? iv : fabs(iv);
    else
      *out = iw_is_odd ? copysign(0.0, iv) : 0.0;
    return 0;
  }
  if (iv == 0.0) {
    int iw_is_odd = DOUBLE_IS_ODD_INTEGER(iw);
    if (iw < 0.0) return raise_float_op(number_power, iv, iw);
    *out = iw_is_odd ? iv : 0.0;
    return 0;
  }
  if (iv < 0.0) {
    if (iw != floor(iw)) return 2;
    iv = -iv;
    negate_result = DOUBLE_IS_ODD_INTEGER(iw);
  }
  if (iv == 1.0) {
    *out = negate_result ? -1.0 : 1.0;
    return 0;
  }
  errno = 0;
  double ix = pow(iv, iw);
  if (errno == 0) {
    if (ix == HUGE_VAL || ix == -HUGE_VAL) errno = ERANGE;
  } else if (errno == ERANGE && ix == 0.0) {
    errno = 0;
  }
  if (negate_result) ix = -ix;
  if (errno != 0) {
    PyErr_SetFromErrno(errno == ERANGE ? PyExc_OverflowError : PyExc_ValueError);
    return -1;
  }
  *out = ix;
  return 0;
}

static int kr_float_to_int(double a, int64_t *out, const char *file, int line) {
  if (isnan(a)) {
    PyErr_SetString(PyExc_ValueError, "cannot convert float NaN to integer");
    return -1;
  }
  if (isinf(a)) {
    PyErr_SetString(PyExc_OverflowError, "cannot convert float infinity to integer");
    return -1;
  }
  double t = trunc(a);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) {
    kr_raise_overflow(file, line);
    return -1;
  }
  *out = (int64_t)t;
  return 0;
}

int kr_int_float_cmp(int64_t a, double b) {
  if (isnan(b)) return 2;
  if (b >= 9223372036854775808.0) return -1;
  if (b < -9223372036854775808.0) return 1;
  double t = trunc(b);
  int64_t ti = (int64_t)t;
  if (a < ti) return -1;
  if (a > ti) return 1;
  double frac = b - t;
  if (frac > 0) return -1;
  if (frac < 0) return 1;
  return 0;
}

static int kr_negative_shift(void) {
  PyErr_SetString(PyExc_ValueError, "negative shift count");
  return -1;
}

/* ------------------------------------------------------------------------ */
/* Python fallback helpers                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *builtins_dict; /* the builtins module's dict (borrowed from the module, kept alive) */

static void set_name_attr(PyObject *name) {
  /* NameError.name (3.10+) lets the traceback printer suggest names. */
  PyObject *exc, *val, *tb;
  PyErr_Fetch(&exc, &val, &tb);
  PyErr_NormalizeException(&exc, &val, &tb);
  if (val && PyObject_SetAttrString(val, "name", name) < 0) PyErr_Clear();
  PyErr_Restore(exc, val, tb);
}

static PyObject *kr_load_global(PyObject *globals, PyObject *name) {
  PyObject *v = PyDict_GetItemWithError(globals, name);
  if (!v) {
    if (PyErr_Occurred()) return NULL;
    v = PyDict_GetItemWithError(builtins_dict, name);
    if (!v) {
      if (PyErr_Occurred()) return NULL;
      PyErr_Format(PyExc_NameError, "name '%U' is not defined", name);
      set_name_attr(name);
      return NULL;
    }
  }
  Py_INCREF(v);
  return v;
}

static int kr_delete_global(PyObject *globals, PyObject *name) {
  if (PyDict_DelItem(globals, name) == 0) return 0;
  if (PyErr_ExceptionMatches(PyExc_KeyError)) {
    PyErr_Clear();
    PyErr_Format(PyExc_NameError, "name '%U' is not defined", name);
    set_name_attr(name);
  }
  return -1;
}

static PyObject *kr_build_class_function(void) {
  static PyObject *name;
  if (!name && !(name = PyUnicode_InternFromString("__build_class__"))) return NULL;
  PyObject *f = PyDict_GetItemWithError(builtins_dict, name);
  if (!f && !PyErr_Occurred()) PyErr_SetString(PyExc_NameError, "__build_class__ not found");
  return Py_XNewRef(f);
}

static void kr_unbind_global(PyObject *globals, PyObject *name) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (PyDict_SetItem(globals, name, Py_None) < 0 || PyDict_DelItem(globals, name) < 0)
    PyErr_Clear(); /* a dict storing then deleting a str key: only memory can fail */
  PyErr_Restore(type, value, tb);
}

/* CPython sets .name on a NameError it raises, not on an UnboundLocalError. */
static void raise_unbound(PyObject *type, const char *fmt, const char *name) {
  PyErr_Format(type, fmt, name);
  if (type != PyExc_NameError) return;
  PyObject *n = PyUnicode_FromString(name);
  if (n) {
    set_name_attr(n);
    Py_DECREF(n);
  } else {
    PyErr_Clear();
  }
}

static void kr_unbound_local(const char *name) {
#if PY_VERSION_HEX >= 0x030B0000
  raise_unbound(PyExc_UnboundLocalError, "cannot access local variable '%s' where it is not associated with a value",
                name);
#else
  raise_unbound(PyExc_UnboundLocalError, "local variable '%s' referenced before assignment", name);
#endif
}

/* A comprehension's or generator expression's read of an unbound variable
 * of its function (or of an outer comprehension). Before 3.12 every
 * comprehension was a function of its own, reading it as a free variable;
 * 3.12 inlined list, set and dict comprehensions (PEP 709), not generator
 * expressions. */
static void kr_unbound_free(const char *name, int generator) {
#if PY_VERSION_HEX >= 0x030C0000
  if (!generator) {
    kr_unbound_local(name);
    return;
  }
#else
  (void)generator;
#endif
#if PY_VERSION_HEX >= 0x030B0000
  raise_unbound(PyExc_NameError,
                "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name);
#else
  raise_unbound(PyExc_NameError, "free variable '%s' referenced before assignment in enclosing scope", name);
#endif
}

/* An exception raised inside a generator expression kiln consumes itself:
 * a StopIteration becomes RuntimeError, caused by it, as CPython's
 * generators do (PEP 479). */
static void kr_generator_raised(void) {
  if (!PyErr_ExceptionMatches(PyExc_StopIteration)) return;
  PyObject *type, *val, *tb;
  PyErr_Fetch(&type, &val, &tb);
  PyErr_NormalizeException(&type, &val, &tb);
  if (tb && val) PyException_SetTraceback(val, tb);
  PyErr_SetString(PyExc_RuntimeError, "generator raised StopIteration");
  PyObject *type2, *val2, *tb2;
  PyErr_Fetch(&type2, &val2, &tb2);
  PyErr_NormalizeException(&type2, &val2, &tb2);
  if (val2 && val) {
    Py_INCREF(val);
    PyException_SetCause(val2, val); /* steals */
    Py_INCREF(val);
    PyException_SetContext(val2, val); /* steals */
  }
  PyErr_Restore(type2, val2, tb2);
  Py_XDECREF(type);
  Py_XDECREF(val);
  Py_XDECREF(tb);
}

/* ------------------------------------------------------------------------ */
/* sum(), min() and max() of a generator expression kiln consumes itself      */
/* ------------------------------------------------------------------------ */

/* What sum() does with its start before the first item (after it has the
 * iterator, as CPython does). */
static int kr_sum_start(KrSum *s, PyObject **total, PyObject *start) {
  s->mode = KR_SUM_INT;
  s->i = 0;
  s->f = s->c = 0.0;
  if (!start) return 0;
  PyTypeObject *const refused[] = {&PyUnicode_Type, &PyBytes_Type, &PyByteArray_Type};
  static const char *const what[][2] = {{"strings", "''"}, {"bytes", "b''"}, {"bytearray", "b''"}};
  for (int k = 0; k < 3; k++)
    if (PyObject_TypeCheck(start, refused[k])) {
      PyErr_Format(PyExc_TypeError, "sum() can't sum %s [use %s.join(seq) instead]", what[k][0], what[k][1]);
      return -1;
    }
  if (PyLong_CheckExact(start)) {
    int overflow;
    s->i = PyLong_AsLongAndOverflow(start, &overflow);
    if (!overflow) return 0; /* a start past a long begins in the object mode */
  } else if (PyFloat_CheckExact(start)) {
    s->mode = KR_SUM_FLOAT;
    s->f = PyFloat_AS_DOUBLE(start);
    return 0;
  }
  s->mode = KR_SUM_OBJECT;
  Py_INCREF(start);
  *total = start;
  return 0;
}

/* total + item (both stolen), as sum() leaves a C mode: the total released
 * first, then the item. An exact float result goes on in the float mode
 * only when it leaves the int mode (CPython's int loop is followed by its
 * float loop, never the other way round). */
static int kr_sum_leave(KrSum *s, PyObject **total, PyObject *sofar, PyObject *item) {
  const bool from_int = s->mode == KR_SUM_INT;
  PyObject *r = sofar ? PyNumber_Add(sofar, item) : NULL;
  Py_XDECREF(sofar);
  Py_DECREF(item);
  s->mode = KR_SUM_OBJECT;
  if (!r) return -1;
  if (from_int && PyFloat_CheckExact(r)) {
    s->mode = KR_SUM_FLOAT;
    s->f = PyFloat_AS_DOUBLE(r);
    s->c = 0.0;
    Py_DECREF(r);
    return 0;
  }
  *total = r;
  return 0;
}

static int kr_sum_add(KrSum *s, PyObject **total, PyObject *item) {
  switch (s->mode) {
  case KR_SUM_INT:
    if (PyLong_CheckExact(item) || PyBool_Check(item)) {
      int overflow;
      long v = PyLong_AsLongAndOverflow(item, &overflow);
      if (!overflow && kr_sum_int(s, v)) {
        Py_DECREF(item);
        return 0;
      }
    }
    return kr_sum_leave(s, total, PyLong_FromLong(s->i), item);
  case KR_SUM_FLOAT:
    if (PyFloat_CheckExact(item)) {
      kr_sum_add_float(s, PyFloat_AS_DOUBLE(item));
      Py_DECREF(item);
      return 0;
    }
    if (PyLong_Check(item)) {
      int overflow;
      long v = PyLong_AsLongAndOverflow(item, &overflow);
      if (!overflow) {
        kr_sum_int(s, v);
        Py_DECREF(item);
        return 0;
      }
    }
    return kr_sum_leave(s, total, PyFloat_FromDouble(kr_sum_float_value(s)), item);
  default: {
    PyObject *r = PyNumber_Add(*total, item);
    Py_SETREF(*total, r);
    Py_DECREF(item);
    return r ? 0 : -1;
  }
  }
}

static PyObject *kr_sum_total(KrSum *s, PyObject **total) {
  switch (s->mode) {
  case KR_SUM_INT: return PyLong_FromLong(s->i);
  case KR_SUM_FLOAT: return PyFloat_FromDouble(kr_sum_float_value(s));
  default: {
    PyObject *r = *total;
    *total = NULL;
    return r;
  }
  }
}

/* One step of min()/max()'s loop, releasing what it releases in its order:
 * a loser's item then key; a replaced best's key then item; on an error
 * the new key, the new item, the best key, the best item. */
static int kr_best_step(PyObject **best, PyObject **best_key, PyObject *item, PyObject *key, int op) {
  PyObject *val = item;
  if (key && key != Py_None) {
    val = PyObject_CallOneArg(key, item);
    if (!val) goto fail_item;
  } else {
    Py_INCREF(val);
  }
  if (!*best_key) {
    *best = item;
    *best_key = val;
    return 0;
  }
  int cmp = PyObject_RichCompareBool(val, *best_key, op);
  if (cmp < 0) goto fail_val;
  if (cmp > 0) {
    Py_DECREF(*best_key);
    Py_DECREF(*best);
    *best_key = val;
    *best = item;
  } else {
    Py_DECREF(item);
    Py_DECREF(val);
  }
  return 0;
fail_val:
  Py_DECREF(val);
fail_item:
  Py_DECREF(item);
  Py_CLEAR(*best_key);
  Py_CLEAR(*best);
  return -1;
}

static void kr_best_empty(int is_max) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_Format(PyExc_ValueError, "%s() iterable argument is empty", is_max ? "max" : "min");
#else
  PyErr_Format(PyExc_ValueError, "%s() arg is an empty sequence", is_max ? "max" : "min");
#endif
}

/* ------------------------------------------------------------------------ */
/* try statements and raise (CPython's ceval, per version)                    */
/* ------------------------------------------------------------------------ */

/* The raised exception, normalized with its traceback on it (new ref). */
static PyObject *take_raised(void) {
  for (;;) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *v = PyErr_GetRaisedException();
#else
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (t) {
      PyErr_NormalizeException(&t, &v, &tb);
      PyException_SetTraceback(v, tb ? tb : Py_None);
    }
    Py_XDECREF(t);
    Py_XDECREF(tb);
#endif
    if (v) return v;
    PyErr_SetString(PyExc_SystemError, "error return without exception set");
  }
}

static void kr_exc_catch(KrExcSave *save, PyObject **exc) {
  PyObject *v = take_raised();
#if PY_VERSION_HEX >= 0x030B0000
  save->value = PyErr_GetHandledException();
  PyErr_SetHandledException(v);
#else
  PyErr_GetExcInfo(&save->type, &save->value, &save->tb);
  save->caught_type = Py_NewRef((PyObject *)Py_TYPE(v));
  save->caught_tb = PyException_GetTraceback(v);
  PyErr_SetExcInfo(Py_NewRef(save->caught_type), Py_NewRef(v), Py_XNewRef(save->caught_tb));
#endif
  *exc = v;
}

static void kr_exc_uncatch(KrExcSave *save) {
#if PY_VERSION_HEX >= 0x030B0000
  PyErr_SetHandledException(save->value);
  Py_CLEAR(save->value);
#else
  PyErr_SetExcInfo(save->type, save->value, save->tb);
  save->type = save->value = save->tb = NULL;
  Py_CLEAR(save->caught_type);
  Py_CLEAR(save->caught_tb);
#endif
}

static int kr_exc_match(PyObject *exc, PyObject *type) {
  int ok = PyExceptionClass_Check(type);
  if (PyTuple_Check(type)) {
    ok = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(type) && ok; i++) ok = PyExceptionClass_Check(PyTuple_GET_ITEM(type, i));
  }
  if (!ok) {
    PyErr_SetString(PyExc_TypeError, "catching classes that do not inherit from BaseException is not allowed");
    return -1;
  }
  return PyErr_GivenExceptionMatches(exc, type);
}

/* Raises exc (stolen) with its traceback now. */
static void restore_raised(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exc);
#else
  PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, PyException_GetTraceback(exc));
#endif
}

static void kr_exc_rethrow(KrExcSave *save, PyObject *exc) {
#if PY_VERSION_HEX >= 0x030B0000
  kr_exc_uncatch(save);
  restore_raised(exc);
#else
  PyObject *type = kr_take(&save->caught_type), *tb = kr_take(&save->caught_tb);
  kr_exc_uncatch(save);
  PyErr_Restore(type, exc, tb);
#endif
}

static void kr_raise(PyObject *exc, PyObject *cause) {
  PyObject *type, *value = NULL;
  if (PyExceptionClass_Check(exc)) {
    type = Py_NewRef(exc);
    value = PyObject_CallNoArgs(exc);
    if (!value) goto fail;
    if (!PyExceptionInstance_Check(value)) {
      PyErr_Format(PyExc_TypeError, "calling %R should have returned an instance of BaseException, not %R", type,
                   Py_TYPE(value));
      goto fail;
    }
  } else if (PyExceptionInstance_Check(exc)) {
    value = Py_NewRef(exc);
    type = Py_NewRef(PyExceptionInstance_Class(exc));
  } else {
    PyErr_SetString(PyExc_TypeError, "exceptions must derive from BaseException");
    return;
  }
  if (cause) {
    PyObject *fixed;
    if (PyExceptionClass_Check(cause)) {
      fixed = PyObject_CallNoArgs(cause);
      if (!fixed) goto fail;
#if PY_VERSION_HEX >= 0x030D0000
      if (!PyExceptionInstance_Check(fixed)) {
        PyErr_Format(PyExc_TypeError, "calling %R should have returned an instance of BaseException, not %R", cause,
                     Py_TYPE(fixed));
        Py_DECREF(fixed);
        goto fail;
      }
#endif
    } else if (PyExceptionInstance_Check(cause)) {
      fixed = Py_NewRef(cause);
    } else if (cause == Py_None) {
      fixed = NULL;
    } else {
      PyErr_SetString(PyExc_TypeError, "exception causes must derive from BaseException");
      goto fail;
    }
    PyException_SetCause(value, fixed);
  }
  PyErr_SetObject(type, value);
  Py_DECREF(value);
  Py_DECREF(type);
  return;
fail:
  Py_XDECREF(value);
  Py_DECREF(type);
}

static int kr_reraise(void) {
#if PY_VERSION_HEX >= 0x030B0000
  PyObject *v = PyErr_GetHandledException();
  if (!v || v == Py_None) {
    Py_XDECREF(v);
    PyErr_SetString(PyExc_RuntimeError, "No active exception to reraise");
    return 0;
  }
  restore_raised(v);
#else
  PyObject *t, *v, *tb;
  PyErr_GetExcInfo(&t, &v, &tb);
  if (!t || t == Py_None) {
    Py_XDECREF(t), Py_XDECREF(v), Py_XDECREF(tb);
    PyErr_SetString(PyExc_RuntimeError, "No active exception to reraise");
    return 0;
  }
  PyErr_Restore(t, v, tb);
#endif
  return 1;
}

/* type(o).name bound to o, as CPython's special-method lookup (no instance
 * dict, no metaclass); NULL without an exception when there is none. */
static PyObject *lookup_special(PyObject *o, const char *name, PyObject **interned) {
  if (!*interned && !(*interned = PyUnicode_InternFromString(name))) return NULL;
  PyObject *res = _PyType_Lookup(Py_TYPE(o), *interned);
  if (!res) return NULL;
  descrgetfunc get = Py_TYPE(res)->tp_descr_get;
  return get ? get(res, o, (PyObject *)Py_TYPE(o)) : Py_NewRef(res);
}

static PyObject *kr_with_enter(PyObject *mgr, PyObject **exit) {
  static PyObject *enter_name, *exit_name;
  PyObject *enter = lookup_special(mgr, "__enter__", &enter_name);
  if (!enter) {
    if (PyErr_Occurred()) return NULL;
#if PY_VERSION_HEX >= 0x030B0000
    PyErr_Format(PyExc_TypeError, "'%.200s' object does not support the context manager protocol",
                 Py_TYPE(mgr)->tp_name);
#else
    PyErr_SetString(PyExc_AttributeError, "__enter__");
#endif
    return NULL;
  }
  PyObject *ex = lookup_special(mgr, "__exit__", &exit_name);
  if (!ex) {
    if (!PyErr_Occurred()) {
#if PY_VERSION_HEX >= 0x030B0000
      PyErr_Format(PyExc_TypeError,
                   "'%.200s' object does not support the context manager protocol (missed __exit__ method)",
                   Py_TYPE(mgr)->tp_name);
#else
      PyErr_SetString(PyExc_AttributeError, "__exit__");
#endif
    }
    Py_DECREF(enter);
    return NULL;
  }
  PyObject *value = PyObject_CallNoArgs(enter);
  Py_DECREF(enter);
  if (!value) {
    Py_DECREF(ex);
    return NULL;
  }
  *exit = ex;
  return value;
}

static int kr_with_exit(PyObject **exit) {
  PyObject *args[3] = {Py_None, Py_None, Py_None};
  PyObject *res = PyObject_Vectorcall(*exit, args, 3, NULL);
  Py_CLEAR(*exit);
  Py_XDECREF(res);
  return res ? 0 : -1;
}

static int kr_with_exit_exc(PyObject **exit, PyObject *exc) {
  PyObject *tb = PyException_GetTraceback(exc);
  PyObject *args[3] = {(PyObject *)Py_TYPE(exc), exc, tb ? tb : Py_None};
  PyObject *res = PyObject_Vectorcall(*exit, args, 3, NULL);
  Py_XDECREF(tb);
  Py_CLEAR(*exit);
  if (!res) return -1;
  int r = PyObject_IsTrue(res);
  Py_DECREF(res);
  return r;
}

static PyObject *kr_power(PyObject *a, PyObject *b) { return PyNumber_Power(a, b, Py_None); }
static PyObject *kr_inplace_power(PyObject *a, PyObject *b) { return PyNumber_InPlacePower(a, b, Py_None); }

/* The TypeError CPython raises for unpacking what is not iterable. */
static void not_iterable(PyObject *seq) {
  if (PyErr_ExceptionMatches(PyExc_TypeError) && Py_TYPE(seq)->tp_iter == NULL && !PySequence_Check(seq)) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %.200s object", Py_TYPE(seq)->tp_name);
  }
}

static int kr_unpack(PyObject *seq, Py_ssize_t n, PyObject **out) {
  if ((PyTuple_CheckExact(seq) || PyList_CheckExact(seq)) && Py_SIZE(seq) == n) {
    PyObject **items = PyTuple_CheckExact(seq) ? &PyTuple_GET_ITEM(seq, 0) : &PyList_GET_ITEM(seq, 0);
    for (Py_ssize_t i = 0; i < n; i++) {
      out[i] = items[i];
      Py_INCREF(out[i]);
    }
    return 0;
  }
  PyObject *it = PyObject_GetIter(seq);
  if (!it) {
    not_iterable(seq);
    return -1;
  }
  Py_ssize_t i = 0;
  for (; i < n; i++) {
    PyObject *w = PyIter_Next(it);
    if (!w) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected %zd, got %zd)", n, i);
      goto error;
    }
    out[i] = w;
  }
  PyObject *w = PyIter_Next(it);
  if (!w) {
    if (PyErr_Occurred()) goto error;
    Py_DECREF(it);
    return 0;
  }
  Py_DECREF(w);
  PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %zd)", n);
error:
  for (Py_ssize_t j = 0; j < i; j++) Py_CLEAR(out[j]);
  Py_DECREF(it);
  return -1;
}

/* UNPACK_EX: `before` items one by one, the rest into a list, whose last
 * `after` items move out of it. */
static int kr_unpack_starred(PyObject *seq, Py_ssize_t before, Py_ssize_t after, PyObject **out) {
  PyObject *it = PyObject_GetIter(seq);
  if (!it) {
    not_iterable(seq);
    return -1;
  }
  Py_ssize_t i = 0;
  for (; i < before; i++) {
    out[i] = PyIter_Next(it);
    if (!out[i]) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected at least %zd, got %zd)",
                     before + after, i);
      goto error;
    }
  }
  PyObject *rest = PySequence_List(it);
  if (!rest) goto error;
  Py_ssize_t len = PyList_GET_SIZE(rest);
  if (len < after) {
    PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected at least %zd, got %zd)", before + after,
                 before + len);
    Py_DECREF(rest);
    goto error;
  }
  for (Py_ssize_t j = 0; j < after; j++) {
    out[before + 1 + j] = PyList_GET_ITEM(rest, len - after + j);
    Py_INCREF(out[before + 1 + j]);
  }
  if (after && PyList_SetSlice(rest, len - after, len, NULL) < 0) { /* cannot fail: shrinking a list */
    for (Py_ssize_t j = 0; j < after; j++) Py_CLEAR(out[before + 1 + j]);
    Py_DECREF(rest);
    goto error;
  }
  out[before] = rest;
  Py_DECREF(it);
  return 0;
error:
  for (Py_ssize_t j = 0; j < i; j++) Py_CLEAR(out[j]);
  Py_DECREF(it);
  return -1;
}

static int kr_list_extend(PyObject *list, PyObject *iterable) {
#if PY_VERSION_HEX >= 0x030D0000
  if (PyList_Extend(list, iterable) == 0) return 0;
#else
  PyObject *none = _PyList_Extend((PyListObject *)list, iterable);
  if (none) {
    Py_DECREF(none);
    return 0;
  }
#endif
  if (PyErr_ExceptionMatches(PyExc_TypeError) && Py_TYPE(iterable)->tp_iter == NULL && !PySequence_Check(iterable)) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "Value after * must be an iterable, not %.200s", Py_TYPE(iterable)->tp_name);
  }
  return -1;
}

/* set.update(iterable) runs what SET_UPDATE runs (3.13 keeps _PySet_Update internal). */
static int kr_set_update(PyObject *set, PyObject *iterable) {
  static PyObject *update;
  if (!update && !(update = PyUnicode_InternFromString("update"))) return -1;
  PyObject *r = PyObject_CallMethodOneArg(set, update, iterable);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

static int kr_dict_update(PyObject *dict, PyObject *mapping) {
  if (PyDict_Update(dict, mapping) == 0) return 0;
  if (PyErr_ExceptionMatches(PyExc_AttributeError))
    PyErr_Format(PyExc_TypeError, "'%.200s' object is not a mapping", Py_TYPE(mapping)->tp_name);
  return -1;
}

/* ---- match statements: CPython's pattern instructions (ceval.c's
 * match_keys and match_class, GET_LEN/BINARY_SUBSCR, DICT_UPDATE and
 * DELETE_SUBSCR), each step in its order, so that every __len__, get,
 * __instancecheck__ and attribute read happens as it would. ---- */

/* An interned str made once (NULL with an error). */
static PyObject *interned(PyObject **slot, const char *text) {
  if (!*slot) *slot = PyUnicode_InternFromString(text);
  return *slot;
}

/* name is one of the n names in seen (all exact str, as CPython's set of
 * them would say: by value). */
static int seen_before(PyObject *const *seen, Py_ssize_t n, PyObject *name) {
  for (Py_ssize_t i = 0; i < n; i++)
    if (seen[i] == name || PyUnicode_Compare(seen[i], name) == 0) return 1;
  return 0;
}

/* MATCH_KEYS: a tuple of map.get(key, <dummy>) for each key in order, None
 * at the first missing one; a key seen before is a ValueError. An exact
 * dict's get is dict.get (nothing can override it): looked up directly. */
static PyObject *kr_match_keys(PyObject *map, PyObject *keys) {
  static PyObject *get_str;
  Py_ssize_t nkeys = PyTuple_GET_SIZE(keys);
  if (!nkeys) return PyTuple_New(0);
  const int exact = PyDict_CheckExact(map);
  PyObject *seen = NULL, *dummy = NULL, *values = NULL, *get = NULL;
  if (!exact && (!interned(&get_str, "get") || !(get = PyObject_GetAttr(map, get_str)))) goto fail;
  seen = PySet_New(NULL);
  if (!seen) goto fail;
  dummy = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
  if (!dummy) goto fail;
  values = PyTuple_New(nkeys);
  if (!values) goto fail;
  for (Py_ssize_t i = 0; i < nkeys; i++) {
    PyObject *key = PyTuple_GET_ITEM(keys, i);
    if (PySet_Contains(seen, key) || PySet_Add(seen, key)) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "mapping pattern checks duplicate key (%R)", key);
      goto fail;
    }
    PyObject *value;
    if (exact) {
      value = PyDict_GetItemWithError(map, key);
      if (!value && PyErr_Occurred()) goto fail;
      value = value ? Py_NewRef(value) : Py_NewRef(dummy);
    } else {
      PyObject *args[] = {key, dummy};
      value = PyObject_Vectorcall(get, args, 2, NULL);
      if (!value) goto fail;
    }
    if (value == dummy) { /* not in the map */
      Py_DECREF(value);
      Py_SETREF(values, Py_NewRef(Py_None));
      break;
    }
    PyTuple_SET_ITEM(values, i, value);
  }
  Py_XDECREF(get);
  Py_DECREF(seen);
  Py_DECREF(dummy);
  return values;
fail:
  Py_XDECREF(get);
  Py_XDECREF(seen);
  Py_XDECREF(dummy);
  Py_XDECREF(values);
  return NULL;
}

/* getattr(subject, name), NULL without an error when it has none; a name
 * already taken by another sub-pattern is a TypeError. */
static PyObject *match_class_attr(PyObject *subject, PyObject *type, PyObject *name, PyObject **seen, Py_ssize_t *nseen) {
  if (seen_before(seen, *nseen, name)) {
    PyErr_Format(PyExc_TypeError, "%s() got multiple sub-patterns for attribute %R", ((PyTypeObject *)type)->tp_name,
                 name);
    return NULL;
  }
  seen[(*nseen)++] = name;
  PyObject *attr = PyObject_GetAttr(subject, name);
  if (!attr && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
  return attr;
}

/* MATCH_CLASS: a tuple of the attributes nargs positional sub-patterns
 * (through type.__match_args__, or the subject itself for the builtins
 * that match themselves) and the keyword ones (kwnames, a tuple or NULL)
 * look at, or None when the subject is not an instance or lacks one. */
static PyObject *kr_match_class(PyObject *subject, PyObject *type, Py_ssize_t nargs, PyObject *kwnames) {
  static PyObject *match_args_str;
  if (!PyType_Check(type)) {
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetString(PyExc_TypeError, "called match pattern must be a class");
#else
    PyErr_SetString(PyExc_TypeError, "called match pattern must be a type");
#endif
    return NULL;
  }
  int is = PyObject_IsInstance(subject, type);
  if (is < 0) return NULL;
  if (!is) return Py_NewRef(Py_None);
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject *match_args = NULL, *attrs = PyTuple_New(nargs + nkw);
  PyObject **seen = PyMem_Malloc(sizeof(PyObject *) * (size_t)(nargs + nkw + 1)); /* borrowed names */
  Py_ssize_t nseen = 0;
  if (!attrs || !seen) {
    if (!seen) PyErr_NoMemory();
    goto fail;
  }
  if (nargs) {
    int match_self = 0;
    if (!interned(&match_args_str, "__match_args__")) goto fail;
    match_args = PyObject_GetAttr(type, match_args_str);
    if (match_args) {
      if (!PyTuple_CheckExact(match_args)) {
        PyErr_Format(PyExc_TypeError, "%s.__match_args__ must be a tuple (got %s)", ((PyTypeObject *)type)->tp_name,
                     Py_TYPE(match_args)->tp_name);
        goto fail;
      }
    } else {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError)) goto fail;
      PyErr_Clear();
      /* only without __match_args__: a subclass defining it loses this */
      match_args = PyTuple_New(0);
      if (!match_args) goto fail;
      match_self = PyType_HasFeature((PyTypeObject *)type, _Py_TPFLAGS_MATCH_SELF);
    }
    Py_ssize_t allowed = match_self ? 1 : PyTuple_GET_SIZE(match_args);
    if (allowed < nargs) {
      PyErr_Format(PyExc_TypeError, "%s() accepts %d positional sub-pattern%s (%d given)",
                   ((PyTypeObject *)type)->tp_name, (int)allowed, allowed == 1 ? "" : "s", (int)nargs);
      goto fail;
    }
    if (match_self) {
      PyTuple_SET_ITEM(attrs, 0, Py_NewRef(subject));
    } else {
      for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *name = PyTuple_GET_ITEM(match_args, i);
        if (!PyUnicode_CheckExact(name)) {
          PyErr_Format(PyExc_TypeError, "__match_args__ elements must be strings (got %s)", Py_TYPE(name)->tp_name);
          goto fail;
        }
        PyObject *attr = match_class_attr(subject, type, name, seen, &nseen);
        if (!attr) goto fail;
        PyTuple_SET_ITEM(attrs, i, attr);
      }
    }
    /* the names stay referenced by match_args until the keywords are checked */
  }
  for (Py_ssize_t i = 0; i < nkw; i++) {
    PyObject *attr = match_class_attr(subject, type, PyTuple_GET_ITEM(kwnames, i), seen, &nseen);
    if (!attr) goto fail;
    PyTuple_SET_ITEM(attrs, nargs + i, attr);
  }
  Py_XDECREF(match_args);
  PyMem_Free(seen);
  return attrs;
fail: /* an error, or no match */
  Py_XDECREF(match_args);
  Py_XDECREF(attrs);
  PyMem_Free(seen);
  return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
}

/* seq[i]; i < 0 (an item after a `*_`): seq[len(seq) + i], len asked again. */
static PyObject *kr_match_index(PyObject *seq, Py_ssize_t i) {
  if (i < 0) {
    Py_ssize_t n = PyObject_Length(seq);
    if (n < 0) return NULL;
    i += n;
  }
  PyObject *index = PyLong_FromSsize_t(i);
  if (!index) return NULL;
  PyObject *r = PyObject_GetItem(seq, index);
  Py_DECREF(index);
  return r;
}

/* A mapping pattern's **rest: dict(map) without keys (3.10's
 * COPY_DICT_WITHOUT_KEYS; DICT_UPDATE and DELETE_SUBSCR since). */
static PyObject *kr_match_rest(PyObject *map, PyObject *keys) {
  PyObject *rest = PyDict_New();
  if (!rest) return NULL;
#if PY_VERSION_HEX >= 0x030B0000
  if (kr_dict_update(rest, map) < 0) goto fail;
#else
  if (PyDict_Update(rest, map) < 0) goto fail;
#endif
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); i++)
    if (PyDict_DelItem(rest, PyTuple_GET_ITEM(keys, i)) < 0) goto fail;
  return rest;
fail:
  Py_DECREF(rest);
  return NULL;
}

#if PY_VERSION_HEX >= 0x030D0000 /* exported, declared only in an internal header from 3.13 */
PyAPI_FUNC(int) _PyDict_MergeEx(PyObject *mp, PyObject *other, int override);
#endif

/* DICT_MERGE: override 2 makes a key already there a KeyError(key), which
 * becomes CPython's TypeError naming the function (its format_kwargs_error:
 * up to 3.11 only a KeyError the merge set itself, an unnormalized 1-tuple,
 * from 3.12 any KeyError with one argument). */
static int kr_kwargs_merge(PyObject *kwargs, PyObject *mapping, PyObject *func) {
  if (_PyDict_MergeEx(kwargs, mapping, 2) == 0) return 0;
  if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    PyObject *fs = _PyObject_FunctionStr(func);
    if (fs) {
      PyErr_Format(PyExc_TypeError, "%U argument after ** must be a mapping, not %.200s", fs,
                   Py_TYPE(mapping)->tp_name);
      Py_DECREF(fs);
    }
  } else if (PyErr_ExceptionMatches(PyExc_KeyError)) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
    PyObject *args = PyException_GetArgs(exc);
    if (args && PyTuple_Check(args) && PyTuple_GET_SIZE(args) == 1) {
      PyObject *fs = _PyObject_FunctionStr(func);
      if (fs) {
        PyErr_Format(PyExc_TypeError, "%U got multiple values for keyword argument '%S'", fs,
                     PyTuple_GET_ITEM(args, 0));
        Py_DECREF(fs);
      }
      Py_DECREF(exc);
    } else {
      PyErr_SetRaisedException(exc);
    }
    Py_XDECREF(args);
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (value && PyTuple_Check(value) && PyTuple_GET_SIZE(value) == 1) {
      PyObject *fs = _PyObject_FunctionStr(func);
      if (fs) {
        PyErr_Format(PyExc_TypeError, "%U got multiple values for keyword argument '%S'", fs,
                     PyTuple_GET_ITEM(value, 0));
        Py_DECREF(fs);
      }
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(tb);
    } else {
      PyErr_Restore(type, value, tb);
    }
#endif
  }
  return -1;
}

/* ---- import statements ---- */

/* Is f builtins.__import__ itself? Then its C function is called directly,
 * as CPython's IMPORT_NAME does. */
static bool default_import(PyObject *f) {
  if (!PyCFunction_Check(f) || !PyCFunction_GET_SELF(f) || !PyModule_Check(PyCFunction_GET_SELF(f))) return false;
  const char *name = PyModule_GetName(PyCFunction_GET_SELF(f));
  if (!name) {
    PyErr_Clear();
    return false;
  }
  return !strcmp(name, "builtins") && !strcmp(((PyCFunctionObject *)f)->m_ml->ml_name, "__import__");
}

static PyObject *kr_import_name(PyObject *globals, PyObject *name, PyObject *fromlist, int level) {
  static PyObject *import_str, *known_default; /* the original, once seen (kept alive: its identity is the test) */
  if (!import_str && !(import_str = PyUnicode_InternFromString("__import__"))) return NULL;
  PyObject *f = PyDict_GetItemWithError(builtins_dict, import_str); /* borrowed */
  if (!f) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ImportError, "__import__ not found");
    return NULL;
  }
  if (f == known_default || (!known_default && default_import(f) && (known_default = Py_NewRef(f))))
    return PyImport_ImportModuleLevelObject(name, globals, Py_None, fromlist, level);
  PyObject *lv = PyLong_FromLong(level);
  if (!lv) return NULL;
  Py_INCREF(f); /* the call may replace builtins.__import__ */
  PyObject *args[5] = {name, globals, Py_None, fromlist, lv};
  PyObject *r = PyObject_Vectorcall(f, args, 5, NULL);
  Py_DECREF(f);
  Py_DECREF(lv);
  return r;
}

/* The module a helper statement imports: its __import__ returns locals["m"]. */
static PyObject *passed_module(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  PyObject *m = nargs >= 3 && PyDict_Check(args[2]) ? PyDict_GetItemString(args[2], "m") : NULL;
  if (!m) {
    PyErr_SetString(PyExc_SystemError, "kiln: import helper called without its module");
    return NULL;
  }
  return Py_NewRef(m);
}
static PyMethodDef passed_module_def = {"__import__", (PyCFunction)(void (*)(void))passed_module, METH_FASTCALL, NULL};

/* CPython's own IMPORT_FROM error: `from _ import name as r` run as
 * module-level code whose __import__ gives `module`, so the ImportError
 * (message, name, path, name_from, every version's wording) is CPython's.
 * For a module it is run on a stand-in with the module's __name__, __file__
 * and __spec__ (all the error reads), so no __getattr__ of the module runs
 * again. The code is compiled once, at start (runtime_init), and made for
 * each name by code.replace; the helper's frame is taken off the traceback. */
static PyObject *import_helper_globals, *import_helper_code, *import_helper_codes;

static int import_helper_init(void) {
  PyObject *b = PyDict_New(), *imp = PyCFunction_New(&passed_module_def, NULL);
  PyObject *g = b && imp && PyDict_SetItemString(b, "__import__", imp) == 0 ? PyDict_New() : NULL;
  if (g && PyDict_SetItemString(g, "__builtins__", b) < 0) Py_CLEAR(g);
  Py_XDECREF(b);
  Py_XDECREF(imp);
  if (!g) return -1;
  import_helper_globals = g;
  import_helper_code = Py_CompileString("from _ import NAME as r", "<kiln import>", Py_file_input);
  import_helper_codes = PyDict_New();
  return import_helper_code && import_helper_codes ? 0 : -1;
}

static PyObject *import_error_by_cpython(PyObject *module, PyObject *name) {
  PyObject *code = PyDict_GetItemWithError(import_helper_codes, name); /* borrowed */
  if (!code) {
    if (PyErr_Occurred()) return NULL;
    PyObject *names = PyObject_GetAttrString(import_helper_code, "co_names"); /* ('_', 'NAME', 'r') */
    PyObject *renamed = names && PyTuple_GET_SIZE(names) == 3
                            ? PyTuple_Pack(3, PyTuple_GET_ITEM(names, 0), name, PyTuple_GET_ITEM(names, 2)) : NULL;
    PyObject *replace = renamed ? PyObject_GetAttrString(import_helper_code, "replace") : NULL;
    PyObject *kw = replace ? Py_BuildValue("{sO}", "co_names", renamed) : NULL;
    PyObject *empty = kw ? PyTuple_New(0) : NULL;
    code = empty ? PyObject_Call(replace, empty, kw) : NULL;
    Py_XDECREF(names);
    Py_XDECREF(renamed);
    Py_XDECREF(replace);
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    if (!code) return NULL;
    int bad = PyDict_SetItem(import_helper_codes, name, code);
    Py_DECREF(code); /* the cache keeps it */
    if (bad < 0) return NULL;
  }
  PyObject *target = module;
  if (PyModule_Check(module)) { /* the stand-in */
    PyObject *stand_in = PyUnicode_FromString("kiln import stand-in");
    target = stand_in ? PyModule_NewObject(stand_in) : NULL;
    Py_XDECREF(stand_in);
    if (!target) return NULL;
    PyObject *src = PyModule_GetDict(module), *dst = PyModule_GetDict(target);
    PyDict_Clear(dst);
    static const char *const copied[] = {"__name__", "__file__", "__spec__"};
    for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++) {
      PyObject *v = PyDict_GetItemString(src, copied[i]);
      if (v && PyDict_SetItemString(dst, copied[i], v) < 0) {
        Py_DECREF(target);
        return NULL;
      }
    }
  } else {
    Py_INCREF(target);
  }
  PyObject *locals = PyDict_New();
  PyObject *r = NULL;
  if (locals && PyDict_SetItemString(locals, "m", target) == 0) {
    PyObject *done = PyEval_EvalCode(code, import_helper_globals, locals);
    if (done) { /* found after all (a non-module's attribute appeared): CPython's answer */
      Py_DECREF(done);
      r = PyDict_GetItemString(locals, "r");
      Py_XINCREF(r);
      if (!r) PyErr_SetString(PyExc_SystemError, "kiln: import helper bound nothing");
    } else {
      PyObject *exc = take_raised();
      PyObject *tb = PyException_GetTraceback(exc);
      if (tb && PyTraceBack_Check(tb)) {
        PyObject *next = (PyObject *)((PyTracebackObject *)tb)->tb_next;
        PyException_SetTraceback(exc, next ? next : Py_None);
      }
      Py_XDECREF(tb);
      restore_raised(exc);
    }
  }
  Py_XDECREF(locals);
  Py_DECREF(target);
  return r;
}

/* IMPORT_FROM: the attribute; after an AttributeError, the submodule
 * `module.__name__ + "." + name` from sys.modules (a circular import); else
 * CPython's ImportError. */
static PyObject *kr_import_from(PyObject *module, PyObject *name) {
  /* A plain module's own global, not a dunder (ModuleType's descriptors
   * are dunders): what getattr finds, without running anything. */
  if (PyModule_CheckExact(module) && PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) > 0 &&
      PyUnicode_READ_CHAR(name, 0) != '_') {
    PyObject *v = PyDict_GetItemWithError(PyModule_GetDict(module), name);
    if (v) return Py_NewRef(v);
    if (PyErr_Occurred()) return NULL;
  }
  PyObject *v = PyObject_GetAttr(module, name);
  if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) return v;
  PyErr_Clear();
  PyObject *pkgname = PyObject_GetAttrString(module, "__name__");
  if (pkgname && PyUnicode_Check(pkgname)) {
    PyObject *full = PyUnicode_FromFormat("%U.%U", pkgname, name);
    v = full ? PyImport_GetModule(full) : NULL;
    Py_XDECREF(full);
    if (v || PyErr_Occurred()) {
      Py_DECREF(pkgname);
      return v;
    }
  } else {
    PyErr_Clear();
    Py_CLEAR(pkgname);
  }
  if (PyModule_Check(module)) {
    Py_XDECREF(pkgname);
    return import_error_by_cpython(module, name);
  }
  /* not a module: no file, so CPython's "unknown location" error */
  PyObject *shown = pkgname ? Py_NewRef(pkgname) : PyUnicode_FromString("<unknown module name>");
  PyObject *msg = shown ? PyUnicode_FromFormat("cannot import name %R from %R (unknown location)", name, shown) : NULL;
  Py_XDECREF(shown);
  if (msg) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *args = PyTuple_Pack(1, msg);
    PyObject *kw = args ? Py_BuildValue("{sOsOsO}", "name", pkgname ? pkgname : Py_None, "path", Py_None,
                                        "name_from", name) : NULL;
    PyObject *exc = kw ? PyObject_Call(PyExc_ImportError, args, kw) : NULL;
    if (exc) PyErr_SetObject(PyExc_ImportError, exc);
    Py_XDECREF(exc);
    Py_XDECREF(kw);
    Py_XDECREF(args);
#else
    PyErr_SetImportError(msg, pkgname, NULL);
#endif
    Py_DECREF(msg);
  }
  Py_XDECREF(pkgname);
  return NULL;
}

static PyObject *kr_call_unpacked(PyObject *func, PyObject *args, PyObject *kwargs) {
  if (PyTuple_CheckExact(args)) return PyObject_Call(func, args, kwargs);
  if (Py_TYPE(args)->tp_iter == NULL && !PySequence_Check(args)) {
    PyObject *fs = _PyObject_FunctionStr(func);
    if (fs) {
      PyErr_Format(PyExc_TypeError, "%U argument after * must be an iterable, not %.200s", fs,
                   Py_TYPE(args)->tp_name);
      Py_DECREF(fs);
    }
    return NULL;
  }
  PyObject *tuple = PySequence_Tuple(args);
  if (!tuple) return NULL;
  PyObject *r = PyObject_Call(func, tuple, kwargs);
  Py_DECREF(tuple);
  return r;
}

/* ------------------------------------------------------------------------ */
/* the table and the module                                                   */
/* ------------------------------------------------------------------------ */

/* ---- a native loop's back edge ------------------------------------------
 * CPython's eval loop runs pending signal handlers and hands the GIL to a
 * waiting thread at every jump back; a compiled loop that called no Python
 * would do neither, so Ctrl-C could not stop it and other threads would
 * starve. Generated loops call kr_tick every kr_tick_period iterations
 * (KrApi.tick). The period doubles while ticks come less than 0.1 ms apart
 * and halves while they come more than 1 ms apart. The GIL is let go every
 * two switch intervals (sys.getswitchinterval(), re-read at most once a
 * millisecond, a call of ~0.1 us). Not every one: a thread waiting for the
 * GIL asks for it only after a whole interval without being woken, and
 * letting go wakes it, so letting go at the interval's own pace kept
 * restarting its wait and it never got a turn (the eval loop lets go only
 * when asked, which a C extension cannot see). Only threads holding the
 * GIL touch these. */
#define KR_TICK_FAST_NS 100000
#define KR_TICK_SLOW_NS 1000000
#define KR_TICK_MAX_PERIOD (1 << 20)
static int kr_tick_period = 1024;
#define KR_SWITCH_READ_NS 1000000
static uint64_t kr_tick_last_ns, kr_gil_last_ns, kr_switch_read_ns;
static uint64_t kr_gil_switch_ns = 5000000; /* CPython's default until first read */

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* kr_gil_switch_ns = sys.getswitchinterval(); left as it was if that fails
 * (no exception escapes: the loop that ticks has none pending either) */
static void kr_read_switch_interval(void) {
  if (PyErr_Occurred()) return;
  PyObject *fn = PySys_GetObject("getswitchinterval"); /* borrowed */
  PyObject *r = fn ? PyObject_CallNoArgs(fn) : NULL;
  double s = r && PyFloat_Check(r) ? PyFloat_AS_DOUBLE(r) : -1.0;
  Py_XDECREF(r);
  if (PyErr_Occurred()) PyErr_Clear();
  if (s > 0.0 && s <= 3600.0) kr_gil_switch_ns = (uint64_t)(s * 1e9);
}

static int kr_tick(int *countdown) {
  const uint64_t now = monotonic_ns(), since = now - kr_tick_last_ns;
  kr_tick_last_ns = now;
  if (since < KR_TICK_FAST_NS && kr_tick_period < KR_TICK_MAX_PERIOD) kr_tick_period *= 2;
  else if (since > KR_TICK_SLOW_NS && kr_tick_period > 1) kr_tick_period /= 2;
  *countdown = kr_tick_period;
  if (PyErr_CheckSignals() < 0) return -1;
  if (now - kr_switch_read_ns >= KR_SWITCH_READ_NS) {
    kr_switch_read_ns = now;
    kr_read_switch_interval();
  }
  if (now - kr_gil_last_ns >= 2 * kr_gil_switch_ns) {
    kr_gil_last_ns = now;
    Py_BEGIN_ALLOW_THREADS /* a thread waiting for the GIL takes it here */
    Py_END_ALLOW_THREADS
  }
  return 0;
}

static const KrApi kr_api = {
    .abi_version = KR_ABI_VERSION,
    .size = sizeof(KrApi),
    .module_init = kr_module_init,
    .bind_args = kr_bind_args,
    .add_traceback = kr_add_traceback,
    .unbox_int = kr_unbox_int,
    .unbox_float = kr_unbox_float,
    .unbox_bool = kr_unbox_bool,
    .tensor_unbox = kr_tensor_unbox,
    .tensor_box = kr_tensor_box,
    .tensor_from_object = kr_tensor_from_object,
    .raise_overflow = kr_raise_overflow,
    .int_floordiv = kr_int_floordiv,
    .int_mod = kr_int_mod,
    .int_pow = kr_int_pow,
    .int_lshift = kr_int_lshift,
    .int_rshift = kr_int_rshift,
    .int_truediv = kr_int_truediv,
    .float_div = kr_float_div,
    .float_floordiv = kr_float_floordiv,
    .float_mod = kr_float_mod,
    .float_pow = kr_float_pow,
    .float_to_int = kr_float_to_int,
    .int_float_cmp = kr_int_float_cmp,
    .negative_shift = kr_negative_shift,
    .load_global = kr_load_global,
    .unbound_local = kr_unbound_local,
    .power = kr_power,
    .inplace_power = kr_inplace_power,
    .unpack = kr_unpack,
    .tensor_op = kr_tensor_op,
    .tensor_scalar_op = kr_tensor_scalar_op,
    .tensor_ewise = kr_tensor_ewise,
    .tensor_fused = kr_tensor_fused,
    .tensor_clamp = kr_tensor_clamp,
    .tensor_layer_norm = kr_tensor_layer_norm,
    .tensor_normalize = kr_tensor_normalize,
    .tensor_cat = kr_tensor_cat,
    .tensor_reshape = kr_tensor_reshape,
    .tensor_index = kr_tensor_index,
    .tensor_refresh = kr_tensor_refresh,
    .tensor_pin = kr_tensor_pin,
    .format_value = kr_format_value,
    .convert_value = kr_convert_value,
    .grad_guard_enter = kr_grad_guard_enter,
    .grad_guard_exit = kr_grad_guard_exit,
    .unbound_free = kr_unbound_free,
    .generator_raised = kr_generator_raised,
    .sum_start = kr_sum_start,
    .sum_add = kr_sum_add,
    .sum_total = kr_sum_total,
    .best_step = kr_best_step,
    .best_empty = kr_best_empty,
    .exc_catch = kr_exc_catch,
    .exc_uncatch = kr_exc_uncatch,
    .exc_match = kr_exc_match,
    .exc_rethrow = kr_exc_rethrow,
    .raise = kr_raise,
    .reraise = kr_reraise,
    .with_enter = kr_with_enter,
    .with_exit = kr_with_exit,
    .with_exit_exc = kr_with_exit_exc,
    .make_lambda = kr_make_lambda,
    .call_noargs = kr_call_noargs,
    .asserts_enabled = kr_asserts_enabled,
    .unpack_starred = kr_unpack_starred,
    .list_extend = kr_list_extend,
    .set_update = kr_set_update,
    .dict_update = kr_dict_update,
    .kwargs_merge = kr_kwargs_merge,
    .call_unpacked = kr_call_unpacked,
    .import_name = kr_import_name,
    .import_from = kr_import_from,
    .delete_global = kr_delete_global,
    .unbind_global = kr_unbind_global,
    .build_class_function = kr_build_class_function,
    .match_keys = kr_match_keys,
    .match_class = kr_match_class,
    .match_index = kr_match_index,
    .match_rest = kr_match_rest,
    .tick = kr_tick,
    .tick_period = &kr_tick_period,
    .fail_line = kr_fail_line,
};

static PyObject *py_isa(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  kk_init();
  return PyUnicode_FromString(kk_isa_name());
}

static PyObject *py_boundary_paths(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "torch", kr_torch_path(), "torch_direct", kr_torch_direct(),
                       "torch_reuse", kr_torch_reuse(), "torch_no_grad", kr_torch_guard_path(KR_GUARD_NO_GRAD),
                       "torch_inference_mode", kr_torch_guard_path(KR_GUARD_INFERENCE), "tensorflow", kr_tf_path(),
                       "tf_checked", kr_tf_checked());
}

static PyObject *py_buffer_stats(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  return Py_BuildValue("{s:l,s:n,s:l}", "allocations", kr_buffer_allocations(), "idle_bytes",
                       (Py_ssize_t)kr_buffer_idle_bytes(), "reused_results", kr_torch_reused_results());
}

static PyMethodDef runtime_methods[] = {
    {"isa", py_isa, METH_NOARGS, "isa()\n--\n\nThe CPU kernel set selected: 'avx512', 'avx2' or 'reference'."},
    {"set_num_threads", py_set_num_threads, METH_O,
     "set_num_threads(n)\n--\n\nThreads kiln's large GEMMs may use (default: torch.get_num_threads(), or KILN_NUM_THREADS)."},
    {"get_num_threads", py_get_num_threads, METH_NOARGS, "get_num_threads()\n--\n\nThe GEMM thread budget."},
    {"boundary_paths", py_boundary_paths, METH_NOARGS,
     "boundary_paths()\n--\n\nWhich boundary path each framework uses: {'torch': ..., 'torch_direct': ..., 'torch_reuse': ..., 'torch_no_grad': ..., 'torch_inference_mode': ..., 'tensorflow': ..., 'tf_checked': ...}."},
    {"buffer_stats", py_buffer_stats, METH_NOARGS,
     "buffer_stats()\n--\n\n{'allocations': tensor buffers obtained from the C allocator so far, "
     "'idle_bytes': bytes held for reuse, 'reused_results': torch results handed back refilled}."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef runtime_module = {
    PyModuleDef_HEAD_INIT, "kiln._runtime",
    "kiln's runtime: kernels, framework boundaries and the KrApi table for generated modules.", -1,
    runtime_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__runtime(void) {
  if (PyType_Ready(&KrTensor_Type) < 0) return NULL;
  if (!tb_globals) {
    tb_globals = PyDict_New();
    if (!tb_globals) return NULL;
  }
  if (!builtins_dict) {
    PyObject *b = PyImport_ImportModule("builtins");
    if (!b) return NULL;
    builtins_dict = PyModule_GetDict(b);
    Py_INCREF(builtins_dict);
    Py_DECREF(b);
    builtin_globals = PyDict_GetItemString(builtins_dict, "globals");
    Py_XINCREF(builtin_globals);
    if (import_helper_init() < 0) return NULL;
  }
  PyObject *flags = PySys_GetObject("flags"); /* borrowed */
  PyObject *opt = flags ? PyObject_GetAttrString(flags, "optimize") : NULL;
  optimize_level = opt ? (int)PyLong_AsLong(opt) : 0;
  Py_XDECREF(opt);
  PyErr_Clear();
  kk_init();
  PyObject *m = PyModule_Create(&runtime_module);
  if (!m) return NULL;
  PyObject *cap = PyCapsule_New((void *)&kr_api, "kiln._runtime._C_API", NULL);
  if (!cap || PyModule_AddObject(m, "_C_API", cap) < 0) {
    Py_XDECREF(cap);
    Py_DECREF(m);
    return NULL;
  }
  Py_INCREF(&KrTensor_Type);
  if (PyModule_AddObject(m, "KrTensor", (PyObject *)&KrTensor_Type) < 0) {
    Py_DECREF(&KrTensor_Type);
    Py_DECREF(m);
    return NULL;
  }
  if (PyModule_AddIntConstant(m, "ABI_VERSION", KR_ABI_VERSION) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
