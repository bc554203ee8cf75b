"""The study's statistics: every figure with its 95 % interval, and the few models it fits.

Proportions of independent games use the Wilson interval; anything measured
on duplicate deals (the games of one deal are not independent) takes the deal
as its unit. The logistic model is fitted by Newton's method on numpy alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from elferraus.arena.stats import Z95, wilson

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Estimate:
    """A figure, its 95 % interval and how many units it rests on."""

    value: float
    low: float
    high: float
    n: int

    def as_json(self, name: str) -> dict[str, Any]:
        """``{name: value, "ci95": [low, high], "n": n}``, rounded to what the sample can carry."""
        return {name: round(self.value, 6), "ci95": [round(self.low, 6), round(self.high, 6)], "n": self.n}


def proportion(successes: int, trials: int) -> Estimate:
    """A share of independent trials, Wilson interval."""
    low, high = wilson(successes, trials)
    return Estimate(successes / trials if trials else 0.0, low, high, trials)


def mean(values: Sequence[float] | Array) -> Estimate:
    """A mean with its normal-approximation interval (independent values)."""
    data = np.asarray(values, dtype=float)
    n = len(data)
    if n == 0:
        return Estimate(0.0, 0.0, 0.0, 0)
    centre = float(data.mean())
    half = Z95 * float(data.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    return Estimate(centre, centre - half, centre + half, n)


def clustered_share(outcomes: Array, clusters: Array) -> Estimate:
    """The share of 1s in ``outcomes`` when the values of one cluster (a deal) belong together.

    The interval comes from the spread of the cluster means (each cluster
    weighs the same; duplicate deals give every deal the same number of games).
    """
    outcomes = np.asarray(outcomes, dtype=float)
    _, inverse = np.unique(clusters, return_inverse=True)
    sums = np.bincount(inverse, weights=outcomes)
    sizes = np.bincount(inverse)
    estimate = mean(sums / sizes)
    return Estimate(estimate.value, max(0.0, estimate.low), min(1.0, estimate.high), estimate.n)


def intraclass_correlation(outcomes: Array, groups: Array) -> Estimate:
    """How much of the variance of ``outcomes`` lies between ``groups`` (one-way random effects, ICC(1)).

    Used with a group per (deal, hand): the share of the outcome the hand
    decides whoever plays it. The interval is a bootstrap over groups
    (seeded, so the study stays reproducible).
    """
    outcomes = np.asarray(outcomes, dtype=float)
    _, inverse = np.unique(groups, return_inverse=True)
    sums = np.bincount(inverse, weights=outcomes)
    squares = np.bincount(inverse, weights=outcomes * outcomes)
    sizes = np.bincount(inverse).astype(float)
    value = _icc(sums, squares, sizes)
    generator = np.random.default_rng(20240611)
    count = len(sizes)
    draws = [
        _icc(sums[pick], squares[pick], sizes[pick])
        for pick in (generator.integers(0, count, count) for _ in range(400))
    ]
    low, high = np.quantile(draws, [0.025, 0.975])
    return Estimate(value, float(low), float(high), count)


def _icc(sums: Array, squares: Array, sizes: Array) -> float:
    groups = len(sizes)
    total = float(sizes.sum())
    if groups < 2 or total <= groups:
        return 0.0
    grand = float(sums.sum()) / total
    between = float((sums * sums / sizes).sum()) - total * grand * grand
    within = float(squares.sum()) - float((sums * sums / sizes).sum())
    ms_between = between / (groups - 1)
    ms_within = within / (total - groups)
    k = (total - float((sizes * sizes).sum()) / total) / (groups - 1)
    denominator = ms_between + (k - 1) * ms_within
    return 0.0 if denominator <= 0 else (ms_between - ms_within) / denominator


@dataclass(frozen=True)
class LogisticModel:
    """A fitted logistic regression on standardised features."""

    names: tuple[str, ...]
    centre: Array
    scale: Array
    coefficients: Array
    """Intercept first, then one per feature (per standard deviation of it)."""
    errors: Array
    """Standard errors of the coefficients."""

    def predict(self, features: Array) -> Array:
        """The modelled win probability of each row of ``features``."""
        design = _design((np.asarray(features, dtype=float) - self.centre) / self.scale)
        return np.asarray(1.0 / (1.0 + np.exp(-(design @ self.coefficients))))


def fit_logistic(features: Array, outcomes: Array, names: Sequence[str], iterations: int = 50) -> LogisticModel:
    """Maximum-likelihood logistic regression (Newton's method, a little ridge for stability)."""
    features = np.asarray(features, dtype=float)
    outcomes = np.asarray(outcomes, dtype=float)
    centre = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale == 0] = 1.0
    design = _design((features - centre) / scale)
    beta = np.zeros(design.shape[1])
    ridge = 1e-6 * np.eye(design.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        weights = p * (1 - p)
        hessian = design.T @ (design * weights[:, None]) + ridge
        step = np.linalg.solve(hessian, design.T @ (outcomes - p))
        beta = beta + step
        if float(np.abs(step).max()) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    hessian = design.T @ (design * (p * (1 - p))[:, None]) + ridge
    errors = np.sqrt(np.diag(np.linalg.inv(hessian)))
    return LogisticModel(tuple(names), centre, scale, beta, errors)


def _design(features: Array) -> Array:
    return np.hstack([np.ones((features.shape[0], 1)), features])


def auc(scores: Array, outcomes: Array) -> float:
    """The area under the ROC curve: how often a winner's score beats a loser's (ties count half)."""
    scores = np.asarray(scores, dtype=float)
    positive = np.asarray(outcomes, dtype=bool)
    wins, losses = int(positive.sum()), int((~positive).sum())
    if wins == 0 or losses == 0:
        return 0.5
    _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    first_rank = np.cumsum(counts) - counts
    ranks = (first_rank + (counts + 1) / 2)[inverse]
    return float((ranks[positive].sum() - wins * (wins + 1) / 2) / (wins * losses))


def brier(probabilities: Array, outcomes: Array) -> float:
    """The mean squared error of predicted probabilities (lower is better)."""
    return float(np.mean((np.asarray(probabilities, dtype=float) - np.asarray(outcomes, dtype=float)) ** 2))
