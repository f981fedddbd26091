x = 1
s = 'abc
t = 2
