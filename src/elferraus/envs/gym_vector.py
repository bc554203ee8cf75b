"""Gymnasium's vector form of ``elferraus/ElferRaus-v0``: one learning seat per game against computer players,
many games stepped together on :class:`~elferraus.vector.SelfPlay`.

``gymnasium.make_vec("elferraus/ElferRaus-v0", num_envs=N)`` builds it (its ``vector_entry_point``); the
public path is :mod:`elferraus.gym`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from elferraus.actions import ACTION_COUNT, action_of, move_of
from elferraus.bots import Bot, make_bot, seat_seed, start_players
from elferraus.envs.learner_table import learner_table
from elferraus.game import Game
from elferraus.rules import Rules
from elferraus.vector import SelfPlay

Array = npt.NDArray[Any]


class ElferRausVectorEnv(VectorEnv[Array, Array, Array]):
    """``num_envs`` games, each with one learning seat and computer players of ``opponents`` in the others.

    The same game as :class:`elferraus.envs.gym.ElferRausEnv`, batched:

    - **Observation**: (num_envs, obs_size) float32, each row the information
      state of that game's learner; **actions**: one action id per game;
      :meth:`action_masks` (and ``infos["action_mask"]``) says which are legal.
    - **Reward**: +1 for a win, -1/(players - 1) otherwise, in the step the
      game ends; the computers' moves happen inside each step.
    - **Reset**: the same step (``AutoresetMode.SAME_STEP``): a game that ended
      is dealt again at once and its row is already the new game's first
      decision. Games end only by a win, so no final observation is needed.
    - **An illegal action** is not made: that game ends as a loss (reward -1,
      terminated, ``infos["illegal"]`` True in its row) and is dealt again;
      the other games go on.
    - **Seat**: ``seat=None`` draws each game's learning seat anew; an int keeps it.
    - **Seeding**: ``reset(seed=...)`` deals the same games with the same computers.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 - as VectorEnv declares it

    def __init__(
        self,
        num_envs: int,
        players: int = 4,
        rules: str | Rules = "classic",
        opponents: str | Sequence[str] = "greedy",
        seat: int | None = None,
    ) -> None:
        rules, levels = learner_table(players, rules, opponents, seat)
        self.num_envs = num_envs
        self.players = players
        self.rules = rules
        self.levels = levels
        self.fixed_seat = seat
        self.selfplay = SelfPlay(num_envs, players, rules)
        layout = self.selfplay.layout
        self.single_observation_space = spaces.Box(0.0, layout.high(), (layout.size,), np.float32)
        self.single_action_space = spaces.Discrete(ACTION_COUNT)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.learners = np.zeros(num_envs, np.int64)
        self._games: list[Game] = []
        self._bots: list[dict[int, Bot]] = []
        self._rng = random.Random()

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Array, dict[str, Any]]:
        """Deal every game and play the computers until each learner's first turn."""
        if isinstance(seed, list):
            raise ValueError("seed must be one int (or None) for the whole vector")
        if seed is not None:
            self._rng = random.Random(seed)
        self.selfplay.reset(self._rng.getrandbits(63))
        self._games = [self.selfplay.game(index) for index in range(self.num_envs)]
        self._bots = [{} for _ in range(self.num_envs)]
        for index in range(self.num_envs):
            self._start(index)
        rewards = np.zeros(self.num_envs, np.float32)
        ended = np.zeros(self.num_envs, np.bool_)
        self._play_computers(rewards, ended)
        return self.selfplay.obs.copy(), self._infos(np.zeros(self.num_envs, np.bool_))

    def step(self, actions: Array) -> tuple[Array, Array, Array, Array, dict[str, Any]]:
        """Make each learner's action, then the computers' moves until every learner is to move again."""
        chosen = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        rows = np.arange(self.num_envs)
        legal = (chosen >= 0) & (chosen < ACTION_COUNT)
        legal[legal] = self.selfplay.mask[rows[legal], chosen[legal]]
        rewards = np.zeros(self.num_envs, np.float32)
        ended = np.zeros(self.num_envs, np.bool_)
        illegal = ~legal
        rewards[illegal] = -1.0
        ended[illegal] = True
        self._step_games(np.where(legal, chosen, SelfPlay.REDEAL), rewards, ended)
        self._play_computers(rewards, ended)
        truncated = np.zeros(self.num_envs, np.bool_)
        return self.selfplay.obs.copy(), rewards, ended, truncated, self._infos(illegal)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, 82): True for each action id each learner may choose now."""
        return self.selfplay.mask.copy()

    def _infos(self, illegal: npt.NDArray[np.bool_]) -> dict[str, Any]:
        return {"action_mask": self.selfplay.mask.copy(), "illegal": illegal, "seat": self.learners.copy()}

    def _start(self, index: int) -> None:
        """Mirror game ``index``'s new deal in an engine game, draw its learner and seat its computers."""
        game = self.selfplay.game(index)
        game_seed = self._rng.getrandbits(63)
        learner = self._rng.randrange(self.players) if self.fixed_seat is None else self.fixed_seat
        others = [seat for seat in range(self.players) if seat != learner]
        bots = {
            seat: make_bot(level, seat_seed(game_seed, seat)) for seat, level in zip(others, self.levels, strict=True)
        }
        start_players(bots, game)
        self._games[index] = game
        self._bots[index] = bots
        self.learners[index] = learner

    def _step_games(self, actions: npt.NDArray[np.int64], rewards: Array, ended: Array) -> None:
        """Step the batch, mirror the moves, and add each learner's reward where its game ended."""
        learners = self.learners.copy()
        _obs, _mask, _seat, game_rewards, done = self.selfplay.step(actions)
        for index in np.flatnonzero(actions >= 0):
            self._games[index].push(move_of(int(actions[index])))
        finished = np.flatnonzero(done)
        rewards[finished] += game_rewards[finished, learners[finished]]
        ended[finished] = True
        for index in finished:
            self._start(int(index))

    def _play_computers(self, rewards: Array, ended: Array) -> None:
        """The computers' moves, batch by batch, until every learner is to move."""
        while True:
            waiting = np.flatnonzero(self.selfplay.seat != self.learners)
            if not waiting.size:
                return
            actions = np.full(self.num_envs, SelfPlay.KEEP, np.int64)
            for index in waiting:
                game = self._games[index]
                actions[index] = action_of(self._bots[index][game.turn].choose(game.view(game.turn)))
            self._step_games(actions, rewards, ended)
