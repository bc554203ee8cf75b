"""Bounded connections: what one client, and all of them together, may hold open.

Built on uvicorn's extension points, not beside them: a subclass of its h11
HTTP protocol (``Config(http=...)``) and of its WebSocket protocol
(``Config(ws=...)``), both sharing one :class:`ConnectionGuard`, and a subclass
of its ``Server``. HTTP itself stays uvicorn's.

- A request (headers and body) must arrive whole within ``request_timeout``
  seconds of the connection opening or of the previous response; a silent
  socket, a slowloris trickle and a slow WebSocket handshake are all closed then.
- One address may hold ``per_address`` connections (an IPv6 client its /64);
  more are closed at once, without a log line. Trusted proxies are exempt
  here; their clients are counted by :class:`~elferraus.server.proxies.ForwardedClientLimit`.
- All clients together may hold ``total`` connections, safely below the
  open-files limit; at that cap a new connection takes the place of the one
  that has waited longest for its request, or is closed if none is waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from elferraus.server.process import collector
from elferraus.server.process.logsummary import RepeatSummary

REQUEST_TIMEOUT = 10.0
"""Seconds a client has to send a whole request: a request fits in one packet, and a phone on
a bad line retransmitting it (after 1, 2 and 4 s) still makes it."""
KEEP_ALIVE = 5
"""Seconds an idle keep-alive connection stays open (uvicorn's default)."""
MAX_CONNECTIONS_PER_ADDRESS = 128
"""A school class of 30 behind one NAT loading the page at once (a browser opens up to 6
connections to a site, and a tab holds one WebSocket) stays below this; a flood does not."""
ACCEPT_BATCH = 32
"""Connections asyncio accepts in one turn of the event loop (it takes the listen backlog for this)."""
LISTEN_QUEUE = 2048
"""Connections the kernel holds for us until they are accepted (uvicorn's default backlog)."""
FDS_FOR_THE_REST = 128
"""File descriptors kept free of connections: the database and its journal on every worker
thread, the event loop's own, log files, static files being sent, a computer player's pipes."""
FDS_ACCEPTED_UNCOUNTED = 6 * ACCEPT_BATCH
"""Sockets that may be open but not counted yet (accepted in the last turns of the loop) or no
longer (closed, but freed only at the next turn)."""
FD_CEILING = 1 << 20

log = logging.getLogger("elferraus.server.limits")


def address_key(host: str) -> str:
    """The address a client is counted by: IPv4 as it is, IPv6 by its /64 (one subscriber's).

    >>> address_key("203.0.113.7"), address_key("::ffff:203.0.113.7"), address_key("2001:db8:1:2:3:4:5:6")
    ('203.0.113.7', '203.0.113.7', '2001:db8:1:2::/64')
    """
    if ":" not in host:
        return host
    try:
        address = ipaddress.IPv6Address(host.partition("%")[0])
    except ValueError:
        return host
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((address, 64), strict=False))


def raise_open_files_limit() -> int:
    """Raise this process's soft RLIMIT_NOFILE as far as its hard limit allows; returns the soft limit."""
    if sys.platform == "win32":  # pragma: no cover
        return 512
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FD_CEILING if hard == resource.RLIM_INFINITY else min(hard, FD_CEILING)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return FD_CEILING if soft == resource.RLIM_INFINITY else soft


def safe_max_connections(fd_limit: int) -> int:
    """Connections that fit below ``fd_limit`` with room for everything else, so accept() never fails.

    >>> safe_max_connections(1024), safe_max_connections(65536)
    (704, 65216)
    """
    return max(fd_limit - FDS_FOR_THE_REST - FDS_ACCEPTED_UNCOUNTED, fd_limit // 4)


class ConnectionGuard:
    """Counts the open connections, per address and in all, and says which may stay.

    Args:
        per_address: connections one address may hold (0: no limit).
        total: connections all clients together may hold.
        is_proxy: whether an address is a trusted proxy (exempt from ``per_address``).
    """

    def __init__(self, per_address: int, total: int, is_proxy: Callable[[str], bool] = lambda host: False) -> None:
        self.per_address = per_address
        self.total = total
        self.is_proxy = is_proxy
        self._key_of: dict[asyncio.BaseTransport, str | None] = {}
        self._per_key: dict[str, int] = {}
        self._waiting: dict[asyncio.BaseTransport, None] = {}
        """Connections waiting for a request, the longest-waiting first."""
        self.refused: Counter[str] = Counter()
        self.evicted = 0
        self.timed_out = 0

    def __len__(self) -> int:
        return len(self._key_of)

    def admit(self, transport: asyncio.BaseTransport, host: str) -> bool:
        """Count a new connection from ``host``, or say False: it must be closed now."""
        key = None if not host or self.is_proxy(host) else address_key(host)
        if key is not None and self.per_address and self._per_key.get(key, 0) >= self.per_address:
            self._refuse(key)
            return False
        if len(self._key_of) >= self.total:
            if not self._waiting:
                self._refuse(key or host)
                return False
            oldest = next(iter(self._waiting))
            self.release(oldest)  # its socket is freed at the loop's next turn (FDS_ACCEPTED_UNCOUNTED)
            oldest.close()
            self.evicted += 1
        self._key_of[transport] = key
        if key is not None:
            self._per_key[key] = self._per_key.get(key, 0) + 1
        return True

    def _refuse(self, key: str) -> None:
        if key in self.refused or len(self.refused) < 100:
            self.refused[key] += 1
        else:
            self.refused["others"] += 1

    def release(self, transport: asyncio.BaseTransport) -> None:
        """The connection is gone (a second call changes nothing)."""
        self._waiting.pop(transport, None)
        if transport not in self._key_of:
            return
        key = self._key_of.pop(transport)
        if key is not None:
            left = self._per_key[key] - 1
            if left:
                self._per_key[key] = left
            else:
                del self._per_key[key]

    def set_waiting(self, transport: asyncio.BaseTransport, waiting: bool) -> None:
        """Whether the connection waits for a request (and so may make room at the cap)."""
        if not waiting:
            self._waiting.pop(transport, None)
        elif transport not in self._waiting and transport in self._key_of:
            self._waiting[transport] = None

    def report(self) -> None:
        """Log (one line) what was refused, evicted and timed out since the last report."""
        refused = sum(self.refused.values())
        happened = []
        if refused:
            most = ", ".join(f"{key} {count}" for key, count in self.refused.most_common(3))
            happened.append(f"{refused} refused (most from {most})")
        if self.evicted:
            happened.append(f"{self.evicted} closed to make room at the cap of {self.total}")
        if self.timed_out:
            happened.append(f"{self.timed_out} closed for sending no whole request in time")
        if happened:
            log.warning("connections since the last report: %s; %d open now", "; ".join(happened), len(self))
        self.refused.clear()
        self.evicted = self.timed_out = 0


class _BoundedHTTP(H11Protocol):
    """uvicorn's h11 protocol, admitted by the guard and closed when a request is too slow."""

    guard: ClassVar[ConnectionGuard]
    request_timeout: ClassVar[float]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._admitted = False
        self._upgraded = False
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) else ""
        if not self.guard.admit(transport, host):
            transport.abort()
            return
        self._admitted = True
        super().connection_made(transport)
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._admitted:
            return
        self._stop_clock()
        self.guard.release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._upgraded = True
        self._stop_clock()
        super().handle_websocket_upgrade(event)

    def _watch(self) -> None:
        """Start the clock when the connection starts waiting for a request; stop it when one is whole."""
        if self._upgraded or self.transport.is_closing():
            self._stop_clock()
            return
        state = self.conn.their_state
        self.guard.set_waiting(self.transport, state is h11.IDLE)
        if state is not h11.IDLE and state is not h11.SEND_BODY:
            self._stop_clock()
        elif self._deadline is None:
            self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _stop_clock(self) -> None:
        self.guard.set_waiting(self.transport, False)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.guard.timed_out += 1
            self.transport.close()


class _BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, giving the connection's place back to the guard when it goes."""

    guard: ClassVar[ConnectionGuard]

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            self.guard.release(self.transport)


def bounded_protocols(
    guard: ConnectionGuard, request_timeout: float
) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """The HTTP and WebSocket protocol classes to give uvicorn (``Config(http=..., ws=...)``)."""

    class BoundedHTTP(_BoundedHTTP):
        pass

    class BoundedWebSocket(_BoundedWebSocket):
        pass

    BoundedHTTP.guard = BoundedWebSocket.guard = guard
    BoundedHTTP.request_timeout = request_timeout
    return BoundedHTTP, BoundedWebSocket


class BoundedServer(uvicorn.Server):
    """uvicorn's server with a kernel listen queue longer than its accept batch, and periodic reports.

    asyncio accepts as many connections in one turn as the backlog it is given, before any of
    them can be refused; ``Config(backlog=ACCEPT_BATCH)`` keeps that small, and this server then
    lengthens the kernel's queue again, so that clients are not turned away by a short queue.
    """

    def __init__(
        self, config: uvicorn.Config, guard: ConnectionGuard, summary: RepeatSummary, greeting: Sequence[str] = ()
    ) -> None:
        super().__init__(config)
        self.guard = guard
        self.summary = summary
        self.greeting = list(greeting)
        """Lines printed once the server listens: an address printed earlier may not answer yet."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        # Settle the collector after the app's start-up (the rooms are read) and before the server listens:
        # the one full collection then delays no client.
        start_app = self.lifespan.startup

        async def start_app_then_settle() -> None:
            await start_app()
            collector.settle()

        self.lifespan.startup = start_app_then_settle
        await super().startup(sockets)
        for server in getattr(self, "servers", []):
            for listener in server.sockets:
                with socket.socket(fileno=os.dup(listener.fileno())) as same:
                    same.listen(LISTEN_QUEUE)
        if self.started:
            for line in self.greeting:
                print(line, flush=True)

    async def on_tick(self, counter: int) -> bool:
        if counter % 100 == 0:  # every 10 s
            self.guard.report()
            self.summary.flush()
        return await super().on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        self.summary.flush(everything=True)
