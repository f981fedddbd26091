def f(x: int, y: float, name: str, w: int) -> str:
    a = f"x={x} {{braces}} {y:.3f} {name!r:>{w}}"
    b = "plain " f'{x=}' rf"\d{x}" F"""{
        x + 1
    }"""
    c = f"{x = !s:^5}{f'{y}'}{name['k']}" "" f""
    return a + b + c


def with_blocks(n: int) -> int:
    with torch.no_grad(), torch.inference_mode():
        n = n + 1
    return n
