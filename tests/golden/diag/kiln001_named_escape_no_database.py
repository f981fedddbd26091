def label(n: int) -> str:
    return f"{n} \N{BULLET} item"
