"""What the new-game screen holds: the table to seat, kept while the language changes."""

from __future__ import annotations

from dataclasses import dataclass, field

from elferraus.i18n import Lang
from elferraus.table.seating import PERSON, seat_name

MAX_SEATS = 6


@dataclass
class SetupChoices:
    """What the new-game form holds (kept while the language changes)."""

    players: int = 4
    rules: str = "classic"
    rounds: int = 1
    pace: float = 0.6
    levels: list[str] = field(default_factory=lambda: [PERSON] + ["medium"] * (MAX_SEATS - 1))
    names: list[str | None] = field(default_factory=lambda: [None] * MAX_SEATS)
    """A name the player typed, or None for the default name of the seat."""

    def name(self, seat: int, lang: Lang) -> str:
        """The seat's name: typed, or "You" for a lone person, "Player N", "Computer N"."""
        return self.names[seat] or seat_name(seat, self.levels, lang, self.players)
