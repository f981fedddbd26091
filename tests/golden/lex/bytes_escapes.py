b'\x00\xff\777\n\q\u1234\N{x}"' rb'\x00'
