"""difftest regression r_chain_compare_object_middle (hand-reduced from the
shrunk r_*_vs_systemerror_* reproducers, seed 2026).

A chained comparison `0 < b < 10` whose middle operand is a Python object
(here the result of calling another module function) runs on the object path;
the generated C releases the middle operand (`Py_CLEAR(t5)`) right after the
first comparison and then passes the NULL to the second
`PyObject_RichCompare(t5, t8, Py_LT)`.

expected (python): bool True
observed (kiln):   SystemError('Objects/object.c:722: bad argument to internal function')
"""


def h(a: int) -> int:
    return a


def chain_after_call(a: int) -> bool:
    b = h(a)
    return 0 < b < 10


CASES = {"chain_after_call": [(5,), (50,)]}
