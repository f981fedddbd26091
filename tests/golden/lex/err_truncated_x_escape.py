s = 'ab\x4g'
