"""The position string: a whole position on one line (our FEN).

Six fields separated by spaces::

    R8-13,B10-11 R7R14Y3/G2G11/B9B15/Y5 B7G3... 2 -:0:- RYGB:3:free:end
    rows         hands, seat 0 first    pile    turn   rules
                                                 laid this turn : draws : last drawn

- rows: ``R8-13`` for each open row (lowest-highest), comma-separated; ``-`` if none;
- hands: each seat's cards back to back, seats separated by ``/``; ``-`` for an empty hand;
- pile: the pile's cards, top first; ``-`` when empty;
- turn: the seat to move;
- this turn: the cards laid so far this turn, the number of cards drawn,
  and the card drawn last (``-`` for none);
- rules: colours, max draws, ``free`` or ``must`` (the must-play option),
  and ``end`` or ``continue`` (after-draw option).

This module is the whole format, and it knows nothing of the game, as
python-chess's FEN is plain text over plain data: :func:`format_position`
writes anything that reads as a position (a :class:`~elferraus.Game`, seen
through :class:`~elferraus.view.GameReader`, what the views read of it too), and :func:`parse_position` reads the text
into checked plain data, :class:`PositionData`. The game builds itself from
that data (:func:`elferraus.read_position`), and names its position with
:func:`format_position` in its error messages and ``repr``; so the game
imports this module and never the reverse.

>>> from elferraus import Game, read_position
>>> game = Game.deal(players=2, seed=3)
>>> format_position(read_position(format_position(game))) == format_position(game)
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from elferraus.cards import CARDS, ELEVEN, NUMBERS, Card, Color, fit_mask_of_rows, format_cards, parse_cards
from elferraus.errors import NotationError
from elferraus.rules import DEAL_TABLE, Rules
from elferraus.view import GameReader

__all__ = ["PositionData", "format_position", "format_rules", "parse_position"]

_ROW = re.compile(r"^([RYGB])(\d{1,2})-(\d{1,2})$")


@dataclass(frozen=True)
class PositionData:
    """The parts of a position string, checked for consistency."""

    rules: Rules
    rows: dict[Color, tuple[int, int]]
    hands: list[list[Card]]
    pile: list[Card]
    turn: int
    laid: list[Card]
    draws: int
    last_drawn: Card | None
    fit: int


def format_rules(rules: Rules) -> str:
    """The rules field: ``RYGB:3:free:end``."""
    return f"{rules.colors}:{rules.max_draws}:{'must' if rules.must_play else 'free'}:{rules.after_draw}"


def format_position(game: GameReader) -> str:
    """Write ``game``'s position as one line."""
    rows = ",".join(f"{color.value}{low}-{high}" for color, (low, high) in game.rows().items()) or "-"
    hands = "/".join(format_cards(game.hand(seat)) or "-" for seat in range(game.players))
    pile = format_cards(game.pile()) or "-"
    laid = format_cards(game.laid_this_turn()) or "-"
    last = str(game.last_drawn) if game.last_drawn is not None else "-"
    phase = f"{laid}:{game.draws_this_turn}:{last}"
    return f"{rows} {hands} {pile} {game.turn} {phase} {format_rules(game.rules)}"


def _parse_rules(text: str) -> Rules:
    parts = text.split(":")
    if len(parts) != 4 or parts[2] not in ("free", "must") or not parts[1].isdigit():
        raise NotationError(f"rules field {text!r} should look like RYGB:3:free:end")
    return Rules(colors=parts[0], max_draws=int(parts[1]), must_play=parts[2] == "must", after_draw=parts[3])  # type: ignore[arg-type]


def _parse_rows(text: str, rules: Rules) -> dict[Color, tuple[int, int]]:
    rows: dict[Color, tuple[int, int]] = {}
    if text == "-":
        return rows
    for token in text.split(","):
        match = _ROW.match(token)
        if not match:
            raise NotationError(f"row {token!r} should look like R8-13")
        color, low, high = Color(match[1]), int(match[2]), int(match[3])
        if color.value not in rules.colors:
            raise NotationError(f"row {token!r}: {color.value} is not in the {rules.colors} deck")
        if color in rows:
            raise NotationError(f"row {token!r}: {color.value} has two rows")
        if not 1 <= low <= ELEVEN <= high <= NUMBERS:
            raise NotationError(f"row {token!r}: a row runs from 1-11 to 11-20")
        rows[color] = (low, high)
    return rows


def _parse_card_field(text: str, what: str) -> list[Card]:
    if text == "-":
        return []
    try:
        return parse_cards(text)
    except NotationError as error:
        raise NotationError(f"{what}: {error}") from None


def parse_position(text: str) -> PositionData:
    """Read and check a position string.

    Raises:
        NotationError: the text is malformed or the position impossible;
            the message says which field and why.
    """
    fields = text.split()
    if len(fields) != 6:
        raise NotationError(f"a position has 6 fields (rows hands pile turn phase rules), not {len(fields)}: {text!r}")
    rows_text, hands_text, pile_text, turn_text, phase_text, rules_text = fields
    rules = _parse_rules(rules_text)
    rows = _parse_rows(rows_text, rules)
    hands = [_parse_card_field(part, f"hand {seat}") for seat, part in enumerate(hands_text.split("/"))]
    if len(hands) not in DEAL_TABLE:
        raise NotationError(f"a position has 2-6 hands separated by '/', not {len(hands)}")
    pile = _parse_card_field(pile_text, "pile")
    _check_conservation(rows, hands, pile, rules)
    if not turn_text.isdigit() or int(turn_text) >= len(hands):
        raise NotationError(f"turn {turn_text!r} is not a seat 0-{len(hands) - 1}")
    turn = int(turn_text)
    laid, draws, last_drawn = _parse_phase(phase_text, rows, hands[turn], rules)
    empty = [seat for seat, hand in enumerate(hands) if not hand]
    if len(empty) > 1 or (empty and empty[0] != turn):
        raise NotationError("only one hand can be empty: the winner's, and the turn field names him")
    if empty and not laid:
        raise NotationError("a game is won by laying the last card, so the winner has laid a card this turn")
    if len(rows) == 1 and laid and all(low == high for low, high in rows.values()) and not empty:
        raise NotationError(f"the opening {laid[0]} ends the starter's turn: it cannot be laid in a turn that goes on")
    if not rows:
        _check_opening(hands, turn, laid, draws, rules)
    fit = fit_mask_of_rows({color.order: row for color, row in rows.items()}, len(rules.colors))
    return PositionData(rules, rows, hands, pile, turn, laid, draws, last_drawn, fit)


def _check_conservation(
    rows: dict[Color, tuple[int, int]], hands: list[list[Card]], pile: list[Card], rules: Rules
) -> None:
    where: dict[Card, str] = {}
    for color, (low, high) in rows.items():
        for number in range(low, high + 1):
            where[Card(color, number)] = "the table"
    places = [(f"hand {seat}", hand) for seat, hand in enumerate(hands)] + [("the pile", pile)]
    for place, cards in places:
        for card in cards:
            if card.color.value not in rules.colors:
                raise NotationError(f"{card} in {place} is not in the {rules.colors} deck")
            if card in where:
                raise NotationError(f"{card} is both in {where[card]} and in {place}")
            where[card] = place
    missing = [str(card) for card in CARDS[: rules.deck_size] if card not in where]
    if missing:
        raise NotationError(f"cards missing from the position: {' '.join(missing)}")


def _parse_phase(
    text: str, rows: dict[Color, tuple[int, int]], hand: list[Card], rules: Rules
) -> tuple[list[Card], int, Card | None]:
    parts = text.split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        raise NotationError(f"turn phase {text!r} should look like LAID:DRAWS:DRAWN, e.g. -:0:- or R12:0:-")
    laid = _parse_card_field(parts[0], "cards laid this turn")
    if len(set(laid)) != len(laid):
        raise NotationError(f"a card is laid twice this turn: {parts[0]}")
    for card in laid:
        low_high = rows.get(card.color)
        if low_high is None or not low_high[0] <= card.number <= low_high[1]:
            raise NotationError(f"{card} was laid this turn but is not on the table")
    draws = int(parts[1])
    if draws > rules.max_draws:
        raise NotationError(f"{draws} cards drawn this turn; the rules allow {rules.max_draws}")
    last = None if parts[2] == "-" else _parse_card_field(parts[2], "last drawn card")
    if (draws == 0) != (last is None) or (last is not None and len(last) != 1):
        raise NotationError("the last drawn card is given exactly when cards were drawn this turn")
    last_drawn = last[0] if last else None
    if last_drawn is not None and last_drawn not in hand and last_drawn not in laid:
        raise NotationError(f"{last_drawn} was drawn this turn but is neither in the hand nor laid")
    if draws and laid and rules.after_draw == "end" and hand:
        raise NotationError("after laying a drawn card the turn ends, unless after_draw is 'continue'")
    return laid, draws, last_drawn


def _check_opening(hands: list[list[Card]], turn: int, laid: list[Card], draws: int, rules: Rules) -> None:
    if laid or draws:
        raise NotationError("no row is open, so nothing can have been laid or drawn this turn")
    for letter in rules.colors:
        eleven = Card(Color(letter), ELEVEN)
        holders = [seat for seat, hand in enumerate(hands) if eleven in hand]
        if holders:
            if holders[0] != turn:
                raise NotationError(f"no row is open: seat {holders[0]} holds {eleven} and must open")
            return
    raise NotationError("no row is open and no hand holds an 11")
