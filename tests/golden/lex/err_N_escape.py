s = '\N{BULLET}'
