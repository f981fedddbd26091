#!/usr/bin/env python
# vim: set fileencoding=ISO-8859-1 :
s = 'µ'
