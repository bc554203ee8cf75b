"""``Store`` on PostgreSQL (``elferraus serve --db postgresql://...``), with psycopg 3's connection pool.

Same promises as the SQLite store: every method is one transaction, kept
whole or not at all, and a failure of any kind is a ``StoreError``. The work
is asynchronous on the event loop itself (psycopg's async connections), so a
write that waits for a lock or a database that is gone never holds up other
rooms. A commit returns once PostgreSQL has it on disk (its default
``synchronous_commit``), before anybody hears of the change.

The schema and its upgrades are in ``pgschema.py``; a database is brought up
to the newest version when the store opens.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import psycopg
from psycopg.types.json import Json
from psycopg_pool import AsyncConnectionPool

from elferraus.server.process.urls import shown
from elferraus.server.storage.expiry import STAMP_EVERY, Clock, Expiry
from elferraus.server.storage.pgschema import migrate
from elferraus.server.storage.sqlite import BUSY_TIMEOUT
from elferraus.server.storage.types import (
    ConflictError,
    ExpiredRoom,
    Finish,
    GameRow,
    MoveTakenError,
    RoomRow,
    SeatRow,
    StoreError,
    Swept,
    UnreadableRoom,
)

T = TypeVar("T")
Connection = psycopg.AsyncConnection[tuple[Any, ...]]

CONNECT_TIMEOUT = 3
"""Seconds to reach the database before a new connection fails (libpq counts whole seconds, at least 2)."""
POOL_SIZE = 12
"""Connections the store holds open at most. Each move is a round trip of its own that holds a connection
until PostgreSQL has it on disk; with 4, a busy process's moves queued for a connection (p99 in the hundreds
of ms at 250 rooms on three processes), with 12 they do not. Twelve per process stays far below PostgreSQL's
default of 100 connections for a site of several processes."""
STATEMENT_TIMEOUT = 10.0
"""Seconds one statement may run at most; the store's are small, so only a database in trouble gets there."""
MAX_STAMPED = 10_000
"""Games whose last stamp the store remembers at most (those stamped longer ago than ``STAMP_EVERY`` are forgotten
first)."""
STAMP = "UPDATE rooms SET active = GREATEST(active, %s) WHERE code = %s AND status <> 'expired'"
"""The room (``code``) changed or was in use at the moment given: its last activity (``expiry.py``)."""


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


async def _configure(connection: Connection) -> None:
    # A write that waits for another's lock longer than the SQLite store's busy timeout fails the same way.
    await connection.execute("SELECT set_config('lock_timeout', %s, false)", (f"{round(BUSY_TIMEOUT * 1000)}ms",))
    await connection.execute(
        "SELECT set_config('statement_timeout', %s, false)", (f"{round(STATEMENT_TIMEOUT * 1000)}ms",)
    )


class PostgresStore:
    """``Store`` on a PostgreSQL database, its connections in a pool.

    A connection is checked before each use, so one broken by a restart of
    the database is replaced instead of failing a call: once PostgreSQL is
    back, the next call works.

    Args:
        url: the database, ``postgresql://user:password@host:port/name`` (any libpq connection URL).
        pool: its open connection pool.
        clock: the time of every stamp it writes and of the expiry (``expiry.Clock``): the server's, not the
            database's, so that one clock decides (a test gives its own).
    """

    def __init__(self, url: str, pool: AsyncConnectionPool[Connection], clock: Clock = time.time) -> None:
        self.url = url
        self.path = shown(url)
        """The database as it is named in errors and logs (without its password)."""
        self._pool = pool
        self.clock = clock
        self._stamped: dict[int, float] = {}
        """When this store last stamped the room of each game as active by a move (``_stamp_game``)."""

    @classmethod
    async def open(cls, url: str, clock: Clock = time.time) -> PostgresStore:
        """A store on the database ``url``, its schema made or upgraded to the newest version.

        Raises:
            StoreError: the database cannot be reached or used, or its upgrade failed (then it is unchanged).
        """
        try:
            async with await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
            ) as connection:
                await _configure(connection)
                await migrate(connection, url)
        except psycopg.Error as error:
            raise StoreError(shown(url), _reason(error)) from error
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            url,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
            min_size=1,
            max_size=POOL_SIZE,
            open=False,
            configure=_configure,
            check=AsyncConnectionPool.check_connection,
            timeout=BUSY_TIMEOUT,
            # The pool retries a failed connection with a growing delay; giving up soon instead lets the next
            # call try afresh, so the store works again as soon as the database does.
            reconnect_timeout=BUSY_TIMEOUT,
            name="elferraus-store",
        )
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)
        except psycopg.Error as error:
            await pool.close()
            raise StoreError(shown(url), _reason(error)) from error
        return cls(url, pool, clock)

    async def _run(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        try:
            async with self._pool.connection() as connection:
                return await work(connection)
        except psycopg.Error as error:
            raise StoreError(self.path, _reason(error)) from error

    async def _write(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        async def in_transaction(connection: Connection) -> T:
            async with connection.transaction():
                return await work(connection)

        return await self._run(in_transaction)

    async def _read(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        async def in_snapshot(connection: Connection) -> T:
            async with connection.transaction():
                await connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return await work(connection)

        return await self._run(in_snapshot)

    # -- rooms and seats ------------------------------------------------------

    async def add_room(self, code: str, settings: dict[str, Any], seats: list[SeatRow]) -> None:
        """Store a new room with its seats."""

        now = self.clock()

        async def work(connection: Connection) -> None:
            await connection.execute(
                "INSERT INTO rooms (code, settings, status, created, active) VALUES (%s, %s, 'waiting', %s, %s)",
                (code, Json(settings), now, now),
            )
            async with connection.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO seats (code, seat, name, kind, level, token_hash) VALUES (%s, %s, %s, %s, %s, %s)",
                    [(code, s.seat, s.name, s.kind, s.level, s.token_hash) for s in seats],
                )

        await self._write(work)

    @staticmethod
    async def _update_seats(connection: Connection, code: str, seats: list[SeatRow]) -> None:
        async with connection.cursor() as cursor:
            await cursor.executemany(
                "UPDATE seats SET name = %s, kind = %s, level = %s, token_hash = %s WHERE code = %s AND seat = %s",
                [(s.name, s.kind, s.level, s.token_hash, code, s.seat) for s in seats],
            )

    async def update_seat(self, code: str, seat: SeatRow, *, was: str | None = None) -> None:
        """Store a seat's new occupant; with ``was``, only if the seat's stored kind is still ``was``.

        Raises:
            ConflictError: the seat is no longer ``was`` (another server gave it away first).
        """

        async def work(connection: Connection) -> None:
            # The room's row first (as every change of a room takes it): a sweep skips a row another transaction
            # holds, so the two never wait for each other's rows in opposite orders.
            await connection.execute(STAMP, (self.clock(), code))
            if was is not None:
                # The row lock taken here makes a second server's check wait for this one's commit.
                cursor = await connection.execute(
                    "SELECT kind FROM seats WHERE code = %s AND seat = %s FOR UPDATE", (code, seat.seat)
                )
                if await cursor.fetchone() != (was,):
                    raise ConflictError(self.path, f"seat {seat.seat} of room {code} is no longer {was}")
            await self._update_seats(connection, code, [seat])

        await self._write(work)

    async def _expect_status(self, connection: Connection, code: str, expected: str | None) -> None:
        if expected is None:
            return
        cursor = await connection.execute("SELECT status FROM rooms WHERE code = %s FOR UPDATE", (code,))
        row = await cursor.fetchone()
        if row is None or row[0] != expected:
            found = "missing" if row is None else row[0]
            raise ConflictError(self.path, f"room {code} is {found}, not {expected}")

    async def code_exists(self, code: str) -> bool:
        """True if a room with this code is stored (in play, or expired and not yet forgotten)."""

        async def work(connection: Connection) -> bool:
            cursor = await connection.execute("SELECT 1 FROM rooms WHERE code = %s", (code,))
            return await cursor.fetchone() is not None

        return await self._run(work)

    # -- games and moves ------------------------------------------------------

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
            ConflictError: ``expected`` is given and the room's stored status is another.
        """

        async def work(connection: Connection) -> int:
            await self._expect_status(connection, code, expected)
            if expected == "waiting":  # the seats the start fills must still be open (nobody joined meanwhile)
                for seat in seats:
                    cursor = await connection.execute(
                        "SELECT kind FROM seats WHERE code = %s AND seat = %s FOR UPDATE", (code, seat.seat)
                    )
                    if await cursor.fetchone() != ("open",):
                        raise ConflictError(self.path, f"seat {seat.seat} of room {code} is no longer open")
            await self._update_seats(connection, code, seats)
            cursor = await connection.execute(
                "INSERT INTO games (code, match_seed, round, deal) VALUES (%s, %s, %s, %s) RETURNING id",
                (code, match_seed, round_number, Json(deal)),
            )
            row = await cursor.fetchone()
            assert row is not None
            await connection.execute(
                "UPDATE rooms SET status = 'playing', active = GREATEST(active, %s) WHERE code = %s",
                (self.clock(), code),
            )
            return int(row[0])

        return await self._write(work)

    async def add_move(self, game: int, number: int, text: str, finish: Finish | None = None) -> None:
        """Store move ``number`` of ``game`` (and with a round's last move, its result and the room's status).

        The very same move stored again is confirmed, not refused: a commit that reached the database although
        the caller heard it fail.

        Raises:
            MoveTakenError: another move is stored under that number (another server accepted it first).
        """

        now = self.clock()

        async def work(connection: Connection) -> None:
            if finish is not None:
                # The room's row first: a sweep skips a row another transaction holds, so the two never wait for
                # each other's rows in opposite orders.
                await connection.execute(STAMP, (now, finish.code))
            # Of two servers inserting the same (game, n) at once, the second waits here for the first's commit,
            # then finds its row: the database's key decides, never timing.
            cursor = await connection.execute(
                "INSERT INTO moves (game, n, text) VALUES (%s, %s, %s) ON CONFLICT (game, n) DO NOTHING",
                (game, number, text),
            )
            if cursor.rowcount == 0:
                stored = await connection.execute("SELECT text FROM moves WHERE game = %s AND n = %s", (game, number))
                if await stored.fetchone() != (text,):
                    raise MoveTakenError(self.path, f"move {number} of game {game} is already stored")
            if finish is not None:
                await connection.execute(
                    "UPDATE games SET result = %s, finished = %s WHERE id = %s", (Json(finish.result), now, game)
                )
                await connection.execute(
                    "UPDATE rooms SET status = %s WHERE code = %s AND status <> 'expired'", (finish.status, finish.code)
                )

        if finish is None:
            # The room is stamped before the move (_stamp_game): a move is stored in a room that no sweep can
            # expire now, or refused in one that expired first; never stored and then deleted. One statement
            # commits on its own (the connection is in autocommit): no BEGIN and COMMIT round trips for the move
            # of every turn; the SELECT after a conflict only reads a committed row.
            await self._stamp_game(game, now)
            await self._run(work)
        else:
            await self._write(work)
            self._stamped_now(game, now)

    async def _stamp_game(self, game: int, now: float) -> None:
        """Stamp the room of ``game`` as active now, unless this store did in the last ``STAMP_EVERY`` seconds.

        A stamp (a commit) for every move would double the database's work for each turn; once a minute keeps
        a room's stored activity at most that far behind its moves, which is nothing beside the days a room in
        play is kept, and no sweep expires a room stamped a minute ago.

        Raises:
            StoreError: the database refused it; then the move is not stored either (its caller tries again).
        """
        if now - self._stamped.get(game, float("-inf")) < STAMP_EVERY:
            return

        async def work(connection: Connection) -> None:
            await connection.execute(
                "UPDATE rooms SET active = GREATEST(active, %s) "
                "WHERE code = (SELECT code FROM games WHERE id = %s) AND status <> 'expired'",
                (now, game),
            )

        await self._run(work)
        self._stamped_now(game, now)

    def _stamped_now(self, game: int, now: float) -> None:
        if len(self._stamped) >= MAX_STAMPED:
            self._stamped = {known: at for known, at in self._stamped.items() if now - at < STAMP_EVERY}
        self._stamped[game] = now

    async def record(self, game: int) -> dict[str, Any] | None:
        """A finished game's ``elferraus/1`` record, or None."""

        async def work(connection: Connection) -> dict[str, Any] | None:
            row = await (await connection.execute("SELECT deal, result FROM games WHERE id = %s", (game,))).fetchone()
            if row is None or row[1] is None:
                return None
            moves = await connection.execute("SELECT text FROM moves WHERE game = %s ORDER BY n", (game,))
            record: dict[str, Any] = dict(row[0])
            record["moves"] = [text for (text,) in await moves.fetchall()]
            record["result"] = row[1]
            return record

        return await self._read(work)

    # -- loading --------------------------------------------------------------

    async def rooms(self) -> list[RoomRow | UnreadableRoom]:
        """Every stored room that has not expired, with its seats and the games of its latest match, oldest
        first, as of one moment.

        A room whose rows cannot be read back comes as ``UnreadableRoom``; the others still come.
        """
        found = await self._read(lambda connection: self._load(connection, None))
        return [row for row in found if not isinstance(row, ExpiredRoom)]

    async def room(self, code: str) -> RoomRow | UnreadableRoom | ExpiredRoom | None:
        """One stored room as ``rooms`` gives it, ``ExpiredRoom`` if it expired, or None if there is none."""
        found = await self._read(lambda connection: self._load(connection, code))
        return found[0] if found else None

    @staticmethod
    async def _load(connection: Connection, code: str | None) -> list[RoomRow | UnreadableRoom | ExpiredRoom]:
        """The rooms (every one that has not expired, or the one called ``code``) from one snapshot."""
        if code is None:
            live = "code IN (SELECT code FROM rooms WHERE status <> 'expired')"
            where, params, mine = f" WHERE {live}", [], f" AND g.{live}"
        else:
            where, params, mine = " WHERE code = %s", [code], " AND g.code = %s"
        rooms = await (
            await connection.execute(f"SELECT code, settings, status FROM rooms{where} ORDER BY created", params)
        ).fetchall()
        seats = await (
            await connection.execute(
                f"SELECT code, seat, name, kind, level, token_hash FROM seats{where} ORDER BY code, seat", params
            )
        ).fetchall()
        latest = (
            "SELECT g.id, g.code, g.match_seed, g.round, g.deal, g.result FROM games g WHERE g.match_seed = "
            f"(SELECT l.match_seed FROM games l WHERE l.code = g.code ORDER BY l.id DESC LIMIT 1){mine}"
        )
        games = await (await connection.execute(f"{latest} ORDER BY g.id", params)).fetchall()
        moves = await (
            await connection.execute(
                f"SELECT m.game, m.text FROM moves m JOIN ({latest}) AS latest ON latest.id = m.game "
                "ORDER BY m.game, m.n",
                params,
            )
        ).fetchall()
        return _assemble(rooms, seats, games, moves)

    # -- expiry (expiry.py) ---------------------------------------------------

    async def touch(self, seen: Mapping[str, float]) -> None:
        """Each room (by code) was in use at the moment given: its last activity is that, if that is later."""
        stamps = [(moment, code) for code, moment in sorted(seen.items())]  # in one order: no deadlock of two
        if not stamps:
            return

        async def work(connection: Connection) -> None:
            async with connection.cursor() as cursor:
                await cursor.executemany(STAMP, stamps)

        await self._write(work)

    async def sweep(self, policy: Expiry, limit: int) -> Swept:
        """One batch of the expiry, in one transaction: up to ``limit`` rooms expire, up to ``limit`` finished
        games kept long enough are deleted, and up to ``limit`` expired rooms are forgotten.

        Each step locks the rows it takes and skips those another transaction holds (``SKIP LOCKED``): the
        processes of a site sweeping at once share the work, a room that is being changed is left for the
        next sweep, and a row's lock re-reads it, so a room touched meanwhile is not taken.
        """
        now = self.clock()

        async def work(connection: Connection) -> Swept:
            expired = await self._expire_rooms(connection, policy, now, limit)
            games = await self._delete_records(connection, policy, now, limit)
            forgotten = await self._forget_rooms(connection, policy, now, limit)
            return Swept(tuple(expired), games, tuple(forgotten), limit in (len(expired), games, len(forgotten)))

        return await self._write(work)

    @staticmethod
    async def _expire_rooms(connection: Connection, policy: Expiry, now: float, limit: int) -> list[str]:
        limits = policy.limits()
        if not limits:
            return []
        which = " OR ".join("(status = %s AND active < %s)" for _ in limits)
        params = [value for status, seconds in limits.items() for value in (status, now - seconds)]
        found = await connection.execute(
            f"SELECT code FROM rooms WHERE {which} ORDER BY active LIMIT %s FOR UPDATE SKIP LOCKED", (*params, limit)
        )
        codes = [str(code) for (code,) in await found.fetchall()]
        if codes:
            unfinished = "SELECT id FROM games WHERE code = ANY(%s) AND result IS NULL"
            await connection.execute(f"DELETE FROM moves WHERE game IN ({unfinished})", (codes,))
            await connection.execute("DELETE FROM games WHERE code = ANY(%s) AND result IS NULL", (codes,))
            await connection.execute("DELETE FROM seats WHERE code = ANY(%s)", (codes,))
            await connection.execute(
                "UPDATE rooms SET status = 'expired', active = %s WHERE code = ANY(%s)", (now, codes)
            )
        return codes

    @staticmethod
    async def _delete_records(connection: Connection, policy: Expiry, now: float, limit: int) -> int:
        """Delete finished games that finished ``policy.records`` ago, but for those a room still plays from (the
        games of its current match)."""
        if not policy.records:
            return 0
        found = await connection.execute(
            "SELECT g.id FROM games g JOIN rooms r ON r.code = g.code "
            "WHERE g.result IS NOT NULL AND g.finished < %s AND (r.status = 'expired' OR g.match_seed <> "
            "(SELECT l.match_seed FROM games l WHERE l.code = g.code ORDER BY l.id DESC LIMIT 1)) "
            "ORDER BY g.finished LIMIT %s FOR UPDATE OF g SKIP LOCKED",
            (now - policy.records, limit),
        )
        games = [int(game) for (game,) in await found.fetchall()]
        if games:
            await connection.execute("DELETE FROM moves WHERE game = ANY(%s)", (games,))
            await connection.execute("DELETE FROM games WHERE id = ANY(%s)", (games,))
        return len(games)

    @staticmethod
    async def _forget_rooms(connection: Connection, policy: Expiry, now: float, limit: int) -> list[str]:
        if not policy.records:
            return []
        found = await connection.execute(
            "DELETE FROM rooms WHERE code IN (SELECT code FROM rooms r WHERE status = 'expired' AND active < %s "
            "AND NOT EXISTS (SELECT 1 FROM games g WHERE g.code = r.code) ORDER BY active LIMIT %s "
            "FOR UPDATE SKIP LOCKED) RETURNING code",
            (now - policy.records, limit),
        )
        return [str(code) for (code,) in await found.fetchall()]

    async def close(self) -> None:
        """Finish the work under way, then close every connection."""
        await self._pool.close()


def _assemble(
    rooms: list[tuple[Any, ...]],
    seats: list[tuple[Any, ...]],
    games: list[tuple[Any, ...]],
    moves: list[tuple[Any, ...]],
) -> list[RoomRow | UnreadableRoom | ExpiredRoom]:
    """The rooms from the rows of their tables (each in the order it is shown)."""
    seats_of: dict[str, list[SeatRow]] = {}
    for code, *seat in seats:
        seats_of.setdefault(code, []).append(SeatRow(*seat))
    moves_of: dict[int, list[str]] = {}
    for game, text in moves:
        moves_of.setdefault(game, []).append(text)
    games_of: dict[str, list[tuple[Any, ...]]] = {}
    for game_id, code, *game in games:
        games_of.setdefault(code, []).append((game_id, *game))
    loaded: list[RoomRow | UnreadableRoom | ExpiredRoom] = []
    for code, settings, status in rooms:
        if status == "expired":
            loaded.append(ExpiredRoom(str(code)))
            continue
        try:
            room_games = [
                GameRow(int(game_id), int(seed), int(number), dict(deal), moves_of.get(game_id, []), result)
                for game_id, seed, number, deal, result in games_of.get(code, [])
            ]
            loaded.append(RoomRow(code, dict(settings), str(status), seats_of.get(code, []), room_games))
        except (ValueError, TypeError, KeyError) as error:
            loaded.append(UnreadableRoom(str(code), _reason(error)))
    return loaded
