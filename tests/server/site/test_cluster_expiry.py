"""Rooms expire on a site of several processes (one PostgreSQL, one Redis): a room in use on any process is kept,
and a room that expired on one is dropped by the others, its clients there sent away.

First two servers in this test's event loop, whose sweeps the test runs itself; then two real ``elferraus serve``
processes on a clock the test sets (``tests/support/clocked_server.py``), one of which expires the room as it starts
again.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from elferraus.server.client import RoomClient, create_room
from elferraus.server.storage.expiry import HOUR
from elferraus.server.storage.types import Swept
from tests.support.clocked_server import set_clock
from tests.support.cluster_helpers import ServerProcess
from tests.support.expiry_helpers import MINUTE, Clock, expired, server, until
from tests.support.postgres_helpers import PostgresServer, count_rows, query
from tests.support.redis_helpers import RedisServer, redis_server
from tests.support.server_helpers import get, raw, room_with_people, wait_online

CLOCKED = ["-m", "tests.support.clocked_server"]


def active(db: str, code: str) -> float:
    """The last activity of room ``code`` as the database holds it."""
    ((moment,),) = query(db, "SELECT active FROM rooms WHERE code = %s", code)
    return float(str(moment))


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as running:
        yield running


def test_a_room_in_use_on_another_process_is_kept_and_one_that_expired_is_dropped_there_too(
    postgres: PostgresServer, redis: RedisServer
) -> None:
    db = postgres.new_database()
    clock = Clock()

    async def main() -> None:
        site = {"bus_url": redis.url()}
        async with server(db, clock, **site) as (a, here), server(db, clock, **site) as (b, there):
            code, tokens = await room_with_people(a, 2, name="Anna", players=2)
            # A player on B: A knows it from the site's presence, and keeps the room when it sweeps.
            async with RoomClient(b, code, tokens[1]) as ben:
                await wait_online(ben, [1])
                await until(lambda: code in here.rooms and any(here.rooms[code].elsewhere.values()))
                clock.advance(7 * HOUR)
                assert await here.sweep() == Swept()
            await until(lambda: not any(here.rooms[code].elsewhere.values()))
            # A spectator, of whom only B knows, comes a minute before the room would expire: B stores the room
            # as in use as he comes, so A's sweep keeps it although B has not swept since.
            clock.advance(6 * HOUR - MINUTE)
            async with raw(b, code, {"type": "hello", "token": None}) as watcher:
                await watcher.receive()
                came = clock()
                # B stores the stamp in a task of its own as the spectator comes: the test waits for the
                # database to hold it before it moves the clock on (a busy machine may run that task later).
                await until(lambda: active(db, code) >= came)
                clock.advance(2 * MINUTE)
                assert await here.sweep() == Swept()
                # and while he stays, B's sweeps store it as in use again
                clock.advance(7 * HOUR)
                assert await there.sweep() == Swept()
                assert await here.sweep() == Swept()
                assert (await get(b, f"/api/rooms/{code}")).json()["status"] == "waiting"
                # B stamps it no more (as if its sweeps had stopped): 6 hours later A expires the room. B hears of
                # it, forgets the room and sends its spectator away.
                clock.advance(6 * HOUR + MINUTE)
                assert await here.sweep() == Swept(expired=(code,))
                assert await watcher.until_closed() == 1008
                assert watcher.errors("room_expired")
            assert code not in here.rooms
            assert code not in there.rooms
            await expired(b, code)
            await expired(a, code)
        assert count_rows(db, "seats") == 0

    asyncio.run(main())


class ClockedProcess(ServerProcess):
    """``elferraus serve`` through ``tests/support/clocked_server.py``: its time is what the clock file says."""

    def __init__(self, clock: Path, args: list[str], log: Path, name: str) -> None:
        super().__init__(args, log, name)
        self.clock = clock

    def command(self) -> list[str]:
        serve = [sys.executable, *CLOCKED, str(self.clock), "serve"]
        return [*serve, "--host", "127.0.0.1", "--port", str(self.port), *self.args]


@pytest.mark.timeout(120)
def test_real_processes_a_room_one_expires_as_it_starts_again_is_dropped_by_the_other(
    postgres: PostgresServer, redis: RedisServer, tmp_path: Path
) -> None:
    db = postgres.new_database()
    clock = tmp_path / "clock"
    made = float(int(time.time()))
    set_clock(clock, made)
    site = ["--db", db, "--bus", redis.url(), "--rooms-per-minute", "0"]
    # B never expires a waiting room itself: what it forgets, it heard of from A.
    a = ClockedProcess(clock, site, tmp_path / "a.log", "process A")
    b = ClockedProcess(clock, [*site, "--expire-waiting", "0"], tmp_path / "b.log", "process B")
    try:
        a.start()
        b.start()
        code = asyncio.run(create_room(a.url, name="Anna", players=3))["code"]
        assert httpx.get(f"{b.url}/api/rooms/{code}").json()["status"] == "waiting"  # B has it now
        set_clock(clock, made + 6 * HOUR - MINUTE)
        a.stop()
        a.start()
        assert httpx.get(f"{a.url}/api/rooms/{code}").status_code == 200
        set_clock(clock, made + 6 * HOUR + MINUTE)
        a.stop()
        a.start()  # its sweep at start-up expires the room
        deadline = time.monotonic() + 5
        while httpx.get(f"{b.url}/api/rooms/{code}").status_code != 410:
            assert time.monotonic() < deadline, f"B still shows the room:\n{b.log()}"
            time.sleep(0.05)
        asyncio.run(expired(b.url, code))
        assert count_rows(db, "seats") == 0
        assert f"expiry: 1 rooms expired ({code})" in a.log()
    finally:
        b.stop()
        a.stop()
