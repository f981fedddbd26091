f"{d['key']} and {x!r:>10}" f'''{"a"}
{b}''' rf"{x}\n"
