/* pymod.c — the compiler as the Python extension module kiln._compiler.
 * The only compiler file that includes Python.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "kiln.h"

static PyObject *buf_str(const KlBuf *b) {
  return PyUnicode_DecodeUTF8(b->data ? b->data : "", (Py_ssize_t)b->len, "replace");
}

/* The \N{NAME} hook: the running Python resolves the name by the rule its
 * own parser applies to a str literal: the ASCII text `\N{NAME}` decoded
 * with the unicode-escape codec, accepted when it gives exactly one code
 * point (aliases too, named sequences not, case as this version matches it).
 * A non-ASCII name is unknown: the parser hands the codec \U escapes for
 * non-ASCII text, which never spell a name. user: where the thread state
 * is while kl_compile runs without the GIL, pointing to NULL when it runs
 * with it. Leaves no exception set. */
static bool lookup_name(void *user, const char *name, size_t len, uint32_t *cp) {
  char text[KL_MAX_CHAR_NAME + 4];
  if (len > KL_MAX_CHAR_NAME) return false;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)name[i] >= 0x80 || name[i] == '}') return false;
  memcpy(text, "\\N{", 3);
  memcpy(text + 3, name, len);
  text[len + 3] = '}';
  PyThreadState **released = user;
  if (*released) PyEval_RestoreThread(*released);
  PyObject *s = PyUnicode_DecodeUnicodeEscape(text, (Py_ssize_t)len + 4, NULL);
  bool found = s && PyUnicode_GET_LENGTH(s) == 1;
  if (found) *cp = (uint32_t)PyUnicode_READ_CHAR(s, 0);
  if (!s) PyErr_Clear();
  Py_XDECREF(s);
  if (*released) *released = PyEval_SaveThread();
  return found;
}

/* compile(source: bytes, filename: str, module_name: str, flags: int) -> dict */
static PyObject *py_compile(PyObject *self, PyObject *args) {
  (void)self;
  const char *src, *filename, *modname;
  Py_ssize_t len;
  unsigned int flags = 0;
  if (!PyArg_ParseTuple(args, "y#ss|I:compile", &src, &len, &filename, &modname, &flags)) return NULL;
  KlResult res;
  PyThreadState *released = PyEval_SaveThread(); /* Py_BEGIN_ALLOW_THREADS, with the state at hand */
  const KlNameHook hook = {lookup_name, &released};
  kl_compile(src, (size_t)len, filename, modname, flags, true, &hook, &res);
  PyEval_RestoreThread(released);
  if (res.c_source.oom || res.report.oom || res.diagnostics.oom) {
    kl_result_free(&res);
    return PyErr_NoMemory();
  }
  PyObject *names = PyList_New(0);
  if (!names) {
    kl_result_free(&res);
    return NULL;
  }
  const char *p = res.python_functions.data;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "replace");
    if (!s || PyList_Append(names, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(names);
      kl_result_free(&res);
      return NULL;
    }
    Py_DECREF(s);
    p = nl ? nl + 1 : p + n;
  }
  PyObject *c_source = res.ok ? buf_str(&res.c_source) : Py_NewRef(Py_None);
  PyObject *report = buf_str(&res.report);
  PyObject *diags = buf_str(&res.diagnostics);
  PyObject *out = NULL;
  if (c_source && report && diags)
    out = Py_BuildValue("{s:O,s:O,s:O,s:O,s:i,s:O}", "ok", res.ok ? Py_True : Py_False, "c_source", c_source,
                        "report", report, "diagnostics", diags, "fallback_sites", res.fallback_sites,
                        "python_functions", names);
  Py_XDECREF(c_source);
  Py_XDECREF(report);
  Py_XDECREF(diags);
  Py_DECREF(names);
  kl_result_free(&res);
  return out;
}

static PyObject *py_explain(PyObject *self, PyObject *arg) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  KlCode code;
  if (!kl_code_lookup(name, &code)) Py_RETURN_NONE;
  return PyUnicode_FromFormat("%s: %s\n\n%s\n", kl_code_name(code), kl_code_title(code), kl_code_explain(code));
}

static PyObject *py_rules(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  const KlPlugin *plugins[] = {&kl_plugin_torch, &kl_plugin_tensorflow, &kl_plugin_test};
  PyObject *list = PyList_New(0);
  if (!list) return NULL;
  for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++) {
    for (const KlRuleRecord *r = plugins[i]->rules; r->id; r++) {
      PyObject *d = Py_BuildValue("{s:s,s:s,s:s,s:s,s:z,s:O}", "id", r->id, "plugin", plugins[i]->name, "form",
                                  r->form, "outcome", r->outcome, "code",
                                  r->code == KL_NUM_CODES ? NULL : kl_code_name(r->code), "verified",
                                  r->verified ? Py_True : Py_False);
      if (!d || PyList_Append(list, d) < 0) {
        Py_XDECREF(d);
        Py_DECREF(list);
        return NULL;
      }
      Py_DECREF(d);
    }
  }
  return list;
}

/* dump(source: bytes, filename: str, what: int) -> (ok, text): tokens (0) or AST (1) */
static PyObject *py_dump(PyObject *self, PyObject *args) {
  (void)self;
  const char *src, *filename;
  Py_ssize_t len;
  int what;
  if (!PyArg_ParseTuple(args, "y#si:dump", &src, &len, &filename, &what)) return NULL;
  KlBuf out = {0};
  PyThreadState *released = NULL; /* dumps hold the GIL */
  const KlNameHook hook = {lookup_name, &released};
  bool ok = kl_dump(src, (size_t)len, filename, what, &hook, &out);
  PyObject *text = buf_str(&out);
  kl_buf_free(&out);
  if (!text) return NULL;
  PyObject *r = Py_BuildValue("(ON)", ok ? Py_True : Py_False, text);
  return r;
}

static PyMethodDef methods[] = {
    {"compile", py_compile, METH_VARARGS, "compile(source, filename, module_name, flags=0) -> dict"},
    {"explain", py_explain, METH_O, "explain(code) -> str or None"},
    {"rules", py_rules, METH_NOARGS, "rules() -> list of rule records"},
    {"dump", py_dump, METH_VARARGS, "dump(source, filename, what) -> (ok, text)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "kiln._compiler", "The kiln compiler.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__compiler(void) {
  PyObject *m = PyModule_Create(&moddef);
  if (!m) return NULL;
  if (PyModule_AddStringConstant(m, "version", KILN_VERSION) < 0 ||
      PyModule_AddIntConstant(m, "FLAG_BIND_GLOBALS", KL_FLAG_BIND_GLOBALS) < 0 ||
      PyModule_AddIntConstant(m, "FLAG_TEST_PLUGIN", KL_FLAG_TEST_PLUGIN) < 0 ||
      PyModule_AddIntConstant(m, "PLUGIN_API_VERSION", KL_PLUGIN_API_VERSION) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
