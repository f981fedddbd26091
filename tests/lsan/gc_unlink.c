/* LD_PRELOADed (after libasan) into every process of `make test-lsan`.
 *
 * CPython links every GC-tracked object (lists, tuples, dicts, instances,
 * functions, the Python side of torch tensors, ...) into the doubly linked
 * lists of its collector generations, whose heads live in the static
 * _PyRuntime. To LeakSanitizer every such object is therefore reachable, even
 * one whose last reference was lost: a leaked list or tuple would never be
 * reported. At exit, once Py_FinalizeEx has run and before LeakSanitizer
 * checks, this unlinks every object still on those lists (each becomes a
 * self-loop, its flag bits kept, so a late untrack stays harmless). After
 * that only real references keep an object alive, and what CPython could not
 * free is reported with its allocation stack.
 *
 * Compiled against the CPython headers of the interpreter under test (it
 * reads the layout of _PyRuntime) but not linked to libpython: in a process
 * that is not Python (kilnc, the C tests) it finds no _PyRuntime and does
 * nothing. Used only by the leak run; never part of kiln.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_gc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void __lsan_do_leak_check(void) __attribute__((weak));

static size_t unlink_list(PyGC_Head *head)
{
    size_t n = 0;
    PyGC_Head *g = (PyGC_Head *)head->_gc_next;
    while (g != NULL && g != head) {
        PyGC_Head *next = (PyGC_Head *)g->_gc_next;
        g->_gc_next = (uintptr_t)g;
        g->_gc_prev = (uintptr_t)g | (g->_gc_prev & ~_PyGC_PREV_MASK);
        g = next;
        n++;
    }
    head->_gc_next = (uintptr_t)head;
    head->_gc_prev = (uintptr_t)head;
    return n;
}

static void at_exit(void)
{
    _PyRuntimeState *rt = (_PyRuntimeState *)dlsym(RTLD_DEFAULT, "_PyRuntime");
    int (*is_init)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    if (rt != NULL && is_init != NULL) {
        if (is_init()) {
            /* exit() while Python still runs: its objects are alive, not leaked. */
            if (getenv("KILN_LSAN_VERBOSE"))
                fprintf(stderr, "gc_unlink: Python still initialized at exit; lists kept\n");
        } else {
            struct _gc_runtime_state *gc = &rt->_main_interpreter.gc;
            size_t n = 0;
            for (int i = 0; i < NUM_GENERATIONS; i++)
                n += unlink_list(&gc->generations[i].head);
            n += unlink_list(&gc->permanent_generation.head);
            if (getenv("KILN_LSAN_VERBOSE"))
                fprintf(stderr, "gc_unlink: %zu objects unlinked\n", n);
        }
    }
    /* Check now, whatever the order of the exit handlers (later checks are no-ops). */
    if (__lsan_do_leak_check)
        __lsan_do_leak_check();
}

__attribute__((constructor)) static void init(void)
{
    /* Make sure the sanitizer runtime is initialised (it registers its own exit
     * check then), so this handler, registered after it, runs before it. */
    free(malloc(1));
    atexit(at_exit);
}
