"""What the stores and the rooms share, apart from any backend (as boardgame.io keeps its storage interface).

The rows a store reads back, what the last move of a round stores with it,
what a sweep did, the errors every store raises, and the tables every
database of the server has (``SERVER_TABLES``, checked by ``schema_problem``)
on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

SERVER_TABLES: dict[str, tuple[str, ...]] = {
    "rooms": ("code", "settings", "status", "created"),
    "seats": ("code", "seat", "name", "kind", "level", "token_hash"),
    "games": ("id", "code", "match_seed", "round", "deal", "result", "finished"),
    "moves": ("game", "n", "text"),
}
"""The server's tables and the columns every database of the server has in them, on SQLite and PostgreSQL.

These are the columns of ``SCHEMA`` before any upgrade: a column that a later upgrade adds when the server
opens a database is not listed, so that a database made before that upgrade (a backup's source, a database
about to be upgraded) is still taken for one of the server's. More columns than these are accepted."""


class StoreError(Exception):
    """The database could not do what was asked; nothing of it was kept.

    Args:
        path: the database.
        reason: what went wrong, in words.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ConflictError(StoreError):
    """The room changed in the database since this server last read it: another server's change came first.

    Only another server process on the same database can get there first (a room's changes are made one at
    a time in its process); the database decides, and the later change is refused as ``stale``.
    """


class MoveTakenError(ConflictError):
    """Another move is already stored under that number of the game: someone else's was accepted first.

    The database's key on (game, move number) decides.
    """


@dataclass(frozen=True)
class SeatRow:
    """A seat as stored."""

    seat: int
    name: str
    kind: str
    level: str | None
    token_hash: str | None


@dataclass(frozen=True)
class GameRow:
    """A game as stored: its record without moves, its moves, its result."""

    id: int
    match_seed: int
    round: int
    deal: dict[str, Any]
    moves: list[str]
    result: dict[str, Any] | None


@dataclass(frozen=True)
class RoomRow:
    """A room as stored, with its seats and the games of its current match."""

    code: str
    settings: dict[str, Any]
    status: str
    seats: list[SeatRow]
    games: list[GameRow]


@dataclass(frozen=True)
class UnreadableRoom:
    """A stored room whose rows could not be read back."""

    code: str
    reason: str


@dataclass(frozen=True)
class ExpiredRoom:
    """A stored room that expired (``expiry.py``): its code is kept from new rooms, and answers that it expired."""

    code: str


@dataclass(frozen=True)
class Finish:
    """What the last move of a round stores with it: the result, and the room's new status."""

    code: str
    result: dict[str, Any]
    status: str


def schema_problem(tables: Mapping[str, Collection[str]], *, new: bool = False) -> str | None:
    """Why a database with these ``tables`` is not a database of this server, in words; None if it is one.

    Args:
        tables: the database's tables (on PostgreSQL: those named as the server's), each with its columns.
        new: a database the server is about to make its tables in: one without any table, or with only
            some of the server's, is accepted too.

    >>> schema_problem({"rooms": ["id", "name"]}, new=True)
    "the table 'rooms' is not the server's: it has no column code, settings, status, created"
    >>> schema_problem({"notes": ["text"]}, new=True)
    "this is another program's database (its tables: notes), without the server's tables rooms, seats, games, moves"
    >>> schema_problem({}, new=True) is None, schema_problem({})
    (True, "none of the server's tables is there (rooms, seats, games, moves)")
    """
    names = {name.lower(): {column.lower() for column in columns} for name, columns in tables.items()}
    for table, needed in SERVER_TABLES.items():
        if table in names and (missing := [column for column in needed if column not in names[table]]):
            return f"the table {table!r} is not the server's: it has no column {', '.join(missing)}"
    ours = [table for table in SERVER_TABLES if table in names]
    if len(ours) == len(SERVER_TABLES) or (new and (ours or not names)):
        return None
    if ours:
        missing = [table for table in SERVER_TABLES if table not in names]
        return f"it lacks the server's table{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    expected = ", ".join(SERVER_TABLES)
    if not names:
        return f"none of the server's tables is there ({expected})"
    others = ", ".join(sorted(names))
    return f"this is another program's database (its tables: {others}), without the server's tables {expected}"


@dataclass(frozen=True)
class Swept:
    """What one transaction of a sweep did."""

    expired: tuple[str, ...] = ()
    """The rooms that expired."""
    games: int = 0
    """Finished games deleted, their records kept long enough."""
    forgotten: tuple[str, ...] = ()
    """Expired rooms whose rows were deleted: their codes may be given to new rooms."""
    more: bool = False
    """A step did as much as one transaction may: there may be more to do."""


__all__ = [
    "SERVER_TABLES",
    "ConflictError",
    "ExpiredRoom",
    "Finish",
    "GameRow",
    "MoveTakenError",
    "RoomRow",
    "SeatRow",
    "StoreError",
    "Swept",
    "UnreadableRoom",
    "schema_problem",
]
