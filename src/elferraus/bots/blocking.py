"""Blocking players to measure against: ``blocker``, ``tight-blocker``, ``one-lay`` and ``no-open``.

Each is written from a one-line description of a style, not tuned against
the other levels. They share one reading of a lay: every lay opens a *door*
beyond the card (for an 11 that opens its row: two doors, at the 10 and the
12). Walking outward from a door, the cards up to the first own card are
cards the others may lay before this seat can follow; that count is the
lay's *gap*. A door at an own card or beyond the end of the row has gap 0:
the lay frees nothing for anybody else. A door that reaches an own card
*leads* towards it; one that reaches the end of the row only gives.

- ``blocker`` lays what frees nothing and what leads towards its own cards
  over a short gap; it holds back everything else (a 10 with nothing below
  it in its hand, an 11 that would open a row for the others) and draws
  rather than open a door for the others, as long as the rules let it.
- ``tight-blocker`` lays only what frees nothing; when the rules make it
  lay, it lays the one card that frees least and ends its turn.
- ``one-lay`` lays one card a turn whenever one fits (the one that frees
  least) and always ends its turn after it.
- ``no-open`` lays whatever fits, as ``greedy`` does, but never lays an 11
  that opens a row while it may draw or end its turn instead.
- ``hoarder`` never lays of its own accord: it draws, or ends its turn
  keeping every card, and lays only to go out or when the rules make it
  lay (then the card ``medium`` would lay).

All of them go out when they can lay their whole hand this turn (but
``one-lay``, which always stops after one card; ``hoarder`` not in the phase
after a draw, as ``medium``), decide from the
:class:`~elferraus.SeatView` alone, and choose only among ``view.legal``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from elferraus.bots.base import Bot
from elferraus.bots.baseline import GreedyBot
from elferraus.bots.medium import MediumBot
from elferraus.cards import ELEVEN, NUMBERS, Card, Color, fit_mask_of_rows, mask_of
from elferraus.core import can_go_out
from elferraus.moves import DRAW, PASS, Move
from elferraus.rules import Rules
from elferraus.view import SeatView

LEAD_GAP = 2
"""The most cards ``blocker`` lets the others lay before its own card can follow (a lay that leads)."""


@dataclass(frozen=True, slots=True)
class Door:
    """What one lay opens in one direction of its row."""

    gap: int
    """Cards the others may lay there before an own card (or the row's end) is reached."""
    leads: bool
    """True when an own card is reached: the lay leads towards this seat's own cards."""
    unlocks: int
    """Own cards that can follow one after another once the gap is filled."""


@dataclass(frozen=True, slots=True)
class LayReading:
    """A fitting card of the seat's hand, read for what laying it opens."""

    move: Move
    doors: tuple[Door, ...]

    @property
    def frees(self) -> int:
        """Cards the lay makes reachable for the others, summed over its doors."""
        return sum(door.gap for door in self.doors)

    @property
    def is_free(self) -> bool:
        """True when the lay frees nothing for anybody else."""
        return all(door.gap == 0 for door in self.doors)

    def leads_within(self, gap: int) -> bool:
        """True when every door is free or leads towards own cards over at most ``gap`` cards."""
        return all(door.gap == 0 or (door.leads and door.gap <= gap) for door in self.doors)

    @property
    def opens_row(self) -> bool:
        """True for an 11 that opens its row."""
        return len(self.doors) == 2

    def order(self) -> tuple[int, int, int]:
        """Sort key: free first, then the fewest cards freed, the most own cards unlocked, the lowest card."""
        return self.frees, -sum(door.unlocks for door in self.doors), self.move.code


def read_lays(view: SeatView) -> list[LayReading]:
    """Every legal lay of ``view``, read for its doors, best (least freeing) first."""
    own = mask_of(view.hand)
    readings = [LayReading(move, _doors(move.card, own, view.rows)) for move in view.legal if move.card is not None]
    return sorted(readings, key=LayReading.order)


def _doors(card: Card, own: int, rows: Mapping[Color, tuple[int, int]]) -> tuple[Door, ...]:
    base = card.color.order * NUMBERS - 1  # + number: the card's index
    directions: tuple[tuple[int, int], ...]
    if card.number == ELEVEN and card.color not in rows:
        directions = ((ELEVEN - 1, -1), (ELEVEN + 1, 1))
    else:
        step = -1 if card.number < ELEVEN else 1
        directions = ((card.number + step, step),)
    doors = []
    for start, step in directions:
        gap = 0
        number = start
        while 1 <= number <= NUMBERS and not own >> (base + number) & 1:
            gap += 1
            number += step
        unlocks = 0
        while 1 <= number <= NUMBERS and own >> (base + number) & 1:
            unlocks += 1
            number += step
        doors.append(Door(gap, unlocks > 0, unlocks))
    return tuple(doors)


def goes_out_now(view: SeatView) -> bool:
    """True when the seat can lay its whole hand this turn, one card after another (``core.can_go_out``)."""
    if not any(move.card is not None for move in view.legal):
        return False
    if view.draws and not view.laid and view.rules.after_draw == "end":
        return len(view.hand) == 1  # after a draw only the drawn card may be laid, and the turn ends
    rows = {color.order: row for color, row in view.rows.items()}
    return can_go_out(mask_of(view.hand), fit_mask_of_rows(rows, len(view.rules.colors)))


def _hold_back(view: SeatView) -> Move:
    """The move that lays nothing: draw at the start of a turn, else end it (keeping a drawn card)."""
    if DRAW in view.legal:
        return DRAW
    return PASS


def _may_hold_back(view: SeatView) -> bool:
    return DRAW in view.legal or PASS in view.legal


class BlockerBot(Bot):
    """Lays what leads towards its own cards; holds back what would free cards for the others."""

    name = "blocker"
    lead_gap = LEAD_GAP
    """The longest gap a lay that leads towards own cards may open."""

    def choose(self, view: SeatView) -> Move:
        """The least freeing lay it accepts; else draw or end the turn; a forced lay frees least."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        lays = read_lays(view)
        if not lays:
            return _hold_back(view)
        if goes_out_now(view):
            return lays[0].move
        accepted = [lay for lay in lays if self.accepts(lay, view)]
        if accepted:
            return accepted[0].move
        if _may_hold_back(view):
            return _hold_back(view)
        return lays[0].move  # the rules make it lay: the card that frees least

    def accepts(self, lay: LayReading, view: SeatView) -> bool:
        """True when this style lays ``lay`` of its own accord."""
        return lay.leads_within(self.lead_gap)


class TightBlockerBot(BlockerBot):
    """Lays only what frees nothing for the others; when the rules make it lay, the one card that frees least.

    After that forced lay it ends its turn unless a card that frees nothing followed it.
    """

    name = "tight-blocker"

    def accepts(self, lay: LayReading, view: SeatView) -> bool:
        """Only lays that free nothing."""
        return lay.is_free


class OneLayBot(Bot):
    """Lays one card a turn whenever one fits (the one that frees least), and always ends its turn after it."""

    name = "one-lay"

    def choose(self, view: SeatView) -> Move:
        """End the turn after a lay; else the least freeing lay; else draw or end the turn."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        if view.laid and PASS in legal:
            return PASS
        lays = read_lays(view)
        if lays:
            return lays[0].move
        return _hold_back(view)


class HoarderBot(Bot):
    """Lays only to go out or when the rules make it lay; otherwise draws, or ends its turn keeping its cards.

    It holds every card the others need and drains the pile; once the pile is empty (or under must-play
    rules) it lays the card ``medium`` would lay, one a turn. The search players model their own later
    moves with its playout policy (``rollout`` policy 6, which decides as this player does, with medium's
    scores computed from the cards in view).
    """

    name = "hoarder"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._medium = MediumBot(seed)
        """Its choice of a lay when the rules make it lay."""

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        """Forget the last game."""
        self._medium.start_game(seat, players, rules)

    def choose(self, view: SeatView) -> Move:
        """Go out if the whole hand can be laid now; else draw or end the turn; else medium's lay."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        lays = [move for move in legal if move.card is not None]
        if not lays:
            return _hold_back(view)
        after_draw = bool(view.draws) and not view.laid
        if not after_draw and goes_out_now(view):
            return min(lays, key=lambda move: move.code)
        if _may_hold_back(view):
            return _hold_back(view)
        return self._medium.choose(view)


class NoOpenBot(GreedyBot):
    """Lays whatever fits, best-chained first, but draws or ends its turn rather than open a row."""

    name = "no-open"

    def choose(self, view: SeatView) -> Move:
        """Greedy's move among the lays that open no row; an opening 11 only when it goes out or must."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        lays = read_lays(view)
        if not lays or goes_out_now(view):
            return super().choose(view)
        closed = tuple(lay.move for lay in lays if not lay.opens_row)
        if closed:
            return super().choose(_with_legal(view, (*closed, *(m for m in legal if m.card is None))))
        if _may_hold_back(view):
            return _hold_back(view)
        return super().choose(view)


def _with_legal(view: SeatView, legal: tuple[Move, ...]) -> SeatView:
    """``view`` with only ``legal`` to choose from (a subset of its own legal moves)."""
    return replace(view, legal=legal)
