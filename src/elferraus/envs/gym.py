"""The Gymnasium environment behind :mod:`elferraus.gym`.

It sits beside what the frameworks share (actions, observations, worlds); the environment is registered with
Gymnasium as ``elferraus/ElferRaus-v0`` when this module is imported. Users import it by its public path,
:mod:`elferraus.gym`, whose docstring documents it (docs/research.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from elferraus.actions import ACTION_COUNT, actions_of, move_of
from elferraus.bots import Bot, make_bot, seat_seed
from elferraus.bots.turns import play_turns, start_players
from elferraus.envs.learner_table import learner_table
from elferraus.errors import IllegalMoveError
from elferraus.game import Game
from elferraus.i18n import Lang
from elferraus.observation import Layout, SeatObserver
from elferraus.rules import Rules
from elferraus.table.words import hand_text, row_lines
from elferraus.view import SeatView

ENV_ID = "elferraus/ElferRaus-v0"


class ElferRausEnv(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One learning seat against computer players."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 - as Env declares it

    def __init__(
        self,
        players: int = 4,
        rules: str | Rules = "classic",
        opponents: str | Sequence[str] = "greedy",
        seat: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        rules, levels = learner_table(players, rules, opponents, seat)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.players = players
        self.rules = rules
        self.levels = levels
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.layout = Layout(players, history=True)
        self.observation_space = spaces.Box(0.0, self.layout.high(), (self.layout.size,), np.float32)
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self._rng = random.Random()
        self.game: Game | None = None
        self.seat = 0
        self._bots: dict[int, Bot] = {}
        self._observer = SeatObserver(players, rules.max_draws)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal a new game and play the computers until the learner's first turn."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        game_seed = self._rng.getrandbits(63)
        self.game = Game.deal(self.players, seed=game_seed, rules=self.rules)
        self.seat = self._rng.randrange(self.players) if self.fixed_seat is None else self.fixed_seat
        others = [seat for seat in range(self.players) if seat != self.seat]
        self._bots = {
            seat: make_bot(level, seat_seed(game_seed, seat)) for seat, level in zip(others, self.levels, strict=True)
        }
        start_players(self._bots, self._game())
        self._play_computers()
        return self._observation(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Make the learner's move, then the computers' until the learner's turn again or the end."""
        game = self._game()
        if game.is_over():
            raise RuntimeError("the episode is over: call reset()")
        try:
            move = move_of(int(action))
            game.push(move)
        except (IllegalMoveError, ValueError) as error:
            info = self._info()
            info["illegal"] = str(error)
            return self._observation(), -1.0, True, False, info
        self._play_computers()
        reward = 0.0
        if game.is_over():
            reward = 1.0 if game.winner == self.seat else -1.0 / (self.players - 1)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, game.is_over(), False, self._info()

    def view(self) -> SeatView:
        """What the learner may know now: its own view of the game (``SeatView``)."""
        return self._observer.view(self._game(), self.seat)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """True for each action id the learner may choose now."""
        mask = np.zeros(ACTION_COUNT, np.bool_)
        game = self._game()
        if not game.is_over() and game.turn == self.seat:
            mask[actions_of(game.legal_moves())] = True
        return mask

    def render(self) -> str | None:
        """The table and the learner's hand as text (``ansi``), or printed (``human``)."""
        if self.render_mode is None:
            return None
        game = self._game()
        lang: Lang = "en"
        lines = row_lines(game.rows(), self.rules.colors, lang)
        lines.append(
            f"cards {' '.join(map(str, game.hand_sizes()))}  pile {game.pile_size()}  you are seat {self.seat}"
        )
        lines.append(f"your hand: {hand_text(game.hand(self.seat), game.fitting_cards())}")
        if game.winner is not None:
            lines.append(f"seat {game.winner} won")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _play_computers(self) -> None:
        play_turns(self._game(), self._bots)

    def _observation(self) -> npt.NDArray[np.float32]:
        return self._observer.observe(self._game(), self.seat)

    def _info(self) -> dict[str, Any]:
        return {"view": self.view(), "action_mask": self.action_masks()}

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID, entry_point="elferraus.gym:ElferRausEnv", vector_entry_point="elferraus.gym:ElferRausVectorEnv"
    )
