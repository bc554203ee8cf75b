"""Why a move is illegal: a stable reason code and its details.

The words for each reason, in English and German, are in
:mod:`elferraus.i18n`; the engine's exceptions carry the English ones.
"""

from __future__ import annotations

from elferraus.cards import NUMBERS, Card
from elferraus.i18n import explain
from elferraus.moves import Move, MoveKind
from elferraus.view import GameReader

Reason = tuple[str, dict[str, object]]


def explain_illegal(game: GameReader, move: Move) -> tuple[str, dict[str, object], str]:
    """Say why ``move`` is not legal in ``game``: (reason code, details, English text).

    Only meaningful for a move that is not among ``game.legal_moves()``.
    """
    reason, details = _reason(game, move)
    return reason, details, explain(reason, details, "en")


def _reason(game: GameReader, move: Move) -> Reason:
    legal = game.legal_moves()
    if game.is_over():
        return "game_over", {"winner": game.winner}
    if not game.started:
        return "opening", {"card": str(legal[0])}
    drawn = game.last_drawn if game.draws_this_turn and not game.laid_this_turn() else None
    if move.kind is MoveKind.LAY:
        assert move.card is not None
        return _lay_reason(game, move.card, drawn)
    if move.kind is MoveKind.DRAW:
        return _draw_reason(game, legal, drawn)
    return _pass_reason(game, legal, drawn)


def _lay_reason(game: GameReader, card: Card, drawn: Card | None) -> Reason:
    if card not in game.hand(game.turn):
        return "not_in_hand", {"card": str(card)}
    if not game.fits(card):
        rows = game.rows()
        if card.color not in rows:
            return "row_not_open", {"card": str(card), "color": card.color.value}
        low, high = rows[card.color]
        ends = [f"{card.color.value}{n}" for n in (low - 1, high + 1) if 1 <= n <= NUMBERS]
        return "not_fitting", {"card": str(card), "color": card.color.value, "low": low, "high": high, "fitting": ends}
    if drawn is not None:
        return "only_drawn_card", {"card": str(card), "drawn": str(drawn)}
    return "turn_over", {"card": str(card)}


def _draw_reason(game: GameReader, legal: tuple[Move, ...], drawn: Card | None) -> Reason:
    if game.laid_this_turn():
        return "draw_after_lay", {}
    if game.pile_size() == 0:
        return "pile_empty", {}
    if drawn is not None and game.fits(drawn):
        return "drawn_fits", {"drawn": str(drawn)}
    if game.draws_this_turn >= game.rules.max_draws:
        return "draw_limit", {"limit": game.rules.max_draws}
    example = next(m for m in legal if m.kind is MoveKind.LAY)
    return "must_lay", {"example": str(example)}


def _pass_reason(game: GameReader, legal: tuple[Move, ...], drawn: Card | None) -> Reason:
    if drawn is not None and not game.fits(drawn):
        limit = game.rules.max_draws
        return "must_draw_again", {"drawn": str(drawn), "draws": game.draws_this_turn, "limit": limit}
    if drawn is not None:
        return "must_lay_drawn", {"drawn": str(drawn)}
    lays = [m for m in legal if m.kind is MoveKind.LAY]
    if lays and (game.pile_size() == 0 or game.rules.must_play):
        return "must_lay", {"example": str(lays[0])}
    return "pass_too_early", {}
