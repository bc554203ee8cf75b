"""When the database refuses, nothing is half done: the mover may try again, computers retry, others play on.

The faults here are real ones made in this process (another connection
holding the write lock past the busy timeout, on SQLite and on PostgreSQL);
``test_faults.py``
injects the others (a full disk, a read-only file) into a server process.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import psycopg
import pytest

from elferraus.cli.main import main as cli
from elferraus.i18n import tr
from elferraus.server.client import RoomClient, create_room
from elferraus.server.storage.sqlite import BUSY_TIMEOUT, SqliteDatabase
from elferraus.server.storage.types import RoomRow
from elferraus.server.web.api import ROOM_BURST
from tests.support.postgres_helpers import count_rows
from tests.support.server_helpers import chooser, get, look, room_with_people, send_move, start, wait_online
from tests.support.web_helpers import serving


@contextmanager
def locked(db: str) -> Iterator[None]:
    """Another connection holds the database's write lock (as another process would); on PostgreSQL, a lock
    on every table that lets others read but not write."""
    if db.startswith("postgresql://"):
        with psycopg.connect(db) as holder:
            holder.execute("LOCK TABLE rooms, seats, games, moves IN EXCLUSIVE MODE")
            try:
                yield
            finally:
                holder.rollback()
        return
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@asynccontextmanager
async def two_people(db: str, **settings: object) -> AsyncIterator[tuple[str, str, list[RoomClient]]]:
    """A server with a started game of two people; yields its base, the room code and both clients.

    The table makes a person's only legal move after the room's pace, 5 s here: the tests make their
    moves (those too) themselves well before, so every move they count is theirs."""
    settings.setdefault("pace", 5)
    async with serving(db) as base:
        code, tokens = await room_with_people(base, 2, name="Anna", players=2, **settings)
        async with RoomClient(base, code, tokens[0]) as anna, RoomClient(base, code, tokens[1], "de") as ben:
            await wait_online(anna, [0, 1])
            await start(anna, ben)
            yield base, code, [anna, ben]


async def ping_time(client: RoomClient) -> float:
    """Seconds from a ping to its pong."""
    before = time.perf_counter()
    await client.send({"type": "ping"})
    while True:
        message = await client.receive(10)
        if message.get("type") == "pong":
            return time.perf_counter() - before


@pytest.mark.timeout(60)
def test_a_move_the_database_refuses_changes_nothing_and_may_be_sent_again(database: str) -> None:
    db = database

    async def main() -> None:
        async with two_people(db) as (base, code, clients):
            other_code, other_tokens = await room_with_people(base, 1, name="Olga", players=2, pace=0)
            async with RoomClient(base, other_code, other_tokens[0]) as olga:
                await olga.until(lambda s: True)
                # a move the person chooses (each first makes his only moves, the opening 11 say, himself)
                mover = await chooser(clients, only_moves=True)
                state = mover.state
                assert state is not None
                before = await look(base, code)
                move = state["view"]["legal"][0]
                with locked(db):
                    started = time.perf_counter()
                    await send_move(mover, move, state["seq"])
                    # meanwhile another room is answered at once: the event loop is not waiting for SQLite
                    pongs = [await ping_time(olga) for _ in range(5)]
                    assert max(pongs) < BUSY_TIMEOUT / 4, pongs
                    await mover.until(lambda s: bool(mover.errors), 10)
                    waited = time.perf_counter() - started
                    refusal = mover.errors[-1]
                    assert refusal["code"] == "store_unavailable"
                    assert refusal["message"] == tr("web_error_store_unavailable", mover.lang)
                    assert refusal["seq"] == state["seq"]
                    assert BUSY_TIMEOUT * 0.9 <= waited < BUSY_TIMEOUT + 3
                    # nothing changed, for anybody
                    assert (await look(base, code))["game"] == before["game"]
                    assert (await get(base, f"/api/rooms/{code}")).json() == before["room"]
                # the very same frame, sent again once the lock is gone, is the move
                await send_move(mover, move, state["seq"])
                after = await mover.until(lambda s: s["seq"] > state["seq"], 10)
                assert after["game"]["moves"][: len(before["game"]["moves"])] == before["game"]["moves"]
                assert len(after["game"]["moves"]) == len(before["game"]["moves"]) + 1
        assert count_rows(db, "moves") == len(after["game"]["moves"])

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_a_computer_retries_until_its_move_is_stored(database: str, caplog: pytest.LogCaptureFixture) -> None:
    db = database
    caplog.set_level(logging.WARNING, logger="elferraus.server")

    async def main() -> None:
        async with serving(db) as base:
            room = await create_room(
                base, name="Anna", players=2, pace=0.2, seats=[{"kind": "computer", "level": "easy"}]
            )
            async with RoomClient(base, room["code"], room["token"]) as anna:
                await start(anna)
                # let Anna move until it is the computer's turn, and hold the lock before it can store its move
                while anna.state["game"]["turn"] != 1:
                    state = await anna.until(lambda s: bool(s["view"]["legal"]))
                    await send_move(anna, state["view"]["legal"][0], state["seq"])
                    await anna.until(lambda s, seq=state["seq"]: s["seq"] > seq)
                moves = len(anna.state["game"]["moves"])
                with locked(db):
                    await asyncio.sleep(BUSY_TIMEOUT + 1.5)  # the computer's first try has failed by now
                    assert len(anna.state["game"]["moves"]) == moves
                    assert (await look(base, room["code"]))["game"]["moves"] == anna.state["game"]["moves"]
                after = await anna.until(lambda s: len(s["game"]["moves"]) > moves, 15)
                assert after["game"]["moves"][moves].startswith("1 ")

    asyncio.run(main())
    messages = [record.getMessage() for record in caplog.records]
    assert any("a computer's move is not stored yet; retrying" in message for message in messages), messages
    assert any("stored after" in message for message in messages), messages


@pytest.mark.timeout(60)
def test_a_room_the_database_refuses_to_create_is_a_503_to_try_again(database: str) -> None:
    db = database

    async def main() -> None:
        async with serving(db) as base:
            with locked(db):
                from tests.support.server_helpers import post

                answer = await post(base, "/api/rooms?lang=de", json={"name": "Anna"})
                assert answer.status_code == 503
                assert answer.headers["retry-after"] == "1"
                assert answer.json() == {
                    "error": "store_unavailable",
                    "message": tr("web_error_store_unavailable", "de"),
                }
            made = await post(base, "/api/rooms", json={"name": "Anna"})
            assert made.status_code == 201
        assert count_rows(db, "rooms") == 1

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_a_room_not_made_costs_nothing_of_the_room_creation_limit(database: str) -> None:
    """The limit takes a room before it is made and gives it back when the database refused to store it; a
    choice that does not fit (more seats than players) is refused before the limit is asked. One room a
    minute: none comes back during the test."""
    db = database

    async def main() -> None:
        from tests.support.server_helpers import post

        async with serving(db, rooms_per_minute=1) as base:
            with locked(db):
                assert (await post(base, "/api/rooms", json={"name": "Anna"})).status_code == 503
            too_many_seats = {"name": "Anna", "players": 2, "seats": [{"kind": "open"}, {"kind": "open"}]}
            for _ in range(ROOM_BURST):
                assert (await post(base, "/api/rooms", json=too_many_seats)).status_code == 400
            made = [(await post(base, "/api/rooms", json={"name": "Anna"})).status_code for _ in range(ROOM_BURST + 1)]
            assert made == [201] * ROOM_BURST + [429]

    asyncio.run(main())


@pytest.mark.timeout(90)
def test_a_backup_of_a_running_server_restores_every_stored_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "rooms.db")
    copy = tmp_path / "backup" / "copy.db"
    copy.parent.mkdir()

    async def main() -> None:
        async with two_people(db) as (base, code, clients):
            for _ in range(6):
                mover = clients[clients[0].state["game"]["turn"]]
                state = mover.state
                await send_move(mover, state["view"]["legal"][0], state["seq"])
                after = await mover.until(lambda s, seq=state["seq"]: s["seq"] > seq)
                for client in clients:
                    await client.until(lambda s, seq=after["seq"]: s["seq"] >= seq)
            moves = list(clients[0].state["game"]["moves"])
            # the server is running, and goes on writing, while the copy is made
            assert await asyncio.to_thread(cli, ["backup", "--db", db, str(copy)]) == 0
            assert f"copied to {copy}" in capsys.readouterr().out
        # restoring: the server started on the copy has the game as it was
        async with serving(str(copy)) as base:
            state = await look(base, code)
            assert state["game"]["moves"] == moves
            assert state["room"]["status"] == "playing"

    asyncio.run(main())
    backup = SqliteDatabase(str(copy))
    (room,) = [row for row in backup.rooms() if isinstance(row, RoomRow)]
    assert len(room.games[0].moves) == 6
    backup.close()


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["backup", "--db", "{tmp}/missing.db", "{tmp}/out.db"], "there is no database file"),
        (["backup", "--db", "{tmp}/rooms.db", "{tmp}/rooms.db"], "is the database itself"),
        (["backup", "--db", "{tmp}/rooms.db", "{tmp}/no/such/folder/out.db"], "the folder"),
        (["backup", "--db", "{tmp}/text.db", "{tmp}/out.db"], "not a SQLite database"),
    ],
)
def test_a_backup_that_cannot_be_made_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], problem: str
) -> None:
    SqliteDatabase(str(tmp_path / "rooms.db")).close()
    (tmp_path / "text.db").write_text("not a database\n")
    assert cli([arg.format(tmp=tmp_path) for arg in args]) == 2
    error = capsys.readouterr().err
    assert error.startswith("elferraus backup: ")
    assert problem in error
    assert error.count("\n") == 1
    assert not (tmp_path / "out.db").exists()
