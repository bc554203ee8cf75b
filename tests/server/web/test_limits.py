"""The room-creation limit of one ``elferraus serve`` process: it holds under a rush, a refused request
never deepens the wait, and an IPv6 /64 counts as one address (also behind a proxy).

The server is real (a subprocess, trusting 127.0.0.1 as its proxy); each test uses client addresses of its
own. A bound allows what the bucket holds at once plus what it refilled during the measured time of the test.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator

import httpx
import pytest

from elferraus.server.web.api import ROOM_BURST, ROOMS_PER_MINUTE
from tests.support.limit_helpers import Answer, rush
from tests.support.web_helpers import ServerProcess

PROXY = "127.0.0.1"
"""The address the server believes ``X-Forwarded-For`` from."""
RATE = ROOMS_PER_MINUTE / 60
"""Rooms a second one address gets back."""
LONGEST_WAIT = math.ceil(1 / RATE)
"""The longest ``Retry-After`` there may be: the time one room takes to come back (6 s)."""
NEW_ROOM = {"name": "Anna", "players": 2}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("limits") / "games.sqlite3", args=["--forwarded-allow-ips", PROXY])
    running.start()
    try:
        yield running
    finally:
        running.stop()


def refilled(seconds: float) -> int:
    """Rooms one address gets back within ``seconds``."""
    return math.floor(seconds * RATE)


def assert_refused_for_rooms(answer: Answer | httpx.Response) -> int:
    """``answer`` is a 429 ``too_many_rooms`` whose ``Retry-After`` is at most one room's time; returns it."""
    status = answer.status_code if isinstance(answer, httpx.Response) else answer.status
    assert status == 429, answer
    assert answer.json()["error"] == "too_many_rooms"
    wait = int(answer.headers["retry-after"])
    assert 1 <= wait <= LONGEST_WAIT, f"Retry-After: {wait}, where one room comes back in {LONGEST_WAIT} s"
    return wait


def test_a_rush_of_room_creations_from_one_address_gets_the_burst_and_a_short_wait(server: ServerProcess) -> None:
    """120 requests at once: the burst is made and no more (count and create are one step), every other is
    refused with a wait of at most one room's time (refusals do not deepen it), and after that wait one more
    room is made."""
    answers, seconds = asyncio.run(rush([server.base], 120, NEW_ROOM, source="127.0.0.5"))
    statuses = [answer.status for answer in answers]
    made = statuses.count(201)
    assert ROOM_BURST <= made <= ROOM_BURST + refilled(seconds), f"{made} rooms made in {seconds:.2f} s"
    assert set(statuses) == {201, 429}, statuses
    for answer in answers:
        if answer.status == 429:
            assert_refused_for_rooms(answer)
    with httpx.Client(base_url=server.base, transport=httpx.HTTPTransport(local_address="127.0.0.5")) as client:
        refused = client.post("/api/rooms", json=NEW_ROOM)
        time.sleep(assert_refused_for_rooms(refused))
        assert client.post("/api/rooms", json=NEW_ROOM).status_code == 201


def test_the_addresses_of_one_ipv6_64_share_one_limit_behind_a_proxy(server: ServerProcess) -> None:
    """60 clients of one /64 (as the proxy forwards them) make the burst together; another /64 is not held
    up; an IPv4-mapped IPv6 address is its IPv4 address."""
    with httpx.Client(base_url=server.base, transport=httpx.HTTPTransport(local_address=PROXY)) as client:

        def create(address: str) -> httpx.Response:
            return client.post("/api/rooms", json=NEW_ROOM, headers={"X-Forwarded-For": address})

        start = time.monotonic()
        answers = [create(f"2001:db8:5:64::{n:x}") for n in range(1, 61)]
        seconds = time.monotonic() - start
        statuses = [answer.status_code for answer in answers]
        assert statuses[:ROOM_BURST] == [201] * ROOM_BURST, statuses
        made = statuses.count(201)
        assert made <= ROOM_BURST + refilled(seconds), f"one /64 made {made} rooms in {seconds:.2f} s: {statuses}"
        for answer in answers:
            if answer.status_code != 201:
                assert_refused_for_rooms(answer)
        assert create("2001:db8:5:65::1").status_code == 201, "another /64 has its own limit"

        start = time.monotonic()
        mapped = [create("198.51.100.64" if n % 2 else "::ffff:198.51.100.64") for n in range(ROOM_BURST + 4)]
        seconds = time.monotonic() - start
        made = [answer.status_code for answer in mapped].count(201)
        assert ROOM_BURST <= made <= ROOM_BURST + refilled(seconds), "an IPv4-mapped address is its IPv4 address"
