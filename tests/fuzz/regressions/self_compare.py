# A variable compared with itself: the emitted `x < x` failed cc -Werror
# (-Wtautological-compare); found by make fuzz.
def f(a: int, y: float, b: bool):
    x = a
    return x < x, x <= x, x == x, x != x, y < y, y == y, y != y, b == b, b < b, x < x < x
