"""Action ids, the same in OpenSpiel, PettingZoo and Gymnasium.

==========  ===============================================================
id          action
==========  ===============================================================
0-79        lay the card with that index: colour ``RYGB`` x 20 + number - 1
            (``R1`` is 0, ``R11`` is 10, ``Y1`` is 20, ``B20`` is 79)
80          draw
81          pass (end the turn)
==========  ===============================================================

A beginners' deck (``RYG``) leaves ids 60-79 unused. In OpenSpiel the chance
outcomes are card indices too: the card dealt, or the card drawn.
"""

from __future__ import annotations

from collections.abc import Iterable

from elferraus.cards import CARDS, Card
from elferraus.moves import DRAW, PASS, Move

CARD_COUNT = len(CARDS)
DRAW_ACTION = CARD_COUNT
PASS_ACTION = CARD_COUNT + 1
ACTION_COUNT = CARD_COUNT + 2

MOVES: tuple[Move, ...] = (*(Move.lay(card) for card in CARDS), DRAW, PASS)
"""The move of each action id."""

_ACTION_OF: dict[Move, int] = {move: action for action, move in enumerate(MOVES)}


def action_of(move: Move) -> int:
    """The id of ``move``."""
    return _ACTION_OF[move]


def actions_of(moves: Iterable[Move]) -> list[int]:
    """The ids of ``moves``, ascending (as OpenSpiel wants its legal actions)."""
    return sorted(map(_ACTION_OF.__getitem__, moves))


def move_of(action: int) -> Move:
    """The move of action id ``action``.

    Raises:
        ValueError: not an action id.
    """
    if not 0 <= action < ACTION_COUNT:
        raise ValueError(f"{action!r} is not an action id 0-{ACTION_COUNT - 1}")
    return MOVES[action]


def action_text(action: int) -> str:
    """An action as the records write it: ``R11``, ``draw`` or ``pass``."""
    return str(move_of(action))


def card_of(outcome: int) -> Card:
    """The card of a chance outcome (a card index)."""
    if not 0 <= outcome < CARD_COUNT:
        raise ValueError(f"{outcome!r} is not a card index 0-{CARD_COUNT - 1}")
    return CARDS[outcome]
