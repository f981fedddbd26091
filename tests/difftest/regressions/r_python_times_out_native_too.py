"""difftest regression r_python_times_out_native_too (hand-reduced from seed
9302, batch 18: `b **= 2` in nested loops, a number of millions of digits).

Python's run of the function did not end within the worker's 2 s limit, and
the worker then ran the native version with no limit: a native loop could
not be interrupted (it ran no signal handler), so the worker hung and the
case was reported as a native crash. Native loops now run pending signal
handlers as CPython's do (KrApi.tick), and the worker gives the native run
the same limit when Python's ran out of time.

expected (python): timeout
observed (kiln):   ('crash', 'hang')
"""


def forever(a: int) -> int:
    n = a
    while n >= a:
        n += 1
    return n


CASES = {"forever": [(0,)]}
