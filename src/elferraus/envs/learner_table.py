"""The table of one learning seat against computer players, as the Gymnasium environments take it."""

from __future__ import annotations

from collections.abc import Sequence

from elferraus.bots import BOTS
from elferraus.rules import Rules, table_rules


def learner_table(
    players: int, rules: str | Rules, opponents: str | Sequence[str], seat: int | None
) -> tuple[Rules, list[str]]:
    """The rules, and the level of each seat after the learner's: one level for all, or one per seat.

    Raises:
        ValueError: a player count not 2-6, an unknown preset or level, a wrong number of levels, or a seat
            that is not at the table.
    """
    rules = table_rules(players, rules)
    levels = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
    if len(levels) != players - 1:
        raise ValueError(f"opponents must name one level, or {players - 1} (one per other seat), not {len(levels)}")
    for level in levels:
        if level not in BOTS:
            raise ValueError(f"unknown computer player {level!r}; choose one of {', '.join(BOTS)}")
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"seat must be 0-{players - 1} or None, not {seat}")
    return rules, levels
