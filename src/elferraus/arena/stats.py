"""Arena statistics: win shares with confidence intervals, latency, ratings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion.

    >>> low, high = wilson(50, 100)
    >>> round(low, 3), round(high, 3)
    (0.404, 0.596)
    >>> wilson(0, 4)[0], wilson(4, 4)[1]
    (0.0, 1.0)
    """
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # the share itself always lies inside: at 0 or 1 rounding alone would put a bound a hair beyond it
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def clustered_mean(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal confidence interval of per-deal values (mean, low, high).

    With duplicate deals the games of one deal are not independent; the deal
    is the unit, so the interval comes from the spread between deals.
    """
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 1.0
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0, 1.0
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """The value below which ``fraction`` of the sorted values lie (nearest rank)."""
    if not sorted_values:
        return 0.0
    rank = max(0, math.ceil(fraction * len(sorted_values)) - 1)
    return sorted_values[rank]


@dataclass
class KindStats:
    """Everything measured for one kind of player (one spec)."""

    name: str
    seats: int = 0
    wins: int = 0
    forfeits: int = 0
    penalty_sum: int = 0
    finished_seats: int = 0
    deal_shares: dict[int, list[int]] = field(default_factory=dict)
    """Per deal: [wins, seats] of this kind."""
    latencies: list[float] = field(default_factory=list)

    def add_seat(self, deal: int, won: bool, penalty: int | None, forfeited: bool) -> None:
        """Count one seat of one game."""
        self.seats += 1
        self.wins += won
        self.forfeits += forfeited
        if penalty is not None:
            self.penalty_sum += penalty
            self.finished_seats += 1
        share = self.deal_shares.setdefault(deal, [0, 0])
        share[0] += won
        share[1] += 1

    def win_share(self) -> tuple[float, float, float]:
        """Win share per seat with its 95 % interval, deals as the unit."""
        values = [wins / seats for wins, seats in self.deal_shares.values()]
        if len(values) < 30:
            low, high = wilson(self.wins, self.seats)
            return (self.wins / self.seats if self.seats else 0.0), low, high
        return clustered_mean(values)

    def mean_penalty(self) -> float:
        """Mean penalty points per finished game."""
        return self.penalty_sum / self.finished_seats if self.finished_seats else 0.0

    def latency(self) -> tuple[float, float, float]:
        """Decision time: median, 95th percentile, maximum (seconds)."""
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0, 0.0, 0.0
        return percentile(ordered, 0.5), percentile(ordered, 0.95), ordered[-1]


def rank_of_result(winner: int | None, penalties: Sequence[int]) -> list[int]:
    """Ranks for a rating system: the winner first, then by penalty points (ties share)."""
    order = sorted(set(penalties))
    return [1 if seat == winner else 2 + order.index(points) for seat, points in enumerate(penalties)]


class Ratings:
    """OpenSkill (Plackett-Luce) ratings over the arena's games."""

    def __init__(self) -> None:
        from openskill.models import PlackettLuce

        self._model = PlackettLuce()
        self._ratings: dict[str, object] = {}

    def add_game(self, identities: Sequence[str], ranks: Sequence[int]) -> None:
        """Update with one finished game; ``identities`` per seat."""
        teams = [[self._ratings.setdefault(name, self._model.rating(name=name))] for name in identities]
        updated = self._model.rate(teams, ranks=list(ranks))  # type: ignore[arg-type]
        for name, team in zip(identities, updated, strict=True):
            self._ratings[name] = team[0]

    def table(self) -> list[tuple[str, float, float, float]]:
        """(name, mu, sigma, ordinal = mu - 3 sigma), best first."""
        rows = [(name, r.mu, r.sigma, r.ordinal()) for name, r in self._ratings.items()]  # type: ignore[attr-defined]
        return sorted(rows, key=lambda row: -row[3])
