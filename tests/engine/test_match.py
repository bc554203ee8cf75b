"""Match play: rounds, penalty points, a round limit or a target total, the leaders."""

from __future__ import annotations

import random

import pytest

from elferraus import Game, Match, NotationError, Rules, format_position
from tests.support.engine_helpers import play_random


def _play_round(match: Match, rng: random.Random) -> list[int]:
    game = match.new_round()
    play_random(game, rng)
    return match.finish_round(game)


def test_round_limit() -> None:
    match = Match(players=3, rounds=4, seed=8)
    rng = random.Random(8)
    rounds = []
    while not match.is_over():
        rounds.append(_play_round(match, rng))
    assert len(rounds) == 4
    assert match.scores == rounds
    assert match.totals == [sum(scores[seat] for scores in rounds) for seat in range(3)]
    for scores in rounds:
        assert scores.count(0) == 1, "the winner of a round scores nothing, the others their cards"
        assert all(score > 0 for score in scores if score)


def test_penalties_are_the_numbers_left_in_hand() -> None:
    match = Match(players=4, rounds=1, seed=3)
    game = match.new_round()
    play_random(game, random.Random(3))
    expected = [sum(card.number for card in game.hand(seat)) for seat in range(4)]
    assert match.finish_round(game) == expected == game.penalties()
    assert expected[game.winner] == 0  # type: ignore[index]


def test_target_score_ends_the_match() -> None:
    match = Match(players=2, target=150, seed=5)
    rng = random.Random(5)
    while not match.is_over():
        assert max(match.totals) < 150
        _play_round(match, rng)
    assert max(match.totals) >= 150
    assert len(match.scores) >= 1


def test_round_limit_or_target_whichever_first() -> None:
    by_rounds = Match(players=2, rounds=2, target=10_000, seed=1)
    rng = random.Random(1)
    while not by_rounds.is_over():
        _play_round(by_rounds, rng)
    assert len(by_rounds.scores) == 2
    by_target = Match(players=2, rounds=50, target=1, seed=1)
    _play_round(by_target, random.Random(1))
    assert by_target.is_over(), "one round with any penalty reaches a target of 1"
    assert len(by_target.scores) == 1


def test_leaders_lowest_total_with_ties() -> None:
    match = Match(players=3, rounds=3)
    assert match.leaders() == [0, 1, 2]
    match.scores.extend([[0, 20, 35], [14, 0, 3]])
    assert match.totals == [14, 20, 38]
    assert match.leaders() == [0]
    match.scores.append([6, 0, 9])
    assert match.totals == [20, 20, 47]
    assert match.leaders() == [0, 1]
    assert match.is_over()


def test_rounds_are_seeded_and_numbered() -> None:
    first = Match(players=4, rounds=3, seed=42)
    second = Match(players=4, rounds=3, seed=42)
    other = Match(players=4, rounds=3, seed=43)
    rng = random.Random(0)
    seen = set()
    for number in (1, 2, 3):
        game = first.new_round()
        assert game.metadata["round"] == number
        assert format_position(second.new_round()) == format_position(game)
        assert format_position(other.new_round()) != format_position(game)
        seen.add(format_position(game))
        play_random(game, rng)
        first.finish_round(game)
        second.scores.append(game.penalties())
        other.scores.append(game.penalties())
    assert len(seen) == 3, "every round is a new deal"


def test_rules_of_the_match_are_used() -> None:
    match = Match(players=2, rules=Rules.preset("beginners"), rounds=1)
    game = match.new_round()
    assert game.rules.colors == "RYG"
    assert game.pile_size() == 20


@pytest.mark.parametrize(
    ("kwargs", "error", "phrase"),
    [
        pytest.param({"players": 3}, ValueError, "rounds, a target", id="neither-rounds-nor-target"),
        pytest.param({"players": 3, "rounds": 0}, ValueError, "rounds", id="zero-rounds"),
        pytest.param({"players": 3, "target": 0}, ValueError, "target", id="zero-target"),
        pytest.param({"players": 7, "rounds": 1}, NotationError, "players", id="seven-players"),
        pytest.param({"players": 1, "rounds": 1}, NotationError, "players", id="one-player"),
        pytest.param(
            {"players": 6, "rounds": 1, "rules": Rules(colors="RYG", hand_size=11)},
            NotationError,
            "deck",
            id="deck-too-small",
        ),
    ],
)
def test_bad_match(kwargs: dict[str, object], error: type[Exception], phrase: str) -> None:
    with pytest.raises(error, match=phrase):
        Match(**kwargs)  # type: ignore[arg-type]


def test_finish_round_refuses_unfinished_and_foreign_games() -> None:
    match = Match(players=3, rounds=1, seed=2)
    game = match.new_round()
    with pytest.raises(ValueError, match="not over"):
        match.finish_round(game)
    foreign = Game.deal(4, 1)
    play_random(foreign, random.Random(1))
    with pytest.raises(ValueError, match="3 players"):
        match.finish_round(foreign)
    assert match.scores == []


def test_no_rounds_after_the_match_is_over() -> None:
    match = Match(players=2, rounds=1, seed=9)
    game = match.new_round()
    play_random(game, random.Random(9))
    match.finish_round(game)
    assert match.is_over()
    with pytest.raises(ValueError, match="over"):
        match.new_round()
    with pytest.raises(ValueError, match="over"):
        match.finish_round(game)
    assert len(match.scores) == 1
