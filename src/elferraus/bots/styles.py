"""Reading the others' styles from their public turns.

A seat sees of each other seat only what he did: each finished turn is one
of :data:`~elferraus.bots.knowledge.TURN_KINDS` kinds (drew first and kept a
drawn card that fit, drew first otherwise, laid one card and ended, laid
more; opened a row or not; laid a card he had held back or not), counted by
the :class:`~elferraus.bots.knowledge.Tracker`. Each style of play makes
each kind of turn with its own frequency (:data:`TURN_KIND_SHARES`, measured
by :func:`measure_turn_kinds` in playouts of tables of mixed styles), so the
counts give a posterior over the styles by Bayes' rule. The turns of one
player are not independent of each other (his hand carries over), so the
evidence is tempered (:data:`EVIDENCE_WEIGHT`), and the prior is close to
what ``expert`` assumed before it read styles: most players lay whatever
they can.

A style is also a playout policy of :mod:`elferraus.rollout`; the search
draws each opponent's policy from his posterior, per sample. Under
``must_play`` rules each policy is the must-play version of its style: the
playout's legal moves leave it no other choice.

Two readings are kept: :data:`FIVE_STYLES`, what ``expert-reads`` reads (its
published figures were measured with it), and :data:`WITH_HOARDER`, the same
styles and the ``hoarder``, measured on tables where it sits too, which
``master`` reads.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from elferraus.bots.base import Bot
from elferraus.bots.baseline import GreedyBot
from elferraus.bots.blocking import BlockerBot, HoarderBot, OneLayBot, TightBlockerBot
from elferraus.bots.knowledge import TURN_KINDS, Tracker
from elferraus.bots.medium import MediumBot
from elferraus.bots.turns import play_turns, seat_seed, start_players
from elferraus.game import Game
from elferraus.rollout.simulation import (
    POLICY_BLOCKER,
    POLICY_GREEDY,
    POLICY_HOARDER,
    POLICY_MEDIUM,
    POLICY_ONE_LAY,
    POLICY_TIGHT_BLOCKER,
)
from elferraus.rules import Rules

STYLES = ("greedy", "medium", "blocker", "tight-blocker", "one-lay")
"""The styles told apart, in the order of every table here."""
STYLE_POLICIES = (POLICY_GREEDY, POLICY_MEDIUM, POLICY_BLOCKER, POLICY_TIGHT_BLOCKER, POLICY_ONE_LAY)
"""The playout policy of each style."""
PRIOR = (0.75, 0.13, 0.06, 0.03, 0.03)
"""Before a player has shown anything: mostly one who lays whatever he can."""
EVIDENCE_WEIGHT = 1.0
"""How much one turn counts (turns of one player are not independent: his hand carries over)."""
SMOOTHING = 0.5
"""Added to each count of a measured table before it is made a share (no kind is impossible)."""

# Turns of each kind per style, in games of 4 players from random deals, every seat a random style, each
# player seeded by the rule of every table (seat_seed): measure_turn_kinds(games=4000, seed=1, must_play=False / True).
_CLASSIC_COUNTS: tuple[tuple[int, ...], ...] = (
    (0, 0, 0, 0, 6020, 0, 775, 0, 41073, 0, 352, 0, 10798, 0, 949, 0),
    (166, 0, 0, 0, 6041, 0, 783, 0, 39311, 7343, 512, 60, 7714, 297, 751, 141),
    (822, 0, 0, 0, 5747, 0, 272, 0, 35105, 14653, 176, 1454, 5890, 269, 140, 439),
    (1536, 0, 0, 0, 6671, 0, 48, 0, 31843, 25564, 35, 2247, 3586, 170, 14, 269),
    (0, 0, 0, 0, 3702, 0, 577, 0, 44112, 19014, 858, 718, 0, 0, 0, 0),
)
_MUST_PLAY_COUNTS: tuple[tuple[int, ...], ...] = (
    (0, 0, 0, 0, 10540, 0, 1097, 0, 23690, 0, 313, 0, 12302, 0, 988, 0),
    (0, 0, 0, 0, 8383, 0, 906, 0, 26892, 6700, 490, 78, 8396, 26, 813, 51),
    (0, 0, 0, 0, 6169, 0, 729, 0, 28532, 11448, 634, 654, 5107, 0, 218, 76),
    (0, 0, 0, 0, 5517, 0, 703, 0, 30514, 16442, 773, 730, 2535, 0, 58, 21),
    (0, 0, 0, 0, 4994, 0, 662, 0, 31500, 21503, 794, 778, 0, 0, 0, 0),
)


# The same with the hoarder as a sixth style, each seat's style drawn from all six:
# measure_turn_kinds(games=4000, seed=1, must_play=False / True, styles=WITH_HOARDER.styles).
_HOARDER_CLASSIC_COUNTS: tuple[tuple[int, ...], ...] = (
    (0, 0, 0, 0, 4499, 0, 603, 0, 36778, 0, 324, 0, 8419, 0, 797, 0),
    (122, 0, 0, 0, 4510, 0, 607, 0, 35376, 5754, 407, 69, 5713, 198, 652, 115),
    (618, 0, 0, 0, 4589, 0, 187, 0, 30079, 11669, 159, 1167, 4370, 200, 124, 358),
    (1025, 0, 0, 0, 5160, 0, 32, 0, 26692, 19555, 29, 1739, 2514, 94, 21, 227),
    (0, 0, 0, 0, 2927, 0, 443, 0, 37941, 15000, 745, 570, 0, 0, 0, 0),
    (1396, 0, 0, 0, 5534, 0, 0, 0, 18919, 25225, 0, 2248, 0, 0, 0, 0),
)
_HOARDER_MUST_PLAY_COUNTS: tuple[tuple[int, ...], ...] = (
    (0, 0, 0, 0, 9148, 0, 944, 0, 19554, 0, 271, 0, 10042, 0, 850, 0),
    (0, 0, 0, 0, 7257, 0, 822, 0, 22693, 5550, 381, 76, 6755, 18, 718, 44),
    (0, 0, 0, 0, 5398, 0, 622, 0, 24250, 9510, 507, 553, 4137, 0, 206, 64),
    (0, 0, 0, 0, 4829, 0, 574, 0, 24986, 13552, 618, 580, 2019, 0, 67, 11),
    (0, 0, 0, 0, 4495, 0, 522, 0, 26528, 18232, 687, 626, 0, 0, 0, 0),
    (0, 0, 0, 0, 4484, 0, 566, 0, 23261, 15706, 909, 408, 0, 0, 0, 0),
)


def _shares(counts: tuple[tuple[int, ...], ...]) -> tuple[tuple[float, ...], ...]:
    out = []
    for row in counts:
        total = sum(row) + SMOOTHING * TURN_KINDS
        out.append(tuple((count + SMOOTHING) / total for count in row))
    return tuple(out)


TURN_KIND_SHARES = {False: _shares(_CLASSIC_COUNTS), True: _shares(_MUST_PLAY_COUNTS)}
"""Per ``must_play``: per style, the share of its turns of each kind."""


@dataclass(frozen=True)
class Reading:
    """Styles told apart by their turns: their names, playout policies, prior, and share of each kind of turn."""

    styles: tuple[str, ...]
    policies: tuple[int, ...]
    prior: tuple[float, ...]
    shares: dict[bool, tuple[tuple[float, ...], ...]]
    """Per ``must_play``: per style, the share of its turns of each kind."""

    def posterior(self, kinds: Sequence[int], must_play: bool) -> tuple[float, ...]:
        """The chance of each style, given how many turns of each kind a player made."""
        if len(kinds) != TURN_KINDS:
            raise ValueError(f"kinds must count {TURN_KINDS} kinds of turns, not {len(kinds)}")
        logs = []
        for prior, row in zip(self.prior, self.shares[must_play], strict=True):
            evidence = sum(count * math.log(share) for count, share in zip(kinds, row, strict=True) if count)
            logs.append(math.log(prior) + EVIDENCE_WEIGHT * evidence)
        top = max(logs)
        weights = [math.exp(value - top) for value in logs]
        total = sum(weights)
        return tuple(weight / total for weight in weights)

    def read(self, tracker: Tracker, must_play: bool) -> tuple[tuple[float, ...] | None, ...]:
        """Per seat, the posterior over the styles (None for the tracker's own seat)."""
        return tuple(
            None if seat == tracker.seat else self.posterior(tracker.turn_kinds[seat], must_play)
            for seat in range(tracker.players)
        )

    def draw(self, chances: Sequence[float], rng: random.Random) -> int:
        """A playout policy drawn from a posterior over the styles (one random number)."""
        u = rng.random()
        acc = 0.0
        for policy, chance in zip(self.policies, chances, strict=True):
            acc += chance
            if u < acc:
                return policy
        return self.policies[-1]


FIVE_STYLES = Reading(STYLES, STYLE_POLICIES, PRIOR, TURN_KIND_SHARES)
"""The five styles ``expert-reads`` reads."""
WITH_HOARDER = Reading(
    (*STYLES, "hoarder"),
    (*STYLE_POLICIES, POLICY_HOARDER),
    (0.72, 0.12, 0.06, 0.03, 0.03, 0.04),
    {False: _shares(_HOARDER_CLASSIC_COUNTS), True: _shares(_HOARDER_MUST_PLAY_COUNTS)},
)
"""The five styles and the hoarder (who draws while the pile lasts and lays only when he must): ``master``'s."""


STYLE_PLAYERS: dict[str, Callable[[int], Bot]] = {
    "greedy": GreedyBot,
    "medium": MediumBot,
    "blocker": BlockerBot,
    "tight-blocker": TightBlockerBot,
    "one-lay": OneLayBot,
    "hoarder": HoarderBot,
}
"""The player of each style, by name."""


def measure_turn_kinds(
    games: int, seed: int, must_play: bool, players: int = 4, styles: Sequence[str] = STYLES
) -> tuple[tuple[int, ...], ...]:
    """Per style of ``styles``, how many turns of each kind its player made in ``games`` games from random deals.

    Every seat is the player of a style drawn at random (each game anew), so each style meets mixed
    tables; the turns are read from the public history, as a :class:`Tracker` of another seat reads them.
    """
    rng = random.Random(seed)
    rules = Rules(must_play=must_play)
    counts = [[0] * TURN_KINDS for _ in styles]
    for _ in range(games):
        game_seed = rng.getrandbits(32)
        game = Game.deal(players=players, seed=game_seed, rules=rules)
        drawn = [rng.randrange(len(styles)) for _ in range(players)]
        bots = {seat: STYLE_PLAYERS[styles[style]](seat_seed(game_seed, seat)) for seat, style in enumerate(drawn)}
        start_players(bots, game)
        play_turns(game, bots)
        tracker = Tracker(seat=-1, players=players, colors=len(rules.colors), max_draws=rules.max_draws)
        tracker.follow(game.public_moves(None), game.pile_size())
        for seat, style in enumerate(drawn):
            for kind, count in enumerate(tracker.turn_kinds[seat]):
                counts[style][kind] += count
    return tuple(tuple(row) for row in counts)
