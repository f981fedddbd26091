def n():
    while 1:
        pass
    else:
        continue
