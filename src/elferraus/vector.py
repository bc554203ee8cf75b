"""Self-play at the speed of the compiled core: ``SelfPlay`` steps many games in one call.

>>> from elferraus.vector import SelfPlay
>>> env = SelfPlay(num_envs=64, players=4, rules="classic", seed=0)
>>> obs, mask, seat = env.reset()
>>> obs.shape, mask.shape, seat.shape
((64, 659), (64, 82), (64,))
>>> obs, mask, seat, rewards, done = env.step(env.random_actions())
>>> rewards.shape, done.shape
((64, 4), (64,))

- **Rows**: ``obs[i]`` is the information-state tensor of the seat to move in
  game ``i`` (``elferraus.envs.observation``; the same layout as the
  OpenSpiel, PettingZoo and Gymnasium adapters), ``mask[i]`` its legal action
  ids (``elferraus.envs.actions``), ``seat[i]`` that seat.
- **Rewards**: per seat, +1 for the winner and -1/(players - 1) for the others,
  in the step that ends a game; ``done[i]`` says so, and game ``i`` is dealt
  again at once (its rows are already the new game's).
- **Seeding**: game ``i`` deals from its own generator, derived from the seed
  and ``i``; the same seed gives the same games.
- **Speed**: the compiled core steps every game with no Python work per
  game and the GIL released; the arrays are the environment's own, written
  over by the next call.

The implementation lives in :mod:`elferraus.envs.vector`; this module is its public path.
"""

from __future__ import annotations

from elferraus.envs.vector import SelfPlay, VecDeal

__all__ = ["SelfPlay", "VecDeal"]
