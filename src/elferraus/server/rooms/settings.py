"""What a room is made of, apart from its match: the host's settings, the seats, the code, the refusals.

``RoomError`` is every refusal a room answers (its ``code`` is the protocol's,
docs/web-protocol.md); ``Event`` is a committed change as the site's other
processes hear of it.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from elferraus.i18n import Lang, explain, tr
from elferraus.rules import PRESETS
from elferraus.server.rooms.names import clashing_name, looks_like_a_computer
from elferraus.server.storage.types import SeatRow

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
LEVELS = ("easy", "medium", "hard", "expert", "master")
Status = Literal["waiting", "playing", "round_over", "match_over"]


class RoomError(Exception):
    """A refused request: ``code`` (stable, see docs/web-protocol.md) and a message key with details."""

    def __init__(self, code: str, key: str | None = None, **details: object) -> None:
        super().__init__(code)
        self.code = code
        self.key = key or f"web_error_{code}"
        self.details = details

    def message(self, lang: Lang) -> str:
        """The refusal in words."""
        if self.code == "illegal":
            reason, details = self.details["reason"], self.details["details"]
            assert isinstance(reason, str)
            assert isinstance(details, dict)
            return explain(reason, details, lang)
        try:
            return tr(self.key, lang, **self.details)
        except KeyError:
            return self.code


def check_name(name: str, others: list[str]) -> None:
    """Refuse ``name`` for a person at a table whose other seats are called ``others``.

    Raises:
        RoomError: it reads as a computer's label (``bad_request``), or looks like one of ``others``
            (``name_taken``).
    """
    if looks_like_a_computer(name):
        raise RoomError("bad_request", "web_error_name_computer", field="name")
    if (other := clashing_name(name, others)) is not None:
        raise RoomError("name_taken", "web_error_name_taken", field="name", name=other)


def hash_token(token: str) -> str:
    """What the store keeps of a seat's token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class RoomSettings:
    """What the host chose."""

    players: int
    rules: str = "classic"
    rounds: int = 1
    fill: str = "medium"
    away: float = 60.0
    pace: float = 0.8

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 6:
            raise RoomError("bad_request", "web_error_players")
        if self.rules not in PRESETS:
            raise RoomError("bad_request", "web_error_rules")
        if not 1 <= self.rounds <= 20:
            raise RoomError("bad_request", "web_error_rounds")
        if self.fill not in LEVELS:
            raise RoomError("bad_request", "web_error_level")
        if not 5 <= self.away <= 3600 or not 0 <= self.pace <= 5:
            raise RoomError("bad_request", "web_error_timing")

    def to_dict(self) -> dict[str, Any]:
        """As stored and shown."""
        return {
            "players": self.players,
            "rules": self.rules,
            "rounds": self.rounds,
            "fill": self.fill,
            "away": self.away,
            "pace": self.pace,
        }


@dataclass
class SeatState:
    """One seat of a room."""

    seat: int
    name: str
    kind: Literal["person", "computer", "open"]
    level: str | None = None
    token_hash: str | None = None
    online: int = 0
    """Open connections holding this seat's token."""
    offline_since: float = field(default_factory=time.monotonic)

    def row(self) -> SeatRow:
        """As stored."""
        return SeatRow(self.seat, self.name, self.kind, self.level, self.token_hash)

    def public(self, *, auto: bool) -> dict[str, Any]:
        """As every client sees it; ``auto``: a computer plays for this absent person now."""
        return {
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "level": self.level,
            "online": self.online > 0 if self.kind == "person" else self.kind == "computer",
            "auto": auto,
        }


Event = dict[str, Any]
"""A committed change as the other processes of the site hear of it (``site/bus.py``): ``{"k": kind, ...}``."""


async def new_code(taken: Callable[[str], Awaitable[bool]]) -> str:
    """A fresh room code."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if not await taken(code):
            return code


__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "LEVELS",
    "Event",
    "RoomError",
    "RoomSettings",
    "SeatState",
    "Status",
    "check_name",
    "hash_token",
    "new_code",
]
