"""The server's SQLite database, as plain blocking calls.

Only ``SqliteStore`` (``store.py``) calls these, on its worker threads; the
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
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BUSY_TIMEOUT = 2.0
"""Seconds a write waits for another process's lock before it fails (and the mover is told to retry)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL
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
"""

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
class Finish:
    """What the last move of a round stores with it: the result, and the room's new status."""

    code: str
    result: dict[str, Any]
    status: str


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
        path: the database file (created with its tables if new).

    Raises:
        StoreError: it cannot be opened or is not a database of this server (``schema_problem`` says why).
    """

    def __init__(self, path: str) -> None:
        self.path = path
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
        except sqlite3.Error as error:
            self._db.close()
            raise StoreError(path, reason_of(error)) from error

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
            self._db.execute(
                "INSERT INTO rooms (code, settings, status, created) VALUES (?, ?, 'waiting', ?)",
                (code, json.dumps(settings), time.time()),
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

    def code_exists(self, code: str) -> bool:
        """True if a room with this code was ever made."""
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
                "UPDATE games SET result = ?, finished = ? WHERE id = ?", (json.dumps(result), time.time(), game)
            )

    def _finish(self, game: int, finish: Finish) -> None:
        self._db.execute(
            "UPDATE games SET result = ?, finished = ? WHERE id = ?", (json.dumps(finish.result), time.time(), game)
        )
        self._db.execute("UPDATE rooms SET status = ? WHERE code = ?", (finish.status, finish.code))

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
        """Every room, with its seats and the games of its latest match, oldest first.

        A room whose rows cannot be read back comes as ``UnreadableRoom``; the others still come.
        """
        codes = [code for (code,) in self._db.execute("SELECT code FROM rooms ORDER BY created")]
        for code in codes:
            try:
                yield self._room(code)
            except (ValueError, TypeError, KeyError, sqlite3.DatabaseError) as error:
                yield UnreadableRoom(str(code), reason_of(error))

    def room(self, code: str) -> RoomRow | UnreadableRoom | None:
        """The room ``code`` as ``rooms`` gives it, or None if there is none."""
        if not self.code_exists(code):
            return None
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
