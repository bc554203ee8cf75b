"""The built-in levels as policies of the learning frameworks: ``policy(observation, info) -> action``.

PettingZoo's and Gymnasium's environments put the acting seat's
:class:`~elferraus.SeatView` in ``info["view"]``: the levels that read the
history (``medium`` and up) need more than a tensor holds. It is what that
seat may see, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from elferraus.bots import Bot, make_bot
from elferraus.envs.actions import action_of
from elferraus.view import SeatView


class LevelPolicy:
    """A built-in level (``random`` … ``expert``) choosing from the seat's view in ``info["view"]``.

    One policy can play any seat and any number of games: it starts its
    player again whenever the view shows a new game.

    >>> from elferraus import Game
    >>> policy = LevelPolicy("greedy")
    >>> game = Game.deal(players=3, seed=1)
    >>> policy(None, {"view": game.view(game.turn)})
    10
    """

    def __init__(self, level: str, seed: int = 0) -> None:
        self.level = level
        self.seed = seed
        self._bots: dict[int, Bot] = {}
        self._seen: dict[int, tuple[str, ...]] = {}
        self._games = 0

    def __call__(self, observation: Any, info: Mapping[str, Any]) -> int:
        view = info["view"]
        if not isinstance(view, SeatView):
            raise TypeError(f"info['view'] must be the seat's SeatView, not {type(view).__name__}")
        bot = self._bots.get(view.seat)
        before = self._seen.get(view.seat, ())
        if bot is None or view.moves[: len(before)] != before:
            self._games += 1
            bot = self._bots[view.seat] = make_bot(self.level, self.seed * 1_000_003 + self._games * 7 + view.seat)
            bot.start_game(view.seat, view.players, view.rules)
        self._seen[view.seat] = view.moves
        return action_of(bot.choose(view))

    def __repr__(self) -> str:
        return f"LevelPolicy({self.level!r}, seed={self.seed})"
