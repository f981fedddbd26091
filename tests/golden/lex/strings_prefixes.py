r'\n' R"\x" u'u' U"U" b'b' B'B' br'\n' Br'x' rB'y' RB'z' rb'\'' f'{x}' F"{y!r}" fr'{z}\n' Rf'{w}'
