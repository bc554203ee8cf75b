"""The arena: many games between computer players, with their statistics (``elferraus arena``)."""
