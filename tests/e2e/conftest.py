"""The end-to-end tests' fixtures, `browser` and `loopback_ice`, are in tests/conftest.py:
the internet tests share them."""
