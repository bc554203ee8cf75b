"""Baseline computer players: ``random`` and ``greedy``."""

from __future__ import annotations

import random

from elferraus.bots.base import Bot
from elferraus.cards import ELEVEN, Card
from elferraus.moves import DRAW, PASS, Move
from elferraus.view import SeatView


class RandomBot(Bot):
    """Chooses uniformly among the legal moves."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        """A uniformly random legal move."""
        return self._rng.choice(view.legal)


class GreedyBot(Bot):
    """Lays every card it can, never holding anything back.

    Order: first the card that starts the longest run of its own cards
    (so a chain such as R10, R9, R8 is laid in one go), 11s last among
    equals; draws only when nothing fits, and lays a drawn card that fits.
    """

    name = "greedy"

    def choose(self, view: SeatView) -> Move:
        """Lay the best-chained fitting card; else draw; else end the turn."""
        lays = [move for move in view.legal if move.card is not None]
        if lays:
            own = set(view.hand)
            return max(lays, key=lambda move: _chain_score(move.card, own))  # type: ignore[arg-type]
        return DRAW if DRAW in view.legal else PASS


def _chain_score(card: Card, own: set[Card]) -> tuple[int, int, int]:
    """How many own cards laying ``card`` lets follow in a row, then a stable tie-break."""
    run = 0
    if card.number == ELEVEN:
        for step in (-1, 1):
            number = card.number + step
            while 1 <= number <= 20 and Card(card.color, number) in own:
                run += 1
                number += step
    else:
        step = -1 if card.number < ELEVEN else 1
        number = card.number + step
        while 1 <= number <= 20 and Card(card.color, number) in own:
            run += 1
            number += step
    return run, card.number != ELEVEN, -card.index
