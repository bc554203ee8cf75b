"""What one seat can know and infer from its view alone.

Cards are indices ``colour * 20 + number - 1`` and sets of cards are int
bitmasks, as in the engine's core. Nothing here ever sees another hand: the
only inputs are a :class:`~elferraus.SeatView` and its public move history.

Inference: a player who draws before laying anything, or ends his turn
while cards fit, probably holds none of the cards that fit at that moment
(certainly so for a player who lays whatever he can). Each such sighting
marks those cards as unlikely in his hand; every card he draws afterwards
makes the mark weaker, since the card may have come off the pile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from elferraus.cards import ELEVEN, NUMBERS, fit_mask_of_rows, mask_of
from elferraus.view import SeatView

SIGHTING_WEIGHT = 0.15
"""Relative chance that a seat holds a card it was seen not to play."""


TURN_KINDS = 16
"""How many kinds of finished turns :func:`turn_kind` tells apart."""


def turn_kind(*, drew_first: bool, kept: bool, lays: int, opened: bool, held_back: bool) -> int:
    """What a finished turn of another seat showed, as one number below :data:`TURN_KINDS`.

    Its course (drew first and kept a drawn card that fit; drew first otherwise; laid one card and ended;
    laid two or more), whether it opened a row, and whether it laid a card it had held back.
    """
    course = (1 if not kept else 0) if drew_first else (2 if lays <= 1 else 3)
    return course * 4 + opened * 2 + held_back


def card_index(color_order: int, number: int) -> int:
    """The index of a card from its colour's place in ``RYGB`` and its number."""
    return color_order * NUMBERS + number - 1


def table_mask_of_rows(rows: dict[int, tuple[int, int]]) -> int:
    """Cards on the table."""
    mask = 0
    for c, (low, high) in rows.items():
        mask |= ((1 << (high - low + 1)) - 1) << card_index(c, low)
    return mask


@dataclass
class Tracker:
    """Follows a game's public history for one seat, one move at a time."""

    seat: int
    players: int
    colors: int
    max_draws: int = 3
    seen: int = 0
    """How many moves of the history are processed."""
    rows: dict[int, tuple[int, int]] = field(default_factory=dict)
    pile: int = 0
    sightings: list[dict[int, float]] = field(default_factory=list)
    """Per seat: card -> relative chance he holds it after a sighting (1 = no sighting)."""
    drew_first: list[int] = field(default_factory=list)
    """Per seat: how many of his turns began with a draw."""
    turns: list[int] = field(default_factory=list)
    keeps: list[int] = field(default_factory=list)
    """Per seat: how often he kept a drawn card that fit (ended the turn when he could have drawn again).
    A player who lays whatever he can never does; a blocker does."""
    holdbacks: list[int] = field(default_factory=list)
    """Per seat: how often he laid a card that already fit when he last ended a turn with
    pass, without drawing in between: he held it back. Again never seen of a player who
    lays whatever he can."""
    turn_kinds: list[list[int]] = field(default_factory=list)
    """Per seat: how many of his finished turns were of each :func:`turn_kind` (the forced opening aside)."""
    _suspect: list[int] = field(default_factory=list)
    """Per seat: cards that fit at his passes since his last draw."""
    _turn_seat: int = -1
    _turn_laid: int = 0
    _turn_drew: bool = False
    _turn_draws: int = 0
    _turn_first_draw: bool = False
    _turn_kept: bool = False
    _turn_opened: bool = False
    _turn_held_back: bool = False
    _turn_opening: bool = False

    @staticmethod
    def following(view: SeatView, current: Tracker | None) -> Tracker:
        """``current`` if it follows this view's seat and table, else a new tracker for it."""
        if current is not None and current.seat == view.seat and current.players == view.players:
            return current
        rules = view.rules
        return Tracker(seat=view.seat, players=view.players, colors=len(rules.colors), max_draws=rules.max_draws)

    def reset(self, pile: int) -> None:
        """Forget everything: a new game with ``pile`` cards on the pile."""
        self.seen = 0
        self.rows = {}
        self.pile = pile
        self.sightings = [{} for _ in range(self.players)]
        self.drew_first = [0] * self.players
        self.turns = [0] * self.players
        self.keeps = [0] * self.players
        self.holdbacks = [0] * self.players
        self.turn_kinds = [[0] * TURN_KINDS for _ in range(self.players)]
        self._suspect = [0] * self.players
        self._turn_seat = -1
        self._turn_laid = 0
        self._turn_drew = False
        self._turn_draws = 0

    def update(self, view: SeatView) -> None:
        """Take in the moves of ``view`` not seen yet."""
        self.follow(view.moves, view.pile)

    def follow(self, moves: Sequence[str], pile: int) -> None:
        """Take in the public ``moves`` (a game's history, as a view shows it) not seen yet; ``pile``: its size now."""
        if len(moves) < self.seen or not self.sightings:
            initial_pile = pile + sum(1 for text in moves if " draw" in text)
            self.reset(initial_pile)
        for text in moves[self.seen :]:
            self._apply(text)
        self.seen = len(moves)

    def _apply(self, text: str) -> None:
        seat_text, action, *_ = text.split()
        seat = int(seat_text)
        if seat != self._turn_seat:
            self._end_turn()
            self._turn_seat, self._turn_laid, self._turn_drew, self._turn_draws = seat, 0, False, 0
            self._turn_first_draw = action == "draw"
            self._turn_kept = self._turn_opened = self._turn_held_back = False
            self._turn_opening = not self.rows
            self.turns[seat] += 1
        if action == "draw":
            if not self._turn_laid and not self._turn_drew and seat != self.seat:
                self._sight(seat)
                self.drew_first[seat] += 1
            self._turn_drew = True
            self._turn_draws += 1
            self._suspect[seat] = 0  # the drawn card may be any of them
            self._weaken(seat)
            self.pile -= 1
        elif action == "pass":
            if self._turn_laid and seat != self.seat:
                self._sight(seat)
            elif self._turn_draws and self._turn_draws < self.max_draws and self.pile > 0:
                self.keeps[seat] += 1  # he could have drawn again, so the drawn card fit: he kept it
                self._turn_kept = True
            self._suspect[seat] |= fit_mask_of_rows(self.rows, self.colors)
        else:
            color_order = "RYGB".index(action[0])
            number = int(action[1:])
            if self._suspect[seat] >> card_index(color_order, number) & 1:
                self.holdbacks[seat] += 1
                self._turn_held_back = True
            row = self.rows.get(color_order)
            if row is None:
                self._turn_opened = True
                self.rows[color_order] = (number, number)
            else:
                low, high = row
                self.rows[color_order] = (min(low, number), max(high, number))
            self._turn_laid += 1

    def _end_turn(self) -> None:
        """Count the turn that just ended by its kind (not the game's opening, which is forced)."""
        if self._turn_seat < 0 or self._turn_opening:
            return
        kind = turn_kind(
            drew_first=self._turn_first_draw,
            kept=self._turn_kept,
            lays=self._turn_laid,
            opened=self._turn_opened,
            held_back=self._turn_held_back,
        )
        self.turn_kinds[self._turn_seat][kind] += 1

    def _sight(self, seat: int) -> None:
        marks = self.sightings[seat]
        fit = fit_mask_of_rows(self.rows, self.colors)
        while fit:
            low = fit & -fit
            marks[low.bit_length() - 1] = SIGHTING_WEIGHT
            fit ^= low
        # A row that is not open yet cannot be told apart from a held-back 11; keep those marks mild.
        for c in range(self.colors):
            if c not in self.rows:
                marks[card_index(c, ELEVEN)] = 0.5

    def _weaken(self, seat: int) -> None:
        if self.pile <= 0:
            return
        share = 1.0 / self.pile
        marks = self.sightings[seat]
        for card, weight in marks.items():
            marks[card] = weight + (1.0 - weight) * share


@dataclass(frozen=True)
class Knowledge:
    """One decision's worth of facts about the table, from a seat's view."""

    view: SeatView
    own: int
    table: int
    unknown: int
    fit: int
    rows: dict[int, tuple[int, int]]
    opponents: tuple[int, ...]
    sightings: list[dict[int, float]]

    @staticmethod
    def of(view: SeatView, tracker: Tracker | None = None) -> Knowledge:
        """Everything the view says, plus the tracker's sightings."""
        colors = len(view.rules.colors)
        rows = {"RYGB".index(color.value): row for color, row in view.rows.items()}
        own = mask_of(view.hand)
        table = table_mask_of_rows(rows)
        deck = (1 << (colors * NUMBERS)) - 1
        opponents = tuple(seat for seat in range(view.players) if seat != view.seat)
        if tracker is not None:
            tracker.update(view)
            sightings = tracker.sightings
        else:
            sightings = [{} for _ in range(view.players)]
        return Knowledge(
            view=view,
            own=own,
            table=table,
            unknown=deck & ~own & ~table,
            fit=fit_mask_of_rows(rows, colors),
            rows=rows,
            opponents=opponents,
            sightings=sightings,
        )

    def holds_own(self, index: int) -> bool:
        """True if this seat holds card ``index``."""
        return bool(self.own >> index & 1)

    def is_unknown(self, index: int) -> bool:
        """True if card ``index`` is in another hand or on the pile."""
        return bool(self.unknown >> index & 1)

    def opponent_chance(self, index: int) -> float:
        """The chance that card ``index`` (unknown to us) is in some opponent's hand."""
        if not self.unknown >> index & 1:
            return 0.0
        counts = self.view.hand_counts
        held = 0.0
        for seat in self.opponents:
            held += counts[seat] * self.sightings[seat].get(index, 1.0)
        pile = float(self.view.pile)
        return held / (held + pile) if held + pile > 0 else 0.0

    def holder_chances(self, index: int) -> list[float]:
        """Per seat, the chance it holds unknown card ``index``; the pile gets the rest."""
        counts = self.view.hand_counts
        weights = [0.0] * self.view.players
        for seat in self.opponents:
            weights[seat] = counts[seat] * self.sightings[seat].get(index, 1.0)
        total = sum(weights) + self.view.pile
        return [w / total for w in weights] if total else weights
