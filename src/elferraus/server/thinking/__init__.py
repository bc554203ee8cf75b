"""Where a server process's computers think: ``pool.py`` (``Thinkers``: the searching levels in thinker
processes, ``elferraus.bots.thinker``, the others at once on the event loop)."""
