"""Who plays which seat: the seats of a table, their names, and a command line's ``--bots``."""

from __future__ import annotations

from dataclasses import dataclass

from elferraus.bots import BOTS, is_player_name, player_names
from elferraus.i18n import Lang, tr
from elferraus.rules import PRESETS

PERSON = "human"
"""The level that marks a seat played by a person (in a record's ``bots``, and on the new-game screen)."""


@dataclass(frozen=True)
class Seat:
    """One place at the table: a name, and the computer level (None for a person)."""

    name: str
    level: str | None = None

    def __post_init__(self) -> None:
        if self.level is not None and self.level not in BOTS:
            raise ValueError(f"unknown computer player {self.level!r}; choose one of {', '.join(BOTS)}")
        if not self.name.strip():
            raise ValueError("a seat needs a name")


@dataclass(frozen=True)
class TableSetup:
    """Everything chosen before the first deal.

    ``rounds`` = 1 is a single game; a match ends after ``rounds`` rounds, or
    once somebody's penalty total reaches ``target`` if that is set.
    """

    seats: tuple[Seat, ...]
    rules: str = "classic"
    rounds: int = 1
    target: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if not 2 <= len(self.seats) <= 6:
            raise ValueError(f"a table has 2-6 seats, not {len(self.seats)}")
        if self.rules not in PRESETS:
            raise ValueError(f"unknown rules preset {self.rules!r}; choose one of {', '.join(PRESETS)}")
        if self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")


def seat_name(seat: int, levels: list[str], lang: Lang, players: int | None = None) -> str:
    """The default name of ``seat``: "You" for a lone person, else "Player N" or "Computer N" (N = seat + 1).

    ``levels`` holds each seat's level, :data:`PERSON` for a person; only the
    first ``players`` seats (all, by default) take part.

    >>> [seat_name(seat, ["human", "greedy", "medium"], "en") for seat in range(3)]
    ['You', 'Computer 2', 'Computer 3']
    """
    if levels[seat] != PERSON:
        return tr("name_computer", lang, n=seat + 1)
    people = [s for s, level in enumerate(levels[:players]) if level == PERSON]
    return tr("seat_you", lang) if people == [seat] else tr("name_player", lang, n=seat + 1)


def seat_specs(text: str, players: int, *, commands: bool) -> list[str] | str:
    """One spec per seat, or an error text a person can act on.

    A spec is a level name, or with ``commands`` (the arena) also an opponent
    to measure against (``blocker``, ``sampler:100ms``, ...: see
    :data:`elferraus.bots.OPPONENTS`), ``cmd:PROGRAM ARGS`` (whose arguments
    may contain commas), ``openspiel-ismcts:SIMULATIONS`` (OpenSpiel's
    search, with the ``research`` extra) and ``league:PATH`` (a league
    network's policy: :class:`elferraus.bots.league.LeagueBot`).

    >>> seat_specs("greedy", 3, commands=False)
    ['greedy', 'greedy', 'greedy']
    >>> seat_specs("greedy,wizard", 2, commands=False)
    "unknown bot 'wizard'; choose from random, greedy, easy, medium, hard, expert, master"
    """
    specs: list[str] = []
    for raw in text.split(","):
        piece = raw.strip()
        if commands and specs and specs[-1].startswith("cmd:") and not piece.startswith("cmd:") and piece not in BOTS:
            specs[-1] += "," + piece  # a comma inside a command line
        else:
            specs.append(piece)
    for spec in specs:
        if commands and spec.startswith("league:"):
            problem = _league_problem(spec.partition(":")[2])
            if problem:
                return problem
            continue
        searcher = spec.startswith("openspiel-ismcts:") and spec.partition(":")[2].isdigit()
        if not (commands and (spec.startswith("cmd:") or searcher or is_player_name(spec))) and spec not in BOTS:
            if commands:
                names = ", ".join(player_names())
                return (
                    f"unknown bot {spec!r}; choose from {names}, cmd:PROGRAM ARGS, openspiel-ismcts:SIMULATIONS "
                    "or league:PATH"
                )
            return f"unknown bot {spec!r}; choose from {', '.join(BOTS)}"
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        return f"{text!r} names {len(specs)} bots for {players} players: give one, or one per seat"
    return specs


def _league_problem(path: str) -> str:
    """Why ``league:PATH`` cannot be seated (the file is missing or no league network), or ``""``."""
    from elferraus.bots.network import LeagueNetwork

    if not path:
        return "league: needs a network file, e.g. league:examples/league/results/league.npz"
    try:
        LeagueNetwork.load(path)
    except (OSError, ValueError) as error:
        return f"league:{path}: {error}"
    return ""


def computer_levels(bots: str, players: int) -> list[str]:
    """The level of each computer seat (seats 1 to ``players - 1``; a person has seat 0).

    Raises:
        ValueError: a level is unknown, or there are neither one nor one per computer seat (in words).

    >>> computer_levels("easy,hard", 3)
    ['easy', 'hard']
    """
    levels = [name.strip() for name in bots.split(",")]
    computers = players - 1
    unknown = [level for level in levels if level not in BOTS]
    if unknown:
        raise ValueError(f"unknown level {unknown[0]!r} in {bots!r}; levels: {', '.join(BOTS)}")
    if len(levels) not in (1, computers):
        raise ValueError(
            f"{bots!r} names {len(levels)} levels for {computers} computer seats: give one, or one per computer seat"
        )
    return levels * computers if len(levels) == 1 else levels
