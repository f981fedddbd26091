# -*- coding: koi8-r -*-
x = 1
