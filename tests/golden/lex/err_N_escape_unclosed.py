s = 'ab\N{BULLET'
