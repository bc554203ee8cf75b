"""The rules object: every option of the game as frozen data, with presets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Literal

from elferraus.cards import ALL_COLORS, NUMBERS
from elferraus.errors import NotationError

AfterDraw = Literal["end", "continue"]

MIN_PLAYERS = 2
MAX_PLAYERS = 6

DEAL_TABLE: Mapping[int, int] = {2: 20, 3: 20, 4: 15, 5: 12, 6: 10}
"""Cards dealt to each player, by number of players."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One set of rules. The defaults are the game of the original text.

    Args:
        colors: the colours in the deck, in start priority order (``"RYGB"``,
            or ``"RYG"`` for the beginners' 60 cards).
        max_draws: cards a player may draw in one turn (1-80).
        must_play: a player who can lay must lay, and draws only when he cannot.
        after_draw: ``"end"``: laying a drawn card ends the turn;
            ``"continue"``: he may go on laying.
        hand_size: cards dealt to each player, overriding :data:`DEAL_TABLE`.

    >>> Rules.preset("ravensburger").must_play
    True
    >>> Rules(max_draws=2)
    Rules(colors='RYGB', max_draws=2, must_play=False, after_draw='end', hand_size=None)
    """

    colors: str = ALL_COLORS
    max_draws: int = 3
    must_play: bool = False
    after_draw: AfterDraw = "end"
    hand_size: int | None = field(default=None)

    def __post_init__(self) -> None:
        if self.colors not in ("RYGB", "RYG"):
            raise NotationError(f"rules: colors must be 'RYGB' or 'RYG', not {self.colors!r}")
        if type(self.max_draws) is not int or not 1 <= self.max_draws <= 80:
            raise NotationError(f"rules: max_draws must be a whole number 1-80, not {self.max_draws!r}")
        if type(self.must_play) is not bool:
            raise NotationError(f"rules: must_play must be true or false, not {self.must_play!r}")
        if self.after_draw not in ("end", "continue"):
            raise NotationError(f"rules: after_draw must be 'end' or 'continue', not {self.after_draw!r}")
        if self.hand_size is not None and (type(self.hand_size) is not int or self.hand_size < 1):
            raise NotationError(f"rules: hand_size must be a positive whole number, not {self.hand_size!r}")

    @property
    def deck_size(self) -> int:
        """Number of cards in the deck (80, or 60 without blue)."""
        return len(self.colors) * NUMBERS

    def cards_per_player(self, players: int) -> int:
        """Cards dealt to each of ``players`` players.

        Raises:
            NotationError: unsupported player count, or the deck is too small.
        """
        if players not in DEAL_TABLE:
            raise NotationError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, not {players!r}")
        size = DEAL_TABLE[players] if self.hand_size is None else self.hand_size
        if size * players > self.deck_size:
            raise NotationError(
                f"{players} hands of {size} cards need {size * players} cards; the deck has {self.deck_size}"
            )
        return size

    @staticmethod
    def preset(name: str) -> Rules:
        """The named preset: ``classic``, ``ravensburger`` or ``beginners``.

        Raises:
            NotationError: unknown name.
        """
        try:
            return PRESETS[name]
        except KeyError:
            raise NotationError(f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)}") from None

    def to_dict(self) -> dict[str, object]:
        """The rules as in a game record (``hand_size`` only when set)."""
        data: dict[str, object] = {
            "colors": self.colors,
            "max_draws": self.max_draws,
            "must_play": self.must_play,
            "after_draw": self.after_draw,
        }
        if self.hand_size is not None:
            data["hand_size"] = self.hand_size
        return data

    @staticmethod
    def from_dict(data: Mapping[str, object]) -> Rules:
        """Rules from a record's ``rules`` object; missing keys take defaults.

        Raises:
            NotationError: an unknown key or a bad value.
        """
        known = {f.name for f in fields(Rules)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise NotationError(f"rules: unknown option {unknown[0]!r}; known are {', '.join(sorted(known))}")
        return replace(Rules(), **data)  # type: ignore[arg-type]

    @property
    def preset_name(self) -> str | None:
        """The preset these rules equal, or None."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None


PRESETS: Mapping[str, Rules] = {
    "classic": Rules(),
    "ravensburger": Rules(must_play=True),
    "beginners": Rules(colors="RYG"),
}
"""The named rule sets: the text's game, the current edition, the beginners' deck."""


def table_rules(players: int, rules: str | Rules) -> Rules:
    """The rules of a table of ``players``: ``rules`` itself, or the preset it names (for the research
    environments, which take either).

    Raises:
        ValueError: the player count is not 2-6, or no preset has that name.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, not {players}")
    if isinstance(rules, Rules):
        return rules
    if rules not in PRESETS:
        raise ValueError(f"rules must be one of {', '.join(PRESETS)}, not {rules!r}")
    return Rules.preset(rules)
