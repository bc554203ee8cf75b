"""What each action would do, as numbers: the input of the learned player.

A learner that sees only the information-state tensor must find out for
itself which cards open a row for the others; with four opponents' worth of
noise that takes far longer than an hour. :class:`ActionFeatures` writes,
for each of the 82 action ids, a row of :data:`FEATURES` describing that
action from the seat's view (the same facts the ``medium`` player weighs,
none of its weights), so a network that scores every action with the same
small weights learns how much each fact is worth.

Rows of illegal actions are all zero; a legal action's row has exactly one
of ``lay``, ``draw`` and ``pass`` set. Everything comes from the seat's own
view and the moves it has seen (the tracker of ``elferraus.bots.knowledge``),
never from another hand.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from elferraus.actions import ACTION_COUNT, DRAW_ACTION, PASS_ACTION, action_of
from elferraus.bots.knowledge import Knowledge, Tracker, card_index
from elferraus.bots.medium import walk
from elferraus.cards import ELEVEN, NUMBERS
from elferraus.core import can_go_out
from elferraus.view import SeatView

FEATURES: tuple[str, ...] = (
    "lay",
    "draw",
    "pass",
    "released",
    "next_chance",
    "unlocked",
    "free",
    "eleven",
    "opens_colour",
    "own_beyond",
    "distance",
    "drawn_card",
    "hand",
    "fewest_other",
    "others_close",
    "pile",
    "laid_this_turn",
    "draws_this_turn",
    "can_go_out",
    "lays",
    "own_elevens",
    "last_cards",
)
"""The columns of a row, in order:

- ``lay``, ``draw``, ``pass``: which kind of action the row is (one is 1);
- ``released``: for a lay, the expected number of cards the others can then
  lay one after another in that row (each weighted by the chance an opponent
  holds it); ``next_chance`` the chance for the very next card;
- ``unlocked``: own cards that become layable once the others fill the gap;
- ``free``: the next card is our own or beyond the row's end (nothing opens);
- ``eleven``: the card is an 11; ``opens_colour``: it starts a new row;
- ``own_beyond``: own cards further out on that side of the row (/10);
- ``distance``: how far the number is from 11 (/9);
- ``drawn_card``: the card was just drawn (it may still be laid);
- the rest are the same for every action of the turn: own hand (/20), the
  fewest cards another player holds (/20) and whether that is 3 or fewer,
  the pile (/80), whether a card was laid and how many drawn this turn,
  whether the whole hand can go out now, legal lays (/10), own 11s (/4),
  and whether the own hand has 2 or fewer cards.
"""

FEATURE_COUNT = len(FEATURES)
_COLUMN = {name: column for column, name in enumerate(FEATURES)}
_LAY, _DRAW, _PASS = _COLUMN["lay"], _COLUMN["draw"], _COLUMN["pass"]
_FIRST_LAY_FACT = _COLUMN["released"]
_FIRST_SHARED = _COLUMN["hand"]


class ActionFeatures:
    """The feature rows of one seat's decisions, following its game move by move."""

    def __init__(self) -> None:
        self._tracker: Tracker | None = None

    def reset(self) -> None:
        """A new game: forget the sightings of the last one."""
        self._tracker = None

    def write(self, view: SeatView, out: npt.NDArray[np.float32]) -> None:
        """Fill ``out`` (82 x :data:`FEATURE_COUNT`) with the rows of ``view``'s legal actions."""
        out.fill(0.0)
        self._tracker = Tracker.following(view, self._tracker)
        knowledge = Knowledge.of(view, self._tracker)
        lays = [move for move in view.legal if move.card is not None]
        others = min(count for seat, count in enumerate(view.hand_counts) if seat != view.seat)
        shared = (
            len(view.hand) / 20,
            others / 20,
            float(others <= 3),
            view.pile / 80,
            float(bool(view.laid)),
            view.draws / 3,
            float(bool(lays) and can_go_out(knowledge.own, knowledge.fit)),
            len(lays) / 10,
            sum(card.number == ELEVEN for card in view.hand) / 4,
            float(len(view.hand) <= 2),
        )
        for move in view.legal:
            action = action_of(move)
            row = out[action]
            row[_FIRST_SHARED:] = shared
            if action == DRAW_ACTION:
                row[_DRAW] = 1.0
            elif action == PASS_ACTION:
                row[_PASS] = 1.0
            else:
                row[_LAY] = 1.0
                row[_FIRST_LAY_FACT:_FIRST_SHARED] = _lay_columns(knowledge, move.code, view)

    def array(self, view: SeatView) -> npt.NDArray[np.float32]:
        """A new 82 x :data:`FEATURE_COUNT` array of ``view``'s rows."""
        out = np.zeros((ACTION_COUNT, FEATURE_COUNT), np.float32)
        self.write(view, out)
        return out


def _lay_columns(k: Knowledge, index: int, view: SeatView) -> tuple[float, ...]:
    """``released`` to ``drawn_card`` for laying card ``index``."""
    color, number = divmod(index, NUMBERS)
    number += 1
    opens_colour = number == ELEVEN and color not in k.rows
    step = -1 if number < ELEVEN else 1
    # Each side the lay opens: the next number there, and the way outward.
    ways = [(ELEVEN - 1, -1), (ELEVEN + 1, 1)] if opens_colour else [(number + step, step)]
    sides = [walk(k, color, start, way) for start, way in ways]
    released = sum(side[0] for side in sides)
    unlocked = sum(side[1] for side in sides)
    free = all(side[2] for side in sides)
    next_chance = sum(k.opponent_chance(card_index(color, n)) for n, _ in ways if 1 <= n <= NUMBERS)
    beyond = 0
    for start, way in ways:
        beyond += sum(k.holds_own(card_index(color, n)) for n in range(start, 0 if way < 0 else NUMBERS + 1, way))
    drawn = view.drawn is not None and view.drawn.index == index
    return (
        released,
        next_chance,
        unlocked,
        float(free),
        float(number == ELEVEN),
        float(opens_colour),
        beyond / 10,
        abs(number - ELEVEN) / 9,
        float(drawn),
    )
