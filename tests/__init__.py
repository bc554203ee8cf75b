"""The tests, as the package ``tests``: a folder for each folder of ``src/elferraus/`` (the engine's root modules
in ``engine/``), what they share in ``support/``, their data files in ``data/``."""
