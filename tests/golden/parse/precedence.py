def f(a, b, c, d):
    x = a or b and not c
    y = a | b ^ c & d << 1 + 2 * -3 ** 2
    z = a < b <= c != d
    w = a if b else c if d else a
    v = a @ b // c % d / a - b
    u = ~a ** -b
    return x, y, z, w, v, u
