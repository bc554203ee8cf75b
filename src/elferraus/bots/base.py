"""The one small interface every computer player implements."""

from __future__ import annotations

import abc

from elferraus.moves import Move
from elferraus.rules import Rules
from elferraus.view import SeatView


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
        """Called before each game; bots that keep per-game memory reset it here."""

    @abc.abstractmethod
    def choose(self, view: SeatView) -> Move:
        """Pick one of ``view.legal`` for the seat to move."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"
