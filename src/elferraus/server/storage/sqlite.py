"""The server's SQLite database, as plain blocking calls.

Only ``SqliteStore`` (``sqlite_store.py``) calls these, on its worker threads; the
event loop never waits for SQLite. Every change is one transaction: a move,
and for the last move of a round the result and the room's status with it,
are kept together or not at all. WAL with ``synchronous=NORMAL`` survives
the death of the process (even ``kill -9``); only a power cut could lose the
last commits.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from elferraus.server.storage.expiry import Clock, Expiry
from elferraus.server.storage.types import (
    ConflictError,
    ExpiredRoom,
    Finish,
    GameRow,
    RoomRow,
    SeatRow,
    StoreError,
    Swept,
    UnreadableRoom,
    schema_problem,
)

BUSY_TIMEOUT = 2.0
"""Seconds a write waits for another process's lock before it fails (and the mover is told to retry)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    active REAL
);
CREATE TABLE IF NOT EXISTS seats (
    code TEXT NOT NULL REFERENCES rooms(code),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    level TEXT,
    token_hash TEXT,
    PRIMARY KEY (code, seat)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    code TEXT NOT NULL REFERENCES rooms(code),
    match_seed INTEGER NOT NULL,
    round INTEGER NOT NULL,
    deal TEXT NOT NULL,
    result TEXT,
    finished REAL
);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game, n)
);
CREATE INDEX IF NOT EXISTS games_by_room ON games (code, id);
CREATE INDEX IF NOT EXISTS games_by_finish ON games (finished);
"""
"""The tables as this version makes them. ``rooms.active`` is the room's last activity (``expiry.py``), or for
an expired room (status ``expired``: no seats, no unfinished game) the moment it expired; a database made
before that column is given it when it is opened (``SqliteDatabase._upgrade``)."""


def check_database(path: str) -> None:
    """Refuse, in words naming ``path``, a database the server could not use.

    Raises:
        StoreError: the folder is missing, the file cannot be read or written, is not a SQLite database, or
            not one of this server (its tables are another program's).
    """
    if path == ":memory:":
        return
    file = Path(path)
    folder = file.parent
    if not folder.is_dir():
        raise StoreError(path, f"the folder {str(folder)!r} does not exist")
    if file.is_dir():
        raise StoreError(path, "this is a folder, not a database file")
    if file.exists():
        if not os.access(file, os.R_OK | os.W_OK):
            raise StoreError(path, "the file cannot be read and written by this user")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(path, f"a new database cannot be made in the folder {str(folder)!r}")
    SqliteDatabase(path).close()


def tables_of(connection: sqlite3.Connection) -> dict[str, list[str]]:
    """Every table and view of a SQLite database with the names of its columns (what ``schema_problem`` reads).

    Raises:
        sqlite3.Error: the file is not a SQLite database, or cannot be read.
    """
    names = connection.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"
    ).fetchall()
    return {
        name: [column for (column,) in connection.execute("SELECT name FROM pragma_table_info(?)", (name,))]
        for (name,) in names
    }


def reason_of(error: BaseException) -> str:
    """What went wrong with a database, in words (SQLite's own, but for a file that is not a database)."""
    text = str(error) or type(error).__name__
    if isinstance(error, sqlite3.DatabaseError) and "file is not a database" in text:
        return "this file is not a SQLite database"
    return text


class SqliteDatabase:
    """One connection to the server's SQLite file, used by one thread.

    Args:
        path: the database file (created with its tables if new, given the newest columns if older).
        clock: the time of every stamp this connection writes (``expiry.Clock``).

    Raises:
        StoreError: it cannot be opened or is not a database of this server (``schema_problem`` says why).
    """

    def __init__(self, path: str, clock: Clock = time.time) -> None:
        self.path = path
        self.clock = clock
        try:
            self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise StoreError(path, reason_of(error)) from error
        try:
            # Before anything is written: another program's file stays as it was (not even put in WAL mode).
            if (problem := schema_problem(tables_of(self._db), new=True)) is not None:
                self._db.close()
                raise StoreError(path, problem)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._upgrade()
        except sqlite3.Error as error:
            self._db.close()
            raise StoreError(path, reason_of(error)) from error

    def _upgrade(self) -> None:
        """Give a database made before ``rooms.active`` that column (once, whichever connection comes first).

        Moves carry no time, so a room's last activity before the upgrade is not known: every room counts as
        active at the upgrade, and no room in use can expire because of it. A finished game without the
        moment it finished (none that this server wrote) counts as finished then.
        """
        if "active" in self._columns("rooms"):
            return
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if "active" not in self._columns("rooms"):
                now = self.clock()
                self._db.execute("ALTER TABLE rooms ADD COLUMN active REAL")
                self._db.execute("UPDATE rooms SET active = ?", (now,))
                self._db.execute("UPDATE games SET finished = ? WHERE result IS NOT NULL AND finished IS NULL", (now,))

    def _columns(self, table: str) -> set[str]:
        return {str(row[1]) for row in self._db.execute(f"PRAGMA table_info({table})")}

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def set_busy_timeout(self, seconds: float) -> None:
        """How long the next statements wait for another connection's lock before they fail."""
        self._db.execute(f"PRAGMA busy_timeout = {max(1, round(seconds * 1000))}")

    # -- rooms and seats ------------------------------------------------------

    def add_room(self, code: str, settings: dict[str, Any], seats: list[SeatRow]) -> None:
        """Store a new room with its seats."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            now = self.clock()
            self._db.execute(
                "INSERT INTO rooms (code, settings, status, created, active) VALUES (?, ?, 'waiting', ?, ?)",
                (code, json.dumps(settings), now, now),
            )
            self._update_seats(code, seats, insert=True)

    def _update_seats(self, code: str, seats: list[SeatRow], *, insert: bool = False) -> None:
        if insert:
            self._db.executemany(
                "INSERT INTO seats (code, seat, name, kind, level, token_hash) VALUES (?, ?, ?, ?, ?, ?)",
                [(code, s.seat, s.name, s.kind, s.level, s.token_hash) for s in seats],
            )
        else:
            self._db.executemany(
                "UPDATE seats SET name = ?, kind = ?, level = ?, token_hash = ? WHERE code = ? AND seat = ?",
                [(s.name, s.kind, s.level, s.token_hash, code, s.seat) for s in seats],
            )

    def update_seat(self, code: str, seat: SeatRow, *, was: str | None = None) -> None:
        """Store a seat's new occupant (if ``was`` is given: only if the seat's stored kind is still ``was``).

        Raises:
            ConflictError: the seat is no longer ``was``.
        """
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if was is not None:
                row = self._db.execute(
                    "SELECT kind FROM seats WHERE code = ? AND seat = ?", (code, seat.seat)
                ).fetchone()
                if row is None or row[0] != was:
                    raise ConflictError(self.path, f"seat {seat.seat} of room {code} is no longer {was}")
            self._update_seats(code, [seat])
            self._stamp(code)

    def _stamp(self, code: str) -> None:
        """The room changed now: its last activity (in the caller's transaction)."""
        self._db.execute(
            "UPDATE rooms SET active = MAX(COALESCE(active, 0), ?) WHERE code = ? AND status != 'expired'",
            (self.clock(), code),
        )

    def _expect_status(self, code: str, expected: str | None) -> None:
        if expected is None:
            return
        row = self._db.execute("SELECT status FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None or row[0] != expected:
            found = "missing" if row is None else row[0]
            raise ConflictError(self.path, f"room {code} is {found}, not {expected}")

    def set_status(self, code: str, status: str) -> None:
        """Store a room's status."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("UPDATE rooms SET status = ? WHERE code = ?", (status, code))
            self._stamp(code)

    def code_exists(self, code: str) -> bool:
        """True if a room with this code is stored (in play, or expired and not yet forgotten)."""
        return self._db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is not None

    # -- games and moves ------------------------------------------------------

    def start_game(
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
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._expect_status(code, expected)
            if expected == "waiting":  # the seats the start fills must still be open (nobody joined meanwhile)
                for seat in seats:
                    row = self._db.execute(
                        "SELECT kind FROM seats WHERE code = ? AND seat = ?", (code, seat.seat)
                    ).fetchone()
                    if row is None or row[0] != "open":
                        raise ConflictError(self.path, f"seat {seat.seat} of room {code} is no longer open")
            self._update_seats(code, seats)
            cursor = self._db.execute(
                "INSERT INTO games (code, match_seed, round, deal) VALUES (?, ?, ?, ?)",
                (code, match_seed, round_number, json.dumps(deal)),
            )
            self._db.execute("UPDATE rooms SET status = 'playing' WHERE code = ?", (code,))
            self._stamp(code)
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_game(self, code: str, match_seed: int, round_number: int, deal: dict[str, Any]) -> int:
        """Store a newly dealt game (the room's status unchanged); returns its id."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            cursor = self._db.execute(
                "INSERT INTO games (code, match_seed, round, deal) VALUES (?, ?, ?, ?)",
                (code, match_seed, round_number, json.dumps(deal)),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_move(self, game: int, number: int, text: str, finish: Finish | None = None) -> None:
        """Store move ``number`` (0-based) of ``game``, and with the round's last move its ``finish``.

        Storing the very same move again is no error: a commit that reached the disk although the
        caller heard it fail is then simply confirmed.

        Raises:
            sqlite3.IntegrityError: another move is stored under that number, or there is no such game.
        """
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT INTO moves (game, n, text) VALUES (?, ?, ?)", (game, number, text))
                self._stamp_game(game)
                if finish is not None:
                    self._finish(game, finish)
        except sqlite3.IntegrityError:
            if self.stored_move(game, number) != text:
                raise
            if finish is not None:
                with self._db:
                    self._db.execute("BEGIN IMMEDIATE")
                    self._finish(game, finish)

    def finish_game(self, game: int, result: dict[str, Any]) -> None:
        """Store a finished game's result."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "UPDATE games SET result = ?, finished = ? WHERE id = ?", (json.dumps(result), self.clock(), game)
            )

    def _finish(self, game: int, finish: Finish) -> None:
        self._db.execute(
            "UPDATE games SET result = ?, finished = ? WHERE id = ?", (json.dumps(finish.result), self.clock(), game)
        )
        self._db.execute(
            "UPDATE rooms SET status = ? WHERE code = ? AND status != 'expired'", (finish.status, finish.code)
        )
        self._stamp(finish.code)

    def _stamp_game(self, game: int) -> None:
        code = self._db.execute("SELECT code FROM games WHERE id = ?", (game,)).fetchone()
        if code is not None:
            self._stamp(str(code[0]))

    def stored_move(self, game: int, number: int) -> str | None:
        """The text stored as move ``number`` of ``game``, or None."""
        row = self._db.execute("SELECT text FROM moves WHERE game = ? AND n = ?", (game, number)).fetchone()
        return None if row is None else str(row[0])

    def record(self, game: int) -> dict[str, Any] | None:
        """A finished game's ``elferraus/1`` record, or None if there is no such finished game."""
        row = self._db.execute("SELECT deal, result FROM games WHERE id = ?", (game,)).fetchone()
        if row is None or row[1] is None:
            return None
        record: dict[str, Any] = json.loads(row[0])
        record["moves"] = self._moves(game)
        record["result"] = json.loads(row[1])
        return record

    def _moves(self, game: int) -> list[str]:
        return [text for (text,) in self._db.execute("SELECT text FROM moves WHERE game = ? ORDER BY n", (game,))]

    # -- loading --------------------------------------------------------------

    def rooms(self) -> Iterator[RoomRow | UnreadableRoom]:
        """Every room that has not expired, with its seats and the games of its latest match, oldest first.

        A room whose rows cannot be read back comes as ``UnreadableRoom``; the others still come.
        """
        codes = [
            code for (code,) in self._db.execute("SELECT code FROM rooms WHERE status != 'expired' ORDER BY created")
        ]
        for code in codes:
            try:
                yield self._room(code)
            except (ValueError, TypeError, KeyError, sqlite3.DatabaseError) as error:
                yield UnreadableRoom(str(code), reason_of(error))

    def room(self, code: str) -> RoomRow | UnreadableRoom | ExpiredRoom | None:
        """The room ``code`` as ``rooms`` gives it, ``ExpiredRoom`` if it expired, or None if there is none."""
        row = self._db.execute("SELECT status FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            return None
        if row[0] == "expired":
            return ExpiredRoom(code)
        try:
            return self._room(code)
        except (ValueError, TypeError, KeyError, sqlite3.DatabaseError) as error:
            return UnreadableRoom(str(code), reason_of(error))

    def _room(self, code: str) -> RoomRow:
        settings, status = self._db.execute("SELECT settings, status FROM rooms WHERE code = ?", (code,)).fetchone()
        seats = [
            SeatRow(*row)
            for row in self._db.execute(
                "SELECT seat, name, kind, level, token_hash FROM seats WHERE code = ? ORDER BY seat", (code,)
            )
        ]
        rows = self._db.execute(
            "SELECT id, match_seed, round, deal, result FROM games WHERE code = ? AND match_seed = "
            "(SELECT match_seed FROM games WHERE code = ? ORDER BY id DESC LIMIT 1) ORDER BY id",
            (code, code),
        ).fetchall()
        games = [
            GameRow(
                game_id,
                match_seed,
                round_number,
                json.loads(deal),
                self._moves(game_id),
                json.loads(result) if result is not None else None,
            )
            for game_id, match_seed, round_number, deal, result in rows
        ]
        return RoomRow(code, json.loads(settings), status, seats, games)

    # -- expiry (expiry.py) ------------------------------------------------------

    def touch(self, seen: Mapping[str, float]) -> None:
        """Each room was in use at the moment given: its last activity is that moment, if that is later."""
        if not seen:
            return
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "UPDATE rooms SET active = MAX(COALESCE(active, 0), ?) WHERE code = ? AND status != 'expired'",
                [(moment, code) for code, moment in seen.items()],
            )

    def sweep(self, policy: Expiry, limit: int) -> Swept:
        """One batch of the expiry, in one transaction: up to ``limit`` rooms expire, up to ``limit`` finished
        games kept long enough are deleted, and up to ``limit`` expired rooms are forgotten.

        Every step decides from what is stored when it runs: a room changed or touched meanwhile is no longer
        old enough, and a step that finds nothing to do does nothing (the sweep is idempotent).
        """
        now = self.clock()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            expired = self._expire_rooms(policy, now, limit)
            games = self._delete_records(policy, now, limit)
            forgotten = self._forget_rooms(policy, now, limit)
        more = limit in (len(expired), games, len(forgotten))
        return Swept(tuple(expired), games, tuple(forgotten), more)

    def _expire_rooms(self, policy: Expiry, now: float, limit: int) -> list[str]:
        limits = policy.limits()
        if not limits:
            return []
        which = " OR ".join("(status = ? AND active < ?)" for _ in limits)
        params = [value for status, seconds in limits.items() for value in (status, now - seconds)]
        codes = [
            str(code)
            for (code,) in self._db.execute(
                f"SELECT code FROM rooms WHERE {which} ORDER BY active LIMIT ?", (*params, limit)
            )
        ]
        if codes:
            marks = ", ".join("?" * len(codes))
            unfinished = f"SELECT id FROM games WHERE code IN ({marks}) AND result IS NULL"
            self._db.execute(f"DELETE FROM moves WHERE game IN ({unfinished})", codes)
            self._db.execute(f"DELETE FROM games WHERE code IN ({marks}) AND result IS NULL", codes)
            self._db.execute(f"DELETE FROM seats WHERE code IN ({marks})", codes)
            self._db.execute(f"UPDATE rooms SET status = 'expired', active = ? WHERE code IN ({marks})", (now, *codes))
        return codes

    def _delete_records(self, policy: Expiry, now: float, limit: int) -> int:
        """Delete finished games that finished ``policy.records`` ago, but for those a room still plays from (the
        games of its current match)."""
        if not policy.records:
            return 0
        games = [
            int(game)
            for (game,) in self._db.execute(
                "SELECT g.id FROM games g JOIN rooms r ON r.code = g.code "
                "WHERE g.result IS NOT NULL AND g.finished < ? AND (r.status = 'expired' OR g.match_seed != "
                "(SELECT l.match_seed FROM games l WHERE l.code = g.code ORDER BY l.id DESC LIMIT 1)) "
                "ORDER BY g.finished LIMIT ?",
                (now - policy.records, limit),
            )
        ]
        if games:
            marks = ", ".join("?" * len(games))
            self._db.execute(f"DELETE FROM moves WHERE game IN ({marks})", games)
            self._db.execute(f"DELETE FROM games WHERE id IN ({marks})", games)
        return len(games)

    def _forget_rooms(self, policy: Expiry, now: float, limit: int) -> list[str]:
        if not policy.records:
            return []
        codes = [
            str(code)
            for (code,) in self._db.execute(
                "SELECT code FROM rooms r WHERE status = 'expired' AND active < ? "
                "AND NOT EXISTS (SELECT 1 FROM games g WHERE g.code = r.code) ORDER BY active LIMIT ?",
                (now - policy.records, limit),
            )
        ]
        if codes:
            self._db.execute(f"DELETE FROM rooms WHERE code IN ({', '.join('?' * len(codes))})", codes)
        return codes
