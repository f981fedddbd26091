"""Every nested-def form the emitter has a path for, compiled with -Werror by
test_emitted_c_compiles_warning_free: plain, with defaults of each kind,
decorated (several decorators, one a lambda), annotated (parameters of each
kind and the return), recursive, nonlocal, generators, inside loops and
handlers, one-line bodies."""
import functools


def forms(xs: list, k: int, s: float):
    def key(r, /, d=k, *rest, only=1, **kw):
        return r[d] + only

    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    total = 0

    def bump(v):
        nonlocal total
        total += v
        return total

    @functools.lru_cache(maxsize=None)
    @(lambda f: f)
    def cached(a: int, *r: float, b: str = "x", **kw: dict) -> int:
        return a * k

    def gen(n): yield from range(n)
    for i in range(3):
        def late(): return i * s
        bump(late())
    try:
        1 // (k - k)
    except ZeroDivisionError as err:
        def keep(): return err
    return sorted(xs, key=key), fact(5), cached(2), list(gen(3)), total, keep
