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
    "make_bot",
]
