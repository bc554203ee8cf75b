"""``Store`` on a SQLite file: the blocking calls of ``sqlite.py`` run on the store's own threads.

Database work runs on two threads (one writer, one reader), so a write stuck
behind another process's lock, a full disk or a failing file never holds up
the event loop: other rooms play on, and the caller gets a ``StoreError``
after at most the busy timeout.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from elferraus.server.storage.expiry import Clock, Expiry
from elferraus.server.storage.sqlite import BUSY_TIMEOUT, SqliteDatabase, check_database
from elferraus.server.storage.types import (
    ExpiredRoom,
    Finish,
    MoveTakenError,
    RoomRow,
    SeatRow,
    StoreError,
    Swept,
    UnreadableRoom,
)

T = TypeVar("T")


class SqliteStore:
    """``Store`` on a SQLite file (WAL), its work done on two threads of its own.

    A connection that failed for any reason but a lock is closed and opened
    anew for the next call, so a database that was full or read-only for a
    while works again once the disk does.

    Args:
        path: the database file (``check_database`` says in words why one cannot be used).
        clock: the time of every stamp it writes and of the expiry (``expiry.Clock``).
    """

    def __init__(self, path: str, clock: Clock = time.time) -> None:
        self.path = path
        self.clock = clock
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="elferraus-store-write")
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="elferraus-store-read")
        self._connections: dict[ThreadPoolExecutor, SqliteDatabase] = {}

    @classmethod
    async def open(cls, path: str, clock: Clock = time.time) -> SqliteStore:
        """A store on ``path``, its tables made if new.

        Raises:
            StoreError: the database cannot be used (the message names the path and why).
        """
        await asyncio.to_thread(check_database, path)
        store = cls(path, clock)
        await store._write(lambda db: None)
        return store

    async def _write(self, work: Callable[[SqliteDatabase], T]) -> T:
        # The busy timeout counts from the call, not from its turn on the writer thread: a write queued
        # behind others that waited for a lock is refused in time too, not after their waits and its own.
        deadline = time.monotonic() + BUSY_TIMEOUT
        return await self._run(self._writer, work, deadline)

    async def _read(self, work: Callable[[SqliteDatabase], T]) -> T:
        return await self._run(self._reader, work, None)

    async def _run(
        self, executor: ThreadPoolExecutor, work: Callable[[SqliteDatabase], T], deadline: float | None
    ) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, self._on_thread, executor, work, deadline)

    def _on_thread(
        self, executor: ThreadPoolExecutor, work: Callable[[SqliteDatabase], T], deadline: float | None
    ) -> T:
        db = self._connections.get(executor)
        if db is None:
            db = self._connections[executor] = SqliteDatabase(self.path, self.clock)
        try:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreError(self.path, f"database is locked (busy for more than {BUSY_TIMEOUT:g} s)")
                db.set_busy_timeout(left)
            return work(db)
        except sqlite3.Error as error:
            if not isinstance(error, sqlite3.OperationalError) or "locked" not in str(error):
                del self._connections[executor]
                db.close()
            raise StoreError(self.path, str(error)) from error
        except OSError as error:
            raise StoreError(self.path, str(error)) from error

    async def add_room(self, code: str, settings: dict[str, Any], seats: list[SeatRow]) -> None:
        """Store a new room with its seats."""
        await self._write(lambda db: db.add_room(code, settings, seats))

    async def update_seat(self, code: str, seat: SeatRow, *, was: str | None = None) -> None:
        """Store a seat's new occupant; with ``was``, only if the seat's stored kind is still ``was``."""
        await self._write(lambda db: db.update_seat(code, seat, was=was))

    async def code_exists(self, code: str) -> bool:
        """True if a room with this code is stored (in play, or expired and not yet forgotten)."""
        return await self._read(lambda db: db.code_exists(code))

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
        """Store a newly dealt game, the seats that changed for it, and the room as playing; returns its id."""
        return await self._write(
            lambda db: db.start_game(code, seats, match_seed, round_number, deal, expected=expected)
        )

    async def add_move(self, game: int, number: int, text: str, finish: Finish | None = None) -> None:
        """Store move ``number`` of ``game`` (and with a round's last move, its result and the room's status).

        Raises:
            MoveTakenError: another move is stored under that number (another server accepted it first).
        """

        def work(db: SqliteDatabase) -> None:
            try:
                db.add_move(game, number, text, finish)
            except sqlite3.IntegrityError:
                stored = db.stored_move(game, number)
                if stored is not None and stored != text:
                    raise MoveTakenError(self.path, f"move {number} of game {game} is already stored") from None
                raise

        await self._write(work)

    async def record(self, game: int) -> dict[str, Any] | None:
        """A finished game's ``elferraus/1`` record, or None."""
        return await self._read(lambda db: db.record(game))

    async def rooms(self) -> list[RoomRow | UnreadableRoom]:
        """Every stored room that has not expired, oldest first; one that cannot be read comes as
        ``UnreadableRoom``."""
        return await self._read(lambda db: list(db.rooms()))

    async def room(self, code: str) -> RoomRow | UnreadableRoom | ExpiredRoom | None:
        """One stored room as ``rooms`` gives it, ``ExpiredRoom`` if it expired, or None if there is none."""
        return await self._read(lambda db: db.room(code))

    async def touch(self, seen: Mapping[str, float]) -> None:
        """Each room (by code) was in use at the moment given: its last activity is that, if that is later."""
        stamps = dict(seen)
        if stamps:
            await self._write(lambda db: db.touch(stamps))

    async def sweep(self, policy: Expiry, limit: int) -> Swept:
        """One batch of the expiry, in one transaction (``SqliteDatabase.sweep``)."""
        return await self._write(lambda db: db.sweep(policy, limit))

    async def close(self) -> None:
        """Finish the work under way, then close both connections."""
        for executor in (self._writer, self._reader):
            await asyncio.get_running_loop().run_in_executor(executor, self._close_on_thread, executor)
            executor.shutdown()

    def _close_on_thread(self, executor: ThreadPoolExecutor) -> None:
        db = self._connections.pop(executor, None)
        if db is not None:
            db.close()


__all__ = ["SqliteStore"]
