"""Empty: see torch/__init__.py."""
