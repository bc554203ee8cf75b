"""The bot protocol ``elferraus-bot/1``: JSON Lines between an arena and a bot.

Any program in any language can play: the arena starts it and talks over
its standard input and output, one JSON object per line (see
``docs/bot-protocol.md``):

- arena -> bot ``{"type": "hello", "protocol": "elferraus-bot/1", "seat": 2, "players": 4, "rules": {...}}``;
  bot -> arena ``{"type": "ready", "name": "..."}``, or ``{"type": "refuse", "reason": "..."}`` from a bot
  that cannot play that seat (it then exits);
- arena -> bot ``{"type": "act", "view": VIEW, "legal": ["R12", "G10", "pass"]}``;
  bot -> arena ``{"move": "R12"}``;
- arena -> bot ``{"type": "end", "result": {...}}`` after each game, then
  ``hello`` again for the next game, or ``{"type": "quit"}``.

This module builds and checks those messages and turns a ``VIEW`` back into
a :class:`~elferraus.SeatView`, so the built-in players speak it too.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Annotated, Any, TextIO

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetPydanticSchema,
    Strict,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError, core_schema

from elferraus.bots import Bot, SeatRefusedError, make_bot
from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.errors import NotationError
from elferraus.moves import Move
from elferraus.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from elferraus.view import SeatView

PROTOCOL = "elferraus-bot/1"
MAX_LINE = 1 << 20
"""The longest message line either side accepts (1 MiB)."""


class ProtocolError(ValueError):
    """A message broke the protocol; the text says what and where."""


def hello(seat: int, players: int, rules: Rules) -> dict[str, Any]:
    """The message that starts a game for ``seat``."""
    return {"type": "hello", "protocol": PROTOCOL, "seat": seat, "players": players, "rules": rules.to_dict()}


def refuse(reason: str) -> dict[str, Any]:
    """The answer to ``hello`` of a bot that cannot play the seat offered; ``reason`` is put on one line.

    >>> refuse("this network was trained for 4 players;  the table has 2")
    {'type': 'refuse', 'reason': 'this network was trained for 4 players; the table has 2'}
    """
    return {"type": "refuse", "reason": " ".join(reason.split())}


def act(view: SeatView) -> dict[str, Any]:
    """The message that asks the seat of ``view`` for a move."""
    return {"type": "act", "view": view.to_dict(), "legal": [str(move) for move in view.legal]}


def end(result: Mapping[str, Any] | None) -> dict[str, Any]:
    """The message after a game."""
    return {"type": "end", "result": dict(result) if result is not None else None}


def encode(message: Mapping[str, Any]) -> str:
    """One protocol line (without the newline)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def decode(line: str) -> dict[str, Any]:
    """Parse one line into a JSON object.

    Raises:
        ProtocolError: too long, not JSON, or not an object.
    """
    if len(line) > MAX_LINE:
        raise ProtocolError(f"message of {len(line)} characters; the limit is {MAX_LINE}")
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not JSON: {error.msg} at column {error.colno}: {line[:80]!r}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"a message is a JSON object, not {type(data).__name__}: {line[:80]!r}")
    return data


def parse_answer(data: Mapping[str, Any], legal: tuple[Move, ...]) -> Move:
    """The move a bot answered to ``act``.

    Raises:
        ProtocolError: no ``move``, or one that is not among ``legal``.
    """
    text = data.get("move")
    if not isinstance(text, str):
        raise ProtocolError(f'an answer to "act" is {{"move": "R12"}}, not {encode(data)[:80]}')
    try:
        move = Move.parse(text)
    except NotationError as error:
        raise ProtocolError(str(error)) from None
    if move not in legal:
        raise ProtocolError(f"illegal move {text!r}: the legal moves were {', '.join(map(str, legal))}")
    return move


def _card(_type: object, _handler: object) -> core_schema.CoreSchema:
    """A card in the protocol: a string that :meth:`Card.parse` reads."""
    return core_schema.no_info_after_validator_function(Card.parse, core_schema.str_schema())


def _move(_type: object, _handler: object) -> core_schema.CoreSchema:
    """A move in the protocol: a string that :meth:`Move.parse` reads."""
    return core_schema.no_info_after_validator_function(Move.parse, core_schema.str_schema())


_CardText = Annotated[Card, GetPydanticSchema(_card)]
_MoveText = Annotated[Move, GetPydanticSchema(_move)]
_Count = Annotated[int, Field(ge=0)]
# Strict validation of Python data wants Color members and tuples; a decoded JSON object has letters as keys
# and lists as arrays, so these two take them (their contents stay strict: an end is an int, not "8").
_ColorLetter = Annotated[Color, Strict(False)]
_RowEnds = Annotated[
    tuple[Annotated[int, Field(ge=1, le=ELEVEN)], Annotated[int, Field(ge=ELEVEN, le=NUMBERS)]], Strict(False)
]


def _a_seat(seat: int | None, info: ValidationInfo) -> int | None:
    """``seat`` if it is one of the table's (``players`` validated before it), else a validation error."""
    players = info.data.get("players")
    if seat is not None and players is not None and seat >= players:
        raise PydanticCustomError(
            "not_a_seat", "{players} players have seats 0 to {last}", {"players": players, "last": players - 1}
        )
    return seat


class _Hello(BaseModel):
    """The table a ``hello`` offers: its size and the seat (its rules are read by :meth:`Rules.from_dict`)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    seat: _Count

    @field_validator("seat")
    @classmethod
    def _is_a_seat(cls, seat: int, info: ValidationInfo) -> int | None:
        return _a_seat(seat, info)


class _View(BaseModel):
    """A ``VIEW`` as the protocol sends it (``docs/bot-protocol.md``); ``players`` first, as the seats need it."""

    # No coercion ("3" is not 3, true is not 1); keys a newer arena may add are ignored.
    model_config = ConfigDict(strict=True, extra="ignore")

    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    seat: _Count
    hand: list[_CardText]
    hand_counts: list[_Count]
    pile: _Count
    rows: dict[_ColorLetter, _RowEnds]
    turn: _Count
    laid: list[_CardText]
    drawn: _CardText | None
    draws: _Count
    moves: list[str]
    winner: _Count | None

    @field_validator("seat", "turn", "winner")
    @classmethod
    def _is_a_seat(cls, seat: int | None, info: ValidationInfo) -> int | None:
        return _a_seat(seat, info)

    @field_validator("hand_counts")
    @classmethod
    def _one_per_seat(cls, counts: list[int], info: ValidationInfo) -> list[int]:
        players = info.data.get("players")
        if players is not None and len(counts) != players:
            raise PydanticCustomError(
                "not_one_per_seat", "{players} players need {players} counts", {"players": players}
            )
        return counts


_LEGAL: TypeAdapter[list[Move]] = TypeAdapter(list[_MoveText], config=ConfigDict(strict=True))

# What each field must be, in words, by its path with list positions as "[]" and object keys as ".*". An
# error inside a field that has no words of its own (an end of a row, a count) is told as its field's.
_MUST_BE = {
    "players": f"an integer from {MIN_PLAYERS} to {MAX_PLAYERS}",
    "seat": "an integer from 0 to {last}",
    "hand": 'a list of cards like ["R7", "Y3"]',
    "hand[]": 'a card like "R7"',
    "hand_counts": "a list of {players} integers 0 or more, one per seat",
    "pile": "an integer 0 or more",
    "rows": 'an object like {{"R": [8, 13]}}',
    "rows.*": f"[lowest, highest], two integers with 1 <= lowest <= {ELEVEN} <= highest <= {NUMBERS}",
    "turn": "an integer from 0 to {last}",
    "laid": 'a list of cards like ["R7", "Y3"]',
    "laid[]": 'a card like "R7"',
    "drawn": "a card or null",
    "draws": "an integer 0 or more",
    "moves": 'a list of strings like ["0 R11", "1 pass"]',
    "moves[]": 'a string like "0 R11"',
    "winner": "an integer from 0 to {last}, or null",
    "legal": 'a list of moves like ["R12", "draw", "pass"]',
    "legal[]": 'a move like "R12", "draw" or "pass"',
}


def view_from_dict(data: object, rules: Rules, legal: object) -> SeatView:
    """Rebuild a :class:`SeatView` from a protocol ``VIEW`` and its legal moves.

    Raises:
        ProtocolError: a field is missing or of the wrong type; the message names it and says what it must be.

    >>> view_from_dict({"seat": 0, "laid": 2}, Rules.preset("classic"), [])
    Traceback (most recent call last):
    ...
    elferraus.bots.protocol.ProtocolError: malformed view: "players" is missing
    """
    try:
        view = _View.model_validate(data)
    except ValidationError as error:
        players = data.get("players") if isinstance(data, Mapping) else None
        raise ProtocolError(f"malformed view: {_complaint(error, (), data, players)}") from None
    try:
        moves = _LEGAL.validate_python(legal)
    except ValidationError as error:
        raise ProtocolError(_complaint(error, ("legal",), legal, view.players)) from None
    return SeatView(
        seat=view.seat,
        players=view.players,
        rules=rules,
        hand=tuple(view.hand),
        hand_counts=tuple(view.hand_counts),
        pile=view.pile,
        rows=view.rows,
        turn=view.turn,
        laid=tuple(view.laid),
        drawn=view.drawn,
        draws=view.draws,
        moves=tuple(view.moves),
        legal=tuple(moves),
        winner=view.winner,
    )


def _complaint(error: ValidationError, root: tuple[str, ...], data: object, players: object) -> str:
    """The first error of a validation in one line: the field's path, what it must be, and what it is.

    ``root`` names ``data`` when it is a field itself (``("legal",)``); ``players`` words the seats.
    """
    first = error.errors(include_url=False)[0]
    location = root + first["loc"]
    if not location:
        return f"a view is a JSON object, not {_shown(data)}"
    if first["type"] == "missing" and len(location) == 1:
        return f"{_path(location)} is missing"
    if location[-1] == "[key]":
        return f"{_path(location[:-2])} has {_shown(location[-2])}, not a colour letter (R, Y, G or B)"
    if first["type"] == "value_error":  # Card.parse or Move.parse refused the text
        return f"{_path(location)}: {first['ctx']['error']}"
    while _shape(location) not in _MUST_BE:
        location = location[:-1]
    seats = {"players": "`players`", "last": "`players` - 1"}
    if isinstance(players, int) and MIN_PLAYERS <= players <= MAX_PLAYERS:
        seats = {"players": str(players), "last": str(players - 1)}
    value = data
    for part in location[len(root) :]:
        value = value[part]  # type: ignore[index]
    return f"{_path(location)} must be {_MUST_BE[_shape(location)].format(**seats)}, not {_shown(value)}"


def _path(location: tuple[int | str, ...]) -> str:
    """A field's path as the messages write it: ``"hand[3]"``, ``"rows.G"``."""
    parts = [f"[{part}]" if isinstance(part, int) else f".{part}" for part in location[1:]]
    return '"' + "".join([str(location[0]), *parts]) + '"'


def _shape(location: tuple[int | str, ...]) -> str:
    """A path with its list positions and object keys left out: ``"hand[]"``, ``"rows.*"``."""
    return "".join([str(location[0]), *("[]" if isinstance(part, int) else ".*" for part in location[1:])])


def _shown(value: object) -> str:
    """A value as JSON, cut short: what a message quotes of a wrong field."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:40] + "..."


def serve(bot: Bot, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play as ``bot`` over the protocol until ``quit`` or end of input.

    Returns the exit code: 0 after ``quit`` or end of input, 2 on a protocol error or when the bot
    refuses the seat a ``hello`` offers (its :class:`SeatRefusedError`): then it answers ``refuse``
    with the reason, which it also writes on standard error in one line.
    """
    source = stdin or sys.stdin
    sink = stdout or sys.stdout
    rules: Rules | None = None

    def send(message: Mapping[str, Any]) -> None:
        sink.write(encode(message) + "\n")
        sink.flush()

    for line in source:
        if not line.strip():
            continue
        try:
            data = decode(line)
            kind = data.get("type")
            if kind == "hello":
                if data.get("protocol") != PROTOCOL:
                    raise ProtocolError(f"this bot speaks {PROTOCOL}, not {data.get('protocol')!r}")
                try:
                    rules = Rules.from_dict(data["rules"])
                except ValueError as error:
                    raise ProtocolError(f'"hello" has rules that cannot be played: {error}') from None
                try:
                    table = _Hello.model_validate(data)
                except ValidationError as error:
                    raise ProtocolError(
                        f"malformed hello: {_complaint(error, (), data, data.get('players'))}"
                    ) from None
                try:
                    bot.start_game(table.seat, table.players, rules)
                except SeatRefusedError as error:
                    refusal = refuse(str(error))
                    print(f"elferraus bot: refused the seat: {refusal['reason']}", file=sys.stderr)
                    send(refusal)
                    return 2
                send({"type": "ready", "name": f"elferraus {bot.name}"})
            elif kind == "act":
                if rules is None:
                    raise ProtocolError('"act" before "hello"')
                view = view_from_dict(data.get("view"), rules, data.get("legal"))
                send({"move": str(bot.choose(view))})
            elif kind == "end":
                continue
            elif kind == "quit":
                return 0
            else:
                raise ProtocolError(f"unknown message type {kind!r}")
        except (ProtocolError, NotationError, KeyError, TypeError) as error:
            print(f"elferraus bot: {error}", file=sys.stderr)
            return 2
    return 0


def serve_level(level: str, seed: int = 0) -> int:
    """``elferraus bot LEVEL``: a built-in player speaking the protocol on stdin/stdout."""
    return serve(make_bot(level, seed))
