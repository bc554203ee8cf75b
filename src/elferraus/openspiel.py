"""Elfer raus! as an OpenSpiel game: ``import elferraus.openspiel`` registers ``elfer_raus`` with ``pyspiel``.

>>> import pyspiel
>>> import elferraus.openspiel
>>> game = pyspiel.load_game("elfer_raus", {"players": 3, "rules": "classic"})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 80)

The game (docs/research.md):

- **Parameters**: ``players`` 2-6 (4), ``rules`` a preset name (``classic``,
  ``ravensburger``, ``beginners``).
- **Chance**: the deal is one chance node per card, dealt round the table
  from seat 0, each outcome a card index, uniform over the cards not dealt
  yet. A deal without an 11 is dealt again at once (the rules' redeal); the
  deal given up is no part of anyone's information. Every draw is a chance
  node too: the player's ``draw`` action is followed by the chance node of
  the card he draws, uniform over the pile.
- **Actions**: ``elferraus.actions``: 0-79 lay that card, 80 draw,
  81 pass. The starter's opening 11 is a decision with one legal action.
- **Utility**: at the end the winner gets +1 and every other seat
  -1/(players - 1): zero-sum, and a win is all that counts.
- **Observations**: ``elferraus.observation`` (the observation, and
  with ``perfect_recall`` the information state).

The adapter lives in :mod:`elferraus.envs.openspiel`, beside what the frameworks share;
this module is its public path.
"""

from __future__ import annotations

from elferraus.envs.openspiel import (
    DEFAULT_PARAMETERS,
    SHORT_NAME,
    ElferRausGame,
    ElferRausObserver,
    ElferRausState,
    IsmctsBot,
    LevelBot,
    ismcts_bot,
    max_game_length,
    resampled,
    state_from_view,
)

__all__ = [
    "DEFAULT_PARAMETERS",
    "SHORT_NAME",
    "ElferRausGame",
    "ElferRausObserver",
    "ElferRausState",
    "IsmctsBot",
    "LevelBot",
    "ismcts_bot",
    "max_game_length",
    "resampled",
    "state_from_view",
]
