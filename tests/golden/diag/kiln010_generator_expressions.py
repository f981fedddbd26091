import builtins


def consumed(xs, n: int):
    a = any(x > 2 for x in xs)                 # compiled: any/all stop at the deciding item
    b = all(x for x in xs if x)
    c = tuple(x * 2 for x in range(n))         # compiled: list, set, tuple, sorted take every item
    d = ", ".join(str(x) for x in xs)          # compiled: join makes a list first
    e = sorted((x for x in xs), )              # compiled: a parenthesised generator, the one argument
    return a, b, c, d, e


def summed(xs) -> int:
    return sum(x for x in xs)                  # KILN010: sum adds as it goes (and 3.12 sums floats its own way)


def kept(xs) -> list:
    g = (x for x in xs)                        # KILN010: a generator object the function keeps
    return list(g)


def keyed(xs) -> list:
    return sorted((x for x in xs), key=abs)    # KILN010: not the one argument


def shadowed(xs) -> bool:
    any = builtins.any
    return any(x for x in xs)                  # KILN010: `any` is a local here


def comprehensions(xs, n: int):
    return [x for x in xs], {x for x in range(n)}, {x: n for x in xs}   # compiled
