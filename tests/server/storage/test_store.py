"""What the server keeps in SQLite, and everything that comes back after a restart (on either store)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from elferraus.record import read_record
from elferraus.server.client import RoomClient, ServerError, join_room
from elferraus.server.rooms.settings import hash_token
from elferraus.server.storage.sqlite import SCHEMA, SqliteDatabase
from elferraus.server.storage.types import SeatRow
from tests.support.postgres_helpers import count_rows
from tests.support.server_helpers import act, get, look, play_round, raw, room_with_people, start, wait_online
from tests.support.web_helpers import serving

SETTINGS = {"players": 2, "rules": "classic", "rounds": 1, "fill": "easy", "away": 60.0, "pace": 0.0}
DEAL = {"format": "elferraus/1", "rules": {"colors": "RYGB"}, "hands": [["R11"], ["Y11"]], "pile": []}

# -- the store itself ---------------------------------------------------------------


def seats() -> list[SeatRow]:
    return [SeatRow(0, "Anna", "person", None, hash_token("t0")), SeatRow(1, "", "open", None, None)]


def test_a_new_room_and_its_seats(tmp_path: Path) -> None:
    store = SqliteDatabase(str(tmp_path / "rooms.db"))
    assert not store.code_exists("ABCDEF")
    store.add_room("ABCDEF", SETTINGS, seats())
    assert store.code_exists("ABCDEF")
    assert not store.code_exists("abcdef")
    (room,) = store.rooms()
    assert room.code == "ABCDEF"
    assert room.settings == SETTINGS
    assert room.status == "waiting"
    assert room.seats == seats()
    assert room.games == []
    store.update_seat("ABCDEF", SeatRow(1, "Ben", "person", None, hash_token("t1")))
    store.set_status("ABCDEF", "playing")
    (room,) = store.rooms()
    assert room.seats[1] == SeatRow(1, "Ben", "person", None, hash_token("t1"))
    assert room.status == "playing"
    store.close()


def test_a_room_code_is_stored_once(tmp_path: Path) -> None:
    store = SqliteDatabase(str(tmp_path / "rooms.db"))
    store.add_room("ABCDEF", SETTINGS, seats())
    with pytest.raises(sqlite3.IntegrityError):
        store.add_room("ABCDEF", SETTINGS, seats())
    # the failed transaction left nothing half-done, and the store still writes
    (room,) = store.rooms()
    assert room.seats == seats()
    store.add_room("GHJKMN", SETTINGS, [])
    assert [room.code for room in store.rooms()] == ["ABCDEF", "GHJKMN"]
    store.close()


def test_games_moves_and_records(tmp_path: Path) -> None:
    store = SqliteDatabase(str(tmp_path / "rooms.db"))
    store.add_room("ABCDEF", SETTINGS, seats())
    game = store.add_game("ABCDEF", 42, 1, DEAL)
    other = store.add_game("ABCDEF", 42, 2, DEAL)
    assert other != game
    store.add_move(game, 1, "1 Y11")
    store.add_move(game, 0, "0 R11")
    assert store.record(game) is None  # not finished yet
    assert store.record(999) is None
    (room,) = store.rooms()
    assert [(g.id, g.match_seed, g.round, g.moves, g.result) for g in room.games] == [
        (game, 42, 1, ["0 R11", "1 Y11"], None),
        (other, 42, 2, [], None),
    ]
    assert room.games[0].deal == DEAL
    store.finish_game(game, {"winner": 0, "penalties": [0, 1]})
    assert store.record(game) == {**DEAL, "moves": ["0 R11", "1 Y11"], "result": {"winner": 0, "penalties": [0, 1]}}
    with pytest.raises(sqlite3.IntegrityError):
        store.add_move(game, 1, "1 draw")
    with pytest.raises(sqlite3.IntegrityError):
        store.add_move(12345, 0, "0 R11")  # no such game
    with pytest.raises(sqlite3.IntegrityError):
        store.add_game("ZZZZZZ", 1, 1, DEAL)  # no such room
    assert store.record(game)["moves"] == ["0 R11", "1 Y11"]
    store.close()


def test_only_the_latest_match_is_loaded(tmp_path: Path) -> None:
    store = SqliteDatabase(str(tmp_path / "rooms.db"))
    store.add_room("ABCDEF", SETTINGS, seats())
    old = [store.add_game("ABCDEF", 1, 1, DEAL), store.add_game("ABCDEF", 1, 2, DEAL)]
    for game in old:
        store.finish_game(game, {"winner": 0, "penalties": [0, 3]})
    new = store.add_game("ABCDEF", 2, 1, DEAL)
    (room,) = store.rooms()
    assert [g.id for g in room.games] == [new]
    # the earlier match's records stay downloadable
    assert all(store.record(game) is not None for game in old)
    store.close()


@pytest.mark.parametrize(
    ("name", "script"),
    [
        ("a column a later upgrade adds", SCHEMA + "ALTER TABLE rooms ADD COLUMN later TEXT;"),
        ("its tables half made (stopped while making them)", SCHEMA.split("CREATE TABLE IF NOT EXISTS games")[0]),
        ("a new, empty file", ""),
    ],
)
def test_a_database_of_the_server_is_taken_as_one(name: str, script: str, tmp_path: Path) -> None:
    path = tmp_path / "rooms.db"
    path.touch()
    with contextlib.closing(sqlite3.connect(path)) as made:
        made.executescript(script)
    store = SqliteDatabase(str(path))
    store.add_room("ABCDEF", SETTINGS, seats())
    assert [room.code for room in store.rooms()] == ["ABCDEF"], name
    store.close()


def test_everything_survives_closing_and_reopening(tmp_path: Path) -> None:
    path = str(tmp_path / "rooms.db")
    store = SqliteDatabase(path)
    assert store._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    store.add_room("ABCDEF", SETTINGS, seats())
    game = store.add_game("ABCDEF", 7, 1, DEAL)
    store.add_move(game, 0, "0 R11")
    before = list(store.rooms())
    # a second reader sees the committed move at once (it is committed before anyone is told)
    with contextlib.closing(sqlite3.connect(path)) as reader:
        assert reader.execute("SELECT text FROM moves WHERE game = ?", (game,)).fetchall() == [("0 R11",)]
    store.close()
    again = SqliteDatabase(path)
    assert list(again.rooms()) == before
    assert again.code_exists("ABCDEF")
    again.close()


# -- restarting the server ----------------------------------------------------------------


def position(state: dict[str, Any]) -> dict[str, Any]:
    """What a seat sees of the game, without the seq (which starts again after a restart)."""
    view = state["view"]
    keys = ("seat", "hand", "hand_counts", "pile", "rows", "turn", "laid", "drawn", "draws", "moves", "legal")
    return {"view": {key: view[key] for key in keys}, "game": dict(state["game"])}


def room_of(state: dict[str, Any]) -> dict[str, Any]:
    """The room without who happens to be connected."""
    room = dict(state["room"])
    room["seats"] = [{k: v for k, v in seat.items() if k != "online"} for seat in room["seats"]]
    return room


@pytest.mark.timeout(60)
def test_a_game_in_progress_comes_back_after_a_restart(database: str) -> None:
    db = database

    async def main() -> None:
        async with serving(db) as base:
            # The people make every move themselves, their only ones too, before the table would (pace 5 s).
            code, tokens = await room_with_people(base, 2, name="Anna", players=2, pace=5)
            async with RoomClient(base, code, tokens[0]) as anna, RoomClient(base, code, tokens[1], "de") as ben:
                clients = [anna, ben]
                await wait_online(anna, [0, 1])
                await start(anna, ben)
                for _ in range(9):
                    mover = clients[anna.state["game"]["turn"]]
                    assert (await act(mover, mover.state["view"]["legal"][0]))["type"] == "state"
                    for client in clients:
                        await client.until(lambda s, n=mover.state["seq"]: s["seq"] >= n)
                seen = [position(client.state) for client in clients]
                room = room_of(anna.state)
                assert len(seen[0]["game"]["moves"]) == 9
        async with serving(db) as base:
            shown = (await get(base, f"/api/rooms/{code}")).json()
            assert shown["status"] == "playing"
            assert [seat["online"] for seat in shown["seats"]] == [False, False]
            async with RoomClient(base, code, tokens[0]) as anna, RoomClient(base, code, tokens[1], "de") as ben:
                clients = [anna, ben]
                await wait_online(anna, [0, 1])
                await wait_online(ben, [0, 1])
                assert [position(client.state) for client in clients] == seen
                assert room_of(anna.state) == room
                # the game goes on from there
                mover = clients[anna.state["game"]["turn"]]
                move = mover.state["view"]["legal"][0]
                answer = await act(mover, move)
                assert answer["type"] == "state"
                assert answer["game"]["moves"][:9] == seen[0]["game"]["moves"]
                assert len(answer["game"]["moves"]) == 10
            # a wrong token is still wrong; the seats are still taken
            async with raw(base, code, {"type": "hello", "token": tokens[0] + "x"}) as client:
                assert await client.until_closed() == 1008
                assert client.frames[0]["code"] == "bad_token"
            with pytest.raises(ServerError) as refusal:
                await join_room(base, code, 1, "Carl")
            assert refusal.value.status == 409
        assert count_rows(db, "moves") == 10

    asyncio.run(main())


def test_a_waiting_room_comes_back_waiting(database: str) -> None:
    db = database

    async def main() -> None:
        async with serving(db) as base:
            code, tokens = await room_with_people(
                base, 1, name="Anna", players=3, pace=0, seats=[{"kind": "open"}, {"kind": "computer", "level": "easy"}]
            )
            before = await look(base, code)
        async with serving(db) as base:
            after = await look(base, code)
            assert room_of(after) == room_of(before)
            assert after["room"]["status"] == "waiting"
            joined = await join_room(base, code, 1, "Ben")
            async with RoomClient(base, code, tokens[0]) as anna, RoomClient(base, code, joined["token"]) as ben:
                await wait_online(anna, [0, 1])
                await start(anna, ben)
                assert anna.state["view"]["seat"] == 0
                assert ben.state["view"]["seat"] == 1

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_finished_rounds_and_the_computers_come_back_after_restarts(database: str) -> None:
    db = database

    async def main() -> None:
        async with serving(db) as base:
            code, tokens = await room_with_people(
                base, 1, name="Anna", players=2, rounds=2, pace=0, seats=[{"kind": "computer", "level": "easy"}]
            )
            async with RoomClient(base, code, tokens[0]) as anna:
                await start(anna)
                first = await play_round(anna)
            assert first["room"]["status"] == "round_over"
            first_id = first["game"]["id"]
            record = (await get(base, f"/api/games/{first_id}/record")).json()
        async with serving(db) as base:
            answer = await get(base, f"/api/games/{first_id}/record")
            assert answer.status_code == 200
            assert answer.json() == record
            assert read_record(record).penalties() == first["room"]["scores"][0]
            async with RoomClient(base, code, tokens[0]) as anna:
                state = await anna.until(lambda s: s["room"]["seats"][0]["online"])
                assert room_of(state) == room_of(first)
                assert state["room"]["status"] == "round_over"
                assert state["room"]["scores"] == first["room"]["scores"]
                assert state["game"]["result"] == first["game"]["result"]
                await anna.send({"type": "next"})
                second = await anna.until(lambda s: s["room"]["status"] == "playing")
                assert second["room"]["round"] == 2
                # play until the computer has moved at least once in round 2
                while not any(move.startswith("1 ") for move in anna.state["game"]["moves"]):
                    if anna.state["view"]["legal"]:
                        await act(anna, anna.state["view"]["legal"][0])
                    else:
                        await anna.until(lambda s: bool(s["view"]["legal"]) or s["room"]["status"] != "playing")
                assert anna.state["room"]["status"] == "playing"
                made = anna.state["game"]["moves"]
        async with serving(db) as base:
            async with RoomClient(base, code, tokens[0]) as anna:
                state = await anna.until(lambda s: s["room"]["seats"][0]["online"])
                assert state["game"]["moves"][: len(made)] == made
                assert state["room"]["round"] == 2
                # the computer plays again after the restart: the round can be finished
                end = await play_round(anna)
            assert end["room"]["status"] == "match_over"
            scores = end["room"]["scores"]
            assert scores[0] == first["room"]["scores"][0]
            assert end["room"]["totals"] == [a + b for a, b in zip(*scores, strict=True)]
            assert any(move.startswith("1 ") for move in end["game"]["moves"][len(made) :])
            final = (await get(base, f"/api/games/{end['game']['id']}/record")).json()
            assert read_record(final).penalties() == scores[1]
            public = [" ".join(move.split()[:2]) if " draw " in move else move for move in final["moves"]]
            assert public[: len(made)] == made

    asyncio.run(main())
