def f(n: int) -> int:
    a = n * 99999999999999999999999          # KILN030
    b = -9223372036854775808                 # the literal is 2**63 before the minus
    c = 9223372036854775807                  # fits: no warning
    return a + b + c + 0x1_0000_0000_0000_0000
