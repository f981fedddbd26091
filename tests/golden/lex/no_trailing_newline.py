if a:
    if b:
        c