if a:
    x = '''one
two'''
