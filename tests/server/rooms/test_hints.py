"""A person's hint over the room WebSocket: what ``master`` would do in his place and why, in his language, the
same as the terminal game's hint; thought in a thinker process when the server has them; refused to
spectators, off turn, for an older position, and at a table of people."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from elferraus.server import create_app
from elferraus.server.client import RoomClient
from elferraus.server.rooms.room import Room
from elferraus.table.hints import hint_line
from tests.support.server_helpers import act, chooser, my_turn, room_with_people, start, wait_online
from tests.support.web_helpers import serving_app

EASY = [{"kind": "computer", "level": "easy"}] * 3


@contextlib.asynccontextmanager
async def server(tmp_path: Path, workers: int) -> AsyncIterator[tuple[str, Any]]:
    app = create_app(str(tmp_path / f"hints-{workers}.db"), think_workers=workers)
    async with serving_app(app) as base:
        yield base, app


async def answer_to_hint(client: RoomClient, seq: int) -> dict[str, Any]:
    """Ask for a hint at ``seq``; the ``hint`` or ``error`` frame that answers it (states meanwhile are kept)."""
    await client.send({"type": "hint", "seq": seq})
    while True:
        frame = await client.receive(30)
        if frame["type"] in ("hint", "error"):
            return frame


async def until_a_choice(client: RoomClient) -> dict[str, Any]:
    """Play the first legal move until the person has a choice of two moves or more; that state."""
    while True:
        state = await client.until(lambda s: s["room"]["status"] != "playing" or my_turn(s), 30)
        assert state["room"]["status"] == "playing", "the game ended before a choice came"
        if len(state["view"]["legal"]) > 1:
            return state
        await act(client, state["view"]["legal"][0])


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 1], ids=["in-a-thread", "in-a-thinker"])
def test_a_person_alone_with_computers_gets_the_terminal_games_hint_in_his_language(
    tmp_path: Path, workers: int
) -> None:
    async def main() -> None:
        async with server(tmp_path, workers) as (base, app):
            code, (token,) = await room_with_people(base, 1, name="Anna", players=4, pace=0, seats=EASY)
            async with RoomClient(base, code, token) as anna, RoomClient(base, code, token, lang="de") as tablet:
                await start(anna)
                for _ in range(3):
                    state = await until_a_choice(anna)
                    await tablet.until(lambda s, seq=state["seq"]: s["seq"] >= seq)
                    room: Room = await app.state.lobby.room(code)
                    assert room.table is not None
                    view = room.table.game.view(0)
                    expected = room.table.hint()  # the terminal game's: master with the same seed
                    hint = await answer_to_hint(anna, state["seq"])
                    assert hint == {
                        "type": "hint",
                        "seq": state["seq"],
                        "move": str(expected.move),
                        "reason": expected.reason,
                        "text": hint_line(view, expected, room.table.names, "en"),
                    }
                    assert hint["move"] in state["view"]["legal"]
                    german = await answer_to_hint(tablet, state["seq"])
                    assert german["move"] == hint["move"]
                    assert german["text"] == hint_line(view, expected, room.table.names, "de") != hint["text"]
                    await act(anna, hint["move"])

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_a_hint_is_refused_to_a_spectator_off_turn_for_an_older_position_and_at_a_table_of_people(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with server(tmp_path, 0) as (base, _app):
            code, tokens = await room_with_people(base, 2, name="Anna", players=2, pace=0)
            async with (
                RoomClient(base, code, tokens[0]) as anna,
                RoomClient(base, code, tokens[1], lang="de") as ben,
                RoomClient(base, code, None) as watcher,
            ):
                await wait_online(anna, [0, 1])
                early = await answer_to_hint(anna, anna.state["seq"])
                assert early["code"] == "wrong_status"
                await start(anna, ben)
                mover = await chooser([anna, ben])
                waiter = ben if mover is anna else anna
                seq = mover.state["seq"]
                await waiter.until(lambda s: s["seq"] >= seq)
                await watcher.until(lambda s: s["seq"] >= seq)
                refusals = {
                    "watching": await answer_to_hint(watcher, seq),
                    "off turn": await answer_to_hint(waiter, seq),
                    "older": await answer_to_hint(mover, seq - 1),
                    "people": await answer_to_hint(mover, seq),
                }
                codes = {case: frame["code"] for case, frame in refusals.items()}
                assert codes == {
                    "watching": "not_a_player",
                    "off turn": "not_your_turn",
                    "older": "stale",
                    "people": "no_hints",
                }
                people = refusals["people"]["message"]
                assert people.startswith("Hints are for a person playing alone" if mover is anna else "Tipps gibt es")
                move = mover.state["view"]["legal"][0]
                answer = await act(mover, move)  # the refusals changed nothing: the game goes on
                assert answer["type"] == "state", answer

    asyncio.run(main())
