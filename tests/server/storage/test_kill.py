"""Killing the server (``kill -9``) loses no acknowledged move, and every game carries on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from elferraus.server.client import RoomClient, create_room, join_room
from tests.support.web_helpers import ServerProcess

ROOMS = 3


async def _open_rooms(base: str) -> list[tuple[str, list[str]]]:
    rooms = []
    for _ in range(ROOMS):
        host = await create_room(
            base, name="Host", players=3, seats=[{"kind": "open"}, {"kind": "computer", "level": "easy"}], pace=0
        )
        guest = await join_room(base, host["code"], 1, "Guest")
        rooms.append((host["code"], [host["token"], guest["token"]]))
    return rooms


async def _play(base: str, code: str, tokens: list[str], acks: list[list[str]] | None = None) -> list[str]:
    """Both people play to the end of the game; returns the moves then acknowledged to them.

    After each of their moves the game's history as the server acknowledged it is added to ``acks``.
    """
    acknowledged: list[str] = []
    async with RoomClient(base, code, tokens[0]) as host, RoomClient(base, code, tokens[1]) as guest:
        players = [host, guest]
        await host.until(lambda s: s["room"]["seats"][1]["online"])
        if host.state is not None and host.state["room"]["status"] == "waiting":
            await host.send({"type": "start"})
        while True:
            for client in players:
                await client.until(lambda s: s["room"]["status"] != "waiting")
            states = [client.state for client in players]
            assert states[0] is not None
            if states[0]["room"]["status"] != "playing":
                break
            mover = next((c for c in players if c.my_turn), None)
            if mover is None:
                for client in players:
                    with contextlib.suppress(TimeoutError):
                        await client.receive(0.05)
                continue
            state: Any = mover.state
            sent = state["seq"]
            await mover.move(state["view"]["legal"][0])
            answered = await mover.until(lambda s, sent=sent, mover=mover: s["seq"] > sent or bool(mover.errors))
            assert not mover.errors, mover.errors
            acknowledged = list(answered["game"]["moves"])
            if acks is not None:
                acks.append(acknowledged)
    return acknowledged


async def _kill_mid_game(base: str, rooms: list[tuple[str, list[str]]], server: ServerProcess) -> dict[str, list[str]]:
    """Play every room at once and kill the server while moves are on the way.

    Returns each room's history as last acknowledged to its players.
    """
    acks: dict[str, list[list[str]]] = {code: [] for code, _tokens in rooms}
    tasks = [asyncio.ensure_future(_play(base, code, tokens, acks[code])) for code, tokens in rooms]
    while min(len(history) for history in acks.values()) < 5:
        await asyncio.sleep(0.005)
        assert not any(task.done() for task in tasks), "a game ended before the kill"
    server.kill()
    last = {code: list(history[-1]) for code, history in acks.items()}
    for task in tasks:
        with contextlib.suppress(Exception):
            await task
    return last


@pytest.mark.timeout(120)
def test_kill_9_loses_no_acknowledged_move_and_games_go_on(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "games.sqlite3")
    base = server.base
    server.start()
    try:
        rooms = asyncio.run(_open_rooms(base))
        before = asyncio.run(_kill_mid_game(base, rooms, server))
        server.start()
        for code, tokens in rooms:
            acknowledged = before[code]
            assert acknowledged, "no move was made before the kill"

            async def check(code: str = code, tokens: list[str] = tokens) -> list[str]:
                async with RoomClient(base, code, tokens[0]) as host:
                    state = await host.until(lambda s: s["room"]["status"] != "waiting")
                    return list(state["game"]["moves"])

            after = asyncio.run(check())
            assert after[: len(acknowledged)] == acknowledged
            final = asyncio.run(_play(base, code, tokens))
            assert final[: len(acknowledged)] == acknowledged
            with urllib.request.urlopen(f"{base}/api/rooms/{code}", timeout=5) as answer:
                assert json.loads(answer.read())["status"] == "match_over"
    finally:
        server.stop()
