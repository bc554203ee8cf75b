"""Trusted proxies: whose ``X-Forwarded-For`` is believed, and a cap on each forwarded client.

``X-Forwarded-For`` is a header anyone can write; believed from everyone, it
would let a client choose the address it is counted by (for the room-creation
limit, say). So it is believed only from the addresses the operator names
(``--forwarded-allow-ips``, as uvicorn's own option; default: none). For
connections from those, :class:`ForwardedClientLimit` lets uvicorn's
``ProxyHeadersMiddleware`` put the forwarded client into ``scope["client"]``
and then caps that client's open requests and WebSockets, as the connection
guard caps every other address's connections (from which the proxies are exempt).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from elferraus.server.site.bus import Bus, LocalBus
from elferraus.server.web.limits import address_key

TOO_MANY = json.dumps(
    {"error": "too_many_connections", "message": "Too many connections from your address at once."}
).encode()


class ForwardedClientLimit:
    """ASGI middleware: believe ``X-Forwarded-For`` from the ``trusted`` proxies only, and let each
    forwarded client hold at most ``per_address`` requests and WebSockets open at once (0: no limit).

    Args:
        app: the application.
        trusted: addresses or networks, comma-separated (``"*"``: every address), as uvicorn's
            ``forwarded_allow_ips``.
        per_address: open requests and WebSockets one forwarded client may hold.
        shared: the bus of the site (once the app has started): on several processes the client's
            connections are counted on all of them together.
    """

    def __init__(
        self, app: ASGIApp, trusted: str, per_address: int, shared: Callable[[], Bus | None] = lambda: None
    ) -> None:
        self.app = app
        self.per_address = per_address
        self.shared = shared
        proxy_headers = ProxyHeadersMiddleware(cast(Any, self._counted), trusted_hosts=trusted)
        self._trusted = proxy_headers.trusted_hosts
        self._proxy_headers = cast(ASGIApp, proxy_headers)  # uvicorn's ASGI types are Starlette's, spelt stricter
        self._own = LocalBus()
        """Counts this process's clients until the app has started and its bus is there."""

    def is_proxy(self, host: str) -> bool:
        """Whether ``host`` is one of the trusted proxies."""
        return host in self._trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client") if scope["type"] in ("http", "websocket") else None
        if client and self.is_proxy(str(client[0])):
            await self._proxy_headers(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _counted(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        key = address_key(str(client[0])) if client else ""
        try:
            bus = self.shared()
        except AttributeError:  # the app has not started yet
            bus = None
        counter = bus if bus is not None else self._own
        if not await counter.enter(f"address:{key}", self.per_address):
            await _refuse(scope, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            await counter.leave(f"address:{key}")


async def _refuse(scope: Scope, send: Send) -> None:
    """429 for a request; for a WebSocket, a close before the handshake (which uvicorn answers 403)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    headers = [(b"content-type", b"application/json"), (b"retry-after", b"1"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": TOO_MANY})
