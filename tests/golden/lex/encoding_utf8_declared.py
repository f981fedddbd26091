# coding=UTF_8
s = 'é'
