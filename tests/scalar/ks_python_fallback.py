"""Functions using syntax kiln does not compile: each stays Python (report
status "python", reason naming the construct) and the module still works."""

import asyncio
import contextlib

SCALE = 3


def identity_decorator(f):
    return f


def with_class(n: int) -> int:  # compiled since class statements are (2026-12-02)
    class Box:
        pass
    b = Box()
    b.v = n
    return b.v * 2


def with_lambda(n: int) -> int:
    return (lambda: (k := n + 1))()  # := in a lambda's body


def with_nested_def(n: int) -> int:
    def helper(k):
        return k * 3
    return helper(n) + 1


def with_closure(n: int) -> int:
    base = n * 2

    def add(k):
        return base + k
    return add(1)


def with_annotated_nested_def(n: int) -> int:
    def helper(k: int) -> int:
        return k * 3
    return helper(n) + 1


def with_decorated_nested_def(n: int) -> int:
    @identity_decorator
    def helper(k):
        return k * 3
    return helper(n) + 1


def gen_squares(n: int):
    for i in range(n):
        yield i * i


def with_listcomp(n: int):
    return [i * i for i in range(n)]


def with_genexpr(n: int) -> int:
    # := in a generator expression no consumer takes
    return len(dict((i, (k := i)) for i in range(n)))


def with_dictcomp(n: int):
    return {i: i * i for i in range(n)}


def with_setcomp(n: int):
    return sorted({i % 3 for i in range(n)})


def with_try(a: int, b: int) -> int:  # compiled since try statements are (called from native_calls_python)
    try:
        return a // b
    except ZeroDivisionError:
        return -1


def with_with(n: int) -> int:  # compiled since `with` of any manager is
    with contextlib.nullcontext(n) as v:
        return v + 1


def with_global(x: int) -> int:  # compiled since `global` is (2026-12-02)
    global SCALE
    return SCALE * x


def with_nonlocal(n: int) -> int:
    total = 0

    def add(k):
        nonlocal total
        total += k
    for i in range(n):
        add(i)
    return total


@identity_decorator
def decorated(x: int) -> int:
    return x + 1


def with_varargs(*args):  # compiled since *args and **kwargs are (2026-12-02)
    return len(args)


def with_kwargs(x: int, **kwargs):
    return x + len(kwargs)


async def coro(x: int) -> int:
    return x * 2


def run_coro(x: int) -> int:
    return asyncio.run(coro(x))


def with_match(x: int) -> str:
    match x:
        case 0:
            return "zero"
        case 1 | 2:
            return "small"
        case _:
            return "other"


def with_walrus(x: int) -> int:  # compiled since := is (2026-12-02)
    if (y := x * 2) > 10:
        return y
    return -y


def sum_gen(n: int) -> int:
    s = 0
    for v in gen_squares(n):
        s += v
    return s


def native_calls_python(n: int) -> int:
    return with_class(n) + with_lambda(n) + with_try(n, n - 3)


EXPECT_PYTHON = {
    "with_lambda": "lambda",
    "gen_squares": ("yield", "generator"),
    "with_genexpr": "generator expression",
    "decorated": "decorator",
    "coro": "async",
}

CASES = {
    "identity_decorator": [(5,), ("x",)],
    "with_class": [(0,), (21,)],
    "with_lambda": [(1,), (-1,)],
    "with_nested_def": [(2,), (0,)],
    "with_closure": [(5,)],
    "with_annotated_nested_def": [(2,)],
    "with_decorated_nested_def": [(2,)],
    "gen_squares": [(0,), (5,)],
    "with_listcomp": [(0,), (4,)],
    "with_genexpr": [(10,)],
    "with_dictcomp": [(3,)],
    "with_setcomp": [(10,)],
    "with_try": [(7, 2), (7, 0)],
    "with_with": [(4,)],
    "with_global": [(2,)],
    "with_nonlocal": [(5,)],
    "decorated": [(1,), {"args": (), "kwargs": {"x": 4}}],
    "with_varargs": [(), (1, 2, 3)],
    "with_kwargs": [(1,), {"args": (1,), "kwargs": {"a": 1, "b": 2}}],
    "run_coro": [(21,)],
    "with_match": [(0,), (2,), (9,)],
    "with_walrus": [(3,), (6,)],
    "sum_gen": [(0,), (10,)],
    "native_calls_python": [(5,), (3,)],
}
