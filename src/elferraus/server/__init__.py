"""The web game: an ASGI server (Starlette on uvicorn) with a room per table.

See ``docs/web-protocol.md`` for the routes and the WebSocket protocol.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from elferraus.server.storage.expiry import Expiry
from elferraus.server.web.api import ROOMS_PER_MINUTE
from elferraus.server.web.app import create_app

WS_MAX_SIZE = 65536
"""Frames larger than this are cut off by uvicorn itself (the app refuses anything over 4 KB)."""


def run_server(
    host: str,
    port: int,
    db: str,
    rooms_per_minute: float = ROOMS_PER_MINUTE,
    *,
    bus: str | None = None,
    request_timeout: float | None = None,
    max_connections_per_address: int | None = None,
    max_connections: int | None = None,
    forwarded_allow_ips: str = "",
    allowed_origins: frozenset[str] = frozenset(),
    expiry: Expiry | None = None,
    think_workers: int | None = None,
) -> int:
    """Serve until interrupted; returns the exit code.

    Args:
        bus: a Redis URL shared with the site's other processes (``site/``), or None: this process alone.
        request_timeout: seconds a client has to send a whole request (default ``limits.REQUEST_TIMEOUT``).
        max_connections_per_address: connections one address may hold open, 0: no limit
            (default ``limits.MAX_CONNECTIONS_PER_ADDRESS``).
        max_connections: connections all clients may hold open (default, and at most: what the
            open-files limit allows, ``limits.safe_max_connections``).
        forwarded_allow_ips: proxies whose ``X-Forwarded-For`` is believed, comma-separated (default none).
        allowed_origins: the site's own origins (``origins.parse_origins``): if any, a WebSocket opened by a
            page of another site is refused (default none: any, harmless as nobody logs in with a cookie).
        expiry: when rooms nobody uses expire and how long finished games' records are kept (default
            ``Expiry()``: docs/deploy.md).
        think_workers: the processes the searching computers think in (default ``default_workers()``: one per
            core but one; 0: threads of this process).
    """
    import uvicorn

    from elferraus.server.process import collector
    from elferraus.server.process.logsummary import summarise_repeats
    from elferraus.server.process.urls import shown
    from elferraus.server.thinking.pool import default_workers
    from elferraus.server.web import limits
    from elferraus.server.web.proxies import ForwardedClientLimit

    timeout = limits.REQUEST_TIMEOUT if request_timeout is None else request_timeout
    per_address = max_connections_per_address
    if per_address is None:
        per_address = limits.MAX_CONNECTIONS_PER_ADDRESS
    fd_limit = limits.raise_open_files_limit()
    total = limits.safe_max_connections(fd_limit)
    if max_connections is not None and max_connections > total:
        print(f"elferraus: --max-connections lowered to {total}, what {fd_limit} open files allow", flush=True)
    elif max_connections is not None:
        total = max_connections
    workers = default_workers() if think_workers is None else think_workers
    app: Any = create_app(
        db,
        bus_url=bus,
        rooms_per_minute=rooms_per_minute,
        allowed_origins=allowed_origins,
        expiry=expiry,
        think_workers=workers,
    )
    fastapi_app = app
    guard = limits.ConnectionGuard(per_address, total)
    if forwarded_allow_ips:
        app = ForwardedClientLimit(app, forwarded_allow_ips, per_address, shared=lambda: fastapi_app.state.bus)
        guard.is_proxy = app.is_proxy
    http, ws = limits.bounded_protocols(guard, timeout)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=http,
        ws=ws,
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=False,  # ForwardedClientLimit reads X-Forwarded-For, from the named proxies only
        backlog=limits.ACCEPT_BATCH,
        timeout_keep_alive=limits.KEEP_ALIVE,
        log_level="warning",
        server_header=False,  # says nothing an attacker needs, on each of the page's many small answers
    )
    # uvicorn's and asyncio's loggers get the summary on themselves; the server's own on its handler
    # (below), which also sees their children: once each, or a record would count as its own repeat.
    summary = summarise_repeats("uvicorn.error", "asyncio")
    _log_to_stderr(summary)
    greeting = [
        f"elferraus: open http://{host}:{port}/ (database {shown(db)}"
        + (f", sharing rooms over {shown(bus)}" if bus else "")
        + "; Ctrl+C stops)",
        f"elferraus: at most {total} connections (open-files limit {fd_limit}), {per_address or 'any number'} "
        f"per address; a request must arrive within {timeout:g} s",
        f"elferraus: {(expiry or Expiry()).describe()}",
        "elferraus: "
        + (
            f"the computers' searches think in up to {workers} process{'es' if workers > 1 else ''} of their own"
            if workers
            else "the computers' searches think in threads of this process (--think-workers 0)"
        ),
    ]
    server = limits.BoundedServer(config, guard, summary, greeting)
    collector.pace()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C, raised again once the server has shut down
        server.run()
    return 0 if server.started else 3


def _log_to_stderr(summary: logging.Filter) -> None:
    """The server's own log lines (rooms, the store, the connection limits) on stderr, repeats summarised."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("elferraus: %(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(summary)  # on the handler, so that the records of every child logger pass it too
    server_log = logging.getLogger("elferraus.server")
    server_log.addHandler(handler)
    server_log.setLevel(logging.INFO)


__all__ = ["create_app", "run_server"]
