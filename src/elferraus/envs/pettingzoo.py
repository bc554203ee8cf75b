"""The PettingZoo AEC environment behind :mod:`elferraus.pettingzoo`.

It sits beside what the frameworks share (actions, observations, worlds); the environment is registered with
PettingZoo as ``elferraus_v0`` when this module is imported. Users import it by its public path,
:mod:`elferraus.pettingzoo`, whose docstring documents it (docs/research.md).
"""

from __future__ import annotations

import random
import types
from typing import Any, ClassVar

import numpy as np
import pettingzoo
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from elferraus.actions import ACTION_COUNT, action_of, move_of
from elferraus.game import Game
from elferraus.i18n import Lang
from elferraus.observation import Layout, SeatObserver
from elferraus.rules import Rules, table_rules
from elferraus.table.words import hand_text, row_lines
from elferraus.view import SeatView

NAME = "elferraus_v0"
RENDER_MODES = ("ansi", "human")


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's checks: an illegal move ends the game (-1 for its agent)."""
    table: AECEnv = raw_env(**kwargs)
    table = wrappers.TerminateIllegalWrapper(table, illegal_reward=-1)
    table = wrappers.AssertOutOfBoundsWrapper(table)
    return wrappers.OrderEnforcingWrapper(table)


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801 - PettingZoo's own name
    """The AEC environment itself: ``players`` 2-6 seats, ``rules`` a preset name or a ``Rules``."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "name": NAME, "is_parallelizable": False}

    def __init__(self, players: int = 4, rules: str | Rules = "classic", render_mode: str | None = None) -> None:
        super().__init__()
        rules = table_rules(players, rules)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        self.players = players
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = list(self.possible_agents)
        self.layout = Layout(players, history=True)
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0.0, self.layout.high(), (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in self.possible_agents}
        self._rng = random.Random()
        self.game: Game | None = None
        self._observer = SeatObserver(players, rules.max_draws)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: the same one for the same ``seed``; without a seed, the next of this env's own."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game.deal(self.players, seed=self._rng.getrandbits(63), rules=self.rules)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self.possible_agents[self.game.turn]
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seats[agent]
        game = self._game()
        tensor = self._observer.observe(game, seat)
        mask = np.zeros(ACTION_COUNT, np.int8)
        if game.turn == seat and not game.is_over():
            mask[list(map(action_of, game.legal_moves()))] = 1
        return {"observation": tensor, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        if action is None:
            raise ValueError(f"{agent} is to move: None is no move")
        self._cumulative_rewards[agent] = 0.0
        game.push(move_of(int(action)))  # IllegalMoveError (with its reason) for an illegal move
        if game.is_over():
            loss = -1.0 / (self.players - 1)
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = 1.0 if seat == game.winner else loss
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()  # the only rewards of a game: every step before gives 0
        else:
            self.agent_selection = self.possible_agents[game.turn]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as text: the rows, each seat's cards (counts), and the hand of the seat to move."""
        if self.render_mode is None:
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _text(self) -> str:
        game = self._game()
        lang: Lang = "en"
        lines = row_lines(game.rows(), self.rules.colors, lang)
        counts = "  ".join(
            f"{name}: {count}" for name, count in zip(self.possible_agents, game.hand_sizes(), strict=True)
        )
        lines.append(f"cards  {counts}  pile: {game.pile_size()}")
        if game.is_over():
            lines.append(f"{self.possible_agents[game.turn if game.winner is None else game.winner]} won")
        else:
            seat = game.turn
            lines.append(f"{self.possible_agents[seat]} to move: {hand_text(game.hand(seat), game.fitting_cards())}")
        return "\n".join(lines)

    def view(self, agent: str) -> SeatView:
        """What ``agent`` may know now: its own view of the game (``SeatView``), and nothing of the others'."""
        return self._observer.view(self._game(), self._seats[agent])

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game


elferraus_v0 = types.SimpleNamespace(env=env, raw_env=raw_env, NAME=NAME)
"""The environment under its PettingZoo name, as ``pettingzoo.classic.connect_four_v3`` is used."""

if all(spec.name != "elferraus" for spec in pettingzoo.aec_registry.values()):
    pettingzoo.register("aec", id=NAME, entry_point="elferraus.pettingzoo:env")
