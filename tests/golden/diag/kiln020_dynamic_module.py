# globals() can bind names no statement shows: no KILN020 in this module.
globals()["offset"] = 1


def f(x: int) -> int:
    return x + offset
