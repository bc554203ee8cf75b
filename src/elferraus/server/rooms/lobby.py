"""Every room of this server: made, found, brought back after a restart, kept in step with the site.

On a site of several processes (``site/bus.py``) every process keeps a copy of
every room it has heard of, applies the news the others publish, leads the
rooms whose lease it holds, and reads a room it never saw from the database
when a client asks for it.

Rooms nobody uses expire (``storage/expiry.py``): every process sweeps now and then
(``Lobby.sweep``), first stamping the rooms its clients are in as active,
and forgets a room that expired, here or on another process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import Any

from elferraus.i18n import tr
from elferraus.server.rooms.room import Room
from elferraus.server.rooms.schemas import NewRoom
from elferraus.server.rooms.settings import (
    CODE_LENGTH,
    RoomError,
    RoomSettings,
    SeatState,
    check_name,
    hash_token,
    new_code,
)
from elferraus.server.site.bus import STEWARD_TICK, Bus, LocalBus
from elferraus.server.storage.expiry import BATCH, DAY, STAMP_EVERY, Clock, Expiry
from elferraus.server.storage.store import Store
from elferraus.server.storage.types import ExpiredRoom, RoomRow, StoreError, Swept, UnreadableRoom
from elferraus.server.thinking.pool import IN_THREADS, Thinkers

LOG = logging.getLogger("elferraus.server")
PRESENCE_EVERY = 4
"""Rounds of the steward between two readings of every room's presence (a dead process is noticed then)."""


class Lobby:
    """Every room of this server, kept in memory and in the store.

    A stored room that cannot be brought back is *set aside*: left in the
    store as it is, named in the log with its reason, and refused as
    ``set_aside`` when asked for; every other room comes back. A room set
    aside counts as in use (it never expires while a server sets it aside).

    Args:
        store: where the rooms are kept (its clock should be ``clock``).
        bus: what the site's processes share (default: this process alone).
        clock: the server's time, for the expiry and the stamps of the rooms in use.
        expiry: when rooms nobody uses expire (default: ``Expiry()``).
        thinkers: where the rooms' computers choose (default: searches in a thread of this process).
    """

    def __init__(
        self,
        store: Store,
        bus: Bus | None = None,
        *,
        clock: Clock = time.time,
        expiry: Expiry | None = None,
        thinkers: Thinkers = IN_THREADS,
    ) -> None:
        self.store = store
        self.thinkers = thinkers
        self.clock = clock
        self.expiry = expiry or Expiry()
        self.bus: Bus = bus or LocalBus()
        self.alone = isinstance(self.bus, LocalBus)
        """No other process serves these rooms: this one leads them all, and nobody needs telling."""
        self.rooms: dict[str, Room] = {}
        self.set_aside: dict[str, str] = {}
        """Rooms that did not come back, and why."""
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self._news_while_loading: set[str] = set()
        """Rooms being read that other processes changed meanwhile: what was read may be older than the news."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._steward: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._rounds = 0
        self._readings = 0

    async def restore(self) -> None:
        """Bring back every stored room, set its computers playing again, join the site's news, and sweep (once
        now, then every ``Expiry.every`` seconds)."""
        for row in await self.store.rooms():
            room = self._adopt(row)
            if room is not None and self.alone:
                room.ensure_driver()
        await self.bus.start(self._hear, self._resync)
        await self._sweep_quietly()
        loop = asyncio.get_running_loop()
        if not self.alone:
            self._steward = loop.create_task(self._stewardship(), name="lobby steward")
        self._sweeper = loop.create_task(self._sweeping(), name="lobby sweeper")

    def _adopt(self, row: RoomRow | UnreadableRoom) -> Room | None:
        """The room of a stored row, kept in this lobby (or set aside if it does not replay)."""
        if isinstance(row, UnreadableRoom):
            self._set_aside(row.code, None, row.reason)
            return None
        try:
            room = Room.restore(row, self.store)
        except Exception as error:  # any fault of the stored rows: the other rooms must still come back
            game = row.games[-1].id if row.games else None
            self._set_aside(row.code, game, f"{type(error).__name__}: {error}")
            return None
        self._wire(room)
        self.rooms[room.code] = room
        return room

    def _wire(self, room: Room) -> None:
        room.leading = self.alone
        room.shared = not self.alone
        room.thinkers = self.thinkers
        room.clock = self.clock
        code = room.code
        room.gone = lambda: self._drop(code)
        room.used = lambda: self._used(room)
        if not self.alone:
            room.tell = lambda event: self.bus.publish(code, {**event, "q": room.seq})
            room.tell_presence = lambda seat, count: self.bus.set_presence(code, seat, count, room.seq)

    def _set_aside(self, code: str, game: int | None, reason: str) -> None:
        self.set_aside[code] = reason
        where = f"room {code}" + (f" (game {game})" if game is not None else "")
        # Formatted here, not by logging: each room set aside is a line of its own, never a "repeat".
        LOG.error(f"{where} is set aside: it does not replay from the database: {reason}")

    async def create(self, choice: NewRoom) -> tuple[Room, str]:
        """A new room from the host's choices; returns it and the host's token.

        Raises:
            RoomError: a choice does not fit the others, or the store refused (``store_unavailable``).
        """
        settings = RoomSettings(choice.players, choice.rules, choice.rounds, choice.fill, choice.away, choice.pace)
        if len(choice.seats) > settings.players - 1:
            raise RoomError("bad_request", "web_error_seats", field="seats")
        token = secrets.token_urlsafe(32)
        seats = [SeatState(0, choice.name, "person", None, hash_token(token))]
        for seat in range(1, settings.players):
            spec = choice.seats[seat - 1] if seat - 1 < len(choice.seats) else None
            if spec is not None and spec.kind == "computer":
                name = tr("name_computer", "en", n=seat + 1)
                seats.append(SeatState(seat, name, "computer", spec.level or settings.fill))
            else:
                seats.append(SeatState(seat, "", "open"))
        check_name(choice.name, [state.name for state in seats[1:]])

        async def taken(candidate: str) -> bool:
            return candidate in self.rooms or candidate in self.set_aside or await self.store.code_exists(candidate)

        try:
            code = await new_code(taken)
            await self.store.add_room(code, settings.to_dict(), [state.row() for state in seats])
        except StoreError as error:
            LOG.warning("a new room was not stored: %s", error.reason)
            raise RoomError("store_unavailable") from error
        room = Room(code, settings, seats, self.store)
        self._wire(room)
        self.rooms[code] = room
        if not self.alone:
            room.leading = code in await self.bus.lead([code])
            room.tell({"k": "room"})
        return room, token

    async def room(self, code: str) -> Room:
        """The room with this code (any case); one this process has not seen yet is read from the database.

        Raises:
            RoomError: there is none (``no_room``), it expired (``room_expired``), it was set aside
                (``set_aside``), or the database could not be read (``store_unavailable``).
        """
        code = code.upper()
        if len(code) != CODE_LENGTH:
            raise RoomError("no_room", "web_error_no_room")
        room = self.rooms.get(code)
        if room is None and code not in self.set_aside:
            if not self.alone:
                room = await self._load(code)
            elif await self._expired(code):  # alone, every room in use is here: the database knows the rest
                raise RoomError("room_expired")
        if room is None:
            if code in self.set_aside:
                raise RoomError("set_aside")
            raise RoomError("no_room", "web_error_no_room")
        return room

    async def _load(self, code: str) -> Room | None:
        """Read a room from the database into this lobby (once, however many ask at the same time)."""
        loading = self._loading.get(code)
        if loading is None:
            loading = self._loading[code] = asyncio.get_running_loop().create_future()
            try:
                self._news_while_loading.discard(code)
                row = await self.store.room(code)
                if isinstance(row, ExpiredRoom):
                    self._drop(code)
                    raise RoomError("room_expired")
                room = self.rooms.get(code) or (self._adopt(row) if row is not None else None)
                if room is not None:
                    if code in self._news_while_loading:
                        await room.reload()  # which finds it expired, if that was the news
                    if room.expired:
                        raise RoomError("room_expired")
                    await self._count(room)
                loading.set_result(room)
            except RoomError as error:
                loading.set_exception(error)
                loading.exception()  # retrieved here: every waiter gets it below
            except StoreError as error:
                loading.set_exception(RoomError("store_unavailable"))
                loading.exception()  # retrieved here: every waiter gets it below
                LOG.warning("room %s was not read: %s", code, error.reason)
            finally:
                del self._loading[code]
                self._news_while_loading.discard(code)
        return await asyncio.shield(loading)

    async def _expired(self, code: str) -> bool:
        """Whether the room ``code`` is stored as expired (False if the database cannot say now)."""
        try:
            return isinstance(await self.store.room(code), ExpiredRoom)
        except StoreError:
            return False

    # -- rooms nobody uses (expiry.py) --------------------------------------------

    async def sweep(self) -> Swept:
        """Stamp the rooms in use here, then let the store expire what nobody used for long enough, a batch (one
        transaction) at a time; the rooms that expired are forgotten here and on the site's other processes.

        Returns what was done in all. Idempotent: several processes may sweep at once.

        Raises:
            StoreError: the database refused (what was done before stays done; the next sweep goes on).
        """
        await self._stamp_in_use()
        expired: list[str] = []
        forgotten: list[str] = []
        games = 0
        while True:
            swept = await self.store.sweep(self.expiry, BATCH)
            for code in swept.expired:
                self._drop(code, tell=True)
            expired += swept.expired
            forgotten += swept.forgotten
            games += swept.games
            if not swept.more:
                break
            await asyncio.sleep(0)  # between two transactions, the rooms' own work goes first
        if expired or games or forgotten:
            LOG.info(
                "expiry: %d rooms expired%s, %d finished games deleted after %g days, %d expired rooms forgotten",
                len(expired),
                f" ({', '.join(expired[:10])}{', ...' if len(expired) > 10 else ''})" if expired else "",
                games,
                self.expiry.records / DAY,
                len(forgotten),
            )
        return Swept(tuple(expired), games, tuple(forgotten))

    async def _stamp_in_use(self) -> None:
        """Store as each room's last activity when it was last in use here: now for a room with a client (here, or
        elsewhere as far as this process knows) or set aside, else when its last client came or went."""
        now = self.clock()
        seen: dict[str, float] = dict.fromkeys(self.set_aside, now)
        for code, room in self.rooms.items():
            if room.listeners or any(room.here) or any(room.elsewhere.values()):
                seen[code] = now
                room.stamped = now
            elif room.seen is not None:
                seen[code] = room.seen
            room.seen = None
        try:
            await self.store.touch(seen)
        except BaseException:
            for code, moment in seen.items():  # stamped next time, then
                kept = self.rooms.get(code)
                if kept is not None:
                    kept.seen = max(moment, kept.seen or moment)
            raise

    def _used(self, room: Room) -> None:
        """A client came to the room or went: on a site, store it as in use now (once a ``STAMP_EVERY`` at most;
        this process's sweeps do again while clients stay), so that another process's sweep does not expire it
        before this one's next. Alone, this process's own sweep sees its clients."""
        now = self.clock()
        if self.alone or now - room.stamped < STAMP_EVERY:
            return
        room.stamped = now
        self._spawn(self._touch_quietly(room, now))

    async def _touch_quietly(self, room: Room, now: float) -> None:
        try:
            await self.store.touch({room.code: now})
        except StoreError:
            room.stamped = float("-inf")  # the next client that comes or goes tries again; the sweep does anyway

    def _drop(self, code: str, *, tell: bool = False) -> None:
        """Room ``code`` expired: forget it here, send its clients away, and (``tell``) tell the other processes."""
        self.set_aside.pop(code, None)
        room = self.rooms.pop(code, None)
        if tell and not self.alone:
            self.bus.publish(code, {"k": "expired"})
        if room is not None:
            room.expire()
            self._spawn(self._let_go(room))

    async def _let_go(self, room: Room) -> None:
        leading = room.leading and not self.alone
        await room.close()
        if leading:
            await self.bus.release(room.code)

    async def _sweeping(self) -> None:
        while True:
            await asyncio.sleep(self.expiry.every())
            await self._sweep_quietly()

    async def _sweep_quietly(self) -> None:
        try:
            await self.sweep()
        except asyncio.CancelledError:
            raise
        except StoreError as error:
            LOG.warning("expiry: not done now (%s); tried again in %g s", error.reason, self.expiry.every())
        except Exception:  # the next sweep tries again; nothing of a room in use depends on it
            LOG.exception("expiry: a sweep failed")

    # -- the site's other processes ---------------------------------------------

    def _hear(self, code: str, event: dict[str, Any]) -> None:
        """News of room ``code`` from another process."""
        if event.get("k") == "expired":
            if code in self._loading:
                self._news_while_loading.add(code)
            self._drop(code)
            return
        room = self.rooms.get(code)
        if room is None:
            if code in self._loading:
                self._news_while_loading.add(code)
            elif code not in self.set_aside and event.get("k") == "room":
                self._spawn(self._load_quietly(code))
            return
        if event.get("k") == "presence":
            seq = event.get("q")
            self._spawn(self._count(room, seq if isinstance(seq, int) else None))
        else:
            self._spawn(room.hear(event))

    async def _load_quietly(self, code: str) -> None:
        with contextlib.suppress(RoomError):
            await self._load(code)

    async def _count(self, room: Room, seq: int | None = None) -> None:
        """Read the room's presence on the other processes and apply it (unless a later reading came first)."""
        reading = self._next_reading()
        counts = await self.bus.presence(room.code)
        self._apply_counts(room, reading, counts, seq)

    def _next_reading(self) -> int:
        self._readings += 1
        return self._readings

    @staticmethod
    def _apply_counts(room: Room, reading: int, counts: dict[int, int] | None, seq: int | None = None) -> None:
        # Readings overlap (news of one room, the steward's round over all): an older one never lands after a
        # newer one. None: Redis did not answer, the counts as last read stand.
        if counts is not None and reading > room.presence_reading:
            room.presence_reading = reading
            room.set_elsewhere(counts, seq)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resync(self) -> None:
        """News may have been missed: read every room again, the ones with clients here first."""
        rooms = sorted(self.rooms.values(), key=lambda room: not room.listeners)
        for room in rooms:
            with contextlib.suppress(StoreError, RoomError):
                await room.reload()
            await self._count(room)

    async def _stewardship(self) -> None:
        """Take and renew the leases of the rooms in play, and keep the presence of each room current."""
        while True:
            try:
                await self._steward_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # the next round tries again; a steward that stopped would strand the rooms
                LOG.exception("the lobby's steward failed a round")
            await asyncio.sleep(STEWARD_TICK)

    async def _steward_once(self) -> None:
        wanted = [room for room in self.rooms.values() if room.status == "playing" or room.leading]
        held = await self.bus.lead(room.code for room in wanted)
        for room in wanted:
            if room.code in held and not room.leading:
                LOG.info("room %s: this process leads it now", room.code)
                self._spawn(self._take_over(room))
            elif room.code not in held and room.leading:
                room.follow()
        self._rounds += 1
        if self._rounds % PRESENCE_EVERY == 0:
            # News brings every change of presence at once; this round only notices processes that died.
            present = [room for room in self.rooms.values() if room.leading or room.listeners]
            reading = self._next_reading()
            counts = await self.bus.presence_of(room.code for room in present)
            for room in present:
                self._apply_counts(room, reading, None if counts is None else counts.get(room.code, {}))

    async def _take_over(self, room: Room) -> None:
        """Lead ``room``: read it again first (news may have been missed), then drive it."""
        room.leading = True  # so that the next round does not start this again meanwhile
        with contextlib.suppress(StoreError, RoomError):
            await room.reload()
        room.lead()

    async def close(self) -> None:
        """Stop every room's task, store when the rooms were last in use here, and leave the site."""
        for task in (self._steward, self._sweeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        with contextlib.suppress(StoreError):
            await self._stamp_in_use()
        for task in list(self._tasks):
            task.cancel()
        for room in self.rooms.values():
            await room.close()
        await self.bus.close()
