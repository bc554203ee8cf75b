"""A league network's policy alone as a player: its likeliest legal action, from the seat's own view.

The league (``examples/league/``) keeps snapshots of its learner, the policy
alone (:class:`~elferraus.bots.network.LeagueNetwork` without the critic).
:class:`LeagueBot` plays one as the league's curves measure it: the seat's
information state (:func:`elferraus.observation.write_view`) laid out as the
table input (:func:`~elferraus.bots.network.table_input`), and the legal
action with the highest logit. It searches nothing and draws nothing at
random, so it plays every table the network reads (2 to 6 players, every
preset). The arena seats a file as ``league:PATH``, and the opponent
``league`` is the network that comes with elferraus (:data:`SHIPPED`: the
league's start, trained to play as the ``hoarder``).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from elferraus.actions import ACTION_COUNT, action_of, move_of
from elferraus.bots.base import Bot
from elferraus.bots.network import LeagueNetwork, table_input
from elferraus.moves import Move
from elferraus.observation import History, Layout, write_view
from elferraus.rules import Rules
from elferraus.view import SeatView

SHIPPED = Path(__file__).with_name("models") / "league.npz"
"""The league's network that comes with elferraus."""


@functools.cache
def shipped_network() -> LeagueNetwork:
    """The shipped network, read once per process."""
    return LeagueNetwork.load(SHIPPED)


@functools.cache
def one_blas_thread() -> None:
    """Keep NumPy's matrix library to one thread in this process, once.

    A network's small matrices gain nothing from more threads; on a busy
    machine they wait for each other, and a decision of 20 ms took over a second.
    """
    ThreadpoolController().limit(limits=1, user_api="blas")


class LeagueBot(Bot):
    """The policy's likeliest legal action (see the module's docstring)."""

    name = "league"

    def __init__(self, network: LeagueNetwork, seed: int = 0) -> None:
        super().__init__(seed)
        one_blas_thread()
        self.network = network
        self._history: History | None = None

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        """Forget the last game's history."""
        self._history = None

    def choose(self, view: SeatView) -> Move:
        """The legal move whose action the policy scores highest."""
        if len(view.legal) == 1:
            return view.legal[0]
        if self._history is None or self._history.players != view.players:
            self._history = History(view.players, view.rules.max_draws)
        self._history.update(view.moves, view.pile)
        layout = Layout(view.players, history=True)
        state = np.zeros(layout.size, np.float32)
        write_view(view, layout.views(state), history=True, tracked=self._history)
        mask = np.zeros((1, ACTION_COUNT), np.bool_)
        mask[0, [action_of(move) for move in view.legal]] = True
        logits = self.network.logits(table_input(state, view.players, view.rules), mask)
        return move_of(int(np.argmax(logits[0])))


def shipped_league_bot(seed: int = 0) -> LeagueBot:
    """The opponent ``league``: the shipped network's policy alone."""
    return LeagueBot(shipped_network(), seed)
