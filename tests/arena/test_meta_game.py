"""``benchmarks/engine/meta_game.py``: who finished ahead of whom, and Nash averaging on known meta-games."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.engine.meta_game import nash_average, pairwise
from elferraus.arena.runner import GameResult

ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])


def test_rock_paper_scissors_is_the_uniform_mixture() -> None:
    found = nash_average(ROCK_PAPER_SCISSORS)
    assert found.mixture == pytest.approx([1 / 3] * 3)
    assert found.scores == pytest.approx([0.0] * 3)
    assert found.support == (0, 1, 2)
    assert found.max_entropy


@pytest.mark.parametrize("best", [0, 2, 4])
def test_a_player_who_beats_everybody_takes_all_the_weight(best: int) -> None:
    rng = np.random.default_rng(best)
    payoff = np.triu(rng.uniform(-1, 1, (5, 5)), 1)
    payoff -= payoff.T
    payoff[best] = np.abs(payoff[best])
    payoff[:, best] = -payoff[best]
    payoff[best, best] = 0.0
    found = nash_average(payoff)
    assert found.support == (best,)
    assert found.mixture[best] == pytest.approx(1.0)
    assert found.scores == pytest.approx(payoff[:, best])


def test_a_copy_shares_its_originals_weight_and_changes_no_score() -> None:
    rock_twice = [0, 0, 1, 2]
    found = nash_average(ROCK_PAPER_SCISSORS[np.ix_(rock_twice, rock_twice)])
    assert found.mixture == pytest.approx([1 / 6, 1 / 6, 1 / 3, 1 / 3])
    assert found.scores == pytest.approx([0.0] * 4)
    assert found.max_entropy
    # an uneven cycle and a player everybody beats, then the same with the cycle's first player copied
    game = np.array([[0.0, -1.0, 2.0, 1.0], [1.0, 0.0, -1.0, 1.0], [-2.0, 1.0, 0.0, 1.0], [-1.0, -1.0, -1.0, 0.0]])
    alone = nash_average(game)
    order = [0, 0, 1, 2, 3]
    copied = nash_average(game[np.ix_(order, order)])
    assert copied.scores == pytest.approx(alone.scores[order])
    assert copied.mixture[0] == pytest.approx(copied.mixture[1])
    assert copied.mixture[0] + copied.mixture[1] == pytest.approx(alone.mixture[0])
    assert alone.support == (0, 1, 2)
    assert alone.scores[3] < 0


@pytest.mark.parametrize(("size", "seed"), [(2, 0), (5, 1), (8, 2), (17, 3), (17, 4), (25, 5)])
def test_the_mixture_is_an_equilibrium_of_any_meta_game(size: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    payoff = np.triu(rng.uniform(-1, 1, (size, size)), 1)
    payoff -= payoff.T
    found = nash_average(payoff)
    assert found.mixture.sum() == pytest.approx(1.0)
    assert (found.mixture >= 0).all()
    assert (payoff @ found.mixture <= 1e-9).all(), "no member does better than 0 against the mixture"
    assert found.scores == pytest.approx(payoff @ found.mixture)
    assert found.scores[list(found.support)] == pytest.approx(0.0, abs=1e-9)
    assert set(np.flatnonzero(found.mixture > 1e-9)) == set(found.support)


def test_a_matrix_that_is_no_meta_game_is_refused() -> None:
    with pytest.raises(ValueError, match="antisymmetric"):
        nash_average([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="square"):
        nash_average([[0.0, 1.0, 2.0]])


def _game(specs: list[str], winner: int | None, penalties: list[int] | None) -> GameResult:
    forfeit = None if penalties is not None else (0, "gone")
    return GameResult(0, 0, specs, winner, penalties, forfeit, [[] for _ in specs])


def test_who_finished_ahead_the_winner_then_fewer_points_ties_half() -> None:
    games = [
        _game(["a", "b", "c"], 0, [0, 5, 9]),
        _game(["c", "a", "b"], 0, [0, 4, 4]),
        _game(["a", "b", "c"], None, None),  # forfeited: ranks nobody
    ]
    found = pairwise(["a", "b", "c", "d"], games)
    assert found.meetings[0, 1] == found.meetings[1, 0] == 2
    assert found.meetings[0, 3] == 0
    assert found.ahead[0, 1] == pytest.approx(0.75)  # a won the first, tied b in the second
    assert found.ahead[2, 0] == pytest.approx(0.5)
    assert found.ahead[0, 3] == 0.5
    assert (found.ahead + found.ahead.T)[found.meetings > 0] == pytest.approx(1.0)
    assert found.antisymmetric()[0, 1] == pytest.approx(0.5)


def test_a_member_seated_twice_is_not_compared_with_itself() -> None:
    found = pairwise(["m", "x"], [_game(["m", "x", "x", "x"], 0, [0, 3, 1, 2])])
    assert found.meetings.tolist() == [[0, 3], [3, 0]]
    assert found.ahead[0, 1] == 1.0
