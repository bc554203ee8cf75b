"""The bus of a site of several processes on one Redis (:class:`RedisBus`), and the bus a URL names (``open_bus``).

What it carries and why is told in ``bus.py``, with the ``Bus`` protocol and a process's own ``LocalBus``.
Redis is an optional dependency: only a site of several processes needs it, so it is imported when a
``RedisBus`` is made.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterable
from typing import Any

from elferraus.server.process.urls import shown
from elferraus.server.site.bus import (
    ALIVE_TTL,
    CHANNEL,
    LEASE_TTL,
    LOG,
    PREFIX,
    RECONNECT_DELAY,
    REDIS_CONNECTIONS,
    REDIS_TIMEOUT,
    STEWARD_TICK,
    Bus,
    BusError,
    Handler,
    LocalBus,
    Resync,
    process_name,
)

SEND_BATCH = 256
"""Events sent to Redis in one round trip at most."""
KEPT_EVENTS = 10_000
"""Events kept while Redis cannot be reached; older ones are dropped past that (a process's rooms are read
again when it hears Redis again, which covers what was dropped long before)."""

LEAD = """
local held = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    held[i] = 1
  elseif not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    held[i] = 1
  else
    held[i] = 0
  end
end
return held
"""
LEASES_PER_CALL = 500
"""Leases taken or renewed by one call of the script: one round trip for a process's rooms, each call short
enough that Redis serves the others in between."""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# A token bucket on Redis's clock (every process sees the same one), taken from in one step: a token is taken
# and '0' returned, or nothing is changed and the seconds until a token is there are returned (as text). A
# bucket is kept until it would be full again, and a second longer.
TAKE = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(stored[1]) or burst
local stamp = tonumber(stored[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
if tokens < 1 then return tostring((1 - tokens) / rate) end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return '0'
"""
# A token given back (what it paid for did not happen): never above the burst; a bucket gone was full anyway.
GIVE_BACK = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
if not stored[1] then return 0 end
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local tokens = math.min(burst, tonumber(stored[1]) + math.max(0, now - tonumber(stored[2])) * rate + 1)
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return 1
"""
# Open connections of one address, per process; a dead process's count is dropped. Returns 1 if admitted.
ENTER = """
local total = 0
local counts = redis.call('HGETALL', KEYS[1])
for i = 1, #counts, 2 do
  if counts[i] == ARGV[1] or redis.call('EXISTS', ARGV[3] .. counts[i]) == 1 then
    total = total + tonumber(counts[i + 1])
  else
    redis.call('HDEL', KEYS[1], counts[i])
  end
end
local limit = tonumber(ARGV[2])
if limit > 0 and total >= limit then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('EXPIRE', KEYS[1], 86400)
return 1
"""
LEAVE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


class RedisBus:
    """The bus of one of several processes, on Redis (redis-py's asyncio client).

    Args:
        url: ``redis://host:port/db`` (any URL redis-py takes).
    """

    def __init__(self, url: str) -> None:
        from redis import asyncio as aioredis  # an optional dependency: only a site of several processes needs it

        self.url = url
        self.process = process_name()
        commands = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_CONNECTIONS,
            timeout=REDIS_TIMEOUT,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
            decode_responses=True,
        )
        self._redis = aioredis.Redis.from_pool(commands)
        # Listening waits as long as there is nothing to hear: no timeout on its socket, but keep-alive.
        self._listener = aioredis.Redis.from_url(
            url, socket_connect_timeout=REDIS_TIMEOUT, socket_keepalive=True, decode_responses=True
        )
        self._scripts = {
            name: self._redis.register_script(text)
            for name, text in (
                ("lead", LEAD),
                ("release", RELEASE),
                ("take", TAKE),
                ("give_back", GIVE_BACK),
                ("enter", ENTER),
                ("leave", LEAVE),
            )
        }
        self._fallback = LocalBus()
        self._outbox: asyncio.Queue[tuple[str, str, Any] | None] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._alive: tuple[float, set[str]] = (0.0, set())
        self._down_since: float | None = None
        self._led: set[str] = set()
        self.connected = asyncio.Event()
        """Set while the listener is subscribed."""

    @classmethod
    async def open(cls, url: str) -> RedisBus:
        """A bus on ``url``, after checking that Redis answers.

        Raises:
            BusError: Redis cannot be reached (the message names the URL without a password, and why).
        """
        from redis.exceptions import RedisError

        bus = cls(url)
        try:
            await bus._redis.ping()
        except (RedisError, OSError) as error:
            await bus._close_clients()
            raise BusError(url, str(error) or type(error).__name__) from None
        return bus

    # -- news -------------------------------------------------------------------

    async def start(self, on_event: Handler, on_resync: Resync) -> None:
        """Begin to hear the other processes' events, and to send this one's."""
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(on_event, on_resync), name="bus listener"),
            loop.create_task(self._send(), name="bus sender"),
            loop.create_task(self._heartbeat(), name="bus heartbeat"),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.connected.wait(), REDIS_TIMEOUT * 3)

    def publish(self, code: str, event: dict[str, Any]) -> None:
        """Queue an event for the other processes."""
        text = json.dumps({"p": self.process, "c": code, **event}, separators=(",", ":"))
        self._outbox.put_nowait(("publish", CHANNEL, text))

    def set_presence(self, code: str, seat: int, count: int, seq: int) -> None:
        """Store this process's count for ``seat`` and tell the others to look."""
        self._outbox.put_nowait(("presence", f"{PREFIX}presence:{code}", (f"{self.process}|{seat}", count)))
        self.publish(code, {"k": "presence", "q": seq})

    async def _send(self) -> None:
        from redis.exceptions import RedisError

        batch: list[tuple[str, str, Any]] = []
        while True:
            items = [] if batch else [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) + len(items) < SEND_BATCH:
                items.append(self._outbox.get_nowait())
            closing = None in items
            batch += [item for item in items if item is not None]
            try:
                if batch:
                    async with self._redis.pipeline(transaction=False) as pipe:
                        for kind, key, value in batch:
                            if kind == "publish":
                                pipe.publish(key, value)
                            elif value[1] > 0:
                                pipe.hset(key, value[0], value[1])
                                pipe.expire(key, 86400)
                            else:
                                pipe.hdel(key, value[0])
                        await pipe.execute()
                batch = []
            except (RedisError, OSError) as error:
                if closing:
                    return
                # Kept and sent again once Redis answers: the others read their rooms again when they hear
                # Redis again, but a change stored after that reading reaches them only as this news.
                self._went_down(f"{len(batch) + self._outbox.qsize()} events waiting: {error}")
                self._drop_oldest_beyond(KEPT_EVENTS)
                await asyncio.sleep(RECONNECT_DELAY)
            if closing:
                return

    def _drop_oldest_beyond(self, limit: int) -> None:
        """Forget the oldest waiting events past ``limit`` (a long outage): the readings after it cover them."""
        dropped = 0
        while self._outbox.qsize() > limit:
            item = self._outbox.get_nowait()
            if item is None:  # closing: keep the word to stop
                self._outbox.put_nowait(None)
                break
            dropped += 1
        if dropped:
            LOG.warning("bus: Redis away too long, %d older events dropped", dropped)

    async def _listen(self, on_event: Handler, on_resync: Resync) -> None:
        from redis.exceptions import RedisError

        missed = False
        while True:
            pubsub = self._listener.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                self.connected.set()
                if missed or self._down_since is not None:
                    self._came_back()
                    await on_resync()
                missed = True  # from here on, a lost connection may have lost news
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        event = json.loads(message["data"])
                        code = event.pop("c")
                        sender = event.pop("p")
                    except (ValueError, KeyError, TypeError):
                        LOG.warning("bus: an event that is not ours: %.200r", message.get("data"))
                        continue
                    if sender != self.process and isinstance(code, str):
                        on_event(code, event)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                self.connected.clear()
                self._went_down(f"not subscribed: {error}")
                await asyncio.sleep(RECONNECT_DELAY)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _went_down(self, why: str) -> None:
        if self._down_since is None:
            self._down_since = time.monotonic()
            LOG.warning("bus: Redis at %s cannot be reached (%s); serving on, limits counted here alone", self, why)

    def _came_back(self) -> None:
        if self._down_since is not None:
            LOG.warning("bus: Redis is back after %.1f s; reading the rooms again", time.monotonic() - self._down_since)
            self._down_since = None

    def __str__(self) -> str:
        return shown(self.url)

    # -- leases and presence ------------------------------------------------------

    async def _heartbeat(self) -> None:
        from redis.exceptions import RedisError

        while True:
            with contextlib.suppress(RedisError, OSError):
                await self._redis.set(f"{PREFIX}alive:{self.process}", "1", px=round(ALIVE_TTL * 1000))
            await asyncio.sleep(STEWARD_TICK)

    async def lead(self, codes: Iterable[str]) -> set[str]:
        """Take or renew the leases of ``codes``; returns those held now.

        While Redis cannot be reached, the leases held stay held (no other process can take them either).
        """
        from redis.exceptions import RedisError

        codes = list(codes)
        if not codes:
            return set()
        ttl = round(LEASE_TTL * 1000)
        try:
            held: list[int] = []
            for start in range(0, len(codes), LEASES_PER_CALL):
                keys = [f"{PREFIX}lease:{code}" for code in codes[start : start + LEASES_PER_CALL]]
                held += await self._scripts["lead"](keys=keys, args=[self.process, ttl])
        except (RedisError, OSError) as error:
            self._went_down(f"leases not renewed: {error}")
            return self._led & set(codes)
        self._led = {code for code, won in zip(codes, held, strict=True) if won == 1}
        return set(self._led)

    async def release(self, code: str) -> None:
        """Give up the lease of ``code``."""
        from redis.exceptions import RedisError

        self._led.discard(code)
        with contextlib.suppress(RedisError, OSError):
            await self._scripts["release"](keys=[f"{PREFIX}lease:{code}"], args=[self.process])

    async def _live(self) -> set[str]:
        stamp, live = self._alive
        if time.monotonic() - stamp < STEWARD_TICK:
            return live
        found = {key.removeprefix(f"{PREFIX}alive:") async for key in self._redis.scan_iter(f"{PREFIX}alive:*")}
        self._alive = (time.monotonic(), found)
        return found

    async def presence(self, code: str) -> dict[int, int] | None:
        """The connections the other live processes hold, per seat (None: unknown, Redis did not answer)."""
        from redis.exceptions import RedisError

        try:
            counts = await self._redis.hgetall(f"{PREFIX}presence:{code}")
            live = await self._live()
        except (RedisError, OSError) as error:
            self._went_down(f"presence not read: {error}")
            return None
        return self._seats(counts, live)

    async def presence_of(self, codes: Iterable[str]) -> dict[str, dict[int, int]] | None:
        """``presence`` of many rooms in one round trip (None: Redis did not answer)."""
        from redis.exceptions import RedisError

        codes = list(codes)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for code in codes:
                    pipe.hgetall(f"{PREFIX}presence:{code}")
                found = await pipe.execute()
            live = await self._live()
        except (RedisError, OSError) as error:
            self._went_down(f"presence not read: {error}")
            return None
        return {code: self._seats(counts, live) for code, counts in zip(codes, found, strict=True)}

    def _seats(self, counts: dict[Any, Any], live: set[str]) -> dict[int, int]:
        """Connections per seat of the other live processes, from a room's stored counts."""
        seats: dict[int, int] = {}
        for field, count in counts.items():
            process, _, seat = str(field).rpartition("|")
            if process != self.process and process in live and seat.isdigit():
                seats[int(seat)] = seats.get(int(seat), 0) + int(count)
        return seats

    # -- limits -------------------------------------------------------------------

    async def take(self, key: str, rate: float, burst: float) -> float:
        """A token bucket shared by the site (this process's own while Redis is away)."""
        from redis.exceptions import RedisError

        try:
            wait = await self._scripts["take"](keys=[f"{PREFIX}bucket:{key}"], args=[rate, burst])
        except (RedisError, OSError) as error:
            self._went_down(f"limit counted here: {error}")
            return self._fallback.take_now(key, rate, burst)
        return float(wait)

    async def give_back(self, key: str, rate: float, burst: float) -> None:
        """To the site's bucket (to this process's own while Redis is away: a token at most is misplaced)."""
        from redis.exceptions import RedisError

        try:
            await self._scripts["give_back"](keys=[f"{PREFIX}bucket:{key}"], args=[rate, burst])
        except (RedisError, OSError) as error:
            self._went_down(f"limit counted here: {error}")
            self._fallback.give_back_now(key)

    async def enter(self, key: str, limit: int) -> bool:
        """Counted across the site (here alone while Redis is away)."""
        from redis.exceptions import RedisError

        try:
            admitted = await self._scripts["enter"](
                keys=[f"{PREFIX}open:{key}"], args=[self.process, limit, f"{PREFIX}alive:"]
            )
        except (RedisError, OSError) as error:
            self._went_down(f"connections counted here: {error}")
            return self._fallback.enter_now(key, limit)
        return bool(admitted == 1)

    async def leave(self, key: str) -> None:
        """One open connection of ``key`` closed."""
        from redis.exceptions import RedisError

        try:
            await self._scripts["leave"](keys=[f"{PREFIX}open:{key}"], args=[self.process])
        except (RedisError, OSError):
            self._fallback.leave_now(key)

    async def close(self) -> None:
        """Send what is queued, let go of the leases and of this process's presence, close."""
        from redis.exceptions import RedisError

        self._outbox.put_nowait(None)
        sender = self._tasks[1] if len(self._tasks) > 1 else None
        if sender is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
                await asyncio.wait_for(sender, REDIS_TIMEOUT * 2)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(RedisError, OSError):
            for code in list(self._led):
                await self.release(code)
            await self._redis.delete(f"{PREFIX}alive:{self.process}")
        await self._close_clients()

    async def _close_clients(self) -> None:
        with contextlib.suppress(Exception):
            await self._redis.aclose()
        with contextlib.suppress(Exception):
            await self._listener.aclose()


def check_bus(url: str) -> None:
    """Refuse, in words naming ``url``, a bus the server could not use.

    Raises:
        BusError: its Redis cannot be reached.
    """

    async def open_and_close() -> None:
        await (await open_bus(url)).close()

    asyncio.run(open_and_close())


async def open_bus(url: str | None) -> Bus:
    """The bus ``url`` names (``redis://...``), or a process's own (None).

    Raises:
        BusError: Redis cannot be reached.
    """
    if not url:
        return LocalBus()
    return await RedisBus.open(url)


__all__ = ["RedisBus", "check_bus", "open_bus"]
