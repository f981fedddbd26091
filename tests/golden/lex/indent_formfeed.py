x = 1
if a:
        y = 2
