"""``master``: the league's network guiding a search over the cards it cannot see.

For a decision with a real choice, ``master`` deals the cards it cannot see
many times, each deal agreeing with everything its seat has seen (the others'
hand sizes, and each card weighted by what the others have shown, as the
search players do: :mod:`elferraus.bots.knowledge`). On every deal it tries
each candidate move and lets the league's policy network play every seat on
from there, all deals and candidates at once on the compiled core
(:class:`elferraus.vector.SelfPlay`). A playout that has not ended after
:attr:`MasterBot.horizon` moves is judged by the league's critic, which may
read every hand of the sampled deal. The candidate whose playouts are worth
most to its seat is played. Candidates are the legal moves the policy finds
likeliest, at most :attr:`MasterBot.candidates`.

It reads nothing but its seat's :class:`~elferraus.SeatView`. Without the
compiled core it plays the policy's likeliest move alone.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from elferraus import core
from elferraus.actions import ACTION_COUNT, action_of
from elferraus.bots.base import Bot
from elferraus.bots.knowledge import Knowledge, Tracker
from elferraus.bots.network import LeagueNetwork, critic_input, sample_actions, table_input
from elferraus.bots.search import Advice, SearchBot
from elferraus.moves import Move
from elferraus.observation import History, Layout, write_view
from elferraus.rules import Rules
from elferraus.vector import Position, SelfPlay, table_mask
from elferraus.view import SeatView

SHIPPED = Path(__file__).with_name("models") / "master.npz"
"""The league's network that comes with elferraus."""


@functools.cache
def shipped_network() -> LeagueNetwork:
    """The shipped network, read once per process."""
    return LeagueNetwork.load(SHIPPED)


@functools.cache
def one_blas_thread() -> None:
    """Keep NumPy's matrix library to one thread in this process, once.

    The search multiplies small matrices (a few hundred rows), where more
    threads gain nothing; on a busy machine they wait for each other, and a
    decision of 20 ms took over a second.
    """
    ThreadpoolController().limit(limits=1, user_api="blas")


class MasterBot(Bot):
    """The strongest level: policy-guided search over sampled deals (see the module's docstring)."""

    name = "master"
    worlds = 24
    """Deals sampled per decision."""
    candidates = 5
    """The most candidate moves tried, the policy's likeliest first."""
    horizon = 400
    """Moves played out before the critic judges a playout that has not ended."""
    temperature = 1.0
    """The playouts' moves: drawn from the policy at this temperature, or its likeliest at 0."""
    confidence = 2.0
    """How many standard errors a candidate must lead the policy's likeliest move by, deal by deal, to be
    played instead."""

    def __init__(self, seed: int = 0, network: LeagueNetwork | None = None) -> None:
        super().__init__(seed)
        one_blas_thread()
        self.network = network if network is not None else shipped_network()
        self._rng = random.Random(seed)
        self._tracker: Tracker | None = None
        self._tables: dict[tuple[int, Rules], SelfPlay] = {}

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        """Forget the last game."""
        self._tracker = None

    def choose(self, view: SeatView) -> Move:
        """The candidate whose playouts are worth most to this seat."""
        return self.advise(view).move

    def advise(self, view: SeatView) -> Advice:
        """The move this player would make, and why: for a search, each candidate's expected win share."""
        legal = view.legal
        if len(legal) == 1:
            return Advice(legal[0], "only")
        tracker = self._tracker = Tracker.following(view, self._tracker)
        knowledge = Knowledge.of(view, tracker)
        prior = self._prior(view)
        ranked = sorted(legal, key=lambda move: -prior[action_of(move)])
        lays = [move for move in ranked if move.card is not None]
        if lays and core.can_go_out(knowledge.own, knowledge.fit) and (view.laid or not view.draws):
            return Advice(lays[0], "go_out")
        if core.compiled() is None:
            return Advice(ranked[0], "policy")
        candidates = ranked[: self.candidates]
        worth = self._values(view, knowledge, candidates)
        values = worth.mean(axis=0)
        order = np.argsort(-values, kind="stable")  # ties: the policy's likelier move
        players = view.players
        rates = tuple((candidates[i], float((values[i] * (players - 1) + 1) / players)) for i in order)
        best = int(order[0])
        lead = worth[:, best] - worth[:, 0]  # paired, deal by deal, against the policy's likeliest move
        if best and lead.mean() <= self.confidence * lead.std() / np.sqrt(len(lead)):
            best = 0
        return Advice(candidates[best], "search", rates, self.worlds)

    def _prior(self, view: SeatView) -> npt.NDArray[np.float32]:
        """The policy's logits at the root, from the seat's own view."""
        layout = Layout(view.players, history=True)
        state = np.zeros(layout.size, np.float32)
        write_view(view, layout.views(state), history=True)
        mask = np.zeros((1, ACTION_COUNT), np.bool_)
        mask[0, [action_of(move) for move in view.legal]] = True
        logits = self.network.logits(table_input(state, view.players, view.rules), mask)
        return np.asarray(logits[0], np.float32)

    def _table(self, players: int, rules: Rules, size: int) -> SelfPlay:
        key = (size, rules)
        table = self._tables.get(key)
        if table is None or table.players != players:
            table = self._tables[key] = SelfPlay(size, players, rules, seed=self.seed)
            table.reset()
        return table

    def _values(self, view: SeatView, knowledge: Knowledge, candidates: list[Move]) -> npt.NDArray[np.float32]:
        """Each (deal, candidate)'s worth to this seat: its reward where the playout ended, else the critic's."""
        me, players, rules = view.seat, view.players, view.rules
        arguments = SearchBot._arguments(view, knowledge)
        deals = core.sampling_function()(
            seat=me,
            hand=arguments["hand"],
            counts=arguments["counts"],
            pile_count=arguments["pile_count"],
            unknown=arguments["unknown"],
            weights=arguments["weights"],
            samples=self.worlds,
            seed=self._rng.getrandbits(64),
        )
        history = History(players, rules.max_draws)
        history.update(view.moves, view.pile)
        laid_by, drew, kept = history.counts()
        table = table_mask(view.rows)
        count = len(candidates)
        games = self._table(players, rules, len(deals) * count)
        for world, (hands, pile, _seed) in enumerate(deals):
            position = Position(
                hands=tuple(hands),
                pile=tuple(pile),
                table=table,
                to_move=me,
                laid=arguments["laid"],
                draws=arguments["draws"],
                last_drawn=arguments["last_drawn"],
                laid_by=tuple(laid_by),
                drew=tuple(drew),
                kept=tuple(kept),
            )
            for index in range(count):
                games.load_position(world * count + index, position)
        rows = games.num_envs
        first = np.array([action_of(move) for move in candidates] * len(deals), np.int64)
        values = np.zeros(rows, np.float32)
        active = np.ones(rows, np.bool_)
        rng = np.random.default_rng(self._rng.getrandbits(64))
        actions = first
        for _ in range(self.horizon + 1):
            _obs, mask, _seat, rewards, done = games.step(actions)
            ended = active & done
            values[ended] = rewards[ended, me]
            active &= ~done
            if not active.any():
                break
            playing = np.flatnonzero(active)
            logits = self.network.logits(table_input(games.obs[playing], players, rules), mask[playing])
            actions = np.full(rows, SelfPlay.KEEP, np.int64)
            actions[playing] = sample_actions(logits, rng, self.temperature)
        playing = np.flatnonzero(active)
        if playing.size:
            inputs = table_input(games.obs[playing], players, rules)
            hidden = games.hidden()[playing]
            judged = self.network.values(critic_input(inputs, hidden))
            slots = (me - games.seat[playing]) % players
            values[playing] = judged[np.arange(playing.size), slots]
        return values.reshape(len(deals), count)
