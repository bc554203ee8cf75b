"""The league's networks in NumPy: one policy and one critic for every table, and the input they read.

**The table input** (:data:`TABLE_INPUTS` numbers) is the information state of
the seat to move (:mod:`elferraus.observation`) laid out the same for 2 to 6
players, with the table's rules added, so that one network plays every table:

==============  ========  ====================================================
piece           size      meaning
==============  ========  ====================================================
``hand``        80        as in the information state
``table``       80
``fits``        80
``drawn``       80
``hand_counts`` 6         per seat from the mover's, 0 past the player count
``pile``        1
``phase``       2         laid this turn; draws this turn / ``max_draws``
``seats``       6 x 82    the history block of each seat, 0 past the count
``players``     5         one of 2, 3, 4, 5, 6
``rules``       4         must play; laying a drawn card ends the turn; the
                          beginners' deck (no blue); ``max_draws`` / 10
==============  ========  ====================================================

(``to_move`` is left out: it is always the mover's own slot.)

**The critic** also reads what no seat may see, as PerfectDou's does while
training: every hand from the mover's on (6 x 80, 0 past the count) and the
pile (80). It gives one value per seat from the mover's on (6; the expected
reward, +1 for a win and -1/(players - 1) otherwise). The search player asks it
about sampled deals, where every card is known.

A saved network is a ``.npz`` of plain arrays: ``policy_W{i}``, ``policy_b{i}``
and ``critic_W{i}``, ``critic_b{i}`` for each layer in order (ReLU between them),
and ``format`` (``elferraus-league/1``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

from elferraus.actions import ACTION_COUNT, CARD_COUNT
from elferraus.observation import SEAT_SIZE, Layout
from elferraus.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

FORMAT = "elferraus-league/1"
SLOTS = MAX_PLAYERS
_CARDS4 = 4 * CARD_COUNT
_COUNTS = _CARDS4
_PILE = _COUNTS + SLOTS
_PHASE = _PILE + 1
_SEATS = _PHASE + 2
_PLAYERS = _SEATS + SLOTS * SEAT_SIZE
_RULES = _PLAYERS + (MAX_PLAYERS - MIN_PLAYERS + 1)
TABLE_INPUTS = _RULES + 4
"""The length of the table input."""
HIDDEN_INPUTS = (SLOTS + 1) * CARD_COUNT
"""The length of the critic's extra input: every hand from the mover's on, then the pile."""
CRITIC_INPUTS = TABLE_INPUTS + HIDDEN_INPUTS

Floats = npt.NDArray[np.float32]


@functools.cache
def _gather(players: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Where each number of an information state of ``players`` goes in the table input: (from, to)."""
    spans = Layout(players, history=True).slices()
    sources: list[int] = []
    targets: list[int] = []

    def take(piece: str, target: int, count: int | None = None) -> None:
        start, size = spans[piece]
        size = size if count is None else count
        sources.extend(range(start, start + size))
        targets.extend(range(target, target + size))

    take("hand", 0)
    take("table", CARD_COUNT)
    take("fits", 2 * CARD_COUNT)
    take("drawn", 3 * CARD_COUNT)
    take("hand_counts", _COUNTS)
    take("pile", _PILE)
    take("phase", _PHASE)
    take("seats", _SEATS)
    return np.array(sources, np.int64), np.array(targets, np.int64)


def rules_inputs(players: int, rules: Rules) -> Floats:
    """The ``players`` and ``rules`` pieces of a table (the same for every row of it)."""
    out = np.zeros(TABLE_INPUTS - _PLAYERS, np.float32)
    out[players - MIN_PLAYERS] = 1.0
    flags = _RULES - _PLAYERS
    out[flags] = float(rules.must_play)
    out[flags + 1] = float(rules.after_draw == "end")
    out[flags + 2] = float(len(rules.colors) == 3)
    out[flags + 3] = rules.max_draws / 10.0
    return out


def table_input(states: Floats, players: int, rules: Rules, out: Floats | None = None) -> Floats:
    """The table input of information states ``states`` (rows of ``Layout(players, history=True)``)."""
    states = np.atleast_2d(states)
    if out is None:
        out = np.zeros((states.shape[0], TABLE_INPUTS), np.float32)
    else:
        out.fill(0.0)
    sources, targets = _gather(players)
    out[:, targets] = states[:, sources]
    out[:, _PLAYERS:] = rules_inputs(players, rules)
    return out


def critic_input(table: Floats, hidden: Floats) -> Floats:
    """The critic's input: the table input and ``hidden`` (rows of ``SelfPlay.hidden()``: the hands from the
    mover's on, then the pile)."""
    rows, places, _ = hidden.shape
    players = places - 1
    out = np.zeros((rows, CRITIC_INPUTS), np.float32)
    out[:, :TABLE_INPUTS] = table
    out[:, TABLE_INPUTS : TABLE_INPUTS + players * CARD_COUNT] = hidden[:, :players].reshape(rows, -1)
    out[:, TABLE_INPUTS + SLOTS * CARD_COUNT :] = hidden[:, players]
    return out


class _Layers:
    def __init__(self, arrays: Mapping[str, npt.NDArray[np.generic]], name: str, inputs: int, outputs: int) -> None:
        self.layers: list[tuple[Floats, Floats]] = []
        while f"{name}_W{len(self.layers)}" in arrays:
            index = len(self.layers)
            self.layers.append(
                (np.asarray(arrays[f"{name}_W{index}"], np.float32), np.asarray(arrays[f"{name}_b{index}"], np.float32))
            )
        if not self.layers:
            raise ValueError(f"not a league network: no array {name}_W0")
        width = inputs
        for index, (weights, bias) in enumerate(self.layers):
            if weights.shape != (width, bias.shape[0]) or bias.ndim != 1:
                raise ValueError(f"{name}_W{index} is {weights.shape}, not ({width}, {bias.shape[0]})")
            width = bias.shape[0]
        if width != outputs:
            raise ValueError(f"the {name} gives {width} numbers, not {outputs}")

    def __call__(self, x: Floats) -> Floats:
        last = len(self.layers) - 1
        for index, (weights, bias) in enumerate(self.layers):
            x = x @ weights + bias
            if index < last:
                np.maximum(x, 0.0, out=x)
        return x


class LeagueNetwork:
    """The policy (table input -> 82 logits) and the critic (critic input -> a value per seat)."""

    def __init__(self, arrays: Mapping[str, npt.NDArray[np.generic]]) -> None:
        """A network from its arrays; a file without the critic's (a league snapshot) has only the policy.

        Raises:
            ValueError: the arrays are not a league network (the message says what is wrong).
        """
        if "format" not in arrays or str(arrays["format"]) != FORMAT:
            raise ValueError(f"not a league network: its format is not {FORMAT}")
        self.policy = _Layers(arrays, "policy", TABLE_INPUTS, ACTION_COUNT)
        self.critic = _Layers(arrays, "critic", CRITIC_INPUTS, SLOTS) if "critic_W0" in arrays else None

    @classmethod
    def load(cls, path: str | Path) -> LeagueNetwork:
        """Read a ``.npz`` file.

        Raises:
            ValueError: the file is not a league network.
        """
        with np.load(path, allow_pickle=False) as arrays:
            return cls({name: arrays[name] for name in arrays.files})

    def logits(self, table: Floats, mask: npt.NDArray[np.bool_]) -> Floats:
        """The policy's logits for rows of table input, -inf where ``mask`` is False."""
        logits = self.policy(table)
        logits[~mask] = -np.inf
        return logits

    def values(self, critic: Floats) -> Floats:
        """The critic's value of each seat from the mover's on, for rows of critic input.

        Raises:
            ValueError: the network was saved without its critic.
        """
        if self.critic is None:
            raise ValueError("this network was saved without its critic")
        return self.critic(critic)


def sample_actions(logits: Floats, rng: np.random.Generator, temperature: float = 1.0) -> npt.NDArray[np.int64]:
    """One action per row of masked ``logits``: drawn from their softmax at ``temperature``, or the best at 0."""
    if temperature <= 0.0:
        return np.asarray(np.argmax(logits, axis=1), np.int64)
    gumbel = -np.log(-np.log(rng.random(logits.shape, np.float32) + 1e-20) + 1e-20)
    return np.asarray(np.argmax(logits / temperature + gumbel, axis=1), np.int64)
