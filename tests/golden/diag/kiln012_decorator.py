import functools


@functools.lru_cache(maxsize=None)
def cached(n: int) -> int:
    return n * 2
