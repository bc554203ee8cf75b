"""The room's driving of the turns that wait for nobody: computers', and a person's only legal move.

Only the process that leads a room (it holds the room's lease; alone,
always) drives it: one task per room makes each such move at the room's
pace, stored first like any other (``Room._push``), retrying with backoff
while the store refuses it, and lets a computer stand in for a person away
too long. A computer chooses where the process's ``Thinkers`` say
(``thinking/pool.py``): a search in a thinker process, so that it never
holds the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from elferraus.bots import Bot
from elferraus.game import Game
from elferraus.moves import Move
from elferraus.server.rooms.parts import RoomParts
from elferraus.server.rooms.settings import RoomError

RETRY_FIRST = 0.5
RETRY_LONGEST = 8.0
"""Seconds a computer waits before it tries again to store a move the database refused (doubling each time)."""
LOG = logging.getLogger("elferraus.server")


class Driving(RoomParts):
    """The part of ``Room`` that plays the turns nobody chooses (a mixin: ``Room`` has the state it reads)."""

    _driver: asyncio.Task[None] | None

    if TYPE_CHECKING:

        async def _push(self, move: Move, seat: int | None = None) -> None: ...

    def ensure_driver(self) -> None:
        """Run the task that plays the computers' turns (once per room, on the process that leads it)."""
        if not self.leading or self.status != "playing" or self.expired:
            return
        if self._driver is None or self._driver.done():
            self._driver = asyncio.get_running_loop().create_task(self._drive(), name=f"room {self.code}")
            self._driver.add_done_callback(self._driver_ended)

    def _driver_ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            LOG.error("room %s: the computers stopped playing", self.code, exc_info=task.exception())

    def lead(self) -> None:
        """This process took the room's lease: it drives the computers and the away timer from now on."""
        self.leading = True
        self.ensure_driver()

    def follow(self) -> None:
        """Another process leads the room: stop driving it."""
        self.leading = False
        if self._driver is not None:
            self._driver.cancel()

    async def _drive(self) -> None:
        """Let the table make every move that waits for nobody, at the room's pace; wait while a person chooses.

        The moves that wait for nobody: a computer's, and a person's only legal move
        (:meth:`Table.made_for_person`, the rule of every front end), made at the same pace so that
        the person sees his turn go on.
        """
        while self.status == "playing" and self.table is not None:
            table = self.table
            game = table.game
            step = table.next_step()
            if step.kind in ("round_over", "match_over") or step.seat is None:
                return
            seat = step.seat
            if step.kind == "ask":
                await self._wait_for_person(seat)
                continue
            at = game.move_count
            player = table.bots.get(seat)
            await asyncio.sleep(self.settings.pace)
            if self.table is not table or table.game is not game or game.move_count != at:
                continue
            if table.bots.get(seat) is not player:  # a stand-in came or went meanwhile
                continue
            # A computer may think a while (a search in a thinker process); a person's only move is known at once.
            if step.move is not None:
                move = step.move
            else:
                computer, view = table.computer_to_move()
                move = await self.thinkers.choose(computer, view, f"room {self.code} seat {seat}")
            await self._automatic_moves(game, at, seat, player, move)

    async def _automatic_moves(self, game: Game, at: int, seat: int, player: Bot | None, move: Move) -> None:
        """Make a move the table made without a person's choice (``player``: the computer that chose it, or None
        for a person's only move), retrying with backoff while the store refuses it."""
        delay = RETRY_FIRST
        failures = 0
        while True:

            async def change() -> None:
                assert self.table is not None
                unchanged = self.status == "playing" and self.table.game is game and game.move_count == at
                # A person back in time plays himself; a person's only move is the same whoever makes it.
                if unchanged and self.table.bots.get(seat) is player:
                    await self._push(move)

            try:
                await self._change(change)
            except RoomError as error:
                if error.code == "stale":  # another process played this turn first; the room is read again
                    return
                if error.code == "room_expired":  # nobody will play on here
                    return
                if error.code != "store_unavailable":
                    raise
                failures += 1
                if failures == 1:
                    LOG.warning("room %s: a computer's move is not stored yet; retrying", self.code)
                await asyncio.sleep(delay)
                delay = min(RETRY_LONGEST, delay * 2)
                continue
            if failures:
                LOG.warning("room %s: the computer's move was stored after %d failed tries", self.code, failures)
            return

    async def _wait_for_person(self, seat: int) -> None:
        """Until something changes, or until the person to move has been away too long."""
        state = self.seats[seat]
        self._wake.clear()
        timeout = None
        if state.online == 0:
            timeout = max(0.0, state.offline_since + self.settings.away - time.monotonic())
        try:
            await asyncio.wait_for(self._wake.wait(), timeout)
        except TimeoutError:
            if state.online == 0 and self.table is not None and seat not in self.table.away:
                self.table.stand_in(seat)
                self._changed()
                self.tell({"k": "away", "s": sorted(self.table.away)})


__all__ = ["RETRY_FIRST", "RETRY_LONGEST", "Driving"]
