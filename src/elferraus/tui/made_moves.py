"""The status line while the table makes a person's moves for him (his only legal moves).

Each such move is shown on its own, with its reason: before it (what the
person just did, or why his turn has no choice) and after it ("nothing
fits: you draw R17"). Everything is read from the person's own view.
"""

from __future__ import annotations

from elferraus.i18n import Lang, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.view import SeatView


def coming_line(view: SeatView, move: Move, lang: Lang) -> str:
    """What the status line says just before ``move`` is made for the person whose ``view`` this is."""
    if view.laid:
        return tr("made_own_lay", lang, card=str(view.laid[-1]))
    if view.draws:
        return tr("made_own_draw", lang, card=str(view.own_last_draw()))
    if move is DRAW:
        return tr("made_soon_draw", lang)
    if move is PASS:
        return tr("made_soon_pass", lang)
    if not view.rows:
        return tr("made_soon_open", lang, card=str(move))
    return tr("made_soon_lay", lang, card=str(move))


def made_line(before: SeatView, move: Move, after: SeatView, lang: Lang) -> str:
    """What the status line says once ``move`` is made for the person: the reason, then the move.

    ``before`` and ``after`` are his views just before and just after the move.
    """
    if move is DRAW:
        card = str(after.own_last_draw())
        if not before.draws:
            return tr("made_draw", lang, card=card)
        drawn = str(before.own_last_draw())
        return tr("made_draw_again", lang, drawn=drawn, card=card, draws=after.draws, limit=after.rules.max_draws)
    if move is PASS:
        if before.laid:
            return tr("made_pass_laid", lang)
        if before.pile == 0:
            return tr("made_pass_empty", lang)
        if before.draws:
            return tr("made_pass_draws", lang, drawn=str(before.own_last_draw()))
        return tr("made_pass", lang)
    if not before.rows:
        return tr("made_open", lang, card=str(move))
    return tr("made_lay", lang, card=str(move))
