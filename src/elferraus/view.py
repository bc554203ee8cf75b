"""What one seat may know: the type every computer player and client gets.

:meth:`elferraus.Game.view` builds it. The game calls this module and
:mod:`elferraus.explain` (to build a view, to say why a push failed), so they
cannot import :mod:`elferraus.game`: they read it through :class:`GameReader`,
the read-only part of the game, which :class:`elferraus.Game` satisfies. It
lives here because a view is what reads the most of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from elferraus.cards import Card, Color
from elferraus.moves import Move
from elferraus.rules import Rules


class GameReader(Protocol):
    """The read-only part of :class:`elferraus.Game` that the modules below it read: a view, a reason."""

    @property
    def players(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def winner(self) -> int | None: ...
    @property
    def started(self) -> bool: ...
    @property
    def draws_this_turn(self) -> int: ...
    @property
    def last_drawn(self) -> Card | None: ...
    def is_over(self) -> bool: ...
    def legal_moves(self) -> tuple[Move, ...]: ...
    def fits(self, card: Card) -> bool: ...
    def hand(self, seat: int) -> Sequence[Card]: ...
    def hand_sizes(self) -> tuple[int, ...]: ...
    def pile(self) -> Sequence[Card]: ...
    def pile_size(self) -> int: ...
    def rows(self) -> Mapping[Color, tuple[int, int]]: ...
    def laid_this_turn(self) -> Sequence[Card]: ...
    def drawn_playable(self) -> Card | None: ...
    def public_moves(self, seat: int) -> tuple[str, ...]: ...


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
