"""Pure-int loops: compiled to C control flow by kiln."""


def sum_sq_mod(n: int) -> int:
    """Sum of i*i % 7 over range(n)."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def nested(n: int) -> int:
    """A nested loop with a branch: count pairs (i, j) with (i*j + i) % 5 == 1,
    weighted by j."""
    total = 0
    for i in range(n):
        for j in range(n):
            if (i * j + i) % 5 == 1:
                total += j
    return total
