"""The one small interface every computer player implements."""

from __future__ import annotations

import abc

from elferraus.moves import Move
from elferraus.rules import Rules
from elferraus.view import SeatView


class SeatRefusedError(ValueError):
    """A bot cannot play the seat it is offered (the player count, the rules); the text says why and what it plays.

    >>> raise SeatRefusedError("this network was trained for 4 players; the table has 2")
    Traceback (most recent call last):
    ...
    elferraus.bots.base.SeatRefusedError: this network was trained for 4 players; the table has 2
    """


class Bot(abc.ABC):
    """A computer player. It sees only its seat's :class:`~elferraus.SeatView`.

    Args:
        seed: makes every choice reproducible.
    """

    name: str = "bot"
    """The level name, as used on the command line."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def start_game(self, seat: int, players: int, rules: Rules) -> None:  # noqa: B027 - optional hook
        """Called before each game; bots that keep per-game memory reset it here.

        Raises:
            SeatRefusedError: the bot cannot play this seat, this many players or these rules.
        """

    @abc.abstractmethod
    def choose(self, view: SeatView) -> Move:
        """Pick one of ``view.legal`` for the seat to move."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"
