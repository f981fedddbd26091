s = f"x\N{BULLET" + "}"
