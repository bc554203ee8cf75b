"""Elfer raus! as a Gymnasium environment: ``import elferraus.gym`` registers ``elferraus/ElferRaus-v0``.

>>> import gymnasium
>>> import elferraus.gym
>>> env = gymnasium.make("elferraus/ElferRaus-v0", players=4, opponents="greedy")
>>> observation, info = env.reset(seed=1)
>>> observation.shape, int(env.unwrapped.action_masks().sum()) >= 1
((659,), True)

One seat learns; the others are computer players of the levels named in
``opponents`` (one level for all, or one per seat after the learner's).

- **Observation**: the information-state tensor of
  ``elferraus.observation`` from the learner's seat (float32).
- **Actions**: ``elferraus.actions``, 82 ids; :meth:`ElferRausEnv.action_masks`
  gives the legal ones (as sb3-contrib's ``MaskablePPO`` asks), and so does
  ``info["action_mask"]``. ``info["view"]`` is the learner's ``SeatView``.
- **Reward**: at the end, +1 for a win and -1/(players - 1) otherwise.
- **An illegal action** is not made: the episode ends as a loss
  (``terminated``, reward -1, and ``info["illegal"]`` says why), as
  PettingZoo's ``TerminateIllegalWrapper`` does.
- **Seat**: ``seat=None`` (the default) learns from a seat drawn anew for
  every episode; an int keeps one seat.
- **Seeding**: ``reset(seed=...)`` deals the same game, with the same
  computer players, for the same seed.

**Many games at once**: ``gymnasium.make_vec("elferraus/ElferRaus-v0", num_envs=N, players=4,
opponents="greedy")`` builds :class:`ElferRausVectorEnv`, the same game stepped in batches on the
compiled core (``elferraus.vector.SelfPlay``); ``vectorization_mode="sync"`` or ``"async"`` still gives
Gymnasium's own vectors of single environments.

The adapter lives in :mod:`elferraus.envs.gym`, beside what the frameworks share;
this module is its public path.
"""

from __future__ import annotations

from elferraus.envs.gym import (
    ENV_ID,
    ElferRausEnv,
)
from elferraus.envs.gym_vector import ElferRausVectorEnv

__all__ = [
    "ENV_ID",
    "ElferRausEnv",
    "ElferRausVectorEnv",
]
