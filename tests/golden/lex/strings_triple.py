'''one
'two'
""three""''' """a\
b""" r'''raw\
x'''
x = """"q"""
