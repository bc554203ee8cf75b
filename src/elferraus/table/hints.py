"""Why the hint's move is good, in words: blocking, opening a row, going out, freeing own cards.

The hint comes from ``master``, the strongest level
(:meth:`elferraus.table.session.Table.hint`): it deals the cards the person
cannot see many ways, all agreeing with the person's own view, and plays its
likeliest moves on from there; this module says what the chosen move does on
the table, from the same view alone: which cards a lay opens for the others,
which of the person's own cards it frees, which cards a draw or the end of a
turn holds back, and who plays next. Its estimated chance to win comes last,
as a detail (without the compiled core it does not look ahead, and the hint
says so instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from elferraus.bots import Advice
from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.i18n import Lang, color_name, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.view import SeatView


@dataclass(frozen=True)
class Effect:
    """What laying one card does: the cards it lets the others lay, the own cards it lets follow it."""

    card: Card
    opens: tuple[Card, ...]
    """Cards that fit once it is laid and are not the person's own (the others may hold them)."""
    frees: tuple[Card, ...]
    """The person's own cards that can follow it at once, one after another."""
    behind: tuple[Card, ...]
    """Own cards just beyond an opened card: they fit once somebody lays that one."""


def _outward(
    card: Card, step: int, own: frozenset[Card]
) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
    """From ``card`` along its row in direction ``step``: (opened for the others, freed own run, own behind a gap)."""
    number = card.number + step
    freed: list[Card] = []
    while 1 <= number <= NUMBERS and Card(card.color, number) in own:
        freed.append(Card(card.color, number))
        number += step
    if freed or not 1 <= number <= NUMBERS:
        return (), tuple(freed), ()
    opened = Card(card.color, number)
    beyond = number + step
    if 1 <= beyond <= NUMBERS and Card(card.color, beyond) in own:
        return (opened,), (), (Card(card.color, beyond),)
    return (opened,), (), ()


def effect_of(view: SeatView, card: Card) -> Effect:
    """What laying ``card`` would do, seen from ``view``."""
    own = frozenset(view.hand) - {card}
    steps: tuple[int, ...]
    if card.number == ELEVEN and card.color not in view.rows:
        steps = (-1, 1)
    else:
        steps = (-1,) if card.number < ELEVEN else (1,)
    opens: list[Card] = []
    frees: list[Card] = []
    behind: list[Card] = []
    for step in steps:
        opened, freed, waiting = _outward(card, step, own)
        opens += opened
        frees += freed
        behind += waiting
    return Effect(card, tuple(opens), tuple(frees), tuple(behind))


def _cards(cards: Sequence[Card], joiner: str, lang: Lang) -> str:
    """``R9``, ``R9 and G13``, ``R9, Y4 and G13`` (``joiner`` is the message key of the last word)."""
    words = [str(card) for card in cards]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {tr(joiner, lang)} {words[-1]}"


def _move_word(move: Move, lang: Lang) -> str:
    if move is DRAW:
        return tr("move_draw", lang)
    if move is PASS:
        return tr("move_pass", lang)
    return str(move)


def _next_seat(view: SeatView) -> int:
    return (view.seat + 1) % view.players


def reason_message(view: SeatView, advice: Advice, names: Sequence[str]) -> tuple[str, dict[str, object]]:
    """Why ``advice`` is good, as a message key and its parameters, from the person's ``view`` alone."""
    move = advice.move
    if advice.reason == "only":
        return "hint_why_only", {}
    if advice.reason == "go_out":
        return "hint_why_go_out", {}
    fitting = [legal.card for legal in view.legal if legal.card is not None]
    if move.card is None:
        return _holding_back(view, fitting, names)
    return _laying(view, effect_of(view, move.card))


def _holding_back(view: SeatView, fitting: Sequence[Card], names: Sequence[str]) -> tuple[str, dict[str, object]]:
    if not fitting:
        return "hint_why_nothing_fits", {}
    opened = sorted({card for held in fitting for card in effect_of(view, held).opens}, key=lambda card: card.index)
    nxt = _next_seat(view)
    params: dict[str, object] = {"held": list(fitting), "opened": opened, "name": names[nxt]}
    if not opened:
        return "hint_why_keep", params
    return ("hint_why_block" if view.players > 2 else "hint_why_block_one"), params


def _laying(view: SeatView, effect: Effect) -> tuple[str, dict[str, object]]:
    card = effect.card
    params: dict[str, object] = {"card": card, "opened": list(effect.opens)}
    if effect.frees and not effect.opens:
        return "hint_why_frees", {**params, "freed": list(effect.frees)}
    if card.number == ELEVEN and card.color not in view.rows:
        own = [held for held in view.hand if held.color == card.color and held != card]
        if own:
            return "hint_why_open_row", {**params, "color": card.color, "own": own}
    if not effect.opens:
        return "hint_why_row_end", params
    if effect.behind:
        return "hint_why_way", {**params, "own": list(effect.behind)}
    return "hint_why_opens", params


def _words(key: str, params: dict[str, object], lang: Lang) -> str:
    filled: dict[str, object] = {}
    for name, value in params.items():
        if isinstance(value, Color):
            filled[name] = color_name(value.value, lang)
        elif isinstance(value, list):
            filled[name] = _cards(value, "or" if name == "held" else "and", lang)
        else:
            filled[name] = str(value)
    return tr(key, lang, **filled)


def hint_line(view: SeatView, advice: Advice, names: Sequence[str], lang: Lang) -> str:
    """The hint in one line: the move, why in words, then (for a search) its estimated chance to win over the
    deals it sampled, or (while it holds back as the pile lasts) its plan."""
    key, params = reason_message(view, advice, names)
    line = tr("hint_line", lang, move=_move_word(advice.move, lang), why=_words(key, params, lang))
    if advice.reason == "search" and advice.rates:
        rate = round(100 * advice.rates[0][1])
        line += " " + tr("hint_rate", lang, rate=rate, samples=advice.samples)
    elif advice.reason == "plan":
        line += " " + tr("hint_plan", lang)
    return line
