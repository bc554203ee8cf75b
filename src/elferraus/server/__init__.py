"""The web game: an ASGI server (Starlette on uvicorn) with a room per table.

See ``docs/web-protocol.md`` for the routes and the WebSocket protocol.
"""

from __future__ import annotations

from elferraus.server.app import ROOMS_PER_MINUTE, create_app

WS_MAX_SIZE = 65536
"""Frames larger than this are cut off by uvicorn itself (the app refuses anything over 4 KB)."""


def run_server(host: str, port: int, db: str, rooms_per_minute: float = ROOMS_PER_MINUTE) -> int:
    """Serve until interrupted; returns the exit code."""
    import uvicorn

    print(f"elferraus: open http://{host}:{port}/ (database {db}; Ctrl+C stops)", flush=True)
    uvicorn.run(
        create_app(db, rooms_per_minute=rooms_per_minute),
        host=host,
        port=port,
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        log_level="warning",
    )
    return 0


__all__ = ["create_app", "run_server"]
