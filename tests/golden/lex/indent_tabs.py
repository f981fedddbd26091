if a:
	if b:
		x = 1
	y = 2
z = 3
