# coding: us-ascii
x = 1
