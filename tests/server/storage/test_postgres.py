"""What only the PostgreSQL store has: schema versions upgraded in place, a database that stops mid-write and
comes back, and two servers on one database of which exactly one gets a move."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import httpx
import psycopg
import pytest

from elferraus.cli.backup import database_problem
from elferraus.cli.main import main as cli
from elferraus.server.client import RoomClient
from elferraus.server.process.urls import shown
from elferraus.server.storage.pgschema import LATEST, MIGRATIONS, migrate
from elferraus.server.storage.postgres import PostgresStore
from elferraus.server.storage.store import open_store
from elferraus.server.storage.types import Finish, RoomRow, SeatRow, StoreError
from tests.support.postgres_helpers import PostgresServer, count_rows, query
from tests.support.server_helpers import chooser, look, room_with_people, send_move, start, wait_online
from tests.support.web_helpers import free_port, serving

SETTINGS = {"players": 2, "rules": "classic", "rounds": 1, "fill": "easy", "away": 60.0, "pace": 0.0}
DEAL = {"format": "elferraus/1", "rules": {"colors": "RYGB"}, "hands": [["R11"], ["Y11"]], "pile": []}
RESULT = {"winner": 0, "penalties": [0, 1]}


async def at_version(url: str, version: int) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
        await migrate(connection, url, version)


def version_one_rows(url: str, settings_text: str = json.dumps(SETTINGS)) -> None:
    """A database at schema version 1 with a room, its seats, a finished game and its moves, as version 1 wrote
    them (JSON as text)."""
    asyncio.run(at_version(url, 1))
    query(url, "INSERT INTO rooms VALUES ('ABCDEF', %s, 'match_over', 1.5)", settings_text)
    query(
        url,
        "INSERT INTO seats VALUES ('ABCDEF', 0, 'Anna', 'person', NULL, 'h0'), ('ABCDEF', 1, 'B', 'open', NULL, NULL)",
    )
    query(
        url,
        "INSERT INTO games (code, match_seed, round, deal, result) VALUES ('ABCDEF', 9, 1, %s, %s)",
        json.dumps(DEAL),
        json.dumps(RESULT),
    )
    query(url, "INSERT INTO moves VALUES (1, 0, '0 R11'), (1, 1, '1 Y11')")


def test_a_new_database_gets_the_newest_schema_and_a_second_opening_changes_nothing(postgres: PostgresServer) -> None:
    url = postgres.new_database()

    async def main() -> None:
        # two servers starting at once on a new database: one makes the tables, the other finds them made
        stores = await asyncio.gather(open_store(url), open_store(url))
        for store in stores:
            await store.close()

    asyncio.run(main())
    assert query(url, "SELECT version FROM schema_version") == [(LATEST,)]
    types = query(
        url,
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE column_name IN ('settings', 'deal', 'result') ORDER BY table_name, column_name",
    )
    assert types == [("games", "deal", "json"), ("games", "result", "json"), ("rooms", "settings", "json")]


def test_a_database_at_an_older_version_is_upgraded_in_place_with_its_rows(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    version_one_rows(url)
    assert query(url, "SELECT version FROM schema_version") == [(1,)]

    async def main() -> None:
        store = await open_store(url)
        try:
            (room,) = await store.rooms()
            assert isinstance(room, RoomRow)
            assert (room.code, room.settings, room.status) == ("ABCDEF", SETTINGS, "match_over")
            assert room.seats == [SeatRow(0, "Anna", "person", None, "h0"), SeatRow(1, "B", "open", None, None)]
            assert [(g.id, g.deal, g.moves, g.result) for g in room.games] == [(1, DEAL, ["0 R11", "1 Y11"], RESULT)]
            assert await store.record(1) == {**DEAL, "moves": ["0 R11", "1 Y11"], "result": RESULT}
            # and the upgraded database takes new rows
            await store.add_room("GHJKMN", SETTINGS, [])
            game = await store.start_game("GHJKMN", [], 3, 1, DEAL)
            assert game == 2
        finally:
            await store.close()

    asyncio.run(main())
    assert query(url, "SELECT version FROM schema_version") == [(LATEST,)]
    # the JSON kept its text, keys in their order, as records are downloaded
    assert query(url, "SELECT deal::text FROM games WHERE id = 1") == [(json.dumps(DEAL),)]


def test_an_upgrade_that_fails_keeps_the_database_as_it_was(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    version_one_rows(url, settings_text="{not json")
    before = query(url, "SELECT * FROM rooms")
    with pytest.raises(StoreError) as refusal:
        asyncio.run(open_store(url))
    assert "json" in refusal.value.reason.lower()
    assert query(url, "SELECT version FROM schema_version") == [(1,)]
    assert query(url, "SELECT * FROM rooms") == before
    assert query(url, "SELECT data_type FROM information_schema.columns WHERE column_name = 'deal'") == [("text",)]


def test_a_database_newer_than_the_server_is_refused(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    asyncio.run(at_version(url, LATEST))
    query(url, "UPDATE schema_version SET version = %s", LATEST + 1)
    with pytest.raises(StoreError) as refusal:
        asyncio.run(open_store(url))
    assert refusal.value.reason == f"the database's schema is version {LATEST + 1}, newer than this server's ({LATEST})"
    assert len(MIGRATIONS) == LATEST


@pytest.mark.timeout(120)
def test_postgres_stopped_mid_write_keeps_nothing_and_the_store_carries_on_after_a_restart(
    postgres: PostgresServer,
) -> None:
    url = postgres.new_database()

    async def main() -> None:
        store = await PostgresStore.open(url)
        try:
            await store.add_room("ABCDEF", SETTINGS, [SeatRow(0, "Anna", "person", None, "h0")])
            game = await store.start_game("ABCDEF", [], 5, 1, DEAL)
            await store.add_move(game, 0, "0 R11")
            # Another session holds the room's row, so the round's last move gets as far as its move and the
            # game's result, then waits for the room: PostgreSQL is stopped right there, mid-transaction.
            holder = await psycopg.AsyncConnection.connect(url, autocommit=True)
            try:
                await holder.execute("BEGIN")
                await holder.execute("SELECT * FROM rooms WHERE code = 'ABCDEF' FOR UPDATE")
                write = asyncio.ensure_future(store.add_move(game, 1, "1 Y11", Finish("ABCDEF", RESULT, "round_over")))
                waiting: list[tuple[object, ...]] = []
                deadline = time.monotonic() + 1.5
                while not waiting and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
                    waiting = query(url, "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                assert waiting, "the last move never got to wait for the room's row"
                await asyncio.to_thread(postgres.stop, "immediate")
                with pytest.raises(StoreError):
                    await write
            finally:
                await holder.close()  # its connection is gone with the server: closed, not committed
            started = time.monotonic()
            with pytest.raises(StoreError):  # while it is down, every call is refused in words, soon
                await store.rooms()
            assert time.monotonic() - started < 10
            await asyncio.to_thread(postgres.start)
            # nothing of the interrupted move was kept
            assert query(url, "SELECT n, text FROM moves ORDER BY n") == [(0, "0 R11")]
            assert query(url, "SELECT result, finished FROM games") == [(None, None)]
            assert query(url, "SELECT status FROM rooms") == [("playing",)]
            # the same store carries on: the move sent again is stored, with its result
            await store.add_move(game, 1, "1 Y11", Finish("ABCDEF", RESULT, "round_over"))
            assert await store.record(game) == {**DEAL, "moves": ["0 R11", "1 Y11"], "result": RESULT}
            (room,) = await store.rooms()
            assert isinstance(room, RoomRow)
            assert room.status == "round_over"
        finally:
            await store.close()

    asyncio.run(main())


@pytest.mark.timeout(90)
def test_two_servers_on_one_database_exactly_one_takes_a_move_the_other_answers_stale(
    postgres: PostgresServer,
) -> None:
    url = postgres.new_database()

    async def main() -> None:
        async with serving(url) as first:
            code, tokens = await room_with_people(first, 2, name="Anna", players=2, pace=5)
            async with RoomClient(first, code, tokens[0]) as anna, RoomClient(first, code, tokens[1]) as ben:
                await wait_online(anna, [0, 1])
                await start(anna, ben)
                mover = await chooser([anna, ben], only_moves=True)  # a person with a choice of moves
                here = mover.state
                legal = here["view"]["legal"]
                assert len(legal) >= 2
                # the second server starts once the game is stored, and loads it
                async with serving(url) as second, RoomClient(second, code, tokens[[anna, ben].index(mover)]) as again:
                    there = await again.until(lambda s: s["game"] is not None)
                    assert there["game"]["moves"] == here["game"]["moves"]
                    assert there["view"]["legal"] == legal
                    # each server is sent another move of the same moment, both at once
                    await asyncio.gather(
                        send_move(mover, legal[0], here["seq"]), send_move(again, legal[-1], there["seq"])
                    )
                    await asyncio.gather(
                        mover.until(lambda s: s["seq"] > here["seq"] or bool(mover.errors), 10),
                        again.until(lambda s: s["seq"] > there["seq"] or bool(again.errors), 10),
                    )
                    refused = [client for client in (mover, again) if client.errors]
                    assert len(refused) == 1, (mover.errors, again.errors)
                    assert [error["code"] for error in refused[0].errors] == ["stale"]
                    winner, base = (mover, first) if refused[0] is again else (again, second)
                    moves = winner.state["game"]["moves"]
                    assert moves[:-1] == here["game"]["moves"]
                    assert moves[-1] == f"{here['view']['seat']} {legal[0] if winner is mover else legal[-1]}"
                    assert (await look(base, code))["game"]["moves"] == moves
                    assert refused[0].state["game"]["moves"] == here["game"]["moves"]  # the loser kept nothing
        assert count_rows(url, "moves") == len(moves)

    asyncio.run(main())


def test_serve_refuses_a_database_it_cannot_reach_in_one_line_without_the_password(
    postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://postgres:s3cret@127.0.0.1:{postgres.port}/no_such_database"
    assert cli(["serve", "--db", url]) == 2
    error = capsys.readouterr().err
    assert error.startswith(
        f"elferraus serve: cannot use the database postgresql://postgres:***@127.0.0.1:{postgres.port}/"
    )
    assert "no_such_database" in error
    assert "s3cret" not in error
    assert error.count("\n") == 1


def _foreign_rooms(url: str) -> None:
    query(url, "CREATE TABLE rooms (id serial PRIMARY KEY, name text)")


def _a_column_dropped(url: str) -> None:
    asyncio.run(at_version(url, LATEST))
    query(url, "ALTER TABLE moves DROP COLUMN text")


def _another_tools_schema_version(url: str) -> None:
    query(url, "CREATE TABLE schema_version (installed_rank integer, version varchar(50), description text)")
    query(url, "INSERT INTO schema_version VALUES (1, '1.1', 'init')")


def _no_schema_version(url: str) -> None:
    asyncio.run(at_version(url, LATEST))
    query(url, "DROP TABLE schema_version")


FOREIGN_TABLES = {
    "a foreign rooms table": (_foreign_rooms, "the table 'rooms'"),
    "the server's tables, a column dropped": (_a_column_dropped, "the table 'moves'"),
    "another tool's schema_version": (_another_tools_schema_version, "the table 'schema_version'"),
    "the server's tables without its schema_version": (_no_schema_version, "the table 'rooms' is there"),
}


@pytest.mark.parametrize("name", FOREIGN_TABLES)
def test_serve_refuses_a_database_whose_tables_are_not_its_own_in_one_line_and_changes_nothing(
    name: str, postgres: PostgresServer
) -> None:
    url = postgres.new_database()
    make, named = FOREIGN_TABLES[name]
    make(url)
    columns = "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'"
    before = sorted(query(url, columns))
    problem = database_problem(url)
    assert problem is not None
    assert problem.startswith(f"elferraus serve: cannot use the database {url}: "), problem
    assert named in problem, problem
    assert "\n" not in problem
    assert sorted(query(url, columns)) == before


@pytest.mark.parametrize(
    ("url", "printed"),
    [
        ("postgresql://u:pw@db.example:5432/games", "postgresql://u:***@db.example:5432/games"),
        ("postgresql://u:p%40ss@[::1]/games?sslmode=require", "postgresql://u:***@[::1]/games?sslmode=require"),
        ("postgresql://u@localhost/games", "postgresql://u@localhost/games"),
        ("postgres:///games?host=/run/postgresql", "postgres:///games?host=/run/postgresql"),
    ],
)
def test_a_url_is_shown_without_its_password(url: str, printed: str) -> None:
    assert shown(url) == printed


@pytest.mark.timeout(60)
def test_serve_on_postgres_says_so_without_the_password(postgres: PostgresServer) -> None:
    url = postgres.new_database().replace("postgres@", "postgres:s3cret@")  # the tests' server trusts any password
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "elferraus.cli.main", "serve", "--port", str(port), "--db", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first == f"elferraus: open http://127.0.0.1:{port}/ (database {shown(url)}; Ctrl+C stops)\n"
        assert "s3cret" not in first
        made = httpx.post(f"http://127.0.0.1:{port}/api/rooms", json={"name": "Anna"}, timeout=10)
        assert made.status_code == 201
        assert query(url, "SELECT code FROM rooms") == [(made.json()["code"],)]
    finally:
        server.terminate()
        server.communicate(timeout=20)
