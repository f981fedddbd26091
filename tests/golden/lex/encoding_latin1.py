# -*- coding: latin-1 -*-
s = 'éÿ'
café = 1
