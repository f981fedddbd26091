x = 1if y else 2
z = 0x1for_ = 3
