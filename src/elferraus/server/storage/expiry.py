"""When rooms nobody uses expire, and how long the records of finished games are kept.

A room's *activity* is the latest of its creation, any change stored for it
(a join, a start, a move, the next round, a rematch) and the presence of a
client connected to it on any process of the site. A room expires once its
activity is older than its status allows (``Expiry``): its seats (the
tokens), its unfinished games and their moves are deleted, and its code
answers ``room_expired``. A finished game's record stays downloadable for
``Expiry.records`` seconds after the game finished (longer only if a room in
use still plays its match, which the room is rebuilt from); an expired room's row
(what keeps its code from a new room) goes when none of its games is left
and as long again has passed since it expired.

The stores do the work (``Store.touch``, ``Store.sweep``), each batch in a
transaction of its own; the lobby decides when (``Lobby.sweep``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]
"""Where the server's time comes from: the seconds since the epoch (``time.time``; a test gives its own)."""

HOUR = 3600.0
DAY = 24 * HOUR
SWEEP_EVERY = 300.0
"""Seconds between two sweeps of a server process at most (fewer if a room may expire sooner)."""
BATCH = 50
"""Rooms (or games) one transaction of a sweep handles at most, so that it never holds the database long."""
STAMP_EVERY = 60.0
"""Seconds between two stamps of a room's activity by its moves, at most, on PostgreSQL (where a stamp with every
move would be a commit more for each turn); SQLite stamps each move in the move's own transaction."""


@dataclass(frozen=True)
class Expiry:
    """How long things nobody uses are kept, in seconds; 0 keeps them for ever.

    Attributes:
        waiting: a room nobody started, after its last activity.
        finished: a room whose match is over, after its last activity.
        abandoned: a room in play (``playing``, ``round_over``), after its last activity.
        records: a finished game (its record and replay), after it finished; and an expired room's
            code, after it expired, once none of its games is left.
    """

    waiting: float = 6 * HOUR
    finished: float = 3 * DAY
    abandoned: float = 3 * DAY
    records: float = 30 * DAY

    def __post_init__(self) -> None:
        for name in ("waiting", "finished", "abandoned", "records"):
            value = getattr(self, name)
            if not value >= 0 or value == float("inf"):
                raise ValueError(f"{name} must be a number of seconds, 0 or more, not {value}")

    def limits(self) -> dict[str, float]:
        """The seconds of inactivity after which a room of each status expires (statuses that never do: left out)."""
        by_status = {
            "waiting": self.waiting,
            "match_over": self.finished,
            "playing": self.abandoned,
            "round_over": self.abandoned,
        }
        return {status: seconds for status, seconds in by_status.items() if seconds > 0}

    def describe(self) -> str:
        """The policy in one line, for the server's greeting."""

        def span(seconds: float, unit: float, name: str) -> str:
            return "never" if not seconds else f"after {seconds / unit:g} {name}"

        return (
            f"rooms nobody uses expire: waiting {span(self.waiting, HOUR, 'h')}, match over "
            f"{span(self.finished, DAY, 'days')}, in play {span(self.abandoned, DAY, 'days')}; finished games' "
            f"records are kept {'for ever' if not self.records else f'{self.records / DAY:g} days'}"
        )

    def every(self) -> float:
        """Seconds between two sweeps: ``SWEEP_EVERY``, or a quarter of the shortest limit if that is shorter.

        Each sweep also stamps the rooms with clients as active, so a room in use is stamped several times
        within the shortest time it could expire in.
        """
        shortest = min(self.limits().values(), default=SWEEP_EVERY * 4)
        return min(SWEEP_EVERY, shortest / 4)


__all__ = ["BATCH", "DAY", "HOUR", "STAMP_EVERY", "SWEEP_EVERY", "Clock", "Expiry"]
