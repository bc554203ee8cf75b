"""Rushes of room creations and floods of reactions, for the tests of the limits on one process and on a site.

A rush opens every connection first and then writes every request before it reads any answer, so that the
requests reach the server together (as a script's would), not one after another. A flood sends reactions on
many connections of one seat, each as fast as its own connection may. Both return the measured time the
server had: a limit's bound is what its bucket holds at once plus what it refilled during that time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from elferraus.server.client import RoomClient
from elferraus.server.rooms.reactions import REACTION_BURST, REACTION_INTERVAL


@dataclass(frozen=True)
class Answer:
    """One HTTP answer: its status, its headers (names in lower case) and its body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


async def _answer(connection: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> Answer:
    """The answer on ``connection``: all of what the server sends until it closes."""
    reader, writer = connection
    try:
        text = await asyncio.wait_for(reader.read(), 60)  # the server closes after its answer (Connection: close)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    head, _, body = text.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    assert status_line.startswith("HTTP/1.1 "), f"no HTTP answer: {text[:200]!r}"
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Answer(int(status_line.split()[1]), headers, body)


async def rush(
    urls: Sequence[str],
    count: int,
    body: dict[str, Any],
    *,
    path: str = "/api/rooms",
    headers: dict[str, str] | None = None,
    source: str | None = None,
) -> tuple[list[Answer], float]:
    """``count`` POSTs of ``body`` to ``path``, on the servers ``urls`` in turn, all at once.

    Every connection is opened (from the address ``source``, if given) before any request is written, and
    every request is written before any answer is read.

    Returns:
        The answers in the order the requests were written, and the seconds from the first request written to
        the last answer read (the whole time in which the server may have taken them).
    """
    data = json.dumps(body).encode()
    lines = [f"POST {path} HTTP/1.1", "Content-Type: application/json", f"Content-Length: {len(data)}"]
    lines += ["Connection: close", *(f"{name}: {value}" for name, value in (headers or {}).items())]
    targets = [urlsplit(urls[n % len(urls)]) for n in range(count)]
    local = {"local_addr": (source, 0)} if source else {}
    connections = await asyncio.gather(
        *(asyncio.open_connection(target.hostname, target.port, **local) for target in targets)
    )
    requests = [
        "\r\n".join([lines[0], f"Host: {target.netloc}", *lines[1:], "", ""]).encode() + data for target in targets
    ]
    loop = asyncio.get_running_loop()
    start = loop.time()
    for (_reader, writer), request in zip(connections, requests, strict=True):
        writer.write(request)
    await asyncio.gather(*(writer.drain() for _reader, writer in connections))
    answers = await asyncio.gather(*(_answer(connection) for connection in connections))
    return list(answers), loop.time() - start


@dataclass
class Flood:
    """What one observer heard of a flood of one seat's reactions."""

    heard: int
    """Reactions of the flooding seat the observer was told of."""
    seconds: float
    """From just before the first reaction was sent to the moment the observer heard the last one."""
    refused: int
    """``too_many_reactions`` refusals the flooding connections were answered."""

    def assert_within_one_seats_limit(self) -> None:
        """The observer heard at least the burst and no more than one seat may send in the time it took (a
        reaction per ``REACTION_INTERVAL`` after the burst, and one more for the moment it took), and the
        flooding connections were refused the rest."""
        allowed = REACTION_BURST + self.seconds / REACTION_INTERVAL + 1
        assert REACTION_BURST <= self.heard <= allowed, f"{self.heard} reactions of one seat in {self.seconds:.1f} s"
        assert self.refused > 0


async def _read_until(client: RoomClient, deadline: float) -> None:
    """Read (and keep) what ``client`` is sent until the event loop's time ``deadline``."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(TimeoutError):
        while (left := deadline - loop.time()) > 0:
            await client.receive(left)


async def flood_reactions(senders: Sequence[RoomClient], seat: int, observer: RoomClient, seconds: float) -> Flood:
    """Every connection of ``senders`` (all of ``seat``) sends reactions for ``seconds``, as fast as its own
    connection may: ``REACTION_BURST`` at once, then one every ``REACTION_INTERVAL``. ``observer`` (another
    seat) counts the reactions of ``seat`` it is told of, until none has come for a second after the end."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + seconds
    heard: list[float] = []

    async def send(client: RoomClient) -> None:
        for _ in range(REACTION_BURST):
            await client.send({"type": "react", "reaction": "hurry"})
        due = start + REACTION_INTERVAL
        while due < end:
            await _read_until(client, due)
            await client.send({"type": "react", "reaction": "hurry"})
            due += REACTION_INTERVAL
        await _read_until(client, end + 1)

    async def listen() -> None:
        with contextlib.suppress(TimeoutError):
            while (left := max([end, *heard[-1:]]) + 1 - loop.time()) > 0:
                message = await observer.receive(left)
                if message["type"] == "reaction" and message["seat"] == seat:
                    heard.append(loop.time())

    await asyncio.gather(listen(), *(send(client) for client in senders))
    refused = sum(1 for client in senders for error in client.errors if error["code"] == "too_many_reactions")
    return Flood(len(heard), (heard[-1] if heard else loop.time()) - start, refused)


async def close_all(clients: Sequence[RoomClient]) -> None:
    """Close every one of ``clients`` at once.

    One after another, each close would send the others a ``state`` (a connection fewer), and a client that
    reads nothing more stops reading past 16 frames: its close would then wait out its close timeout.
    """
    await asyncio.gather(*(client.close() for client in clients))
