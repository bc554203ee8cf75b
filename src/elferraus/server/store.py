"""Everything the server must not forget, in SQLite (WAL).

Rooms, seats (token hashes only), the deal of every game and every accepted
move. A move is committed before anybody hears of it, so a server killed at
any moment (even ``kill -9``) comes back with every acknowledged move. WAL
with ``synchronous=NORMAL`` survives the death of the process; only a power
cut could lose the last commits.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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


class Store:
    """The server's SQLite database.

    Args:
        path: the database file (``":memory:"`` for tests).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def _write(self, sql: str, parameters: tuple[Any, ...]) -> sqlite3.Cursor:
        with self._db:  # one transaction, committed on leaving
            return self._db.execute(sql, parameters)

    # -- rooms and seats ------------------------------------------------------

    def add_room(self, code: str, settings: dict[str, Any], seats: list[SeatRow]) -> None:
        """Store a new room with its seats (one transaction)."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO rooms (code, settings, status, created) VALUES (?, ?, 'waiting', ?)",
                (code, json.dumps(settings), time.time()),
            )
            self._db.executemany(
                "INSERT INTO seats (code, seat, name, kind, level, token_hash) VALUES (?, ?, ?, ?, ?, ?)",
                [(code, s.seat, s.name, s.kind, s.level, s.token_hash) for s in seats],
            )

    def update_seat(self, code: str, seat: SeatRow) -> None:
        """Store a seat's new occupant."""
        self._write(
            "UPDATE seats SET name = ?, kind = ?, level = ?, token_hash = ? WHERE code = ? AND seat = ?",
            (seat.name, seat.kind, seat.level, seat.token_hash, code, seat.seat),
        )

    def set_status(self, code: str, status: str) -> None:
        """Store a room's status."""
        self._write("UPDATE rooms SET status = ? WHERE code = ?", (status, code))

    def code_exists(self, code: str) -> bool:
        """True if a room with this code was ever made."""
        return self._db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is not None

    # -- games and moves ------------------------------------------------------

    def add_game(self, code: str, match_seed: int, round_number: int, deal: dict[str, Any]) -> int:
        """Store a newly dealt game; returns its id."""
        cursor = self._write(
            "INSERT INTO games (code, match_seed, round, deal) VALUES (?, ?, ?, ?)",
            (code, match_seed, round_number, json.dumps(deal)),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_move(self, game: int, number: int, text: str) -> None:
        """Store move ``number`` (0-based) of ``game``, committed before this returns."""
        self._write("INSERT INTO moves (game, n, text) VALUES (?, ?, ?)", (game, number, text))

    def finish_game(self, game: int, result: dict[str, Any]) -> None:
        """Store a finished game's result."""
        self._write("UPDATE games SET result = ?, finished = ? WHERE id = ?", (json.dumps(result), time.time(), game))

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

    def rooms(self) -> Iterator[RoomRow]:
        """Every room, with its seats and the games of its latest match, oldest first."""
        for code, settings, status in self._db.execute("SELECT code, settings, status FROM rooms ORDER BY created"):
            seats = [
                SeatRow(*row)
                for row in self._db.execute(
                    "SELECT seat, name, kind, level, token_hash FROM seats WHERE code = ? ORDER BY seat", (code,)
                )
            ]
            games = []
            rows = self._db.execute(
                "SELECT id, match_seed, round, deal, result FROM games WHERE code = ? AND match_seed = "
                "(SELECT match_seed FROM games WHERE code = ? ORDER BY id DESC LIMIT 1) ORDER BY id",
                (code, code),
            ).fetchall()
            for game_id, match_seed, round_number, deal, result in rows:
                games.append(
                    GameRow(
                        game_id,
                        match_seed,
                        round_number,
                        json.loads(deal),
                        self._moves(game_id),
                        json.loads(result) if result is not None else None,
                    )
                )
            yield RoomRow(code, json.loads(settings), status, seats, games)
