s = f"{1}\N{BULLET}"
