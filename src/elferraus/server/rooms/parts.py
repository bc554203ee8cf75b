"""What the parts of a room (``driver.Driving``, ``replica.Replica``) read and call of the ``Room`` they make up.

Declared once here for the type checker; ``room.Room`` holds the state and the methods.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from elferraus.server.rooms.settings import Event, RoomSettings, SeatState, Status
from elferraus.server.thinking.pool import Thinkers
from elferraus.table.session import Table

T = TypeVar("T")


class RoomParts:
    """The state a room's parts share, and the room's own methods they call."""

    code: str
    settings: RoomSettings
    seats: list[SeatState]
    status: Status
    table: Table | None
    leading: bool
    expired: bool
    thinkers: Thinkers
    tell: Callable[[Event], None]
    _wake: asyncio.Event

    if TYPE_CHECKING:

        async def _change(self, change: Callable[[], Awaitable[T]]) -> T: ...

        def _changed(self, seq: int | None = None) -> None: ...
