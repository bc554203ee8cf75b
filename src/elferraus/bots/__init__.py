"""Computer players. Each sees only its seat's view.

>>> bot = make_bot("greedy")
>>> bot.name
'greedy'
"""

from __future__ import annotations

from collections.abc import Callable

from elferraus.bots.base import Bot, SeatRefusedError
from elferraus.bots.baseline import GreedyBot, RandomBot
from elferraus.bots.blocking import BlockerBot, HoarderBot, NoOpenBot, OneLayBot, TightBlockerBot
from elferraus.bots.easy import EasyBot
from elferraus.bots.master import MasterBot
from elferraus.bots.medium import MediumBot
from elferraus.bots.sampler import SamplerBot
from elferraus.bots.search import Advice, ExpertBot, HardBot, ReadingExpertBot
from elferraus.bots.turns import hint_seed, play_turns, seat_seed, start_players


def _league_bot(seed: int) -> Bot:
    """The opponent ``league``, its module (and NumPy) read only when one is seated: no level needs them."""
    from elferraus.bots.league import shipped_league_bot

    return shipped_league_bot(seed)


BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "easy": EasyBot,
    "medium": MediumBot,
    "hard": HardBot,
    "expert": ExpertBot,
    "master": MasterBot,
}
"""Every built-in level, by name: the levels a person plays against (``master``, the last, is the strongest)."""

OPPONENTS: dict[str, Callable[[int], Bot]] = {
    "blocker": BlockerBot,
    "tight-blocker": TightBlockerBot,
    "one-lay": OneLayBot,
    "no-open": NoOpenBot,
    "hoarder": HoarderBot,
    "sampler": SamplerBot,
    "expert-reads": ReadingExpertBot,
    "league": _league_bot,
}
"""Players of other styles to measure the levels against (the arena and the strength benchmark), by name
(``league``: the shipped league network's policy alone).
``sampler`` also takes a budget: ``sampler:N`` (N sampled deals a move) or ``sampler:MSms`` (MS milliseconds)."""


def make_bot(name: str, seed: int = 0) -> Bot:
    """The built-in computer player called ``name`` (a level or an opponent), seeded.

    Raises:
        ValueError: no such player, or a sampler budget that is not one.

    >>> make_bot("sampler:200").name
    'sampler:200'
    """
    factory = BOTS.get(name) or OPPONENTS.get(name)
    if factory is not None:
        return factory(seed)
    if name.startswith("sampler:"):
        return SamplerBot.from_spec(name, seed)
    raise ValueError(f"unknown computer player {name!r}; choose one of {', '.join(player_names())}")


def player_names() -> list[str]:
    """The names :func:`make_bot` takes, for messages (the sampler's budgets as a pattern)."""
    return [*BOTS, *OPPONENTS, "sampler:N", "sampler:MSms"]


def is_player_name(name: str) -> bool:
    """True when :func:`make_bot` knows ``name`` (a level, an opponent, or a sampler with a valid budget).

    >>> is_player_name("blocker"), is_player_name("sampler:100ms"), is_player_name("sampler:0")
    (True, True, False)
    """
    try:
        make_bot(name)
    except ValueError:
        return False
    return True


__all__ = [
    "BOTS",
    "OPPONENTS",
    "Advice",
    "BlockerBot",
    "Bot",
    "EasyBot",
    "ExpertBot",
    "GreedyBot",
    "HardBot",
    "HoarderBot",
    "MasterBot",
    "MediumBot",
    "NoOpenBot",
    "OneLayBot",
    "RandomBot",
    "SamplerBot",
    "SeatRefusedError",
    "TightBlockerBot",
    "hint_seed",
    "is_player_name",
    "make_bot",
    "play_turns",
    "player_names",
    "seat_seed",
    "start_players",
]
