"""The coach of a first game: which rule matters to a seat at this moment, read from its view alone.

The terminal game and the web page show the rule (the catalogue's ``coach_`` + the moment) the first
time each moment comes in a game (``tip_of`` names it); telling each once is theirs to keep track of. What the moment is
belongs here, so that both say the same at the same time:

- ``start``: the game is just dealt (the opener's turn too), or the seat waits for its first turn: the
  red 11 starts;
- ``fits``: a card of the seat fits (and the rules let it draw instead only under ``may_hold``);
- ``may_hold``: a card fits and the seat may draw instead, holding it back (the screens tell what
  fits the first time, and the second time that holding back is allowed, and why it pays);
- ``more``: it has laid this turn and more cards fit;
- ``drawn_fits`` / ``drawn_not``: the card it drew fits (lay it or keep it) / does not (draw again);
- ``must_draw``: nothing fits: it must draw;
- ``pile_empty``: the pile is empty: whoever can lay must, whoever cannot passes.

Off the seat's turn there is no moment but the start. A turn whose only move the table makes for the
seat (a draw when nothing fits, another when the drawn card did not) still has its moment: the rule
says why.
"""

from __future__ import annotations

from typing import Literal

from elferraus.moves import DRAW
from elferraus.view import SeatView

Moment = Literal["start", "fits", "may_hold", "more", "drawn_fits", "drawn_not", "must_draw", "pile_empty"]

MOMENTS: tuple[Moment, ...] = (
    "start",
    "fits",
    "may_hold",
    "more",
    "drawn_fits",
    "drawn_not",
    "must_draw",
    "pile_empty",
)
"""Every moment, in the order a first game meets them."""


def moment(view: SeatView) -> Moment | None:
    """The rule that matters to ``view``'s seat now (see the module's docstring), or None."""
    if view.winner is not None:
        return None
    if not view.moves:
        return "start"
    if not view.is_my_turn:
        moved = any(text.split(maxsplit=1)[0] == str(view.seat) for text in view.moves)
        return None if moved else "start"
    if not view.is_my_turn or not view.legal:
        return None
    lays = [move for move in view.legal if move.card is not None]
    can_draw = DRAW in view.legal
    if view.pile == 0 and not view.laid and not view.draws:
        return "pile_empty"
    if view.laid:
        return "more" if lays else None
    if view.draws:
        return "drawn_fits" if lays else "drawn_not" if can_draw else None
    if lays:
        return "may_hold" if can_draw else "fits"
    return "must_draw" if can_draw else None


def tip_of(now: Moment | None, told: set[str] | frozenset[str]) -> str | None:
    """The rule to tell at ``now`` (a catalogue key after ``coach_``), or None if ``told`` holds it already.

    A card that fits while drawing is allowed is told first as what fits, the next time as holding back.

    >>> tip_of("may_hold", set()), tip_of("may_hold", {"fits"}), tip_of("may_hold", {"fits", "hold"})
    ('fits', 'hold', None)
    """
    if now is None:
        return None
    tip = ("hold" if "fits" in told else "fits") if now == "may_hold" else now
    return None if tip in told else tip


__all__ = ["MOMENTS", "Moment", "moment", "tip_of"]
