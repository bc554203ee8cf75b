"""``medium``: a blocking heuristic that plays in well under a millisecond.

Every row end is a door: whoever holds the next card may go through. The
heuristic scores each card it could lay by what it opens:

- a card whose next card (beyond it in its row) is its own is *free*: it
  shortens the hand and opens nothing for anybody else;
- otherwise the lay *releases* the next card: the expected number of cards
  the opponents can then lay one after another (each unknown card weighted
  by the chance an opponent holds it, using what they have shown);
- a released gap that ends in its own cards *unlocks* those once the
  others fill the gap.

It lays free cards, keeps the last card before a gap (the blocker), keeps
11s that would open a colour it has nothing in, goes out whenever it can,
and draws rather than open a door that costs more than a draw.
"""

from __future__ import annotations

from elferraus.bots.base import Bot
from elferraus.bots.knowledge import Knowledge, Tracker, card_index
from elferraus.cards import ELEVEN, NUMBERS
from elferraus.core import can_go_out
from elferraus.moves import DRAW, PASS, Move
from elferraus.rules import Rules
from elferraus.view import SeatView

DRAW_COST = 0.0
"""What a draw is worth in cards (it adds one to three cards to the hand)."""
FREE_BONUS = 0.5
KEEP_DRAWN_THRESHOLD = -0.4
UNLOCK_WEIGHT = 20.0


def walk(k: Knowledge, color: int, start: int, step: int) -> tuple[float, float, bool]:
    """Follow a row outward from number ``start``: (released, unlocked, free).

    ``released`` is the expected number of opponent cards that can follow in a
    row once ``start`` is open; ``unlocked`` the expected number of own cards
    that become layable after the others fill the gap; ``free`` is True when
    ``start`` is our own card or beyond the row's end (nothing is opened).
    """
    if not 1 <= start <= NUMBERS:
        return 0.0, 0.0, True
    if k.holds_own(card_index(color, start)):
        return 0.0, 0.0, True
    released = 0.0
    reach = 1.0
    number = start
    while 1 <= number <= NUMBERS:
        index = card_index(color, number)
        if k.holds_own(index):
            own_run = 0
            while 1 <= number <= NUMBERS and k.holds_own(card_index(color, number)):
                own_run += 1
                number += step
            return released, reach * own_run, False
        reach *= k.opponent_chance(index)
        released += reach
        if reach < 0.02:
            break
        number += step
    return released, 0.0, False


def lay_score(k: Knowledge, index: int, release_weight: float) -> float:
    """How good laying card ``index`` is now (a card fewer, minus what it opens)."""
    color, number = divmod(index, NUMBERS)
    number += 1
    if number == ELEVEN and color not in k.rows:
        down = walk(k, color, ELEVEN - 1, -1)
        up = walk(k, color, ELEVEN + 1, 1)
        released = down[0] + up[0]
        unlocked = down[1] + up[1]
        free = down[2] and up[2]
    else:
        step = -1 if number < ELEVEN else 1
        released, unlocked, free = walk(k, color, number + step, step)
    return 1.0 + (FREE_BONUS if free else 0.0) - release_weight * released + UNLOCK_WEIGHT * unlocked


class MediumBot(Bot):
    """Blocks with its row-end cards, lays what opens nothing, races at the end."""

    name = "medium"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._tracker: Tracker | None = None

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        """Forget the last game's sightings."""
        self._tracker = None  # a new game: the next view starts a new tracker

    def choose(self, view: SeatView) -> Move:
        """Pick a move from ``view.legal`` by the blocking heuristic."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        self._tracker = Tracker.following(view, self._tracker)
        return self.decide(view, Knowledge.of(view, self._tracker))

    def decide(self, view: SeatView, k: Knowledge) -> Move:
        """The heuristic's move, from knowledge already gathered (so a caller that has it need not again)."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        lays = [move for move in legal if move.card is not None]
        if not lays:
            return DRAW if DRAW in legal else PASS
        if can_go_out(k.own, k.fit) and (view.laid or not view.draws):
            return lays[0]
        weight = self._release_weight(view)
        scores = {move: lay_score(k, move.code, weight) for move in lays}
        best = max(lays, key=lambda move: (scores[move], -move.code))
        best_score = scores[best]
        if PASS in legal:
            threshold = KEEP_DRAWN_THRESHOLD if view.drawn is not None else 0.0
            return best if best_score > threshold else PASS
        if DRAW in legal:
            return best if best_score > -DRAW_COST else DRAW
        return best

    @staticmethod
    def _release_weight(view: SeatView) -> float:
        """Opening doors matters more when an opponent is close to going out."""
        others = min(count for seat, count in enumerate(view.hand_counts) if seat != view.seat)
        weight = 1.0
        if others <= 3:
            weight = 1.6
        if len(view.hand) <= 2:
            weight *= 0.6
        return weight
