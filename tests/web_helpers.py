"""A real server on a free loopback port, for the web tests."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import uvicorn

from elferraus.server import WS_MAX_SIZE, create_app


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def serving(db: str) -> AsyncIterator[str]:
    """Run the app on a free port in this event loop; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(db), host="127.0.0.1", port=port, ws_max_size=WS_MAX_SIZE, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
