"""The ``elferraus`` command line."""
