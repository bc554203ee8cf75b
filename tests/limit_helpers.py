"""Rushes of room creations, for the tests of the limits on one process and on a site.

A rush opens every connection first and then writes every request before it reads any answer, so that the
requests reach the server together (as a script's would), not one after another. It returns the measured
time the server had: a limit's bound is what its bucket holds at once plus what it refilled during that time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


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
