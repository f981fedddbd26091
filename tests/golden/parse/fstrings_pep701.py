def f(xs: list, d: dict, n: int) -> str:
    a = f"{"-".join(xs)}|{d["k"]:>{d["w"]}}"
    b = f"{f"{f"{n}"}"}" f'{"\n".join(xs)}'
    c = f"""{
        n  # a comment inside the field
        + 1
    }"""
    return a + b + c
