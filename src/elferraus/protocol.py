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
from elferraus.cards import Card, Color
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


def view_from_dict(data: Mapping[str, Any], rules: Rules, legal: list[str]) -> SeatView:
    """Rebuild a :class:`SeatView` from a protocol ``VIEW`` and its legal moves.

    Raises:
        ProtocolError: a field is missing or malformed.
    """
    try:
        rows = {Color(letter): (int(low), int(high)) for letter, (low, high) in data["rows"].items()}
        drawn = data.get("drawn")
        winner = data.get("winner")
        return SeatView(
            seat=int(data["seat"]),
            players=int(data["players"]),
            rules=rules,
            hand=tuple(Card.parse(text) for text in data["hand"]),
            hand_counts=tuple(int(count) for count in data["hand_counts"]),
            pile=int(data["pile"]),
            rows=rows,
            turn=int(data["turn"]),
            laid=tuple(Card.parse(text) for text in data["laid"]),
            drawn=Card.parse(drawn) if drawn is not None else None,
            draws=int(data["draws"]),
            moves=tuple(str(text) for text in data["moves"]),
            legal=tuple(Move.parse(text) for text in legal),
            winner=int(winner) if winner is not None else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ProtocolError(f"malformed view: {error!r}") from None


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
                view = view_from_dict(data["view"], rules, list(data["legal"]))
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
