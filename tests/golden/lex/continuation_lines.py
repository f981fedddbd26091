x = 1 + \
    2
if (a and
        b):
    y = [
  1,
      2,
]
z = {'k':
  3}
