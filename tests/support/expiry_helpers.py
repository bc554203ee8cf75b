"""Shared pieces of the expiry tests: a clock the test moves, a server on it, what an expired room answers."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn

from elferraus.i18n import tr
from elferraus.server import WS_MAX_SIZE, create_app
from elferraus.server.rooms.lobby import Lobby
from tests.support.postgres_helpers import count_rows
from tests.support.server_helpers import get, post, raw
from tests.support.web_helpers import free_port

MINUTE = 60.0
TABLES = ("rooms", "seats", "games", "moves")


class Clock:
    """The time a test gives the server: it moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def counts(db: str) -> dict[str, int]:
    """How many rows each table of the server's database has."""
    return {table: count_rows(db, table) for table in TABLES}


@contextlib.asynccontextmanager
async def server(db: str, clock: Clock, **settings: Any) -> AsyncIterator[tuple[str, Lobby]]:
    """``create_app(db, clock=clock, ...)`` on a free port in this event loop; yields its base URL and its lobby.

    Everything of the expiry that happens at start-up is done when this yields (the app's lifespan runs it).
    """
    app = create_app(db, clock=clock, rooms_per_minute=0, **settings)
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, ws_max_size=WS_MAX_SIZE, log_level="warning", lifespan="on"
    )
    running = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(running.serve())
    while not running.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}", app.state.lobby
    finally:
        running.should_exit = True
        await task


async def until(check: Callable[[], bool], timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "it did not come to pass"
        await asyncio.sleep(0.01)


async def expired(base: str, code: str) -> None:
    """The room answers, by HTTP in both languages and over its WebSocket, that it expired."""
    for lang in ("en", "de"):
        for answer in (
            await get(base, f"/api/rooms/{code}?lang={lang}"),
            await post(base, f"/api/rooms/{code}/join?lang={lang}", json={"name": "Carl", "seat": 1}),
        ):
            assert answer.status_code == 410, answer.text
            assert answer.json() == {"error": "room_expired", "message": tr("web_error_room_expired", lang)}
    async with raw(base, code, {"type": "hello", "token": None, "lang": "de"}) as client:
        assert await client.until_closed() == 1008
        assert [frame["code"] for frame in client.frames] == ["room_expired"]
