s = 'ab\u12'
