"""Game records in the ``elferraus/1`` format (our PGN), one JSON object a game.

A file of games is JSON Lines. Reading checks everything: the deal against
the rules, every move against the position it is made in, and the result.

The game knows nothing of this module: :func:`write_record` writes a game,
:func:`read_record` replays one.

>>> from elferraus import Game, format_position
>>> game = Game.deal(players=2, seed=5)
>>> game.push(game.legal_moves()[0])
>>> format_position(read_record(write_record(game))) == format_position(game)
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from elferraus.cards import Card
from elferraus.errors import ElferRausError, IllegalMoveError, NotationError, RecordError
from elferraus.game import Game
from elferraus.moves import DRAW, PASS, Move
from elferraus.rules import Rules

FORMAT = "elferraus/1"
STANDARD_KEYS = ("format", "rules", "hands", "pile", "moves", "result")


def write_record(game: Game) -> dict[str, Any]:
    """``game`` as an ``elferraus/1`` record: a JSON-ready dict.

    Raises:
        ValueError: the game did not start from a deal.
    """
    dealt = game.dealt
    if dealt is None:
        raise ValueError("this game did not start from a deal (it was made from a position), so it has no record")
    hands, pile = dealt
    winner = game.winner
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": game.rules.to_dict(),
        "hands": [[str(card) for card in hand] for hand in hands],
        "pile": [str(card) for card in pile],
        "moves": game.record_moves(),
        "result": None if winner is None else {"winner": winner, "penalties": game.penalties()},
    }
    for key, value in game.metadata.items():
        if key not in record:
            record[key] = value
    return record


def dumps_record(game: Game) -> str:
    """``game``'s record as one line of JSON."""
    return json.dumps(write_record(game), ensure_ascii=False, separators=(", ", ": "))


def read_record(data: object, *, game: int | None = None) -> Game:
    """Check a record and replay it into a :class:`Game`.

    Args:
        data: the record, parsed from JSON.
        game: the game (line) number to name in error messages.

    Raises:
        RecordError: what is wrong, naming the game and move number.
    """
    try:
        return _read(data)
    except RecordError as error:
        raise error.located(game) if game is not None else error from None


def _read(data: object) -> Game:
    if not isinstance(data, Mapping):
        raise RecordError(f"a record is a JSON object, not {type(data).__name__}")
    missing = [key for key in STANDARD_KEYS if key not in data]
    if missing:
        raise RecordError(f"the record has no {missing[0]!r}")
    if data["format"] != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, not {data['format']!r}")
    if not isinstance(data["rules"], Mapping):
        raise RecordError("'rules' must be an object")
    try:
        rules = Rules.from_dict(data["rules"])
    except (NotationError, TypeError) as error:
        raise RecordError(str(error)) from None
    hands_data = data["hands"]
    if not isinstance(hands_data, list) or not all(isinstance(hand, list) for hand in hands_data):
        raise RecordError("'hands' must be a list of lists of cards, seat 0 first")
    if not 2 <= len(hands_data) <= 6:
        raise RecordError(f"'hands' must have 2-6 hands, not {len(hands_data)}")
    hands = [_cards(hand, f"hands[{seat}]") for seat, hand in enumerate(hands_data)]
    pile = _cards(data["pile"], "pile")
    try:
        game = Game(hands, pile, rules, metadata={k: v for k, v in data.items() if k not in STANDARD_KEYS})
    except NotationError as error:
        raise RecordError(f"bad deal: {error}") from None
    moves = data["moves"]
    if not isinstance(moves, list):
        raise RecordError("'moves' must be a list of strings like \"1 R12\"")
    for number, text in enumerate(moves, start=1):
        _replay_move(game, text, number)
    _check_result(game, data["result"])
    return game


def _cards(value: object, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(f"{where!r} must be a list of cards")
    cards = []
    for index, text in enumerate(value):
        if not isinstance(text, str):
            raise RecordError(f"{where}[{index}]: {text!r} is not a card")
        try:
            cards.append(Card.parse(text))
        except NotationError as error:
            raise RecordError(f"{where}[{index}]: {error}") from None
    return cards


def parse_record_move(text: str) -> tuple[int, Move, Card | None]:
    """Read one move of a record: ``"2 R10"``, ``"2 draw Y4"`` or ``"2 pass"``.

    Raises:
        NotationError: the text is not in record notation.
    """
    parts = text.split()
    if len(parts) not in (2, 3) or not parts[0].isdigit():
        raise NotationError(f"{text!r} is not a record move: write SEAT CARD, SEAT draw CARD or SEAT pass")
    seat = int(parts[0])
    if parts[1] == "draw":
        if len(parts) != 3:
            raise NotationError(f'{text!r}: a draw names the card drawn, e.g. "{seat} draw Y4"')
        return seat, DRAW, Card.parse(parts[2])
    if len(parts) != 2:
        raise NotationError(f"{text!r} is not a record move: only a draw has a third part")
    if parts[1] == "pass":
        return seat, PASS, None
    return seat, Move.lay(Card.parse(parts[1])), None


def _replay_move(game: Game, text: object, number: int) -> None:
    if not isinstance(text, str):
        raise RecordError(f"{text!r} is not a move string", move=number)
    try:
        seat, move, drawn = parse_record_move(text)
    except NotationError as error:
        raise RecordError(str(error), move=number) from None
    if game.is_over():
        won = game.winner if game.winner is not None else -1
        raise RecordError(f"{text!r} comes after the game ended (seat {won + 1} won)", move=number)
    if seat != game.turn:
        raise RecordError(
            f"{text!r}: it is seat {game.turn + 1}'s turn, not seat {seat + 1}'s"
            f" (the record counts seats from 0: {game.turn}, not {seat})",
            move=number,
        )
    if drawn is not None and game.pile_size() and game.pile()[0] != drawn:
        raise RecordError(f"{text!r}: the card on top of the pile is {game.pile()[0]}, not {drawn}", move=number)
    try:
        game.push(move)
    except IllegalMoveError as error:
        raise RecordError(f"{text!r} is illegal: {error.explanation}", move=number) from None


def _check_result(game: Game, result: object) -> None:
    if game.winner is None:
        if result is not None:
            raise RecordError("the moves do not finish the game, so 'result' must be null")
        return
    if not isinstance(result, Mapping):
        raise RecordError(
            f"seat {game.winner + 1} laid his last card, so 'result' must name the winner"
            f" (the record counts seats from 0: {game.winner})"
        )
    winner = result.get("winner")
    if type(winner) is not int or winner != game.winner:
        raise RecordError(
            f'result: the winner is seat {game.winner + 1}, so "winner" is {game.winner}'
            f" (the record counts seats from 0), not {winner!r}"
        )
    penalties = result.get("penalties")
    if not isinstance(penalties, list) or any(type(p) is not int for p in penalties) or penalties != game.penalties():
        raise RecordError(f"result: the penalties are {game.penalties()}, not {result.get('penalties')!r}")


def locate_json_error(text: str, error: json.JSONDecodeError) -> tuple[int, str]:
    """Where one line of JSON breaks (its 1-based column) and why, from the decoder's ``error``.

    A line that ends before its JSON does was cut off: it breaks just past its
    end, not where the decoder began the string or value it could not finish.

    >>> text = '{"moves": ["0 R11", "1 dr'
    >>> try:
    ...     json.loads(text)
    ... except json.JSONDecodeError as error:
    ...     locate_json_error(text, error)
    (26, 'the line ends inside a string begun at column 21; is it cut off?')
    """
    end = len(text.rstrip())
    reason = error.msg.removesuffix(" at")
    if reason.startswith("Unterminated string"):
        return end + 1, f"the line ends inside a string begun at column {error.colno}; is it cut off?"
    if error.pos >= end:
        return end + 1, f"the line ends too early ({reason}); is it cut off?"
    return error.colno, reason


def iter_records(lines: Iterable[str]) -> Iterator[tuple[int, Game | RecordError]]:
    """Read JSON Lines: (line number, the game or the error) for each non-blank line."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        text = line.rstrip("\r\n")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            column, problem = locate_json_error(text, error)
            yield number, RecordError(f"not valid JSON: {problem}", game=number, column=column)
            continue
        try:
            yield number, read_record(data, game=number)
        except RecordError as error:
            yield number, error
        except ElferRausError as error:  # pragma: no cover - every engine error should be caught above
            yield number, RecordError(str(error), game=number)


def read_records(lines: Iterable[str]) -> Iterator[Game]:
    """Read JSON Lines of records, stopping at the first bad one.

    Raises:
        RecordError: the first bad record, naming its line and move.
    """
    for _, item in iter_records(lines):
        if isinstance(item, RecordError):
            raise item
        yield item
