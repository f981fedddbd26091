/* noop_ext.c — the floor of a call from Python into C: a METH_FASTCALL
 * function taking three objects and returning the first (new reference),
 * checking nothing.  bench/run.py builds it as kiln_bench_noop. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *noop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "noop() takes exactly 3 arguments");
    return NULL;
  }
  return Py_NewRef(args[0]);
}

static PyMethodDef methods[] = {
  {"noop", (PyCFunction)(void (*)(void))noop, METH_FASTCALL, "noop(a, b, c) -> a"},
  {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
  PyModuleDef_HEAD_INIT, "kiln_bench_noop", "A C no-op for fixed-cost benchmarks.", -1, methods,
  NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_kiln_bench_noop(void)
{
  return PyModule_Create(&module);
}
