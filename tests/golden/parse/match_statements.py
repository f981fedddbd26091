# The lowering of match statements (parse.c): hidden '$m<id>_' locals, the
# MATCHOP tests, captures bound only once the pattern matched.
def f(v, n: int):
    match v:
        case [x, *rest] if x:
            return rest
        case {"k": y, **kw}:
            return y, kw
        case P(a, b=1) | [a, *_, 2]:
            return a
        case "s" | None:
            pass
    match n:
        case 0:
            return 0
        case _:
            return n


match = 1
case = 2


def soft():
    match = [match]
    return match[0], case
