def star_args(*args):
    return args


def kw_args(**kwargs):
    return kwargs


def pos_only(a, /, b):
    return a + b
