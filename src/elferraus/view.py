"""What one seat may know: the type every computer player and client gets.

:meth:`elferraus.Game.view` builds it; this module reads the game through
:class:`~elferraus._game_reading.GameReader` and imports nothing of :mod:`elferraus.game`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from elferraus._game_reading import GameReader
from elferraus.cards import Card, Color
from elferraus.moves import Move
from elferraus.rules import Rules


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's view of a game: its own hand, the table, and counts only.

    It never holds another seat's cards or the pile order.
    """

    seat: int
    players: int
    rules: Rules
    hand: tuple[Card, ...]
    """This seat's cards, sorted by colour and number."""
    hand_counts: tuple[int, ...]
    """Cards held by each seat."""
    pile: int
    """Cards left on the pile."""
    rows: Mapping[Color, tuple[int, int]]
    """The open rows: colour -> (lowest, highest)."""
    turn: int
    """The seat to move."""
    laid: tuple[Card, ...]
    """Cards the seat to move has laid this turn."""
    drawn: Card | None
    """When this seat is to move: the card it drew this turn that it may still lay."""
    draws: int
    """Cards the seat to move has drawn this turn."""
    moves: tuple[str, ...]
    """The public history in record notation; other seats' draws read ``"3 draw"``."""
    legal: tuple[Move, ...]
    """This seat's legal moves (empty unless it is to move)."""
    winner: int | None

    def own_last_draw(self) -> Card | None:
        """The card this seat drew last in the current turn (from its history), or None."""
        for text in reversed(self.moves):
            seat, action, *card = text.split()
            if int(seat) != self.seat:
                return None
            if action == "draw" and card:
                return Card.parse(card[0])
        return None

    @property
    def is_my_turn(self) -> bool:
        """True when this seat is to move and the game is not over."""
        return self.turn == self.seat and self.winner is None

    def to_dict(self) -> dict[str, Any]:
        """The view as JSON-ready data (the ``VIEW`` of the bot protocol)."""
        return {
            "seat": self.seat,
            "players": self.players,
            "hand": [str(card) for card in self.hand],
            "hand_counts": list(self.hand_counts),
            "pile": self.pile,
            "rows": {color.value: [low, high] for color, (low, high) in self.rows.items()},
            "turn": self.turn,
            "laid": [str(card) for card in self.laid],
            "drawn": str(self.drawn) if self.drawn is not None else None,
            "draws": self.draws,
            "moves": list(self.moves),
            "winner": self.winner,
        }


def make_view(game: GameReader, seat: int) -> SeatView:
    """Build ``seat``'s view of ``game``."""
    if not 0 <= seat < game.players:
        raise ValueError(f"seat {seat} is not at this table of {game.players}")
    mine = game.turn == seat
    return SeatView(
        seat=seat,
        players=game.players,
        rules=game.rules,
        hand=tuple(game.hand(seat)),
        hand_counts=game.hand_sizes(),
        pile=game.pile_size(),
        rows=game.rows(),
        turn=game.turn,
        laid=tuple(game.laid_this_turn()),
        drawn=game.drawn_playable() if mine else None,
        draws=game.draws_this_turn,
        moves=game.public_moves(seat),
        legal=game.legal_moves() if mine else (),
        winner=game.winner,
    )
