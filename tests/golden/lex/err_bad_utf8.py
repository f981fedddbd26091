x = 1
s = 'abâ‚¬cÿ'
