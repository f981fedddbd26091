def f(x: int) -> int:
        y = x + 1
    return y
