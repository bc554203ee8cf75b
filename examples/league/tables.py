"""The league's tables: self-play games on ``SelfPlay`` whose seats are the learner or members of the population.

A member is a computer player of the project (a level, a blocker, the hoarder, ``expert-reads``, a sampler),
played from its own seat's view on an engine game kept in step with the batch, or a past snapshot of the
learner, played by its network in NumPy.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from elferraus.actions import ACTION_COUNT, action_of, move_of
from elferraus.bots import Bot, make_bot, start_players
from elferraus.bots.network import HIDDEN_INPUTS, SLOTS, TABLE_INPUTS, LeagueNetwork, sample_actions, table_input
from elferraus.game import Game
from elferraus.rules import Rules, table_rules
from elferraus.vector import SelfPlay

LEARNER = -1

FACTORIES: dict[str, Callable[[int], Bot]] = {}
"""Players a script adds to ``make_bot``'s, by name (the exploiters' targets with a smaller search budget)."""


def member_bot(name: str, seed: int) -> Bot:
    """The computer player ``name``: one of :data:`FACTORIES`, or a built-in one."""
    factory = FACTORIES.get(name)
    return factory(seed) if factory is not None else make_bot(name, seed)


TABLES = (
    # players, rules, share of the games
    (4, "classic", 0.35),
    (2, "classic", 0.1),
    (3, "classic", 0.1),
    (5, "classic", 0.05),
    (6, "classic", 0.1),
    (4, "ravensburger", 0.1),
    (2, "ravensburger", 0.05),
    (4, "beginners", 0.1),
    (3, "beginners", 0.05),
)
"""The tables the league plays at (and imitates at), and how often."""


@dataclass
class Member:
    """One player of the population, and how the learner has fared against it."""

    name: str
    bot: str | None = None
    """A computer player's name for ``make_bot``; None for a snapshot."""
    snapshot: str | None = None
    """A snapshot's ``.npz``."""
    weight: float = 1.0
    """How often it is drawn, before the learner's results weigh in (slow players less often)."""
    joins: int = 0
    """The update from which it is drawn."""
    games: int = 0
    wins: int = 0
    network: LeagueNetwork | None = field(default=None, repr=False, compare=False)

    def load(self) -> None:
        if self.snapshot is not None and self.network is None:
            self.network = LeagueNetwork.load(self.snapshot)

    def state(self) -> dict[str, object]:
        return {
            "name": self.name,
            "bot": self.bot,
            "snapshot": self.snapshot,
            "weight": self.weight,
            "joins": self.joins,
            "games": self.games,
            "wins": self.wins,
        }


class Population:
    """The members, drawn by prioritized fictitious self-play: the harder a member is for the learner, the more
    often it sits at its tables."""

    def __init__(self, members: list[Member], self_play_share: float, rng: random.Random) -> None:
        self.members = members
        self.self_play_share = self_play_share
        self.rng = rng
        self.update = 0

    def priority(self, member: Member, players: int) -> float:
        if member.joins > self.update:
            return 0.0
        share = (member.wins + 1) / (member.games + 2)  # the learner's win share at its tables, smoothed
        parity = 1 / players
        hardness = min(1.0, max(0.0, 1.0 - (share - parity) / (1 - parity)))
        return member.weight * (0.1 + hardness**2)

    def table(self, players: int) -> list[int]:
        """The controllers of a new game's seats: LEARNER or a member's index."""
        if self.rng.random() < self.self_play_share:
            return [LEARNER] * players
        learner = self.rng.randrange(players)
        weights = [self.priority(member, players) for member in self.members]
        chosen = self.rng.choices(range(len(self.members)), weights, k=players)
        chosen[learner] = LEARNER
        return chosen


class Buffer:
    """The learner's decisions, kept until their games end; compacted after each update."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.table = np.zeros((capacity, TABLE_INPUTS), np.float16)
        self.hidden = np.zeros((capacity, HIDDEN_INPUTS), np.uint8)
        self.mask = np.zeros((capacity, ACTION_COUNT), np.bool_)
        self.action = np.zeros(capacity, np.int64)
        self.logp = np.zeros(capacity, np.float32)
        self.size = 0
        self.pending: dict[tuple[int, int, int], list[int]] = {}
        self.finished: list[tuple[list[int], np.ndarray]] = []
        """Each ended game's decisions of one learner seat, with that seat's rewards from its own on."""

    def add(self, key_base: tuple[int, ...], rows: dict[str, np.ndarray], seats: np.ndarray, envs: np.ndarray) -> None:
        count = len(envs)
        if self.size + count > self.capacity:
            raise RuntimeError(f"the decision buffer of {self.capacity:,} is full: lower --envs or --decisions")
        start = self.size
        end = start + count
        self.table[start:end] = rows["table"]
        self.hidden[start:end] = rows["hidden"]
        self.mask[start:end] = rows["mask"]
        self.action[start:end] = rows["action"]
        self.logp[start:end] = rows["logp"]
        self.size = end
        for offset, (env, seat) in enumerate(zip(envs.tolist(), seats.tolist(), strict=True)):
            self.pending.setdefault((key_base[0], env, seat), []).append(start + offset)

    def finish(self, tables: int, env: int, players: int, rewards: np.ndarray, learner_seats: list[int]) -> None:
        for seat in learner_seats:
            indices = self.pending.pop((tables, env, seat), None)
            if indices:
                relative = np.zeros(SLOTS, np.float32)
                relative[:players] = [rewards[(seat + slot) % players] for slot in range(players)]
                self.finished.append((indices, relative))

    def drop(self, tables: int, env: int) -> None:
        for key in [key for key in self.pending if key[0] == tables and key[1] == env]:
            del self.pending[key]

    def decisions(self) -> int:
        return sum(len(indices) for indices, _ in self.finished)

    def compact(self) -> None:
        """Forget the finished decisions, keep the pending ones at the front."""
        order = [index for indices in self.pending.values() for index in indices]
        moved = {old: new for new, old in enumerate(order)}
        for name in ("table", "hidden", "mask", "action", "logp"):
            array = getattr(self, name)
            array[: len(order)] = array[order]
        self.size = len(order)
        self.pending = {key: [moved[index] for index in indices] for key, indices in self.pending.items()}
        self.finished = []


def pad_hidden(hidden: np.ndarray, players: int) -> np.ndarray:
    rows = hidden.shape[0]
    out = np.zeros((rows, SLOTS + 1, hidden.shape[2]), np.uint8)
    out[:, :players] = hidden[:, :players]
    out[:, SLOTS] = hidden[:, players]
    return out.reshape(rows, -1)


class Tables:
    """``num_envs`` games of one player count and rule set."""

    def __init__(self, index: int, players: int, rules: str, num_envs: int, seed: int, population: Population) -> None:
        self.index = index
        self.players = players
        self.rules: Rules = table_rules(players, rules)
        self.rules_name = rules
        self.num_envs = num_envs
        self.population = population
        self.selfplay = SelfPlay(num_envs, players, rules, seed)
        self.controllers = np.full((num_envs, players), LEARNER, np.int64)
        self.mirrors: list[Game | None] = [None] * num_envs
        self.bots: list[dict[int, Bot]] = [{} for _ in range(num_envs)]
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0

    def start(self) -> None:
        self.selfplay.reset(self.seed)
        for env in range(self.num_envs):
            self._seat(env)

    def _seat(self, env: int) -> None:
        controllers = self.population.table(self.players)
        self.controllers[env] = controllers
        bots = {
            seat: member_bot(self.population.members[member].bot or "", int(self.rng.integers(2**62)))
            for seat, member in enumerate(controllers)
            if member != LEARNER and self.population.members[member].bot is not None
        }
        self.bots[env] = bots
        if bots:
            game = self.selfplay.game(env)
            start_players(bots, game)
            self.mirrors[env] = game
        else:
            self.mirrors[env] = None

    def step(self, model: torch.nn.Module, buffer: Buffer) -> int:
        """One move in every game; returns the learner's decisions made."""
        sp = self.selfplay
        rows = np.arange(self.num_envs)
        movers = self.controllers[rows, sp.seat]
        table = table_input(sp.obs, self.players, self.rules)
        actions = np.empty(self.num_envs, np.int64)
        learner = np.flatnonzero(movers == LEARNER)
        if learner.size:
            with torch.no_grad():
                logits = model.logits(torch.from_numpy(table[learner]), torch.from_numpy(sp.mask[learner]))
                distribution = torch.distributions.Categorical(logits=logits)
                chosen = distribution.sample()
                logp = distribution.log_prob(chosen)
            actions[learner] = chosen.numpy()
            hidden = pad_hidden(sp.hidden()[learner], self.players)
            buffer.add(
                (self.index,),
                {
                    "table": table[learner],
                    "hidden": hidden,
                    "mask": sp.mask[learner],
                    "action": actions[learner],
                    "logp": logp.numpy(),
                },
                sp.seat[learner],
                learner,
            )
        for member_index in np.unique(movers[movers != LEARNER]):
            member = self.population.members[int(member_index)]
            chosen_rows = np.flatnonzero(movers == member_index)
            if member.bot is None:
                member.load()
                assert member.network is not None
                logits = member.network.logits(table[chosen_rows], sp.mask[chosen_rows])
                actions[chosen_rows] = sample_actions(logits, self.rng)
            else:
                for env in chosen_rows.tolist():
                    game = self.mirrors[env]
                    assert game is not None
                    actions[env] = action_of(self.bots[env][game.turn].choose(game.view(game.turn)))
        learner_seats = [np.flatnonzero(self.controllers[env] == LEARNER).tolist() for env in range(self.num_envs)]
        _obs, _mask, _seat, rewards, done = sp.step(actions)
        for env, game in enumerate(self.mirrors):
            if game is not None:
                game.push(move_of(int(actions[env])))
        for env in np.flatnonzero(done).tolist():
            self.games += 1
            seats = learner_seats[env]
            buffer.finish(self.index, env, self.players, rewards[env], seats)
            if len(seats) < self.players:
                won = bool(rewards[env, seats].max() > 0)
                for member in {int(m) for m in self.controllers[env] if m != LEARNER}:
                    self.population.members[member].games += 1
                    self.population.members[member].wins += won
            self._seat(env)
        return int(learner.size)


def evaluate(
    network: LeagueNetwork, opponent: str, games: int, *, players: int = 4, rules: str = "classic", seed: int = 0
) -> tuple[float, float]:
    """The network's win share (greedy, one seat, the seats taken in turn) against ``players - 1`` of
    ``opponent`` over ``games`` games, and its 95 % half-width."""
    envs = min(games, 64)
    sp = SelfPlay(envs, players, rules, seed)
    table_rules_ = table_rules(players, rules)
    sp.reset(seed)
    rng = random.Random(seed)
    learners = np.zeros(envs, np.int64)
    mirrors: list[Game] = []
    bots: list[dict[int, Bot]] = []

    def seat(env: int, number: int) -> None:
        learners[env] = number % players
        game = sp.game(env)
        chosen = {s: member_bot(opponent, rng.getrandbits(62)) for s in range(players) if s != learners[env]}
        start_players(chosen, game)
        if env < len(mirrors):
            mirrors[env], bots[env] = game, chosen
        else:
            mirrors.append(game)
            bots.append(chosen)

    for env in range(envs):
        seat(env, env)
    started, finished, wins = envs, 0, 0
    active = np.ones(envs, np.bool_)
    while finished < games:
        actions = np.full(envs, SelfPlay.KEEP, np.int64)
        mine = np.flatnonzero(active & (sp.seat == learners))
        if mine.size:
            table = table_input(sp.obs[mine], players, table_rules_)
            actions[mine] = sample_actions(network.logits(table, sp.mask[mine]), np.random.default_rng(), 0.0)
        for env in np.flatnonzero(active & (sp.seat != learners)).tolist():
            game = mirrors[env]
            actions[env] = action_of(bots[env][game.turn].choose(game.view(game.turn)))
        _obs, _mask, _seat, rewards, done = sp.step(actions)
        for env in np.flatnonzero(actions >= 0).tolist():
            mirrors[env].push(move_of(int(actions[env])))
        for env in np.flatnonzero(done).tolist():
            finished += 1
            wins += bool(rewards[env, learners[env]] > 0)
            if started < games:
                seat(env, started)
                started += 1
            else:
                active[env] = False
    share = wins / games
    return share, 1.96 * math.sqrt(max(share * (1 - share), 1e-9) / games)


def critic_rows(buffer: Buffer, indices: np.ndarray) -> np.ndarray:
    """The critic's input of buffered decisions (their hidden cards are kept laid out for six seats and the
    pile, as the critic reads them)."""
    return np.concatenate([buffer.table[indices], buffer.hidden[indices]], axis=1).astype(np.float32)
