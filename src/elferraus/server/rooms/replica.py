"""The room's copy on a site of several processes: news of others' changes, and reading the room again.

Every process of a site serves the rooms its clients reached; a change one
of them commits reaches the others over the bus as an ``Event``. A move that
follows the last one a copy knows is played on its table; anything else, or
a gap, makes the copy read the room again from the database.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from elferraus.errors import IllegalMoveError, NotationError
from elferraus.moves import Move
from elferraus.server.rooms.parts import RoomParts
from elferraus.server.rooms.settings import Event, RoomError
from elferraus.server.storage.store import Store
from elferraus.server.storage.types import ExpiredRoom, RoomRow, StoreError, UnreadableRoom
from elferraus.table.session import TurnError

LOG = logging.getLogger("elferraus.server")


class Replica(RoomParts):
    """The part of ``Room`` that keeps this process's copy in step with the database (a mixin)."""

    game_id: int | None
    seq: int
    store: Store
    gone: Callable[[], None]
    _reloading: asyncio.Task[None] | None
    _reload_wanted: bool

    if TYPE_CHECKING:

        @classmethod
        def restore(cls, row: RoomRow, store: Store) -> Replica: ...

        def ensure_driver(self) -> None: ...

        def hear_reaction(self, text: str) -> None: ...

    async def hear(self, event: Event) -> None:
        """Apply a change another process committed (``Event``), in the order they come.

        A move that follows the last one known is played here too; anything else, or a move that does not
        follow (news was missed), makes the room be read again from the database.
        """
        kind = event.get("k")
        seq = event.get("q") if isinstance(event.get("q"), int) else None
        if self.expired:
            return
        if kind == "react":
            if isinstance(event.get("t"), str):
                self.hear_reaction(event["t"])
            return
        if kind == "presence":
            return  # the lobby reads the counts and calls set_elsewhere
        if kind == "away":
            seats = event.get("s")
            if isinstance(seats, list) and self.table is not None and not self.leading:
                self._mirror_away({seat for seat in seats if isinstance(seat, int)}, seq)
            return

        async def change() -> None:
            if kind == "move" and self._follows(event):
                assert self.table is not None
                text = str(event["t"])  # as the record writes it: the seat, the move, a drawn card ("0 draw Y5")
                seat, _, rest = text.partition(" ")
                move, _, drawn = rest.partition(" ")
                self.table.play(Move.parse(move), int(seat))
                if drawn and self.table.game.record_moves()[-1] != text:
                    raise RoomError("stale")  # another card drawn: this copy is not the stored game
                if (step := self.table.next_step()).kind in ("round_over", "match_over"):
                    self.status = step.kind
                self._changed(seq)
            elif kind == "move" and self._known(event):
                if seq is not None and seq - 1 > self.seq:  # this copy got there by reading: take the number
                    self._changed(seq)
            else:
                await self._reload(seq)

        try:
            await self._change(change)
        except (RoomError, StoreError, NotationError, IllegalMoveError, TurnError, ValueError) as error:
            LOG.warning("room %s: news from another server not applied (%s); reading it again", self.code, error)
            self.reload_soon()

    def _follows(self, event: Event) -> bool:
        """Whether ``event`` is the move right after the last one this copy knows."""
        if self.table is None or self.status != "playing" or event.get("g") != self.game_id:
            return False
        return event.get("n") == self.table.game.move_count and isinstance(event.get("t"), str)

    def _known(self, event: Event) -> bool:
        """Whether this copy has the move ``event`` already (it made it, or read it since)."""
        number = event.get("n")
        if self.table is None or event.get("g") != self.game_id or not isinstance(number, int):
            return False
        return number < self.table.game.move_count

    def _mirror_away(self, away: set[int], seq: int | None) -> None:
        assert self.table is not None
        for seat in away - self.table.away:
            self.table.stand_in(seat)
        for seat in self.table.away - away:
            self.table.come_back(seat)
        self._changed(seq)

    def reload_soon(self) -> None:
        """Read the room again from the database once the change under way is done.

        Asked again while a reading is under way, it reads once more after it: that reading may have
        begun before the change that asks.
        """
        self._reload_wanted = True
        if self._reloading is None or self._reloading.done():
            self._reloading = asyncio.get_running_loop().create_task(self._reload_locked(), name=f"reload {self.code}")

    async def _reload_locked(self) -> None:
        while self._reload_wanted and not self.expired:
            self._reload_wanted = False
            try:
                await self._change(self._reload)
            except (StoreError, RoomError) as error:
                LOG.warning("room %s: not read again (%s)", self.code, error)
                return

    async def reload(self) -> None:
        """Read the room again from the database, now (the caller does not hold the lock)."""
        await self._change(self._reload)

    async def _reload(self, seq: int | None = None) -> None:
        """Replace this copy by the room as stored (the caller holds the lock); its clients are told (at ``seq``,
        the number another process gave the change that made it read the room again)."""
        row = await self.store.room(self.code)
        if row is None or isinstance(row, ExpiredRoom):  # another process expired it (None: and forgot it since)
            LOG.info("room %s: it expired", self.code)
            self.gone()
            return
        if isinstance(row, UnreadableRoom):
            LOG.warning("room %s: cannot be read again: %s", self.code, row.reason)
            return
        if self._same_as(row):  # nothing new: the clients are not sent the same state again
            if seq is not None and seq - 1 > self.seq:
                self._changed(seq)
            return
        fresh = await asyncio.to_thread(type(self).restore, row, self.store)
        away = self.table.away if self.table is not None else set()
        self.settings, self.status, self.game_id = fresh.settings, fresh.status, fresh.game_id
        for state, stored in zip(self.seats, fresh.seats, strict=True):
            state.name, state.kind, state.level, state.token_hash = (
                stored.name,
                stored.kind,
                stored.level,
                stored.token_hash,
            )
        self.table = fresh.table
        if self.table is not None:
            for seat in away:
                if self.table.is_person(seat):
                    self.table.stand_in(seat)
        self._changed(seq)
        self.ensure_driver()

    def _same_as(self, row: RoomRow) -> bool:
        """Whether this copy already is the room as ``row`` stores it (status, seats, game and its moves)."""
        if row.status != self.status or row.seats != [state.row() for state in self.seats]:
            return False
        if not row.games:
            return self.table is None
        last = row.games[-1]
        return self.table is not None and last.id == self.game_id and len(last.moves) == self.table.game.move_count


__all__ = ["Replica"]
