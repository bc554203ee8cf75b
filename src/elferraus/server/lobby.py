"""Every room of this server: made, found, brought back after a restart."""

from __future__ import annotations

import logging
import secrets

from elferraus.i18n import tr
from elferraus.server.rooms import CODE_LENGTH, Room, RoomError, RoomSettings, SeatState, hash_token, new_code
from elferraus.server.schemas import NewRoom
from elferraus.server.store import Store, StoreError, UnreadableRoom

LOG = logging.getLogger("elferraus.server")


class Lobby:
    """Every room of this server, kept in memory and in the store.

    A stored room that cannot be brought back is *set aside*: left in the
    store as it is, named in the log with its reason, and refused as
    ``set_aside`` when asked for; every other room comes back.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rooms: dict[str, Room] = {}
        self.set_aside: dict[str, str] = {}
        """Rooms that did not come back, and why."""

    async def restore(self) -> None:
        """Bring back every stored room, and set its computers playing again."""
        for row in await self.store.rooms():
            if isinstance(row, UnreadableRoom):
                self._set_aside(row.code, None, row.reason)
                continue
            try:
                room = Room.restore(row, self.store)
            except Exception as error:  # any fault of the stored rows: the other rooms must still come back
                game = row.games[-1].id if row.games else None
                self._set_aside(row.code, game, f"{type(error).__name__}: {error}")
                continue
            self.rooms[room.code] = room
            if room.status == "playing":
                room.ensure_driver()

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

        async def taken(candidate: str) -> bool:
            return candidate in self.rooms or candidate in self.set_aside or await self.store.code_exists(candidate)

        try:
            code = await new_code(taken)
            await self.store.add_room(code, settings.to_dict(), [state.row() for state in seats])
        except StoreError as error:
            LOG.warning("a new room was not stored: %s", error.reason)
            raise RoomError("store_unavailable") from error
        room = Room(code, settings, seats, self.store)
        self.rooms[code] = room
        return room, token

    def room(self, code: str) -> Room:
        """The room with this code (any case).

        Raises:
            RoomError: there is none (``no_room``), or it was set aside at start-up (``set_aside``).
        """
        code = code.upper()
        room = self.rooms.get(code) if len(code) == CODE_LENGTH else None
        if room is None:
            if code in self.set_aside:
                raise RoomError("set_aside")
            raise RoomError("no_room", "web_error_no_room")
        return room

    async def close(self) -> None:
        """Stop every room's task."""
        for room in self.rooms.values():
            await room.close()
