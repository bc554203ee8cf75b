"""``easy``: plays like a beginner who knows the rules but not the tricks."""

from __future__ import annotations

import random

from elferraus.bots.base import Bot
from elferraus.moves import DRAW, PASS, Move
from elferraus.view import SeatView

STOP_CHANCE = 0.3
"""After each card laid, how often it ends the turn although more cards fit."""
KEEP_DRAWN_CHANCE = 0.2
"""How often it keeps a drawn card that fits."""


class EasyBot(Bot):
    """Lays whatever fits, in no particular order; sometimes stops early or keeps a drawn card.

    It never holds a card back on purpose: the stops are whims, not blocks.
    """

    name = "easy"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        """Any fitting card; draw when none fits; end the turn now and then."""
        legal = view.legal
        lays = [move for move in legal if move.card is not None]
        if PASS in legal and lays:
            whim = KEEP_DRAWN_CHANCE if view.drawn is not None else STOP_CHANCE
            if self._rng.random() < whim:
                return PASS
        if lays:
            return self._rng.choice(lays)
        return DRAW if DRAW in legal else PASS
