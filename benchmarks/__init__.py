"""The benchmarks, run from the repository root as modules (``python -m benchmarks.engine.strength ...``): the game
and its players in ``engine/``, the web server in ``site/``, the shape of the source in ``structure.py``."""
