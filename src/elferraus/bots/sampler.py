"""``sampler``: perfect-information Monte Carlo, a plain sampling player to measure against.

For each decision with a real choice it deals the cards it cannot see at
random, every deal consistent with its :class:`~elferraus.SeatView` (the
other hands' sizes, the pile's size, the cards on the table and in its
hand), plays every legal move out to the end of the game on each deal, and
takes the move that won most often, fewest cards left in its hand breaking
ties. In the playouts every seat plays the ``medium`` blocking heuristic
with the dealt cards in view.

Unlike ``hard`` and ``expert`` it reads nothing into the others' past
moves (every hidden card is equally likely anywhere), gives every seat
the same model, and never stops early: it plays ``samples`` deals, or as
many as fit in ``think`` seconds. It reuses the search players' compiled
sampler and playouts (:func:`elferraus.core.search_function`), all moves on
the same deals and random streams.

``sampler:N`` plays N deals a decision and is reproducible under its seed;
``sampler:MSms`` thinks MS milliseconds a decision, so how many deals it
plays, and with that its choices, depend on how fast the machine is.
"""

from __future__ import annotations

import random
import re

from elferraus import core
from elferraus.bots.base import Bot
from elferraus.bots.knowledge import Knowledge
from elferraus.bots.search import SearchBot
from elferraus.moves import Move
from elferraus.view import SeatView

DEFAULT_THINK = 0.1
"""Seconds a decision of plain ``sampler``."""
UNLIMITED_SAMPLES = 1 << 30
"""The deal budget of a player that thinks for a time instead (the clock stops it first)."""

_SPEC = re.compile(r"sampler(?::(?:(?P<samples>\d+)|(?P<millis>\d+)ms))?")


class SamplerBot(Bot):
    """Plays every legal move out on sampled deals of the hidden cards; takes the one that wins most.

    Args:
        seed: makes the deals reproducible.
        samples: deals per decision.
        think: seconds per decision instead of a number of deals; with neither
            given, :data:`DEFAULT_THINK`.

    Raises:
        ValueError: both budgets given, or one that is not above 0.

    >>> SamplerBot(samples=50).name, SamplerBot(think=0.25).name, SamplerBot().name
    ('sampler:50', 'sampler:250ms', 'sampler:100ms')
    """

    name = "sampler"

    def __init__(self, seed: int = 0, *, samples: int | None = None, think: float | None = None) -> None:
        super().__init__(seed)
        if samples is not None and think is not None:
            raise ValueError("a sampler plays a number of deals or thinks for a time, not both")
        if samples is None and think is None:
            think = DEFAULT_THINK
        if samples is not None and samples < 1:
            raise ValueError(f"sampler needs at least 1 deal a decision, not {samples}")
        if think is not None and not think > 0:
            raise ValueError(f"sampler needs a thinking time above 0 seconds, not {think}")
        self.samples = samples
        self.think = think
        self.name = f"sampler:{round(think * 1000)}ms" if think is not None else f"sampler:{samples}"
        self._rng = random.Random(seed)
        self._search = core.search_function()
        self.last_samples = 0
        """Deals played for the last decision with a choice (0 for a forced move)."""

    @staticmethod
    def from_spec(spec: str, seed: int = 0) -> SamplerBot:
        """The player ``sampler``, ``sampler:N`` (N deals) or ``sampler:MSms`` (MS milliseconds), seeded.

        Raises:
            ValueError: ``spec`` is not one of these forms, or N or MS is 0.

        >>> SamplerBot.from_spec("sampler:20ms").think
        0.02
        """
        match = _SPEC.fullmatch(spec.strip())
        if match is None:
            raise ValueError(
                f"{spec!r} is not a sampler: write sampler, sampler:N (N deals a move, e.g. sampler:200) "
                "or sampler:MSms (MS milliseconds a move, e.g. sampler:100ms)"
            )
        if match["samples"] is not None:
            return SamplerBot(seed, samples=int(match["samples"]))
        if match["millis"] is None:
            return SamplerBot(seed)
        millis = int(match["millis"])
        if millis < 1:
            raise ValueError(f"{spec!r}: a sampler needs at least 1 ms a move")
        return SamplerBot(seed, think=millis / 1000)

    def choose(self, view: SeatView) -> Move:
        """The move that won most often over the sampled deals."""
        legal = view.legal
        if len(legal) == 1:
            self.last_samples = 0
            return legal[0]
        results, played = self._search(
            # Without a tracker the knowledge has no sightings: every hidden card equally likely anywhere, and
            # every seat played out by the medium heuristic.
            **SearchBot._arguments(view, Knowledge.of(view)),
            candidates=tuple(move.code for move in legal),
            samples=self.samples or UNLIMITED_SAMPLES,
            seed=self._rng.getrandbits(64),
            time_limit=self.think or 0.0,
        )
        self.last_samples = played
        best = max(range(len(legal)), key=lambda i: (results[i][0], -results[i][2], -i))
        return legal[best]
