import builtins


def consumed(xs, n: int):
    a = any(x > 2 for x in xs)                 # compiled: any/all stop at the deciding item
    b = all(x for x in xs if x)
    c = tuple(x * 2 for x in range(n))         # compiled: list, set, tuple, sorted take every item
    d = ", ".join(str(x) for x in xs)          # compiled: join makes a list first
    e = sorted((x for x in xs), )              # compiled: a parenthesised generator, the one argument
    return a, b, c, d, e


def summed(xs, n: int):
    a = sum(x for x in xs)                     # compiled: sum, min and max keep CPython's running total
    b = sum((i * 0.5 for i in range(n)), 0.0)  # compiled: a C float total (compensated from 3.12)
    c = min((x for x in xs), key=abs, default=None)
    return a, b, c, max(i % 7 for i in range(n))


def summed_twice(xs):
    return sum((x for x in xs), 0, 1)          # made as CPython makes it: sum takes at most a start


def kept(xs) -> list:
    g = (x for x in xs)                        # made as CPython makes it: a generator the function keeps
    return list(g)


def keyed(xs) -> list:
    return sorted((x for x in xs), key=abs, reverse=True)   # compiled: sorted with key and reverse


def compared(xs) -> list:
    return sorted((x for x in xs), cmp=None)   # made as CPython makes it: sorted takes no cmp


def shadowed(xs) -> bool:
    any = builtins.any
    return any(x for x in xs)                  # made as CPython makes it: `any` is a local here


def comprehensions(xs, n: int):
    return [x for x in xs], {x for x in range(n)}, {x: n for x in xs}   # compiled


def reads_comprehension_variable(rows, xs):
    return [next((x for x in xs if x > r), None) for r in rows]   # compiled: next takes the first item


def binds_with_walrus(xs):
    g = (last := x for x in xs)                # KILN010: `:=` binds a variable of the function
    return list(g), last
