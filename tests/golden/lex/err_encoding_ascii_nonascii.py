# coding: ascii
x = 1
s = 'café'
