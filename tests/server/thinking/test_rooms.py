"""Rooms of ``master`` computers on a real server whose searches think in thinker processes (issue 33, item 3):
the same moves as in the server's own thread, a person answered while a master thinks, a killed thinker
replaced, and no thinker left behind when the server stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from fastapi import FastAPI

from elferraus.server import create_app
from elferraus.server.client import RoomClient
from elferraus.server.rooms.room import Room
from elferraus.server.thinking.pool import Thinkers
from tests.support.server_helpers import OVER, act, get, my_turn, play_round, room_with_people, start
from tests.support.web_helpers import ServerProcess, serving_app

MASTERS = [{"kind": "computer", "level": "master"}] * 3
SEED = 11


@contextlib.asynccontextmanager
async def server(tmp_path: Path, workers: int) -> AsyncIterator[tuple[str, FastAPI]]:
    """A server in this event loop whose searches think in ``workers`` processes (0: in its threads)."""
    app = create_app(str(tmp_path / f"rooms-{workers}.db"), think_workers=workers)
    async with serving_app(app) as base:
        yield base, app


def thinkers(app: FastAPI) -> Thinkers:
    found: Thinkers = app.state.thinkers
    return found


async def masters_room(base: str) -> tuple[str, str]:
    """A room of Anna and three masters at pace 0; its code and Anna's token."""
    code, tokens = await room_with_people(base, 1, name="Anna", players=4, pace=0, seats=MASTERS)
    return code, tokens[0]


async def until_a_thinker_runs(anna: RoomClient, app: FastAPI) -> int:
    """Anna draws while she may (else plays her first legal move) until a thinker runs and she is to move; the
    thinker's process id. (Laying whatever she could, she once went out before a thinker was seen running, in a
    full run under load; drawing keeps the round going until one is.)"""
    while True:
        state = await anna.until(lambda s: s["room"]["status"] in OVER or my_turn(s), 60)
        assert state["room"]["status"] not in OVER, "the round ended before any master searched"
        pids = thinkers(app).pids()
        if pids:
            assert len(pids) == 1
            return pids[0]
        legal = state["view"]["legal"]
        await act(anna, "draw" if "draw" in legal else legal[0])


async def until_a_master_must_think(anna: RoomClient, room: Room) -> int:
    """Anna plays her first legal moves until a master with a choice is to move; the moves made by then."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while loop.time() < deadline:
        table = room.table
        assert table is not None
        if table.next_step().kind == "think" and len(table.game.legal_moves()) > 1:
            return table.game.move_count
        if anna.my_turn:
            assert anna.state is not None
            await act(anna, anna.state["view"]["legal"][0])
        else:
            with contextlib.suppress(TimeoutError):
                await anna.receive(0.05)
    raise AssertionError("no master came to a choice")


def gone(pid: int) -> bool:
    """The process has exited (a zombie nobody reaped yet counts: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def thinker_pids(parent: int) -> list[int]:
    """The thinker processes ``parent`` started."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as command:
                line = command.read()
            if int(fields[1]) == parent and b"elferraus.bots.thinker" in line and fields[0] != "Z":
                found.append(int(entry))
    return found


@pytest.mark.timeout(300)
def test_masters_play_a_round_in_thinker_processes_as_in_the_servers_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Room, "new_seed", lambda room: SEED)

    async def test() -> None:
        played: dict[int, tuple[list[str], set[int]]] = {}
        for workers in (0, 2):
            async with server(tmp_path, workers) as (base, app):
                code, token = await masters_room(base)
                async with RoomClient(base, code, token) as anna:
                    await start(anna)
                    game_id = anna.state["game"]["id"] if anna.state else None
                    end = await play_round(anna, timeout=120)
                assert end["game"]["result"] is not None
                record = (await get(base, f"/api/games/{game_id}/record")).json()
                assert record["bots"] == ["human", "master", "master", "master"]
                played[workers] = (record["moves"], set(thinkers(app).thought))
        (in_thread, here), (in_thinkers, there) = played[0], played[2]
        assert in_thinkers == in_thread
        assert here == {os.getpid()}
        assert len(there) == 2, "the three masters think in both thinkers"
        assert os.getpid() not in there

    asyncio.run(test())


@pytest.mark.timeout(180)
def test_a_person_is_answered_while_a_master_thinks(tmp_path: Path) -> None:
    """The thinker stopped (SIGSTOP) while a master's move is asked of it: Anna's ping and the room's page are
    answered, and only then, once the thinker goes on, does the master move."""

    async def test() -> None:
        async with server(tmp_path, 1) as (base, app):
            code, token = await masters_room(base)
            room = app.state.lobby.rooms[code]
            async with RoomClient(base, code, token) as anna:
                await start(anna)
                pid = await until_a_thinker_runs(anna, app)
                assert pid != os.getpid()
                os.kill(pid, signal.SIGSTOP)
                try:
                    at = await until_a_master_must_think(anna, room)
                    assert room.table is not None
                    master = room.table.game.turn
                    await asyncio.sleep(0.2)  # the driver asks the thinker meanwhile
                    await anna.send({"type": "ping"})
                    while (await anna.receive(10))["type"] != "pong":
                        pass
                    assert (await get(base, f"/api/rooms/{code}")).status_code == 200
                    assert room.table is not None
                    assert room.table.game.move_count == at, "the master moved before Anna was answered"
                finally:
                    os.kill(pid, signal.SIGCONT)
                state = await anna.until(lambda s: s["room"]["status"] in OVER or len(s["game"]["moves"]) > at, 60)
                assert state["game"]["moves"][at].startswith(f"{master} ")

    asyncio.run(test())


@pytest.mark.timeout(300)
def test_a_killed_thinker_is_replaced_and_the_round_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="elferraus.server")

    async def test() -> None:
        async with server(tmp_path, 1) as (base, app):
            code, token = await masters_room(base)
            room = app.state.lobby.rooms[code]
            async with RoomClient(base, code, token) as anna:
                await start(anna)
                pid = await until_a_thinker_runs(anna, app)
                os.kill(pid, signal.SIGSTOP)  # so that it dies with a master's move asked of it
                at = await until_a_master_must_think(anna, room)
                await asyncio.sleep(0.2)
                os.kill(pid, signal.SIGKILL)
                end = await play_round(anna, timeout=120)
            assert end["game"]["result"] is not None
            assert len(end["game"]["moves"]) > at
            assert gone(pid)
            replaced = thinkers(app).pids()
            assert replaced
            assert pid not in replaced
        messages = [record.getMessage() for record in caplog.records]
        assert any(m.startswith("thinking: thinker 0 ended (killed by SIGKILL") for m in messages), messages

    asyncio.run(test())


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "stop",
    [ServerProcess.stop, ServerProcess.kill],
    ids=["SIGTERM", "SIGKILL"],
)
def test_no_thinker_outlives_its_server(tmp_path: Path, stop: Callable[[ServerProcess], None]) -> None:
    """``elferraus serve`` stopped politely stops its thinkers; killed, its thinkers exit at the end of their
    input."""
    served = ServerProcess(tmp_path / "rooms.db", args=["--think-workers", "2"])
    served.start()
    try:
        assert served.process is not None
        parent = served.process.pid

        async def play_until_thinkers_run() -> None:
            code, token = await masters_room(served.base)
            async with RoomClient(served.base, code, token) as anna:
                await start(anna)
                deadline = time.monotonic() + 60
                while len(thinker_pids(parent)) < 2 and time.monotonic() < deadline:
                    state = await anna.until(lambda s: s["room"]["status"] in OVER or my_turn(s), 60)
                    if state["room"]["status"] in OVER:
                        break
                    await act(anna, state["view"]["legal"][0])

        asyncio.run(play_until_thinkers_run())
        pids = thinker_pids(parent)
        assert pids, "the masters' searches started thinkers"
        stop(served)
        deadline = time.monotonic() + 15
        while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in pids if not gone(pid)] == []
    finally:
        served.stop()


@pytest.mark.timeout(180)
def test_a_server_in_this_process_reaps_its_thinkers(tmp_path: Path) -> None:
    async def test() -> list[int]:
        async with server(tmp_path, 1) as (base, app):
            code, token = await masters_room(base)
            async with RoomClient(base, code, token) as anna:
                await start(anna)
                return [await until_a_thinker_runs(anna, app)]

    pids = asyncio.run(test())
    assert all(not os.path.exists(f"/proc/{pid}") for pid in pids)
