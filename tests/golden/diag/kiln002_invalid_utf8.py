def f(x: int) -> int:
    s = "café"
    return x
