"""What the processes of one site share besides the database: news of changes, leases, presence, limits.

One process alone (the default) needs none of it: :class:`LocalBus` keeps
it all in memory. Several processes on one PostgreSQL database share a
Redis (``elferraus serve --bus redis://...``, :class:`RedisBus` in ``redis.py``;
``open_bus`` there gives the bus a URL names):

- **news**: after a change is committed, its process publishes a short
  event (a move's number and text, or "read the room again") on one
  pub/sub channel; every other process applies it to its copy of the room
  and tells its own clients. Events of one process go out in order, from
  one sender. A process that was cut off from Redis reads its rooms again
  once it is back (``resync``), so nothing missed stays missed.
- **leases**: the computers and the away timer of a room are driven by the
  one process that holds the room's lease, a key that lives ``LEASE_TTL``
  seconds unless its holder renews it; when the holder dies, another
  process takes it within that time.
- **presence**: how many connections each process holds for each seat, so
  that the lease holder knows whether a person is at the table on any
  process; the counts of a process whose heartbeat stopped are ignored.
- **limits**: the token buckets of room creation (per client address) and
  of reactions (per seat of a room), and the open connections of each
  forwarded client address, counted across processes. A token is taken
  before what it pays for is done, in one step (a Lua script on Redis), so
  that requests arriving together cannot all pass one look at the bucket.

Redis is a helper, never the authority: every decision that must not be
lost or doubled is the database's. While Redis cannot be reached, a process
keeps serving its own clients, limits fall back to its own counts, and the
rooms it leads stay led.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from elferraus.server.process.urls import shown

LOG = logging.getLogger("elferraus.server.bus")

PREFIX = "elferraus:"
CHANNEL = PREFIX + "rooms"
LEASE_TTL = 2.0
"""Seconds a room's lease lives without renewal: how long its computers wait at worst when its holder dies."""
STEWARD_TICK = 0.5
"""Seconds between two rounds of renewing and taking leases (and refreshing presence)."""
ALIVE_TTL = 3.0
"""Seconds a process counts as alive after its last heartbeat (sent every ``STEWARD_TICK``)."""
REDIS_TIMEOUT = 1.0
"""Seconds one Redis command may take before it counts as failed (Redis answers in well under a millisecond)."""
RECONNECT_DELAY = 0.5
REDIS_CONNECTIONS = 16
"""Connections a process holds to Redis for its commands. A call beyond them waits for one (up to
``REDIS_TIMEOUT``): a crowd of clients arriving at once queues for a moment instead of failing as if Redis
were away (each command takes well under a millisecond, so sixteen serve thousands of calls a second)."""

Handler = Callable[[str, dict[str, Any]], None]
"""Called with a room's code and an event another process published for it."""
Resync = Callable[[], Awaitable[None]]
"""Called when news may have been missed (the connection to Redis came back)."""


def process_name() -> str:
    """A name for this process, unique on the site: host, process id and a random part."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"


class Bus(Protocol):
    """What a process shares with the other processes of its site."""

    process: str

    async def start(self, on_event: Handler, on_resync: Resync) -> None:
        """Begin to hear the other processes' events."""

    def publish(self, code: str, event: dict[str, Any]) -> None:
        """Tell the other processes about a committed change of room ``code`` (sent in order, soon)."""

    async def lead(self, codes: Iterable[str]) -> set[str]:
        """Take or renew the leases of ``codes``; returns those this process holds now."""

    async def release(self, code: str) -> None:
        """Give up the lease of ``code`` (if held)."""

    def set_presence(self, code: str, seat: int, count: int, seq: int) -> None:
        """This process holds ``count`` connections of ``seat`` in room ``code`` (as of its change ``seq``)."""

    async def presence(self, code: str) -> dict[int, int] | None:
        """The connections the other live processes hold, per seat of room ``code`` (None: not known now)."""

    async def presence_of(self, codes: Iterable[str]) -> dict[str, dict[int, int]] | None:
        """``presence`` of many rooms at once (None: not known now)."""

    async def take(self, key: str, rate: float, burst: float) -> float:
        """Take a token of bucket ``key`` (``rate`` > 0 a second, up to ``burst``): 0 if one was taken, else the
        seconds until one is there, having taken nothing (a refusal never makes the next wait longer)."""

    async def give_back(self, key: str, rate: float, burst: float) -> None:
        """Return the token ``take`` took for something that then did not happen (never above ``burst``)."""

    async def enter(self, key: str, limit: int) -> bool:
        """Count one more open connection of ``key``, unless ``limit`` (> 0) are open across the site."""

    async def leave(self, key: str) -> None:
        """One open connection of ``key`` closed."""

    async def close(self) -> None:
        """Stop and let go of every lease."""


class TokenBucket:
    """``rate`` tokens a second, up to ``burst`` at once: a limit kept in memory (one connection's frames, or a
    key of :class:`LocalBus`)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def refill(self) -> float:
        """The tokens there are now (what the time since the last look has added)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens

    def take(self) -> bool:
        """True, having taken a token, if there is one now; else False, having taken nothing."""
        if self.refill() >= 1:
            self.tokens -= 1
            return True
        return False

    def give_back(self) -> None:
        """Return what ``take`` took (never above ``burst``)."""
        self.tokens = min(self.burst, self.refill() + 1)


MAX_TRACKED_KEYS = 100_000
"""Token buckets kept in memory at most; full ones are forgotten first (they are as good as new)."""


class LocalBus:
    """The bus of a process alone: it leads every room, and counts limits by itself."""

    def __init__(self) -> None:
        self.process = process_name()
        self._buckets: dict[str, TokenBucket] = {}
        self._open: dict[str, int] = {}

    async def start(self, on_event: Handler, on_resync: Resync) -> None:
        """Nothing to hear."""

    def publish(self, code: str, event: dict[str, Any]) -> None:
        """Nobody to tell."""

    async def lead(self, codes: Iterable[str]) -> set[str]:
        """Every room is this process's."""
        return set(codes)

    async def release(self, code: str) -> None:
        """Nothing to give up."""

    def set_presence(self, code: str, seat: int, count: int, seq: int) -> None:
        """Nobody to tell."""

    async def presence(self, code: str) -> dict[int, int]:
        """No other process holds connections."""
        return {}

    async def presence_of(self, codes: Iterable[str]) -> dict[str, dict[int, int]]:
        """No other process holds connections."""
        return {code: {} for code in codes}

    async def take(self, key: str, rate: float, burst: float) -> float:
        """A token bucket in memory."""
        return self.take_now(key, rate, burst)

    def take_now(self, key: str, rate: float, burst: float) -> float:
        """``take`` without waiting for anything (the fallback of a bus that cannot reach its Redis)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED_KEYS:
                for known, old in list(self._buckets.items()):
                    if old.refill() + 1 >= old.burst:
                        del self._buckets[known]
            bucket = self._buckets[key] = TokenBucket(rate, burst)
        if bucket.take():
            return 0.0
        return (1 - bucket.tokens) / rate

    async def give_back(self, key: str, rate: float, burst: float) -> None:
        """Counted in memory."""
        self.give_back_now(key)

    def give_back_now(self, key: str) -> None:
        """``give_back`` without waiting for anything (a bucket forgotten meanwhile was as good as full)."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.give_back()

    async def enter(self, key: str, limit: int) -> bool:
        """Counted in memory."""
        return self.enter_now(key, limit)

    def enter_now(self, key: str, limit: int) -> bool:
        """``enter`` without waiting for anything."""
        if limit and self._open.get(key, 0) >= limit:
            return False
        self._open[key] = self._open.get(key, 0) + 1
        return True

    async def leave(self, key: str) -> None:
        """Counted in memory."""
        self.leave_now(key)

    def leave_now(self, key: str) -> None:
        """``leave`` without waiting for anything."""
        left = self._open.get(key, 0) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)

    async def close(self) -> None:
        """Nothing to close."""


# Leases: take a free one, renew one's own, never touch another's. Returns, per key, 1 if held now.
class BusError(Exception):
    """The bus cannot be used: its Redis cannot be reached."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{shown(url)}: {reason}")
        self.reason = reason


__all__ = [
    "ALIVE_TTL",
    "LEASE_TTL",
    "MAX_TRACKED_KEYS",
    "STEWARD_TICK",
    "Bus",
    "BusError",
    "LocalBus",
    "TokenBucket",
    "process_name",
]
