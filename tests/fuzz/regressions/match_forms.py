"""Every match-statement form the parser's lowering and the emitter have a
path for, compiled with -Werror by test_emitted_c_compiles_warning_free:
literal, singleton, value, capture, wildcard, as and or patterns; sequences
unpacked (with and without a starred capture) and indexed (after `*_`),
only wildcards, `[*_]`; mappings with keys, `**rest`, `{}` and `{**rest}`;
class patterns positional, keyword and empty; guards; C-typed subjects
(int, float, bool) and captures; captures into globals and cells; nested
match statements; case bodies that return, break and continue; soft
keywords used as names."""

G = None


class P:
    __match_args__ = ("x", "y")
    K = 7

    def __init__(self, x, y):
        self.x, self.y = x, y


def literals(v) -> object:
    match v:
        case 0 | -1 | 2.5 | -0.0 | 1 + 2j | -1 - 2j:
            return "number"
        case "a" "b" | b"c":
            return "text"
        case None:
            return "none"
        case True | False:
            return "bool"
        case P.K:
            return "value"
        case _:
            return "other"


def sequences(v) -> object:
    match v:
        case []:
            return 0
        case [_]:
            return 1
        case [*_]:
            return 2
        case [a, b]:
            return a, b
        case [a, *rest]:
            return a, rest
        case (a, *_, b):
            return a, b
        case [_, _, *_, x, _]:
            return x
        case [[a, b], [c, *d]] if d:
            return a, b, c, d
    return None


def mappings(v) -> object:
    match v:
        case {}:
            pass
    match v:
        case {**rest}:
            return rest
        case {"k": 1, P.K: y, **rest}:
            return y, rest
        case {"k": {"n": [a, *_]}}:
            return a
    return None


def classes(v) -> object:
    match v:
        case P():
            return "p"
        case P(1, y=2):
            return "p12"
        case P(x, y) if x > y:
            return x, y
        case P(x=P(x=inner)):
            return inner
        case int(n) | float(n):
            return n
        case str() as s:
            return s
    return None


def typed(n: int, x: float, b: bool) -> object:
    match n:
        case 0:
            n = 1
        case k if k > 10:
            n = k * 2
        case k:
            n = k + 1
    match x:
        case 1.5:
            x = 0.0
        case y:
            x = y * 2.0
    match b:
        case True:
            b = False
        case c:
            b = c
    match n, x:
        case (1, _) | (_, 0.0):
            return n
        case (a, b2):
            return a, b2


def captures_global_and_cell(v) -> object:
    global G
    match v:
        case [G, cell]:
            return lambda: cell
    return None


def loops(rows: list) -> int:
    total = 0
    for r in rows:
        match r:
            case "skip":
                continue
            case "stop":
                break
            case [x, y]:
                match x:
                    case int():
                        total += 1
                    case _:
                        total += 2
            case {"n": n}:
                total += 3
    return total


def soft_keywords(match, case) -> object:
    match = [match]
    case = match[0]
    match (case):
        case [*_]:
            return match, case
        case _:
            return match
