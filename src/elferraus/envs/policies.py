"""The built-in levels as policies of the learning frameworks: functions from an observation to an action.

The levels from ``medium`` up read the history, which a tensor does not
hold, so a policy reads the acting seat's own :class:`~elferraus.SeatView`
from its environment (``view()``): what that seat may see, nothing more.
"""

from __future__ import annotations

from typing import Any

from elferraus.actions import action_of
from elferraus.bots import Bot, make_bot
from elferraus.view import SeatView


class LevelPolicy:
    """A built-in level (``random`` … ``master``) as ``policy(observation) -> action`` for ``env``.

    ``env`` is a PettingZoo environment of ``elferraus.pettingzoo`` (the
    policy plays the agent to act) or a Gymnasium one of ``elferraus.gym``
    (the learner's seat), wrapped or not. One policy can play any seat and
    any number of games: it starts its player again whenever the view shows
    a new game. :meth:`choose` picks from a view directly.

    >>> from elferraus.pettingzoo import env
    >>> table = env(players=3)
    >>> table.reset(seed=1)
    >>> policy = LevelPolicy("greedy", table)
    >>> observation, *_ = table.last()
    >>> policy(observation) == int(observation["action_mask"].argmax())
    True
    """

    def __init__(self, level: str, env: Any = None, seed: int = 0) -> None:
        self.level = level
        self.seed = seed
        self.env = env
        self._bots: dict[int, Bot] = {}
        self._seen: dict[int, tuple[str, ...]] = {}
        self._games = 0

    def __call__(self, observation: Any) -> int:
        """The action for the seat that acts now in ``env`` (the observation is that seat's)."""
        if self.env is None:
            raise TypeError("this policy has no environment to read the seat's view from: LevelPolicy(level, env)")
        unwrapped = self.env.unwrapped
        view = unwrapped.view(unwrapped.agent_selection) if hasattr(unwrapped, "agent_selection") else unwrapped.view()
        return self.choose(view)

    def choose(self, view: SeatView) -> int:
        """The action this level takes from ``view`` (its seat must be to move)."""
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
