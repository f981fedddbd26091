"""difftest regression r_comp_target_rebound_by_later_clause (hand-reduced
from a shrunk reproducer; `python -m tests.difftest.run --seed 301
--comp-weight 5`, module 2, functions f15 and f29 segfaulted on every input).

A comprehension target bound by one `for` clause and bound again by a later
`for` clause whose iterable reads it, with a clause in between that runs more
than once.  In Python both bindings are one variable of the comprehension's
scope, so on the middle clause's second item the inner iterable reads the
value the inner clause bound last.  kiln gives each binding its own C
variable, reads the first one there, and clears that one when the inner
clause binds: an object target is then read as NULL (`Py_INCREF(NULL)`:
segfault, or SystemError 'bad argument to internal function' when the NULL
goes to a comparison), and a C int target gives a stale value.

rebound_int      expected (python): list [1, 2]     observed (kiln): list [1, 1]
rebound_object   expected (python): list [4, 5]     observed (kiln): segfault (worker exit -11)
rebound_compare  expected (python): list [1, 1, 1, 1] observed (kiln): SystemError('Objects/object.c:722: bad argument to internal function')
"""


def rebound_int(c: int) -> list:
    return [x for x in range(1) for y in range(2) for x in range(x + 1, x + 2)]


def rebound_object(c: int) -> list:
    return [x for x in [c] for y in [1, 2] for x in [x + 1]]


def rebound_compare(c: int) -> list:
    return [c for x in [7, c] for y in (c, x) for x in [(y != 1 >= x)]]


CASES = {"rebound_int": [(3,)], "rebound_object": [(3,)], "rebound_compare": [(1,)]}
TOL = {"rebound_int": (0.0, 0.0), "rebound_object": (0.0, 0.0), "rebound_compare": (0.0, 0.0)}
# Remove XFAIL once kiln is fixed (the test is xfail(strict=True) meanwhile).
XFAIL = ("open kiln bug: a comprehension target bound again by a later `for` clause whose "
         "iterable reads it is read from its first binding's cleared C variable (NULL: "
         "segfault/SystemError; a C int: stale value)")
