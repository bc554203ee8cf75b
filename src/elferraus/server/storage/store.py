"""Everything the server must not forget, behind one asynchronous interface.

The rooms await the store and never touch a database themselves; ``Store``
is what they rely on, ``open_store`` picks its implementation from ``--db``:
``SqliteStore`` (``sqlite_store.py``) for a file, ``PostgresStore``
(``postgres.py``) for a ``postgresql://`` URL. What every store shares (its
rows, its errors) is in ``types.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any, Protocol

from elferraus.server.storage.expiry import Clock, Expiry
from elferraus.server.storage.sqlite import check_database
from elferraus.server.storage.sqlite_store import SqliteStore
from elferraus.server.storage.types import (
    ExpiredRoom,
    Finish,
    RoomRow,
    SeatRow,
    StoreError,
    Swept,
    UnreadableRoom,
)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""How a ``--db`` that names a PostgreSQL database begins; anything else is a SQLite file."""


def is_postgres(db: str) -> bool:
    """True if ``db`` is a PostgreSQL URL rather than the path of a SQLite file."""
    return db.startswith(POSTGRES_SCHEMES)


class Store(Protocol):
    """What the rooms need kept. Every method either finishes whole or raises ``StoreError`` having kept nothing.

    Every change of a room also stamps its last activity (``expiry.py``), at the time of the store's clock.
    """

    async def add_room(self, code: str, settings: dict[str, Any], seats: list[SeatRow]) -> None:
        """Store a new room with its seats."""

    async def update_seat(self, code: str, seat: SeatRow, *, was: str | None = None) -> None:
        """Store a seat's new occupant; with ``was``, only if the seat's stored kind is still ``was``.

        Raises:
            ConflictError: the seat is no longer ``was`` (another server gave it away first).
        """

    async def code_exists(self, code: str) -> bool:
        """True if a room with this code is stored (in play, or expired and not yet forgotten)."""

    async def start_game(
        self,
        code: str,
        seats: list[SeatRow],
        match_seed: int,
        round_number: int,
        deal: dict[str, Any],
        *,
        expected: str | None = None,
    ) -> int:
        """Store a newly dealt game, the seats that changed for it, and the room as playing; returns its id.

        Raises:
            ConflictError: ``expected`` is given and the room's stored status is another (another server
                started, dealt or restarted it first).
        """

    async def add_move(self, game: int, number: int, text: str, finish: Finish | None = None) -> None:
        """Store move ``number`` of ``game`` (and with a round's last move, its result and the room's status).

        The very same move stored again is confirmed, not refused.

        Raises:
            MoveTakenError: another move is stored under that number (another server accepted it first).
        """

    async def record(self, game: int) -> dict[str, Any] | None:
        """A finished game's ``elferraus/1`` record, or None."""

    async def rooms(self) -> list[RoomRow | UnreadableRoom]:
        """Every stored room that has not expired, oldest first."""

    async def room(self, code: str) -> RoomRow | UnreadableRoom | ExpiredRoom | None:
        """One stored room as ``rooms`` gives it, ``ExpiredRoom`` if it expired, or None if there is none."""

    async def touch(self, seen: Mapping[str, float]) -> None:
        """Each room (by code) was in use at the moment given: its last activity is that, if that is later."""

    async def sweep(self, policy: Expiry, limit: int) -> Swept:
        """One batch of the expiry (``expiry.py``), in one short transaction, at the store's clock.

        Rooms whose last activity is older than ``policy`` allows expire, finished games kept long enough
        are deleted, expired rooms with nothing left are forgotten; at most ``limit`` of each. Several
        processes may sweep at once: each room expires once.
        """

    async def close(self) -> None:
        """Finish the work under way and close."""


async def open_store(db: str, clock: Clock = time.time) -> Store:
    """The store ``db`` names: a ``postgresql://`` URL (``PostgresStore``), else a SQLite file (``SqliteStore``);
    ``clock``: the time of its stamps and of the expiry.

    Raises:
        StoreError: the database cannot be used (the message names it, without a password, and says why).
    """
    if not is_postgres(db):
        return await SqliteStore.open(db, clock)
    try:
        from elferraus.server.storage.postgres import PostgresStore
    except ImportError as error:
        raise StoreError(db, f"PostgreSQL needs psycopg: pip install 'elferraus[postgres]' ({error})") from None
    return await PostgresStore.open(db, clock)


def check_store(db: str) -> None:
    """Refuse, in words naming ``db``, a database the server could not use (opened, upgraded and closed).

    Raises:
        StoreError: it cannot be used.
    """
    if not is_postgres(db):
        check_database(db)
        return

    async def open_and_close() -> None:
        await (await open_store(db)).close()

    asyncio.run(open_and_close())


__all__ = ["POSTGRES_SCHEMES", "Store", "check_store", "is_postgres", "open_store"]
