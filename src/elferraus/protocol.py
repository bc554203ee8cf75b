"""The bot protocol ``elferraus-bot/1``: JSON Lines between an arena and a bot.

Any program in any language can play: the arena starts it and talks over
its standard input and output, one JSON object per line (see
``docs/bot-protocol.md``):

- arena -> bot ``{"type": "hello", "protocol": "elferraus-bot/1", "seat": 2, "players": 4, "rules": {...}}``;
  bot -> arena ``{"type": "ready", "name": "..."}``;
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
from typing import Any, TextIO

from elferraus.bots import Bot, make_bot
from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.errors import NotationError
from elferraus.moves import Move
from elferraus.rules import Rules
from elferraus.view import SeatView

PROTOCOL = "elferraus-bot/1"
MAX_LINE = 1 << 20
"""The longest message line either side accepts (1 MiB)."""


class ProtocolError(ValueError):
    """A message broke the protocol; the text says what and where."""


def hello(seat: int, players: int, rules: Rules) -> dict[str, Any]:
    """The message that starts a game for ``seat``."""
    return {"type": "hello", "protocol": PROTOCOL, "seat": seat, "players": players, "rules": rules.to_dict()}


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


def view_from_dict(data: object, rules: Rules, legal: object) -> SeatView:
    """Rebuild a :class:`SeatView` from a protocol ``VIEW`` and its legal moves.

    Raises:
        ProtocolError: a field is missing or of the wrong type; the message names it and says what it must be.

    >>> view_from_dict({"seat": 0, "laid": 2}, Rules.preset("classic"), [])
    Traceback (most recent call last):
    ...
    elferraus.protocol.ProtocolError: malformed view: "players" is missing
    """
    if not isinstance(data, Mapping):
        raise ProtocolError(f"malformed view: a view is a JSON object, not {_shown(data)}")
    fields = _ViewFields(data)
    players = fields.integer("players", low=2, high=6)
    drawn = data.get("drawn")
    winner = data.get("winner")
    return SeatView(
        seat=fields.integer("seat", low=0, high=players - 1),
        players=players,
        rules=rules,
        hand=fields.cards("hand"),
        hand_counts=fields.counts("hand_counts", players),
        pile=fields.integer("pile", low=0),
        rows=fields.rows("rows"),
        turn=fields.integer("turn", low=0, high=players - 1),
        laid=fields.cards("laid"),
        drawn=None if drawn is None else fields.card("drawn", drawn, "a card or null"),
        draws=fields.integer("draws", low=0),
        moves=fields.strings("moves"),
        legal=_legal_moves(legal),
        winner=None if winner is None else fields.integer("winner", low=0, high=players - 1),
    )


def _shown(value: object) -> str:
    """A value as JSON, cut short: what a message quotes of a wrong field."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:40] + "..."


class _ViewFields:
    """Reads the fields of one ``VIEW``, each checked against its JSON type."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data

    def get(self, key: str) -> object:
        if key not in self.data:
            raise ProtocolError(f'malformed view: "{key}" is missing')
        return self.data[key]

    def wrong(self, key: str, expected: str, value: object) -> ProtocolError:
        return ProtocolError(f'malformed view: "{key}" must be {expected}, not {_shown(value)}')

    def integer(self, key: str, *, low: int, high: int | None = None) -> int:
        value = self.get(key)
        if type(value) is not int:
            raise self.wrong(key, "an integer", value)
        if value < low or (high is not None and value > high):
            allowed = f"{low} or more" if high is None else f"from {low} to {high}"
            raise self.wrong(key, f"an integer {allowed}", value)
        return value

    def card(self, key: str, value: object, expected: str) -> Card:
        if not isinstance(value, str):
            raise self.wrong(key, expected, value)
        try:
            return Card.parse(value)
        except NotationError as error:
            raise ProtocolError(f'malformed view: "{key}": {error}') from None

    def listed(self, key: str, expected: str) -> list[object]:
        value = self.get(key)
        if not isinstance(value, list):
            raise self.wrong(key, expected, value)
        return value

    def cards(self, key: str) -> tuple[Card, ...]:
        items = self.listed(key, 'a list of cards like ["R7", "Y3"]')
        return tuple(self.card(f"{key}[{index}]", item, 'a card like "R7"') for index, item in enumerate(items))

    def counts(self, key: str, players: int) -> tuple[int, ...]:
        expected = f"a list of {players} integers 0 or more, one per seat"
        items = self.listed(key, expected)
        counts = [item for item in items if type(item) is int and item >= 0]
        if len(counts) != len(items) or len(counts) != players:
            raise self.wrong(key, expected, items)
        return tuple(counts)

    def strings(self, key: str) -> tuple[str, ...]:
        items = self.listed(key, "a list of strings")
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise self.wrong(f"{key}[{index}]", 'a string like "0 R11"', item)
        return tuple(str(item) for item in items)

    def rows(self, key: str) -> dict[Color, tuple[int, int]]:
        value = self.get(key)
        if not isinstance(value, Mapping):
            raise self.wrong(key, 'an object like {"R": [8, 13]}', value)
        rows = {}
        for letter, ends in value.items():
            where = f"{key}.{letter}"
            try:
                color = Color(letter)
            except ValueError:
                raise ProtocolError(f'malformed view: "{key}" has {letter!r}, not a colour (R, Y, G or B)') from None
            if not (isinstance(ends, list) and len(ends) == 2 and all(type(end) is int for end in ends)):
                raise self.wrong(where, "[lowest, highest], two integers", ends)
            low, high = ends
            if not 1 <= low <= ELEVEN <= high <= NUMBERS:
                raise self.wrong(where, f"[lowest, highest] with 1 <= lowest <= {ELEVEN} <= highest <= {NUMBERS}", ends)
            rows[color] = (low, high)
        return rows


def _legal_moves(legal: object) -> tuple[Move, ...]:
    if not isinstance(legal, list) or not all(isinstance(text, str) for text in legal):
        raise ProtocolError(f'"legal" must be a list of moves like ["R12", "draw", "pass"], not {_shown(legal)}')
    try:
        return tuple(Move.parse(text) for text in legal)
    except NotationError as error:
        raise ProtocolError(f'"legal": {error}') from None


def serve(bot: Bot, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play as ``bot`` over the protocol until ``quit`` or end of input.

    Returns the exit code: 0 after ``quit`` or end of input, 2 on a protocol error.
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
                rules = Rules.from_dict(data["rules"])
                bot.start_game(int(data["seat"]), int(data["players"]), rules)
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
