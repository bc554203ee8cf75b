"""Who plays which seat, from a command line's ``--bots``: one name for all, or a comma-separated list."""

from __future__ import annotations

from elferraus.bots import BOTS


def seat_specs(text: str, players: int, *, commands: bool) -> list[str] | str:
    """One spec per seat, or an error text a person can act on.

    A spec is a level name, or with ``commands`` also ``cmd:PROGRAM ARGS``
    (whose arguments may contain commas).

    >>> seat_specs("greedy", 3, commands=False)
    ['greedy', 'greedy', 'greedy']
    >>> seat_specs("greedy,wizard", 2, commands=False)
    "unknown bot 'wizard'; choose from random, greedy, easy, medium, hard, expert"
    """
    specs: list[str] = []
    for raw in text.split(","):
        piece = raw.strip()
        if commands and specs and specs[-1].startswith("cmd:") and not piece.startswith("cmd:") and piece not in BOTS:
            specs[-1] += "," + piece  # a comma inside a command line
        else:
            specs.append(piece)
    for spec in specs:
        if not (commands and spec.startswith("cmd:")) and spec not in BOTS:
            extra = " or cmd:PROGRAM ARGS" if commands else ""
            return f"unknown bot {spec!r}; choose from {', '.join(BOTS)}{extra}"
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        return f"--bots names {len(specs)} bots for {players} players: give one, or one per seat"
    return specs


def computer_levels(bots: str, players: int) -> list[str]:
    """The level of each computer seat (seats 1 to ``players - 1``; a person has seat 0).

    Raises:
        ValueError: a level is unknown, or there are neither one nor one per computer seat (in words).

    >>> computer_levels("easy,hard", 3)
    ['easy', 'hard']
    """
    levels = [name.strip() for name in bots.split(",")]
    computers = players - 1
    if any(level not in BOTS for level in levels) or len(levels) not in (1, computers):
        raise ValueError(f"--bots: give one level, or one per computer seat ({computers}); levels: {', '.join(BOTS)}")
    return levels * computers if len(levels) == 1 else levels
