"""The bus of a site of several processes (``server/site/``) on a real Redis, and a process's own bus.

Each test plays two or three processes' buses in one event loop against one Redis: leases, presence,
the shared limits and the news, also across a restart of Redis and the death of a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest

from elferraus.server.site.bus import ALIVE_TTL, LEASE_TTL, RECONNECT_DELAY, STEWARD_TICK, BusError, LocalBus
from elferraus.server.site.redis import RedisBus, open_bus
from tests.support.redis_helpers import RedisServer, redis_server


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def silent(code: str, event: dict[str, Any]) -> None:
    return None


async def nothing() -> None:
    return None


def ignore(code: str, event: dict[str, Any]) -> None:
    return None


@pytest.mark.parametrize(
    ("takes", "rate", "burst", "expected_wait"),
    [
        (0, 1.0, 2, 0.0),  # a new address may
        (1, 1.0, 2, 0.0),  # one of two spent
        (2, 1.0, 2, 1.0),  # both spent: one more in a second
        (3, 0.5, 2, 2.0),  # one refused past the burst took nothing: still one token short, at half a second's
        (50, 0.5, 2, 2.0),  # however many were refused
    ],
)
def test_a_process_alone_counts_room_creation_in_memory(
    takes: int, rate: float, burst: int, expected_wait: float
) -> None:
    async def main() -> float:
        bus = LocalBus()
        for _ in range(takes):
            await bus.take("rooms:10.0.0.1", rate, burst)
        return await bus.take("rooms:10.0.0.1", rate, burst)

    assert run(main()) == pytest.approx(expected_wait, abs=0.05)


def test_a_token_given_back_may_be_taken_again_but_never_fills_a_bucket_past_its_burst() -> None:
    async def main() -> list[float]:
        bus = LocalBus()
        waits = [await bus.take("rooms:10.0.0.2", 0.01, 2) for _ in range(3)]  # 0, 0, refused
        await bus.give_back("rooms:10.0.0.2", 0.01, 2)
        waits.append(await bus.take("rooms:10.0.0.2", 0.01, 2))  # the one given back
        waits.append(await bus.take("rooms:10.0.0.2", 0.01, 2))
        for _ in range(5):
            await bus.give_back("rooms:10.0.0.3", 0.01, 2)  # a bucket never taken from: nothing to give back to
            await bus.give_back("rooms:10.0.0.2", 0.01, 2)
        waits += [await bus.take("rooms:10.0.0.2", 0.01, 2) for _ in range(3)]  # full: the burst, no more
        return waits

    shown = ["now" if wait == 0 else "later" if wait > 90 else wait for wait in run(main())]
    assert shown == ["now", "now", "later", "now", "later", "now", "now", "later"]


def test_a_process_alone_forgets_the_buckets_that_have_refilled(monkeypatch: pytest.MonkeyPatch) -> None:
    from elferraus.server.site import bus as module

    monkeypatch.setattr(module, "MAX_TRACKED_KEYS", 3)

    async def main() -> None:
        bus = LocalBus()
        rate = 10 / 60
        assert await bus.take("rooms:10.0.0.1", rate, 2) == 0
        assert await bus.take("rooms:10.0.0.1", rate, 2) == 0
        assert 5 < await bus.take("rooms:10.0.0.1", rate, 2) <= 6  # spent: one more in 6 s
        await bus.take("rooms:10.0.0.2", rate, 2)  # one of two used: as good as new
        await bus.take("rooms:10.0.0.3", rate, 2)
        await bus.take("rooms:10.0.0.4", rate, 2)  # a fourth key: the idle ones go, the spent one stays
        assert set(bus._buckets) == {"rooms:10.0.0.1", "rooms:10.0.0.4"}
        assert await bus.take("rooms:10.0.0.1", rate, 2) > 5

    run(main())


def test_a_process_alone_leads_every_room_and_counts_connections_itself() -> None:
    async def main() -> None:
        bus = await open_bus(None)
        assert isinstance(bus, LocalBus)
        assert await bus.lead(["AAAAAA", "BBBBBB"]) == {"AAAAAA", "BBBBBB"}
        assert await bus.presence("AAAAAA") == {}
        assert [await bus.enter("address:x", 2) for _ in range(3)] == [True, True, False]
        await bus.leave("address:x")
        assert await bus.enter("address:x", 2)
        assert await bus.enter("address:y", 0)  # 0: no limit

    run(main())


def test_a_bus_that_cannot_reach_redis_says_which_and_why() -> None:
    with pytest.raises(BusError, match=r"redis://:\*\*\*@127\.0\.0\.1:1/0: .*") as caught:
        run(open_bus("redis://:secret@127.0.0.1:1/0"))
    assert "secret" not in str(caught.value)


def test_one_process_at_a_time_holds_a_lease_and_another_takes_it_when_the_holder_stops(redis: RedisServer) -> None:
    async def main() -> float:
        first, second = await RedisBus.open(redis.url()), await RedisBus.open(redis.url())
        try:
            assert await first.lead(["LEASE1", "LEASE2"]) == {"LEASE1", "LEASE2"}
            assert await second.lead(["LEASE1", "LEASE2", "LEASE3"]) == {"LEASE3"}
            assert await first.lead(["LEASE1"]) == {"LEASE1"}  # renewed
            await first.release("LEASE2")
            assert await second.lead(["LEASE2"]) == {"LEASE2"}
            # The first process dies: it renews nothing more. The second gets the lease once it has lapsed.
            died = time.monotonic()
            while "LEASE1" not in await second.lead(["LEASE1"]):
                assert time.monotonic() - died < LEASE_TTL + 1
                await asyncio.sleep(STEWARD_TICK / 5)
            return time.monotonic() - died
        finally:
            await second.close()
            await first.close()

    taken_after = run(main())
    assert LEASE_TTL - 0.3 < taken_after <= LEASE_TTL + 0.3


def test_room_creation_is_counted_for_the_whole_site(redis: RedisServer) -> None:
    async def main() -> list[float]:
        buses = [await RedisBus.open(redis.url()) for _ in range(3)]
        try:
            waits = []
            for turn in range(6):  # a burst of 4 spread over three processes
                waits.append(await buses[turn % 3].take("rooms:203.0.113.9", 1 / 6, 4))
            return waits
        finally:
            for bus in buses:
                await bus.close()

    waits = run(main())
    assert waits[:4] == [0, 0, 0, 0]
    assert 5 < waits[4] <= 6  # one more in six seconds, on any process
    assert 5 < waits[5] <= 6


def test_a_crowd_taking_from_one_bucket_on_three_processes_at_once_gets_the_burst_and_no_more(
    redis: RedisServer,
) -> None:
    """Each take is one step on Redis: 300 at once get the burst; the refused take nothing, so the wait after
    them is one token's; a token given back is there for the next."""

    async def main() -> tuple[list[float], float, float, float]:
        buses = [await RedisBus.open(redis.url()) for _ in range(3)]
        try:
            key, rate, burst = "rooms:2001:db8:9:9::/64", 1 / 6, 20
            waits = await asyncio.gather(*(buses[n % 3].take(key, rate, burst) for n in range(300)))
            after = await buses[0].take(key, rate, burst)
            await buses[1].give_back(key, rate, burst)
            given = await buses[2].take(key, rate, burst)
            again = await buses[0].take(key, rate, burst)
            return list(waits), after, given, again
        finally:
            for bus in buses:
                await bus.close()

    started = time.monotonic()
    waits, after, given, again = run(main())
    refilled = int((time.monotonic() - started) / 6)
    assert 20 <= waits.count(0) <= 20 + refilled
    assert all(0 < wait <= 6 for wait in waits if wait)
    assert 0 < after <= 6
    assert given == 0
    assert 0 < again <= 6


def test_open_connections_are_counted_across_processes_and_a_dead_ones_are_forgotten(redis: RedisServer) -> None:
    async def main() -> None:
        first, second = await RedisBus.open(redis.url()), await RedisBus.open(redis.url())
        await first.start(ignore, nothing)
        await second.start(ignore, nothing)
        try:
            assert await first.enter("address:198.51.100.1", 3)
            assert await first.enter("address:198.51.100.1", 3)
            assert await second.enter("address:198.51.100.1", 3)
            assert not await second.enter("address:198.51.100.1", 3)  # three open, two of them elsewhere
            await second.leave("address:198.51.100.1")
            assert await second.enter("address:198.51.100.1", 3)
            await first.close()  # its two connections went with it
            assert await second.enter("address:198.51.100.1", 3)
            assert await second.enter("address:198.51.100.1", 3)
            assert not await second.enter("address:198.51.100.1", 3)
        finally:
            await second.close()

    run(main())


def test_presence_of_a_process_counts_while_it_lives(redis: RedisServer) -> None:
    async def main() -> None:
        first, second = await RedisBus.open(redis.url()), await RedisBus.open(redis.url())
        await first.start(ignore, nothing)
        await second.start(ignore, nothing)
        first.set_presence("PRESNC", 1, 2, 1)
        first.set_presence("PRESNC", 3, 1, 1)
        second.set_presence("PRESNC", 1, 1, 1)
        await asyncio.sleep(0.2)  # sent by each process's sender
        assert await second.presence("PRESNC") == {1: 2, 3: 1}  # the others', not its own
        assert await first.presence("PRESNC") == {1: 1}
        first.set_presence("PRESNC", 3, 0, 1)
        await asyncio.sleep(0.2)
        assert await second.presence("PRESNC") == {1: 2}
        # A process that dies says nothing: its heartbeat lapses and its counts stop counting.
        for task in first._tasks:
            task.cancel()
        died = time.monotonic()
        while await second.presence("PRESNC"):
            assert time.monotonic() - died < ALIVE_TTL + 1.5
            await asyncio.sleep(0.1)
        await second.close()
        await first._close_clients()

    run(main())


def test_news_reaches_the_other_processes_in_order_and_not_its_sender(redis: RedisServer) -> None:
    async def main() -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, dict[str, Any]]]]:
        heard: dict[str, list[tuple[str, dict[str, Any]]]] = {"first": [], "second": []}
        first, second = await RedisBus.open(redis.url()), await RedisBus.open(redis.url())
        await first.start(lambda code, event: heard["first"].append((code, event)), nothing)
        await second.start(lambda code, event: heard["second"].append((code, event)), nothing)
        for number in range(200):
            first.publish("NEWSAA", {"k": "move", "n": number})
        deadline = time.monotonic() + 5
        while len(heard["second"]) < 200 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await first.close()
        await second.close()
        return heard["first"], heard["second"]

    own, others = run(main())
    assert own == []
    assert others == [("NEWSAA", {"k": "move", "n": number}) for number in range(200)]


def test_after_redis_restarts_every_process_reads_its_rooms_again_and_hears_news_again(redis: RedisServer) -> None:
    async def main() -> tuple[int, list[dict[str, Any]], set[str]]:
        resyncs = 0
        heard: list[dict[str, Any]] = []

        async def resync() -> None:
            nonlocal resyncs
            resyncs += 1

        first, second = await RedisBus.open(redis.url()), await RedisBus.open(redis.url())
        await first.start(ignore, nothing)
        await second.start(lambda code, event: heard.append(event), resync)
        assert await first.lead(["RESTRT"]) == {"RESTRT"}
        await asyncio.to_thread(redis.restart)
        deadline = time.monotonic() + 10
        while resyncs == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        while not first.connected.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        first.publish("RESTRT", {"k": "room"})
        while not heard and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        # Redis lost every key: the holder renews by taking its lease again, nobody else got it meanwhile.
        held = await first.lead(["RESTRT"])
        await first.close()
        await second.close()
        return resyncs, heard, held

    resyncs, heard, held = run(main())
    assert resyncs == 1
    assert heard == [{"k": "room"}]
    assert held == {"RESTRT"}


class Link:
    """A TCP link to Redis in this event loop that the test cuts and mends: one process's network alone."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def open(self) -> str:
        self._server = await asyncio.start_server(self._connect, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/0"

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut:
            writer.close()
            return
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self._writers |= {writer, upstream_writer}
        await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while data := await reader.read(65536):
                if self.cut:
                    break
                writer.write(data)
                await writer.drain()
        writer.close()

    def sever(self) -> None:
        """Drop every connection through the link and refuse new ones until ``mend``."""
        self.cut = True
        for writer in self._writers:
            writer.close()
        self._writers.clear()

    def mend(self) -> None:
        self.cut = False

    async def close(self) -> None:
        self.sever()
        if self._server is not None:
            self._server.close()


def test_news_a_process_could_not_send_at_once_reaches_the_others_when_it_reaches_redis_again(
    redis: RedisServer,
) -> None:
    """The others read their rooms again when they hear Redis again; a change stored after that reading, sent
    by a process that cannot yet reach Redis (its connection was the one broken), reaches them from nobody
    else: it is kept and sent once that process reaches Redis again."""

    async def main() -> list[dict[str, Any]]:
        heard: list[dict[str, Any]] = []
        link = Link(redis.port)
        first, second = await RedisBus.open(await link.open()), await RedisBus.open(redis.url())
        await first.start(ignore, nothing)
        await second.start(lambda code, event: heard.append(event), nothing)
        link.sever()
        for number in range(3):
            first.publish("KEPTAA", {"k": "move", "n": number})
        await asyncio.sleep(RECONNECT_DELAY * 3)  # the sender has tried, and failed, meanwhile
        link.mend()
        deadline = time.monotonic() + 10
        while len(heard) < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await first.close()
        await second.close()
        await link.close()
        return heard

    assert run(main()) == [{"k": "move", "n": number} for number in range(3)]


def test_while_redis_is_away_a_process_keeps_its_leases_and_counts_limits_itself(redis: RedisServer) -> None:
    async def main() -> None:
        bus = await RedisBus.open(redis.url())
        await bus.start(ignore, nothing)
        assert await bus.lead(["AWAYAA"]) == {"AWAYAA"}
        redis.stop()
        try:
            assert await bus.lead(["AWAYAA", "AWAYBB"]) == {"AWAYAA"}
            assert await bus.take("rooms:192.0.2.1", 1.0, 1) == 0
            assert await bus.take("rooms:192.0.2.1", 1.0, 1) > 0.5
            await bus.give_back("rooms:192.0.2.1", 1.0, 1)
            assert await bus.take("rooms:192.0.2.1", 1.0, 1) == 0
            assert await bus.enter("address:192.0.2.1", 1)
            assert not await bus.enter("address:192.0.2.1", 1)
            assert await bus.presence("AWAYAA") is None
            bus.publish("AWAYAA", {"k": "room"})  # no error: it waits until Redis is back
        finally:
            redis.start()
        await bus.close()

    run(main())


def test_a_crowd_arriving_at_once_is_counted_by_redis_not_taken_for_redis_away(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Many more clients than the bus has connections to Redis enter at the same moment: each call waits for
    a connection, and every one is counted site-wide (none falls back to counting here alone)."""
    crowd = 400

    async def main() -> None:
        first, second = await RedisBus.open(redis.url()), await RedisBus.open(redis.url())
        await first.start(ignore, nothing)
        await second.start(ignore, nothing)
        try:
            admitted = await asyncio.gather(*(first.enter("address:203.0.113.9", crowd) for _ in range(crowd)))
            assert all(admitted)
            assert not await second.enter("address:203.0.113.9", crowd), "the crowd is counted where all can see it"
            await asyncio.gather(*(first.leave("address:203.0.113.9") for _ in range(crowd)))
            assert await second.enter("address:203.0.113.9", 1)
        finally:
            await first.close()
            await second.close()

    with caplog.at_level("WARNING", logger="elferraus.server.bus"):
        run(main())
    assert not [r.getMessage() for r in caplog.records], "Redis was taken for away"
