"""The meta-game of a population: who finishes ahead of whom, and Nash averaging over it.

**Ahead.** In a game two players shared, one finished ahead of the other:
the winner ahead of everybody, then fewer penalty points ahead of more (the
ranks the arena's ratings use, :func:`elferraus.arena.stats.rank_of_result`);
a tie counts half to each. ``ahead[i, j]`` is the share of their shared
games in which ``i`` finished ahead of ``j``, so ``ahead + ahead.T`` is 1
wherever they met.

**Nash averaging** (Balduzzi, Tuyls, Perolat and Graepel, "Re-evaluating
evaluation", NeurIPS 2018). The antisymmetric matrix ``A = ahead - ahead.T``
is a symmetric zero-sum game between two meta-players, each picking a
member of the population; its value is 0. Of its Nash equilibria, the one
of maximum entropy is unique, and so the evaluation it gives is too: a
member's Nash-averaged score is ``(A p)_i``, its expected margin against the
equilibrium's mixture ``p``. Every score is at most 0; the members of the
support score 0, and a copy of a member shares its weight instead of adding
to it, so adding copies changes nobody's score.

The equilibrium is found in NumPy with a small linear programme per member
(the most weight it can carry in any equilibrium: the members who carry some
make up the support of the maximum-entropy one), then the entropy is
maximised over the support by Newton's method on the dual.

>>> import numpy as np
>>> rock_paper_scissors = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
>>> nash_average(rock_paper_scissors).mixture.round(3).tolist()
[0.333, 0.333, 0.333]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from elferraus.arena.runner import GameResult
from elferraus.arena.stats import rank_of_result

Matrix = npt.NDArray[np.float64]

TOLERANCE = 1e-9
"""Below this a weight or a margin counts as 0."""


@dataclass(frozen=True)
class Pairwise:
    """Who finished ahead of whom, over the games each pair shared."""

    names: tuple[str, ...]
    ahead: Matrix
    """``ahead[i, j]``: the share of their shared games in which ``names[i]`` finished ahead (0.5 if they never
    met)."""
    meetings: npt.NDArray[np.int64]
    """``meetings[i, j]``: the finished games both sat in."""

    def antisymmetric(self) -> Matrix:
        """``ahead - ahead.T``: the meta-game's payoff, 0 where a pair never met."""
        return np.asarray(self.ahead - self.ahead.T, np.float64)


def pairwise(names: Sequence[str], games: Iterable[GameResult]) -> Pairwise:
    """The pairwise shares of finished ``games`` whose seats hold ``names`` (``result.specs``); a player seated
    twice in one game is compared with the others once per seat, not with itself."""
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    points = np.zeros((n, n), np.float64)
    meetings = np.zeros((n, n), np.int64)
    for result in games:
        if result.penalties is None:
            continue  # a forfeited game ranks nobody
        ranks = rank_of_result(result.winner, result.penalties)
        for a, name_a in enumerate(result.specs):
            for b, name_b in enumerate(result.specs):
                i, j = index[name_a], index[name_b]
                if a == b or i == j:
                    continue
                meetings[i, j] += 1
                points[i, j] += 1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
    ahead = np.full((n, n), 0.5)
    met = meetings > 0
    ahead[met] = points[met] / meetings[met]
    return Pairwise(tuple(names), ahead, meetings)


@dataclass(frozen=True)
class NashAverage:
    """The maximum-entropy Nash equilibrium of a symmetric zero-sum meta-game and the scores it gives."""

    mixture: Matrix
    """The equilibrium's weight on each member (they sum to 1)."""
    scores: Matrix
    """``A @ mixture``: each member's expected margin against the mixture (at most 0; 0 on the support)."""
    support: tuple[int, ...]
    """The members the equilibrium plays."""
    max_entropy: bool
    """False in the rare case where the entropy's maximum over the support left the equilibria; ``mixture`` is
    then an equilibrium with the same support (the centre of the linear programmes' solutions)."""


def nash_average(payoff: npt.ArrayLike) -> NashAverage:
    """Nash averaging of the antisymmetric ``payoff`` (``payoff[i, j]``: what ``i`` gains against ``j``).

    Raises:
        ValueError: ``payoff`` is not square and antisymmetric.

    A player who beats everybody takes all the weight:

    >>> found = nash_average([[0.0, 0.2, 0.4], [-0.2, 0.0, 0.1], [-0.4, -0.1, 0.0]])
    >>> found.support, found.mixture.round(6).tolist(), found.scores.round(6).tolist()
    ((0,), [1.0, 0.0, 0.0], [0.0, -0.2, -0.4])
    """
    a = np.asarray(payoff, np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or not np.allclose(a, -a.T, atol=1e-12):
        raise ValueError(f"a meta-game's payoff must be a square antisymmetric matrix, not shape {a.shape}")
    n = a.shape[0]
    if n == 0:
        return NashAverage(np.zeros(0), np.zeros(0), (), True)
    scale = max(1.0, float(np.abs(a).max()))
    a = a / scale  # the equilibria do not change; the scores are scaled back at the end
    solutions = []
    carried = np.zeros(n, np.bool_)
    for i in range(n):
        if carried[i]:
            continue
        weights = _most_weight_on(a, i)
        if weights[i] > TOLERANCE:
            solutions.append(weights / weights.sum())
            carried |= weights > TOLERANCE
    if not solutions:  # cannot happen (a symmetric zero-sum game has an equilibrium); kept for safety
        raise ArithmeticError("no equilibrium found")
    centre = np.mean(solutions, axis=0)
    support = np.flatnonzero(carried)
    mixture = np.zeros(n)
    inside = _max_entropy(a[np.ix_(support, support)])
    outside = np.setdiff1d(np.arange(n), support)
    if inside is not None:
        mixture[support] = inside
    max_entropy = inside is not None and bool(np.all(a[outside] @ mixture <= 1e-7))
    if not max_entropy:
        mixture = centre
    mixture = mixture / mixture.sum()
    return NashAverage(mixture, scale * (a @ mixture), tuple(int(i) for i in support), max_entropy)


def _most_weight_on(a: Matrix, member: int) -> Matrix:
    """An equilibrium's weights ``x`` (summing to 1, or all 0) with the most weight on ``member``: maximise
    ``x[member]`` subject to ``a @ x <= 0``, ``sum(x) <= 1``, ``x >= 0`` (every column is then met with a margin
    of at least 0, and a solution with weight sums to 1)."""
    n = a.shape[0]
    objective = np.zeros(n)
    objective[member] = 1.0
    constraints = np.vstack([a, np.ones((1, n))])
    bounds = np.concatenate([np.zeros(n), [1.0]])
    return _simplex(objective, constraints, bounds)


def _simplex(objective: Matrix, constraints: Matrix, bounds: Matrix) -> Matrix:
    """Maximise ``objective @ x`` subject to ``constraints @ x <= bounds`` and ``x >= 0``, where ``bounds >= 0``
    (so ``x = 0`` is a start), by the tableau simplex with Bland's rule (it never cycles)."""
    rows, columns = constraints.shape
    tableau = np.zeros((rows + 1, columns + rows + 1))
    tableau[:rows, :columns] = constraints
    tableau[:rows, columns : columns + rows] = np.eye(rows)
    tableau[:rows, -1] = bounds
    tableau[rows, :columns] = -objective
    basis = list(range(columns, columns + rows))
    for _ in range(50 * (rows + columns)):
        entering = next((j for j in range(columns + rows) if tableau[rows, j] < -TOLERANCE), None)
        if entering is None:
            break
        column = tableau[:rows, entering]
        candidates = [r for r in range(rows) if column[r] > TOLERANCE]
        if not candidates:
            raise ArithmeticError("the linear programme is unbounded")
        best = min(tableau[r, -1] / column[r] for r in candidates)
        leaving = min((r for r in candidates if tableau[r, -1] / column[r] <= best + TOLERANCE), key=lambda r: basis[r])
        tableau[leaving] /= tableau[leaving, entering]
        for r in range(rows + 1):
            if r != leaving and tableau[r, entering] != 0.0:
                tableau[r] -= tableau[r, entering] * tableau[leaving]
        basis[leaving] = entering
    else:
        raise ArithmeticError("the simplex did not finish")
    x = np.zeros(columns + rows)
    for r, variable in enumerate(basis):
        x[variable] = tableau[r, -1]
    return np.clip(x[:columns], 0.0, None)


def _max_entropy(a: Matrix) -> Matrix | None:
    """The weights of most entropy with ``a @ p = 0`` and ``sum(p) = 1`` (some such weights are all positive),
    or None if Newton's method did not get there.

    The maximum has the form ``p ∝ exp(a.T @ mu)``; ``mu`` minimises the convex ``log sum exp(a.T @ mu)``,
    whose gradient is ``a @ p``: Newton's method with a backtracking line search.
    """
    if a.shape[0] == 1:
        return np.ones(1)

    def weights(mu: Matrix) -> tuple[Matrix, float]:
        logits = a.T @ mu
        top = float(logits.max())
        exp = np.exp(logits - top)
        total = float(exp.sum())
        return exp / total, top + float(np.log(total))

    mu = np.zeros(a.shape[0])
    p, value = weights(mu)
    for _ in range(200):
        gradient = a @ p
        if float(np.abs(gradient).max()) < 1e-13:
            return p
        hessian = a @ (np.diag(p) - np.outer(p, p)) @ a.T
        step = np.linalg.lstsq(hessian, -gradient, rcond=None)[0]
        size = 1.0
        while size > 1e-12:
            trial_p, trial_value = weights(mu + size * step)
            if trial_value <= value + 1e-4 * size * float(gradient @ step):
                break
            size /= 2
        else:
            break
        mu, p, value = mu + size * step, trial_p, trial_value
    return p if float(np.abs(a @ p).max()) < 1e-8 else None
