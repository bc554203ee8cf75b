"""Computer players. Each sees only its seat's view.

>>> bot = make_bot("greedy")
>>> bot.name
'greedy'
"""

from __future__ import annotations

from collections.abc import Callable

from elferraus.bots.base import Bot
from elferraus.bots.baseline import GreedyBot, RandomBot
from elferraus.bots.easy import EasyBot
from elferraus.bots.medium import MediumBot
from elferraus.bots.search import Advice, ExpertBot, HardBot
from elferraus.deal import derive_seed

BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "easy": EasyBot,
    "medium": MediumBot,
    "hard": HardBot,
    "expert": ExpertBot,
}
"""Every built-in level, by name."""


def make_bot(name: str, seed: int = 0) -> Bot:
    """The built-in computer player called ``name``, seeded.

    Raises:
        ValueError: no such level.
    """
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown computer player {name!r}; choose one of {', '.join(BOTS)}") from None
    return factory(seed)


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the computer player at ``seat`` in a game dealt from ``game_seed``.

    The one rule for every table (the terminal game, the plain prompt, the web
    rooms, ``simulate`` and the arena): a computer is seeded from the game's
    deal seed and its seat, so the same deal with the same people's moves is
    the same game everywhere.

    >>> seat_seed(7, 0) == seat_seed(7, 0) != seat_seed(7, 1)
    True
    """
    return derive_seed(game_seed, seat + 1)


def hint_seed(game_seed: int, move_count: int) -> int:
    """The seed of the ``expert`` that gives a hint after ``move_count`` moves of a game dealt from ``game_seed``."""
    return derive_seed(game_seed, 0, move_count)


__all__ = [
    "BOTS",
    "Advice",
    "Bot",
    "EasyBot",
    "ExpertBot",
    "GreedyBot",
    "HardBot",
    "MediumBot",
    "RandomBot",
    "hint_seed",
    "make_bot",
    "seat_seed",
]
