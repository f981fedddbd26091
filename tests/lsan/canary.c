/* The canary of `make test-lsan`: a tiny extension that leaks on purpose, the
 * way a bug in kiln's C would, to prove the run can see such leaks:
 *   - a float (not tracked by CPython's collector),
 *   - a list (GC-tracked: visible only because gc_unlink.c unlinks the
 *     collector's lists at exit),
 *   - a raw malloc buffer,
 * each lost from a C function called by Python, so every allocation stack
 * also holds libpython frames. tests/lsan/run.sh checks that lsan_check.py
 * attributes all three to kiln before trusting a clean result of the suite.
 * Built only by the leak run; never part of kiln. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static __attribute__((noinline)) void canary_leak_float(void) { sink = PyFloat_FromDouble(1.5); }
static __attribute__((noinline)) void canary_leak_list(void) { sink = PyList_New(2); }
static __attribute__((noinline)) void canary_leak_buffer(void)
{
    char *p = malloc(4096);
    if (p) memset(p, 1, 4096);
    sink = p;
}

static PyObject *leak(PyObject *self, PyObject *noargs)
{
    (void)self; (void)noargs;
    for (int i = 0; i < 8; i++) {  /* several of each: a stray copy of one
                                      pointer on the stack cannot hide them all */
        canary_leak_float();
        canary_leak_list();
        canary_leak_buffer();
    }
    sink = NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"leak", leak, METH_NOARGS, "leak on purpose"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "kiln_lsan_canary", NULL, -1, methods,
                                 NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_kiln_lsan_canary(void) { return PyModule_Create(&def); }
