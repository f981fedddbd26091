# A string annotation that spells a dotted name is that name (PEP 484
# forward reference); any other string stays a string.
def f(x: "kt.TensorF32Cpu2D", n: "int", a: "None", b: "list[int]", c: "", d: "x.2y", e: " int") -> "a.b.c":
    return x
