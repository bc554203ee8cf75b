"""Every room of this server: made, found, brought back after a restart, kept in step with the site.

On a site of several processes (``bus.py``) every process keeps a copy of
every room it has heard of, applies the news the others publish, leads the
rooms whose lease it holds, and reads a room it never saw from the database
when a client asks for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Any

from elferraus.i18n import tr
from elferraus.server.bus import STEWARD_TICK, Bus, LocalBus
from elferraus.server.rooms import (
    CODE_LENGTH,
    Room,
    RoomError,
    RoomSettings,
    SeatState,
    check_name,
    hash_token,
    new_code,
)
from elferraus.server.schemas import NewRoom
from elferraus.server.store import RoomRow, Store, StoreError, UnreadableRoom

LOG = logging.getLogger("elferraus.server")
PRESENCE_EVERY = 4
"""Rounds of the steward between two readings of every room's presence (a dead process is noticed then)."""


class Lobby:
    """Every room of this server, kept in memory and in the store.

    A stored room that cannot be brought back is *set aside*: left in the
    store as it is, named in the log with its reason, and refused as
    ``set_aside`` when asked for; every other room comes back.
    """

    def __init__(self, store: Store, bus: Bus | None = None) -> None:
        self.store = store
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
        self._rounds = 0
        self._readings = 0

    async def restore(self) -> None:
        """Bring back every stored room, set its computers playing again, and join the site's news."""
        for row in await self.store.rooms():
            room = self._adopt(row)
            if room is not None and self.alone:
                room.ensure_driver()
        await self.bus.start(self._hear, self._resync)
        if not self.alone:
            self._steward = asyncio.get_running_loop().create_task(self._stewardship(), name="lobby steward")

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
        if not self.alone:
            code = room.code
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
            RoomError: there is none (``no_room``), it was set aside (``set_aside``), or the database
                could not be read (``store_unavailable``).
        """
        code = code.upper()
        if len(code) != CODE_LENGTH:
            raise RoomError("no_room", "web_error_no_room")
        room = self.rooms.get(code)
        if room is None and code not in self.set_aside and not self.alone:
            room = await self._load(code)
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
                room = self.rooms.get(code) or (self._adopt(row) if row is not None else None)
                if room is not None:
                    if code in self._news_while_loading:
                        await room.reload()
                    await self._count(room)
                loading.set_result(room)
            except StoreError as error:
                loading.set_exception(RoomError("store_unavailable"))
                loading.exception()  # retrieved here: every waiter gets it below
                LOG.warning("room %s was not read: %s", code, error.reason)
            finally:
                del self._loading[code]
                self._news_while_loading.discard(code)
        return await asyncio.shield(loading)

    # -- the site's other processes ---------------------------------------------

    def _hear(self, code: str, event: dict[str, Any]) -> None:
        """News of room ``code`` from another process."""
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
        """Stop every room's task, and leave the site."""
        if self._steward is not None:
            self._steward.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._steward
        for task in list(self._tasks):
            task.cancel()
        for room in self.rooms.values():
            await room.close()
        await self.bus.close()
