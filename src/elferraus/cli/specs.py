"""Reading ``--bots``: one player per seat, from one name or a comma-separated list."""

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
