"""The ``Store`` interface, the same scenarios on each store: SQLite and a real PostgreSQL (``database``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from elferraus.server.rooms.settings import hash_token
from elferraus.server.storage.store import Store, open_store
from elferraus.server.storage.types import Finish, MoveTakenError, RoomRow, SeatRow, StoreError
from tests.support.postgres_helpers import count_rows

SETTINGS = {"players": 2, "rules": "classic", "rounds": 1, "fill": "easy", "away": 60.0, "pace": 0.0}
DEAL = {"format": "elferraus/1", "rules": {"colors": "RYGB"}, "hands": [["R11"], ["Y11"]], "pile": []}
RESULT = {"winner": 0, "penalties": [0, 1]}


def seats() -> list[SeatRow]:
    return [SeatRow(0, "Anna", "person", None, hash_token("t0")), SeatRow(1, "", "open", None, None)]


def run(database: str, scenario: Callable[[Store], Awaitable[None]]) -> None:
    """Run ``scenario`` on a store opened on ``database``, closed after."""

    async def main() -> None:
        store = await open_store(database)
        try:
            await scenario(store)
        finally:
            await store.close()

    asyncio.run(main())


async def only_room(store: Store) -> RoomRow:
    (room,) = await store.rooms()
    assert isinstance(room, RoomRow)
    return room


def test_a_new_room_and_its_seats(database: str) -> None:
    async def scenario(store: Store) -> None:
        assert not await store.code_exists("ABCDEF")
        await store.add_room("ABCDEF", SETTINGS, seats())
        assert await store.code_exists("ABCDEF")
        assert not await store.code_exists("abcdef")
        room = await only_room(store)
        assert (room.code, room.settings, room.status, room.seats, room.games) == (
            "ABCDEF",
            SETTINGS,
            "waiting",
            seats(),
            [],
        )
        await store.update_seat("ABCDEF", SeatRow(1, "Ben", "person", None, hash_token("t1")))
        assert (await only_room(store)).seats[1] == SeatRow(1, "Ben", "person", None, hash_token("t1"))

    run(database, scenario)


def test_a_room_code_is_stored_once_and_a_refusal_keeps_nothing(database: str) -> None:
    async def scenario(store: Store) -> None:
        await store.add_room("ABCDEF", SETTINGS, seats())
        with pytest.raises(StoreError):
            await store.add_room("ABCDEF", {**SETTINGS, "players": 3}, [*seats(), SeatRow(2, "", "open", None, None)])
        # the refused room left nothing half-done (not its settings, not its third seat), and the store still writes
        room = await only_room(store)
        assert (room.settings, room.seats) == (SETTINGS, seats())
        await store.add_room("GHJKMN", SETTINGS, [])
        assert [room.code for room in await store.rooms()] == ["ABCDEF", "GHJKMN"]

    run(database, scenario)


def test_games_moves_and_records(database: str) -> None:
    async def scenario(store: Store) -> None:
        await store.add_room("ABCDEF", SETTINGS, seats())
        joined = SeatRow(1, "Computer 2", "computer", "easy", None)
        game = await store.start_game("ABCDEF", [joined], 42, 1, DEAL)
        room = await only_room(store)
        assert (room.status, room.seats[1]) == ("playing", joined)
        await store.add_move(game, 0, "0 R11")
        await store.add_move(game, 0, "0 R11")  # the very same move again: confirmed, not doubled
        assert await store.record(game) is None  # not finished yet
        assert await store.record(999) is None
        await store.add_move(game, 1, "1 Y11", Finish("ABCDEF", RESULT, "match_over"))
        assert await store.record(game) == {**DEAL, "moves": ["0 R11", "1 Y11"], "result": RESULT}
        room = await only_room(store)
        assert room.status == "match_over"
        assert [(g.id, g.match_seed, g.round, g.deal, g.moves, g.result) for g in room.games] == [
            (game, 42, 1, DEAL, ["0 R11", "1 Y11"], RESULT)
        ]

    run(database, scenario)


@pytest.mark.parametrize(
    ("write", "taken"),
    [
        (lambda store, game: store.add_move(game, 0, "0 draw"), True),  # another move under a stored number
        (lambda store, game: store.add_move(game, 0, "0 draw", Finish("ABCDEF", RESULT, "round_over")), True),
        (lambda store, game: store.add_move(game + 99, 0, "0 R11"), False),  # no such game
        (lambda store, game: store.start_game("ZZZZZZ", [], 1, 1, DEAL), False),  # no such room
        (lambda store, game: store.add_room("ABCDEF", SETTINGS, []), False),  # the code is taken
    ],
    ids=["other-move", "other-last-move", "no-game", "no-room", "same-code"],
)
def test_a_refused_write_keeps_nothing(database: str, write: Any, taken: bool) -> None:
    async def scenario(store: Store) -> None:
        await store.add_room("ABCDEF", SETTINGS, seats())
        game = await store.start_game("ABCDEF", [], 7, 1, DEAL)
        await store.add_move(game, 0, "0 R11")
        before = await store.rooms()
        with pytest.raises(StoreError) as refusal:
            await write(store, game)
        assert isinstance(refusal.value, MoveTakenError) is taken
        assert await store.rooms() == before
        assert await store.record(game) is None
        # the store writes on
        await store.add_move(game, 1, "1 Y11")
        assert (await only_room(store)).games[0].moves == ["0 R11", "1 Y11"]

    run(database, scenario)
    assert count_rows(database, "games") == 1


def test_only_the_latest_match_is_loaded(database: str) -> None:
    async def scenario(store: Store) -> None:
        await store.add_room("ABCDEF", SETTINGS, seats())
        old = []
        for round_number in (1, 2):
            game = await store.start_game("ABCDEF", [], 1, round_number, DEAL)
            await store.add_move(game, 0, "0 R11", Finish("ABCDEF", RESULT, "round_over"))
            old.append(game)
        new = await store.start_game("ABCDEF", [], 2, 1, DEAL)
        room = await only_room(store)
        assert [g.id for g in room.games] == [new]
        # the earlier match's records stay downloadable
        assert [await store.record(game) for game in old] == [{**DEAL, "moves": ["0 R11"], "result": RESULT}] * 2

    run(database, scenario)


def test_everything_survives_closing_and_reopening(database: str) -> None:
    before: list[Any] = []

    async def write(store: Store) -> None:
        await store.add_room("ABCDEF", SETTINGS, seats())
        await store.add_room("GHJKMN", {**SETTINGS, "players": 3}, [])
        game = await store.start_game("ABCDEF", [], 7, 1, DEAL)
        await store.add_move(game, 0, "0 R11")
        before.extend(await store.rooms())

    async def read(store: Store) -> None:
        assert await store.rooms() == before
        assert await store.code_exists("GHJKMN")

    run(database, write)
    # a reader of its own sees the committed move (it is committed before anyone is told)
    assert count_rows(database, "moves") == 1
    run(database, read)


def test_two_writers_of_the_same_move_exactly_one_wins(database: str) -> None:
    """Two stores on one database (as two server processes): for each move number both write at once, each its
    own move; the database's key lets exactly one of them keep it, and the other hears ``MoveTakenError``."""

    async def main() -> None:
        first, second = await open_store(database), await open_store(database)
        try:
            await first.add_room("ABCDEF", SETTINGS, seats())
            game = await first.start_game("ABCDEF", [], 7, 1, DEAL)
            winners = []
            for number in range(30):
                outcomes = await asyncio.gather(
                    first.add_move(game, number, f"{number % 2} A"),
                    second.add_move(game, number, f"{number % 2} B"),
                    return_exceptions=True,
                )
                assert sorted(type(outcome).__name__ for outcome in outcomes) == ["MoveTakenError", "NoneType"]
                winners.append("AB"[outcomes.index(None)])
            moves = (await only_room(second)).games[0].moves
            assert moves == [f"{number % 2} {winner}" for number, winner in enumerate(winners)]
        finally:
            await first.close()
            await second.close()

    asyncio.run(main())
    assert count_rows(database, "moves") == 30
