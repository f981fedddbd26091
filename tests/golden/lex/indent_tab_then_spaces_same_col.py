if a:
	x = 1
if b:
        y = 2
