def f(x: int) -> str:
    # raw: \N is text and {x} a field; bytes keep \N verbatim
    return rf"\N{x}" + Rf"\N{x:>{x}}" + fr'''\N{
x}''' + b"\N{x}".decode()
