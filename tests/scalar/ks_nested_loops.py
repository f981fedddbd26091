"""Nested loops with break/continue at different depths."""


def count_primes(n: int) -> int:
    count = 0
    for k in range(2, n):
        for d in range(2, k):
            if d * d > k:
                count += 1
                break
            if k % d == 0:
                break
        else:
            count += 1
    return count


def pairs_sum(n: int, target: int) -> int:
    hits = 0
    for i in range(n):
        for j in range(i, n):
            if i + j > target:
                break
            if i + j != target:
                continue
            hits += 1
    return hits


def first_pair(n: int, target: int):
    found = False
    a = -1
    b = -1
    for i in range(n):
        for j in range(n):
            if i * j == target:
                a = i
                b = j
                found = True
                break
        if found:
            break
    return (a, b)


def triangle(n: int) -> int:
    s = 0
    i = 0
    while i < n:
        j = 0
        while j <= i:
            if (i + j) % 4 == 0:
                j += 1
                continue
            s += i * j
            j += 1
        i += 1
    return s


def matrix_trace_like(n: int) -> int:
    t = 0
    for i in range(n):
        for j in range(n - 1, -1, -1):
            if i == j:
                t += i * n + j
    return t


def triple_loop(n: int) -> int:
    c = 0
    for a in range(1, n):
        for b in range(a, n):
            for c2 in range(b, n):
                if a * a + b * b == c2 * c2:
                    c += 1
    return c


CASES = {
    "count_primes": [(0,), (2,), (3,), (10,), (100,), (1000,)],
    "pairs_sum": [(0, 0), (5, 4), (10, 9), (10, 100), (10, -1)],
    "first_pair": [(5, 6), (5, 17), (1, 0), (10, 0)],
    "triangle": [(0,), (1,), (5,), (20,)],
    "matrix_trace_like": [(0,), (3,), (10,)],
    "triple_loop": [(5,), (30,)],
}
