"""Quick reactions at a table: sent by id over the WebSocket, told to everybody, limited, never stored.

Every test talks to ``elferraus serve`` in a subprocess (one per module); each makes its own room of
three people (Anna in English, Ben and Cleo in German) and a spectator, with a pace so slow that
nothing moves unless a test moves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from elferraus.i18n import tr
from elferraus.server.client import RoomClient
from elferraus.server.rooms.reactions import REACTION_BURST, REACTION_INTERVAL, REACTIONS
from tests.support.limit_helpers import close_all, flood_reactions
from tests.support.server_helpers import (
    CARD_TOKEN,
    OVER,
    game_of,
    look,
    play_round,
    room_with_people,
    start,
    wait_online,
)
from tests.support.web_helpers import ServerProcess

SLOW = 5.0
"""The rooms' pace: the table makes a person's only move after 5 s, long after every check here."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("reactions") / "games.sqlite3")
    running.start()
    try:
        yield running
    finally:
        running.stop()


@dataclass
class Table:
    base: str
    code: str
    tokens: list[str]
    people: list[RoomClient]
    spectator: RoomClient

    @property
    def everybody(self) -> list[RoomClient]:
        return [*self.people, self.spectator]


@contextlib.asynccontextmanager
async def table_of_three(base: str, *, started: bool = True) -> AsyncIterator[Table]:
    code, tokens = await room_with_people(base, 3, name="Anna", players=3, pace=SLOW)
    async with (
        RoomClient(base, code, tokens[0], "en") as anna,
        RoomClient(base, code, tokens[1], "de") as ben,
        RoomClient(base, code, tokens[2], "de") as cleo,
        RoomClient(base, code, None, "en") as spectator,
    ):
        await wait_online(anna, [0, 1, 2])
        if started:
            await start(anna, ben, cleo, spectator)
        for client in (ben, cleo, spectator):
            await client.until(lambda state: state["seq"] >= anna.state["seq"] if anna.state else False, 10)
        yield Table(base, code, tokens, [anna, ben, cleo], spectator)


async def next_reaction(client: RoomClient, timeout: float = 5) -> dict[str, Any]:
    """The next ``reaction`` frame this client receives (states in between are taken as usual)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        message = await client.receive(max(0.01, deadline - loop.time()))
        if message["type"] == "reaction":
            return message


async def next_error(client: RoomClient, timeout: float = 5) -> dict[str, Any]:
    """The next ``error`` frame this client receives."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    errors = len(client.errors)
    while len(client.errors) == errors:
        await client.receive(max(0.01, deadline - loop.time()))
    return client.errors[errors]


async def nothing_more(client: RoomClient, wait: float = 0.4) -> list[dict[str, Any]]:
    """The frames that arrive within ``wait`` seconds (none, when nothing happened)."""
    frames = []
    with contextlib.suppress(TimeoutError):
        while True:
            frames.append(await client.receive(wait))
    return frames


# -- accepted -----------------------------------------------------------------------


@pytest.mark.parametrize("reaction", REACTIONS)
def test_a_reaction_reaches_everybody_at_the_table_and_changes_nothing(server: ServerProcess, reaction: str) -> None:
    async def main() -> None:
        async with table_of_three(server.base) as table:
            ben = table.people[1]
            before = await look(table.base, table.code)
            await ben.send({"type": "react", "reaction": reaction})
            expected = {"type": "reaction", "seat": 1, "reaction": reaction}
            for client in table.everybody:  # the sender sees his own too: it is his answer
                assert await next_reaction(client) == expected
            after = await look(table.base, table.code)
            assert after["seq"] == before["seq"], "a reaction is no change of the room"
            assert game_of(after) == game_of(before)
            assert after["room"] == before["room"]
            assert not any(client.errors for client in table.everybody)

    asyncio.run(main())


def test_the_other_seats_are_told_who_reacted_and_nothing_else(server: ServerProcess) -> None:
    """Each reaction frame names the sender's seat and the reaction's id: no card, no name, no text."""

    async def main() -> None:
        async with table_of_three(server.base) as table:
            for seat, reaction in [(0, "well_played"), (2, "oops"), (1, "party"), (0, "thumbs_up")]:
                await table.people[seat].send({"type": "react", "reaction": reaction})
                for client in table.everybody:
                    told = await next_reaction(client)
                    assert told == {"type": "reaction", "seat": seat, "reaction": reaction}
            frames = [
                text for client in table.everybody for text in client.received if json.loads(text)["type"] == "reaction"
            ]
            assert len(frames) == 4 * len(table.everybody)
            assert not [text for text in frames if CARD_TOKEN.search(text)]
            assert all(set(json.loads(text)) == {"type", "seat", "reaction"} for text in frames)

    asyncio.run(main())


# -- refused ----------------------------------------------------------------------

REFUSED_IDS: list[object] = [
    "hello",
    "Well played",
    "THANKS",
    "thanks ",
    "",
    "<img src=x onerror=alert(1)>",
    "R12",
    "x" * 300,
    "👍",
    5,
    None,
    True,
    ["thanks"],
    {"id": "thanks"},
]


def test_anything_but_a_reaction_id_is_refused_with_a_clear_answer(server: ServerProcess) -> None:
    """Every refused id is answered (``unknown_reaction``, in the sender's language, naming the field) and
    told to nobody; none counts as a bad frame, so the connection stays open past five of them."""

    async def main() -> None:
        async with table_of_three(server.base) as table:
            anna, ben, _cleo = table.people
            frames: list[dict[str, Any]] = [{"type": "react", "reaction": value} for value in REFUSED_IDS]
            frames.append({"type": "react"})
            for frame in frames:
                await ben.send(frame)
                error = await next_error(ben)
                assert error["code"] == "unknown_reaction", (frame, error)
                assert error["field"] == "reaction"
                words = tr("web_error_unknown_reaction", "de", reactions=", ".join(REACTIONS))
                assert error["message"] == words
            for client in (anna, table.spectator):
                assert [f for f in await nothing_more(client) if f["type"] == "reaction"] == []
            await ben.send({"type": "react", "reaction": "thanks"})
            assert await next_reaction(anna) == {"type": "reaction", "seat": 1, "reaction": "thanks"}

    asyncio.run(main())


def test_a_spectator_may_not_react(server: ServerProcess) -> None:
    async def main() -> None:
        async with table_of_three(server.base) as table:
            spectator = table.spectator
            await spectator.send({"type": "react", "reaction": "thanks"})
            error = await next_error(spectator)
            assert error["code"] == "not_a_player"
            assert error["message"] == tr("web_error_react_watching", "en")
            for client in table.people:
                assert [f for f in await nothing_more(client) if f["type"] == "reaction"] == []

    asyncio.run(main())


def test_no_reactions_before_the_game_starts(server: ServerProcess) -> None:
    async def main() -> None:
        async with table_of_three(server.base, started=False) as table:
            ben = table.people[1]
            await ben.send({"type": "react", "reaction": "hurry"})
            error = await next_error(ben)
            assert error["code"] == "wrong_status"
            assert error["message"] == tr("web_error_react_waiting", "de")
            assert [f for f in await nothing_more(table.people[0]) if f["type"] == "reaction"] == []

    asyncio.run(main())


# -- the rate limit ------------------------------------------------------------------


def test_reactions_past_the_limit_are_refused_not_dropped_and_the_connection_stays(server: ServerProcess) -> None:
    """A connection may send REACTION_BURST reactions at once, then one every REACTION_INTERVAL seconds;
    each one over is answered ``too_many_reactions`` (in the sender's language) and told to nobody."""

    async def main() -> None:
        async with table_of_three(server.base) as table:
            anna, ben, _cleo = table.people
            for _ in range(REACTION_BURST + 2):
                await ben.send({"type": "react", "reaction": "hurry"})
            told = [await next_reaction(anna) for _ in range(REACTION_BURST)]
            assert told == [{"type": "reaction", "seat": 1, "reaction": "hurry"}] * REACTION_BURST
            assert [f for f in await nothing_more(anna) if f["type"] == "reaction"] == []
            await nothing_more(ben)
            refusals = [error for error in ben.errors if error["code"] == "too_many_reactions"]
            assert len(refusals) == 2, ben.errors
            words = tr("web_error_too_many_reactions", "de", seconds=f"{REACTION_INTERVAL:g}", burst=REACTION_BURST)
            assert {error["message"] for error in refusals} == {words}
            # another connection has its own allowance; this one gets one back after the interval
            await anna.send({"type": "react", "reaction": "thanks"})
            assert await next_reaction(ben) == {"type": "reaction", "seat": 0, "reaction": "thanks"}
            assert await next_reaction(anna) == {"type": "reaction", "seat": 0, "reaction": "thanks"}
            await asyncio.sleep(REACTION_INTERVAL + 0.1)
            await ben.send({"type": "react", "reaction": "oops"})
            assert await next_reaction(anna) == {"type": "reaction", "seat": 1, "reaction": "oops"}
            await ben.send({"type": "ping"})
            assert {"type": "pong"} in await nothing_more(ben)

    asyncio.run(main())


SEAT_CONNECTIONS = 60
"""Connections of one seat in the flood below: far fewer than an address may open (128)."""


def test_a_seats_reactions_are_limited_across_all_its_connections(server: ServerProcess) -> None:
    """60 connections of one seat, each sending as fast as its own connection may: the others are told at
    most REACTION_BURST reactions plus one per REACTION_INTERVAL of the flood, as from one connection."""

    async def main() -> None:
        code, tokens = await room_with_people(server.base, 2, name="Anna", players=2, pace=SLOW)
        bens = [RoomClient(server.base, code, tokens[1], "de") for _ in range(SEAT_CONNECTIONS)]
        async with RoomClient(server.base, code, tokens[0], "en") as anna, bens[0]:
            await wait_online(anna, [0, 1])
            await start(anna, bens[0])
            try:
                for ben in bens[1:]:
                    await ben.__aenter__()
                for ben in bens:
                    await ben.until(lambda state: state["game"] is not None, 10)
                flood = await flood_reactions(bens, 1, anna, seconds=3 * REACTION_INTERVAL)
            finally:
                await close_all(bens)
        flood.assert_within_one_seats_limit()

    asyncio.run(main())


# -- not stored ---------------------------------------------------------------------


def test_reactions_are_not_stored_in_the_record_or_anywhere_in_the_database(server: ServerProcess) -> None:
    async def main() -> int:
        code, tokens = await room_with_people(server.base, 1, name="Anna", players=2, pace=0, fill="easy")
        async with RoomClient(server.base, code, tokens[0], "en") as anna:
            await start(anna)
            for reaction in ("well_played", "party", "smile"):
                await anna.send({"type": "react", "reaction": reaction})
                assert (await next_reaction(anna))["reaction"] == reaction
            state = await play_round(anna)
            assert state["room"]["status"] in OVER
            await asyncio.sleep(REACTION_INTERVAL)  # the three before were a whole burst
            await anna.send({"type": "react", "reaction": "thanks"})  # after the round too: "well played"
            assert (await next_reaction(anna))["reaction"] == "thanks"
            game: int = state["game"]["id"]
            return game

    game = asyncio.run(main())
    with urllib.request.urlopen(f"{server.base}/api/games/{game}/record", timeout=10) as answer:
        record = json.loads(answer.read())
    with contextlib.closing(sqlite3.connect(server.db)) as db:
        moves = [text for (text,) in db.execute("SELECT text FROM moves WHERE game = ? ORDER BY n", (game,))]
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        stored = "\n".join(repr(row) for table in tables for row in db.execute(f"SELECT * FROM {table}"))
    assert record["moves"] == moves, "the record holds the game's moves, and only them"
    for text in (json.dumps(record), stored):
        assert not [reaction for reaction in (*REACTIONS, "react") if reaction in text]
