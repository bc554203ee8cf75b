"""The server's ASGI app: FastAPI with its middleware, its lifespan, the API (``api.py``), the page
(``pages.py``), the refusals (``refusals.py``) and the OpenAPI document (``openapi.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import AbstractAsyncContextManager
from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware

from elferraus.server.rooms import names
from elferraus.server.rooms.lobby import Lobby
from elferraus.server.rooms.schemas import too_deep
from elferraus.server.rooms.settings import RoomError
from elferraus.server.site.bus import BusError
from elferraus.server.site.redis import open_bus
from elferraus.server.storage.expiry import Clock, Expiry
from elferraus.server.storage.store import open_store
from elferraus.server.thinking.pool import Thinkers, default_workers
from elferraus.server.web.api import ROOM_BURST, ROOMS_PER_MINUTE, router
from elferraus.server.web.headers import BodyLimit, RelativeRedirects, RevalidateStatic, SecurityHeaders
from elferraus.server.web.openapi import published
from elferraus.server.web.pages import add_pages
from elferraus.server.web.refusals import add_refusals, refuse

MAX_BODY = 8192
STATIC = Path(str(resources.files("elferraus.server").joinpath("static")))


def lifespan(
    db_path: str, bus_url: str | None, clock: Clock, expiry: Expiry | None, think_workers: int
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """What an app does as it starts and stops: opens its store and bus, restores the rooms, closes them, and
    stops the computers' thinker processes last."""

    @contextlib.asynccontextmanager
    async def run(app: FastAPI) -> AsyncIterator[None]:
        store = await open_store(db_path, clock)
        try:
            bus = await open_bus(bus_url)
        except BusError:
            await store.close()
            raise
        await asyncio.to_thread(names.skeleton, "")  # Unicode's look-alikes are read before the first name comes
        thinkers = Thinkers(think_workers)
        lobby = Lobby(store, bus, clock=clock, expiry=expiry, thinkers=thinkers)
        app.state.bus = bus
        app.state.lobby = lobby
        app.state.thinkers = thinkers
        try:
            await lobby.restore()
            yield
        finally:
            try:
                await lobby.close()
                await store.close()
            finally:
                await thinkers.close()

    return run


def middleware() -> list[Middleware]:
    """The app's middleware, outermost first."""
    return [
        Middleware(SecurityHeaders),
        Middleware(RelativeRedirects),
        Middleware(
            BodyLimit,
            limit=MAX_BODY,
            refuse=lambda lang: refuse(RoomError("too_big"), lang),
            too_deep=too_deep,
            refuse_deep=lambda lang: refuse(RoomError("bad_request", "web_error_json"), lang),
        ),
        Middleware(GZipMiddleware, minimum_size=512),
        Middleware(RevalidateStatic),
    ]


def create_app(
    db_path: str = "elferraus.sqlite3",
    *,
    bus_url: str | None = None,
    static_dir: Path | None = None,
    rooms_per_minute: float = ROOMS_PER_MINUTE,
    allowed_origins: Collection[str] = (),
    expiry: Expiry | None = None,
    clock: Clock = time.time,
    think_workers: int | None = None,
) -> FastAPI:
    """The server's ASGI app, with its rooms stored in ``db_path`` (a SQLite file or a ``postgresql://`` URL).

    One client address (an IPv6 client: its /64) may create ``rooms_per_minute``
    rooms a minute on average, up to ``ROOM_BURST`` at once (0: no limit), on
    this process or on the whole site of its bus; more are refused with 429.
    ``allowed_origins`` (normal origins, ``origins.normal_origin``): if any, a
    WebSocket from a browser on another site is refused at the handshake.
    Rooms nobody uses expire as ``expiry`` says (default ``Expiry()``), by the
    time of ``clock``. The rooms' searching computers think in at most
    ``think_workers`` processes (default ``default_workers()``: one per core
    but one; 0: in threads of this process), started as they are first needed.
    While it runs, ``app.state.lobby`` is its ``Lobby`` and ``app.state.thinkers``
    its ``Thinkers``.
    """
    app = FastAPI(
        title="Elfer raus! web game",
        version="1",
        summary="Rooms, seats and finished games of the web game; play itself goes over the WebSocket /ws/{code}.",
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan(
            db_path, bus_url, clock, expiry, default_workers() if think_workers is None else think_workers
        ),
        strict_content_type=False,
        middleware=middleware(),
    )
    app.state.creation_rate = rooms_per_minute / 60
    app.state.allowed_origins = allowed_origins
    add_refusals(app)
    app.include_router(router)
    add_pages(app, static_dir or STATIC)
    app.openapi = lambda: published(app)  # type: ignore[method-assign]
    return app


__all__ = ["MAX_BODY", "ROOMS_PER_MINUTE", "ROOM_BURST", "STATIC", "create_app"]
