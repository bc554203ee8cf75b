"""Elfer raus!: the family card game, an exact engine, players and tools.

>>> from elferraus import Game
>>> game = Game.deal(players=4, seed=1)
>>> game.is_over()
False
"""

from __future__ import annotations

from elferraus.cards import CARDS, Card, Color, parse_cards
from elferraus.errors import ElferRausError, IllegalMoveError, NotationError, RecordError
from elferraus.game import Game, read_position
from elferraus.match import Match
from elferraus.moves import DRAW, PASS, Move, MoveKind
from elferraus.position import format_position
from elferraus.record import dumps_record, iter_records, read_record, read_records, write_record
from elferraus.rules import PRESETS, Rules
from elferraus.view import SeatView

__version__ = "0.1.0"

__all__ = [
    "CARDS",
    "DRAW",
    "PASS",
    "PRESETS",
    "Card",
    "Color",
    "ElferRausError",
    "Game",
    "IllegalMoveError",
    "Match",
    "Move",
    "MoveKind",
    "NotationError",
    "RecordError",
    "Rules",
    "SeatView",
    "__version__",
    "dumps_record",
    "format_position",
    "iter_records",
    "parse_cards",
    "read_position",
    "read_record",
    "read_records",
    "write_record",
]
