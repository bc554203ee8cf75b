"""The table every framework's game is made with: a player count and the rules, checked once."""

from __future__ import annotations

from elferraus.rules import PRESETS, Rules

MIN_PLAYERS, MAX_PLAYERS = 2, 6


def table_rules(players: int, rules: str | Rules) -> Rules:
    """The rules of a table of ``players``: ``rules`` itself, or the preset it names.

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
