"""Elfer raus! as a PettingZoo AEC environment, ``elferraus_v0``: every seat an agent.

>>> import pettingzoo
>>> from elferraus.pettingzoo import env
>>> table = env(players=3, rules="classic")
>>> type(pettingzoo.make("aec", "elferraus_v0", players=3).unwrapped).__name__
'raw_env'

>>> table.reset(seed=7)
>>> observation, reward, termination, truncation, info = table.last()
>>> table.agent_selection, int(observation["action_mask"].sum())
('player_0', 1)

- **Agents** ``player_0`` … ``player_{n-1}``, the seats; the agent to act
  is the seat to move, which may act several times in a row (a turn is a
  sequence of lays, draws and a pass).
- **Observation** ``{"observation": ..., "action_mask": ...}``: the
  information-state tensor of ``elferraus.observation`` (what the seat
  holds and has seen, float32), and 1 for each legal action id
  (``elferraus.actions``; all 0 when it is not the agent's turn).
- **Info** ``{}``. :meth:`raw_env.view` gives an agent its own
  ``SeatView`` (its hand, the table, the history as it saw it), for
  policies that read the history (``elferraus.envs.policies.LevelPolicy``).
- **Rewards** at the end only: +1 for the winner, -1/(players - 1) for the
  others. ``env()`` ends the game with -1 for an agent that makes an illegal
  move (PettingZoo's ``TerminateIllegalWrapper``); ``raw_env`` raises.
- **Seeding**: ``reset(seed=...)`` deals the same game for the same seed.
- **Render**: ``"ansi"`` returns the table as text, ``"human"`` prints it.

The adapter lives in :mod:`elferraus.envs.pettingzoo`, beside what the frameworks share;
this module is its public path.
"""

from __future__ import annotations

from elferraus.envs.pettingzoo import (
    NAME,
    RENDER_MODES,
    elferraus_v0,
    env,
    raw_env,
)

__all__ = [
    "NAME",
    "RENDER_MODES",
    "elferraus_v0",
    "env",
    "raw_env",
]
