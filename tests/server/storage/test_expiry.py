"""Rooms nobody uses expire, and finished games' records go after they were kept long enough (``expiry.py``).

Time is a clock the test holds and moves; every scenario runs on a real SQLite file and on a real PostgreSQL
(``database``). The store's sweep is checked step by step; then whole servers, stopped and started again on the
same database between the moments that matter, as an operator's would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from elferraus.server.client import RoomClient
from elferraus.server.rooms.settings import hash_token
from elferraus.server.storage.expiry import BATCH, DAY, HOUR, Expiry
from elferraus.server.storage.pgschema import migrate
from elferraus.server.storage.sqlite import SqliteDatabase
from elferraus.server.storage.store import Store, open_store
from elferraus.server.storage.types import ExpiredRoom, Finish, RoomRow, SeatRow, StoreError, Swept
from tests.support.expiry_helpers import MINUTE, TABLES, Clock, counts, expired, server, until
from tests.support.postgres_helpers import PostgresServer, count_rows, query
from tests.support.server_helpers import act, get, play_round, room_with_people, start, wait_online

SETTINGS = {"players": 2, "rules": "classic", "rounds": 1, "fill": "easy", "away": 60.0, "pace": 0.0}
DEAL = {"format": "elferraus/1", "rules": {"colors": "RYGB"}, "hands": [["R11"], ["Y11"]], "pile": []}
RESULT = {"winner": 0, "penalties": [0, 1]}


def seats() -> list[SeatRow]:
    return [SeatRow(0, "Anna", "person", None, hash_token("t0")), SeatRow(1, "", "open", None, None)]


def run(database: str, clock: Clock, scenario: Callable[[Store], Awaitable[None]]) -> None:
    async def main() -> None:
        store = await open_store(database, clock)
        try:
            await scenario(store)
        finally:
            await store.close()

    asyncio.run(main())


async def sweep_all(store: Store, policy: Expiry | None = None, limit: int = BATCH) -> Swept:
    """Sweep until nothing is left to do; what was done in all."""
    expired: list[str] = []
    forgotten: list[str] = []
    games = 0
    while True:
        swept = await store.sweep(policy or Expiry(), limit)
        expired += swept.expired
        forgotten += swept.forgotten
        games += swept.games
        if not swept.more:
            return Swept(tuple(expired), games, tuple(forgotten))


async def room_at(store: Store, code: str, status: str) -> int | None:
    """A room of two that is ``status`` (stored as the server would get it there); its unfinished game, if any."""
    await store.add_room(code, SETTINGS, seats())
    if status == "waiting":
        return None
    game = await store.start_game(code, [SeatRow(1, "Computer 2", "computer", "easy", None)], 7, 1, DEAL)
    await store.add_move(game, 0, "0 R11")
    if status == "playing":
        return game
    await store.add_move(game, 1, "1 Y11", Finish(code, RESULT, status))
    if status == "round_over":
        return await store.start_game(code, [], 7, 2, DEAL, expected="round_over")  # the next round, dealt
    return None


# -- the store's sweep ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "limit"),
    [("waiting", 6 * HOUR), ("playing", 3 * DAY), ("round_over", 3 * DAY), ("match_over", 3 * DAY)],
)
def test_a_room_expires_when_nobody_used_it_for_the_time_its_status_allows(
    database: str, status: str, limit: float
) -> None:
    clock = Clock()

    async def scenario(store: Store) -> None:
        unfinished = await room_at(store, "ABCDEF", status)
        before = counts(database)
        clock.advance(limit - MINUTE)
        assert await sweep_all(store) == Swept()
        assert counts(database) == before
        assert isinstance(await store.room("ABCDEF"), RoomRow)
        clock.advance(2 * MINUTE)
        assert await sweep_all(store) == Swept(expired=("ABCDEF",))
        assert await sweep_all(store) == Swept()  # once
        assert await store.room("ABCDEF") == ExpiredRoom("ABCDEF")
        assert await store.rooms() == []
        assert await store.code_exists("ABCDEF")  # kept from a new room
        # the seats (the tokens), the unfinished game and its moves are gone; finished games stay
        after = counts(database)
        finished = 1 if status in ("round_over", "match_over") else 0
        assert after == {"rooms": 1, "seats": 0, "games": finished, "moves": 2 * finished}
        if unfinished is not None:
            assert await store.record(unfinished) is None
            with pytest.raises(StoreError):  # no game to store a move of
                await store.add_move(unfinished, 1, "1 draw")

    run(database, clock, scenario)


def test_each_change_and_each_touch_counts_as_activity(database: str) -> None:
    clock = Clock()
    start = clock.now

    async def scenario(store: Store) -> None:
        for code in ("WAITIN", "JOINED", "SEENXX"):
            await store.add_room(code, SETTINGS, seats())
        game = await room_at(store, "PLAYIN", "playing")
        assert game is not None
        clock.now = start + 5 * HOUR
        await store.update_seat("JOINED", SeatRow(1, "Ben", "person", None, hash_token("t1")), was="open")
        await store.touch({"SEENXX": clock.now, "NOSUCH": clock.now})
        clock.now = start + 6 * HOUR + MINUTE
        assert await sweep_all(store) == Swept(expired=("WAITIN",))
        clock.now = start + 11 * HOUR + MINUTE
        assert sorted((await sweep_all(store)).expired) == ["JOINED", "SEENXX"]
        clock.now = start + 2 * DAY
        await store.add_move(game, 1, "1 draw")  # a move
        await store.touch({"PLAYIN": start})  # an older moment than the stored one changes nothing
        clock.now = start + 5 * DAY - MINUTE
        assert await sweep_all(store) == Swept()
        clock.now = start + 5 * DAY + MINUTE
        assert await sweep_all(store) == Swept(expired=("PLAYIN",))

    run(database, clock, scenario)


def test_a_finished_games_record_is_kept_its_time_then_the_expired_room_is_forgotten(database: str) -> None:
    clock = Clock()

    async def scenario(store: Store) -> None:
        await room_at(store, "ABCDEF", "match_over")
        finished = clock.now
        (row,) = await store.rooms()
        assert isinstance(row, RoomRow)
        game = row.games[0].id
        record = await store.record(game)
        assert record is not None
        clock.advance(3 * DAY + MINUTE)
        assert (await sweep_all(store)).expired == ("ABCDEF",)
        expired = clock.now
        clock.now = finished + 30 * DAY - MINUTE
        assert await sweep_all(store) == Swept()
        assert await store.record(game) == record
        clock.now = finished + 30 * DAY + MINUTE
        assert await sweep_all(store) == Swept(games=1)
        assert await store.record(game) is None
        assert counts(database) == {"rooms": 1, "seats": 0, "games": 0, "moves": 0}
        assert await store.room("ABCDEF") == ExpiredRoom("ABCDEF")  # the code still answers that it expired
        clock.now = expired + 30 * DAY + MINUTE
        assert await sweep_all(store) == Swept(forgotten=("ABCDEF",))
        assert counts(database) == dict.fromkeys(TABLES, 0)
        assert await store.room("ABCDEF") is None
        assert not await store.code_exists("ABCDEF")  # now the code may be given to a new room
        await store.add_room("ABCDEF", SETTINGS, seats())

    run(database, clock, scenario)


def test_a_room_in_use_keeps_its_current_match_but_not_the_records_of_earlier_ones(database: str) -> None:
    clock = Clock()

    async def scenario(store: Store) -> None:
        await room_at(store, "ABCDEF", "match_over")
        (row,) = await store.rooms()
        assert isinstance(row, RoomRow)
        first = row.games[0].id
        clock.advance(20 * DAY)
        rematch = await store.start_game("ABCDEF", [], 8, 1, DEAL, expected="match_over")
        await store.add_move(rematch, 0, "0 R11", Finish("ABCDEF", RESULT, "round_over"))
        second = await store.start_game("ABCDEF", [], 8, 2, DEAL, expected="round_over")
        for _ in range(5):  # in play for 50 days, touched every few days by the clients there
            clock.advance(10 * DAY)
            await store.touch({"ABCDEF": clock.now})
            swept = await sweep_all(store)
            assert swept.expired == ()
        # the earlier match's record went 30 days after it finished; the current match's round 1 stays (the room
        # replays it), its round 2 still runs
        assert await store.record(first) is None
        assert await store.record(rematch) is not None
        row = await store.room("ABCDEF")
        assert isinstance(row, RoomRow)
        assert [game.id for game in row.games] == [rematch, second]
        assert row.status == "playing"

    run(database, clock, scenario)


def test_keeping_for_ever_and_never_expiring(database: str) -> None:
    clock = Clock()
    forever = Expiry(waiting=0, finished=3 * DAY, abandoned=0, records=0)

    async def scenario(store: Store) -> None:
        await room_at(store, "WAITIN", "waiting")
        await room_at(store, "PLAYIN", "playing")
        await room_at(store, "OVERXX", "match_over")
        clock.advance(1000 * DAY)
        assert await sweep_all(store, forever) == Swept(expired=("OVERXX",))
        clock.advance(1000 * DAY)
        assert await sweep_all(store, forever) == Swept()
        assert {row.code for row in await store.rooms()} == {"WAITIN", "PLAYIN"}
        assert await store.room("OVERXX") == ExpiredRoom("OVERXX")
        assert count_rows(database, "games") == 2  # the finished one, and the one in play

    run(database, clock, scenario)


def test_a_sweep_works_in_batches_and_two_sweepers_at_once_expire_each_room_once(database: str) -> None:
    clock = Clock()

    async def main() -> None:
        first, second = await open_store(database, clock), await open_store(database, clock)
        try:
            codes = [f"ROOM{n:02d}" for n in range(23)]
            for code in codes:
                await room_at(first, code, "playing")
            clock.advance(3 * DAY + MINUTE)
            one = await first.sweep(Expiry(), 5)
            assert (len(one.expired), one.more) == (5, True)
            found = await asyncio.gather(sweep_all(first, limit=4), sweep_all(second, limit=4))
            together = [*one.expired, *found[0].expired, *found[1].expired]
            assert sorted(together) == codes  # every room once, by one of them
            assert await sweep_all(first) == Swept()
        finally:
            await first.close()
            await second.close()

    asyncio.run(main())
    assert counts(database) == {"rooms": 23, "seats": 0, "games": 0, "moves": 0}


def test_an_older_sqlite_database_opens_and_its_rooms_count_as_active_at_the_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(path)) as old:  # the schema before rooms.active, with a room and game
        old.executescript(
            """
            CREATE TABLE rooms (code TEXT PRIMARY KEY, settings TEXT NOT NULL, status TEXT NOT NULL,
                created REAL NOT NULL);
            CREATE TABLE seats (code TEXT NOT NULL REFERENCES rooms(code), seat INTEGER NOT NULL, name TEXT NOT NULL,
                kind TEXT NOT NULL, level TEXT, token_hash TEXT, PRIMARY KEY (code, seat));
            CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL REFERENCES rooms(code),
                match_seed INTEGER NOT NULL, round INTEGER NOT NULL, deal TEXT NOT NULL, result TEXT, finished REAL);
            CREATE TABLE moves (game INTEGER NOT NULL REFERENCES games(id), n INTEGER NOT NULL, text TEXT NOT NULL,
                PRIMARY KEY (game, n));
            """
        )
        old.execute("INSERT INTO rooms VALUES ('ABCDEF', ?, 'match_over', 1.5)", (json.dumps(SETTINGS),))
        old.execute("INSERT INTO seats VALUES ('ABCDEF', 0, 'Anna', 'person', NULL, 'h0')")
        old.execute("INSERT INTO seats VALUES ('ABCDEF', 1, 'B', 'computer', 'easy', NULL)")
        old.execute(
            "INSERT INTO games (code, match_seed, round, deal, result) VALUES ('ABCDEF', 9, 1, ?, ?)",
            (json.dumps(DEAL), json.dumps(RESULT)),
        )
        old.execute("INSERT INTO moves VALUES (1, 0, '0 R11'), (1, 1, '1 Y11')")
        old.commit()
    clock = Clock()
    upgraded = SqliteDatabase(str(path), clock)
    try:
        (room,) = upgraded.rooms()
        assert isinstance(room, RoomRow)
        assert (room.status, [game.moves for game in room.games]) == ("match_over", [["0 R11", "1 Y11"]])
        stamps = upgraded._db.execute("SELECT active FROM rooms UNION ALL SELECT finished FROM games").fetchall()
        assert stamps == [(clock.now,), (clock.now,)]
        clock.advance(3 * DAY - MINUTE)  # created long ago, but active at the upgrade
        assert upgraded.sweep(Expiry(), BATCH) == Swept()
        clock.advance(2 * MINUTE)
        assert upgraded.sweep(Expiry(), BATCH) == Swept(expired=("ABCDEF",))
    finally:
        upgraded.close()
    again = SqliteDatabase(str(path), clock)  # upgraded once
    again.close()


def test_an_older_postgres_database_is_upgraded_and_its_rooms_count_as_active_at_the_upgrade(
    postgres: PostgresServer,
) -> None:
    url = postgres.new_database()

    async def at_version_two() -> None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
            await migrate(connection, url, 2)

    asyncio.run(at_version_two())
    query(url, "INSERT INTO rooms VALUES ('ABCDEF', %s, 'waiting', 1.5)", json.dumps(SETTINGS))
    query(url, "INSERT INTO seats VALUES ('ABCDEF', 0, 'Anna', 'person', NULL, 'h0')")
    query(url, "INSERT INTO seats VALUES ('ABCDEF', 1, '', 'open', NULL, NULL)")
    before = time.time()
    clock = Clock()

    async def scenario(store: Store) -> None:
        (room,) = await store.rooms()
        assert isinstance(room, RoomRow)
        ((active,),) = query(url, "SELECT active FROM rooms")
        assert before - 1 <= float(str(active)) <= time.time() + 1  # the database's clock, at the upgrade
        clock.now = float(str(active)) + 6 * HOUR - MINUTE
        assert await sweep_all(store) == Swept()
        clock.advance(2 * MINUTE)
        assert await sweep_all(store) == Swept(expired=("ABCDEF",))

    run(url, clock, scenario)
    assert query(url, "SELECT indexname FROM pg_indexes WHERE indexname = 'games_by_finish'") == [("games_by_finish",)]


# -- whole servers, stopped and started again on the same database --------------------------------------


def test_a_waiting_room_is_there_after_5h59m_and_expired_after_6h_across_restarts(database: str) -> None:
    clock = Clock()

    async def main() -> None:
        async with server(database, clock) as (base, _):
            code, _tokens = await room_with_people(base, 2, name="Anna", players=3)
        made = clock.now
        assert counts(database) == {"rooms": 1, "seats": 3, "games": 0, "moves": 0}
        clock.now = made + 6 * HOUR - MINUTE
        async with server(database, clock) as (base, lobby):
            assert code in lobby.rooms
            assert (await get(base, f"/api/rooms/{code}")).json()["status"] == "waiting"
        clock.now = made + 6 * HOUR + MINUTE
        async with server(database, clock) as (base, lobby):
            assert code not in lobby.rooms
            await expired(base, code)
            assert code not in lobby.rooms  # asking does not bring it back
        assert counts(database) == {"rooms": 1, "seats": 0, "games": 0, "moves": 0}  # the tokens are gone
        clock.now += 30 * DAY + MINUTE  # 30 days after it expired, the code is free again
        async with server(database, clock) as (base, _):
            assert (await get(base, f"/api/rooms/{code}")).json()["error"] == "no_room"
        assert counts(database) == dict.fromkeys(TABLES, 0)

    asyncio.run(main())


def test_a_room_with_a_client_connected_does_not_expire_and_counts_from_when_the_last_one_left(database: str) -> None:
    clock = Clock()

    async def main() -> None:
        async with server(database, clock) as (base, lobby):
            code, tokens = await room_with_people(base, 2, name="Anna", players=2)
            room = lobby.rooms[code]
            async with RoomClient(base, code, tokens[1]) as ben:
                await wait_online(ben, [1])
                clock.advance(7 * HOUR)
                assert await lobby.sweep() == Swept()
            await until(lambda: not room.listeners)
            async with RoomClient(base, code, None) as watcher:  # a spectator is a client too
                await watcher.until(lambda state: True)
                clock.advance(7 * HOUR)
                assert await lobby.sweep() == Swept()
            await until(lambda: not room.listeners)
            left = clock.now
            clock.advance(6 * HOUR - MINUTE)
            assert await lobby.sweep() == Swept()
            assert lobby.rooms[code] is room
        clock.now = left + 6 * HOUR + MINUTE
        async with server(database, clock) as (base, lobby):
            assert code not in lobby.rooms
            await expired(base, code)

    asyncio.run(main())


def test_a_finished_match_expires_after_3_days_its_record_stays_30_days_after_it_finished(database: str) -> None:
    clock = Clock()

    async def main() -> None:
        async with server(database, clock) as (base, _):
            computer = [{"kind": "computer", "level": "easy"}]
            code, tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0, seats=computer)
            async with RoomClient(base, code, tokens[0]) as anna:
                await start(anna)
                end = await play_round(anna)
            assert end["room"]["status"] == "match_over"
            game = end["game"]["id"]
            record = (await get(base, f"/api/games/{game}/record")).json()
            replay = (await get(base, f"/api/games/{game}/replay")).json()
        finished = clock.now
        moves = len(record["moves"])
        assert counts(database) == {"rooms": 1, "seats": 2, "games": 1, "moves": moves}

        async def downloads(base: str) -> list[Any]:
            answers = [await get(base, f"/api/games/{game}/{what}") for what in ("record", "replay")]
            return [answer.json() if answer.status_code == 200 else answer.status_code for answer in answers]

        clock.now = finished + 3 * DAY - MINUTE
        async with server(database, clock) as (base, _):
            assert (await get(base, f"/api/rooms/{code}")).json()["status"] == "match_over"
        clock.now = finished + 3 * DAY + MINUTE
        async with server(database, clock) as (base, _):
            await expired(base, code)
            assert await downloads(base) == [record, replay]
        assert counts(database) == {"rooms": 1, "seats": 0, "games": 1, "moves": moves}
        room_expired = clock.now
        clock.now = finished + 30 * DAY - MINUTE
        async with server(database, clock) as (base, _):
            assert await downloads(base) == [record, replay]
        clock.now = finished + 30 * DAY + MINUTE
        async with server(database, clock) as (base, _):
            assert await downloads(base) == [404, 404]
            await expired(base, code)
        assert counts(database) == {"rooms": 1, "seats": 0, "games": 0, "moves": 0}
        clock.now = room_expired + 30 * DAY + MINUTE
        async with server(database, clock) as (base, _):
            assert (await get(base, f"/api/rooms/{code}")).status_code == 404
        assert counts(database) == dict.fromkeys(TABLES, 0)

    asyncio.run(main())


def test_an_abandoned_game_expires_after_3_days_its_moves_with_it(database: str) -> None:
    clock = Clock()

    async def main() -> None:
        # Nobody's turn is played for him for an hour (away), nor an only move within 5 s (pace): the game stays
        # where the people left it while each server below runs.
        async with server(database, clock) as (base, _):
            code, tokens = await room_with_people(base, 2, name="Anna", players=2, away=3600, pace=5)
            async with RoomClient(base, code, tokens[0]) as anna, RoomClient(base, code, tokens[1]) as ben:
                await wait_online(anna, [0, 1])
                await start(anna, ben)
                mover = (anna, ben)[anna.state["game"]["turn"]]
                await until(lambda: bool(mover.state and mover.state["view"]["legal"]))
                assert (await act(mover, mover.state["view"]["legal"][0]))["type"] == "state"
        left = clock.now
        assert count_rows(database, "moves") >= 1
        clock.now = left + 3 * DAY - MINUTE
        async with server(database, clock) as (base, lobby):
            assert lobby.rooms[code].status == "playing"
        clock.now = left + 3 * DAY + MINUTE
        async with server(database, clock) as (base, lobby):
            assert code not in lobby.rooms
            await expired(base, code)
        assert counts(database) == {"rooms": 1, "seats": 0, "games": 0, "moves": 0}

    asyncio.run(main())
