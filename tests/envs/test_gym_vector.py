"""Gymnasium's vector form of ElferRaus-v0 (make_vec's vector_entry_point): every row is its learner's own
information state, the computers play their levels from their own views, rewards and illegal actions as the
single environment gives them, and seeding."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import elferraus.gym  # noqa: F401 (registers the environment)
from elferraus import Game
from elferraus.bots import make_bot, start_players
from elferraus.gym import ENV_ID, ElferRausVectorEnv
from elferraus.observation import SeatObserver


def _random_actions(infos: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    masks = infos["action_mask"]
    return np.argmax(masks * rng.random(masks.shape), axis=1)


def test_make_vec_builds_the_batched_environment_with_the_single_ones_spaces() -> None:
    vector = gymnasium.make_vec(ENV_ID, num_envs=5, players=3, rules="beginners", opponents="easy")
    assert isinstance(vector, ElferRausVectorEnv)
    single = gymnasium.make(ENV_ID, players=3, rules="beginners")
    assert vector.single_observation_space == single.observation_space
    assert vector.single_action_space == single.action_space
    observations, infos = vector.reset(seed=2)
    assert observations.shape == (5, single.observation_space.shape[0])
    assert observations in vector.observation_space
    assert infos["action_mask"].shape == (5, 82)
    assert infos["action_mask"].any(axis=1).all()


@pytest.mark.parametrize(("players", "rules", "opponents"), [(4, "classic", "greedy"), (3, "ravensburger", "medium")])
def test_each_row_is_its_learners_view_and_the_computers_play_their_levels(
    players: int, rules: str, opponents: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vector = ElferRausVectorEnv(num_envs=4, players=players, rules=rules, opponents=opponents)
    finished: list[tuple[Game, int, dict[int, tuple[str, int]]]] = []
    start = vector._start

    def keep_finished(index: int) -> None:
        if vector._bots[index]:
            seats = {seat: (bot.name, bot.seed) for seat, bot in vector._bots[index].items()}
            finished.append((vector._games[index], int(vector.learners[index]), seats))
        start(index)

    monkeypatch.setattr(vector, "_start", keep_finished)
    observations, infos = vector.reset(seed=5)
    rng = np.random.default_rng(0)
    returns = []
    for _ in range(250):
        for index in range(4):
            game, learner = vector._games[index], int(vector.learners[index])
            assert game.turn == learner == infos["seat"][index]
            assert np.array_equal(observations[index], SeatObserver(players, 3).observe(game, learner))
        observations, rewards, terminated, truncated, infos = vector.step(_random_actions(infos, rng))
        assert not truncated.any()
        assert not rewards[~terminated].any()
        returns.extend(rewards[terminated].tolist())
    assert finished
    assert len(finished) == len(returns)
    assert set(np.round(returns, 5)) <= {1.0, round(-1 / (players - 1), 5)}
    for game, learner, seats in finished:
        dealt = game.dealt
        assert dealt is not None
        replay = Game(*dealt, rules=game.rules)
        bots = {seat: make_bot(name, seed) for seat, (name, seed) in seats.items()}
        start_players(bots, replay)
        for seat, move, _drawn in game.history():
            if seat != learner:
                assert bots[seat].choose(replay.view(seat)) == move
            replay.push(move)
        assert replay.is_over()


def test_an_illegal_action_ends_that_game_as_a_loss_and_the_others_go_on() -> None:
    vector = ElferRausVectorEnv(num_envs=3, players=4)
    _observations, infos = vector.reset(seed=1)
    actions = _random_actions(infos, np.random.default_rng(1))
    before = vector._games[2].move_count
    actions[1] = int(np.flatnonzero(~infos["action_mask"][1])[0])
    _observations, rewards, terminated, _truncated, infos = vector.step(actions)
    assert rewards[1] == -1.0
    assert terminated[1]
    assert infos["illegal"].tolist() == [False, True, False]
    assert vector._games[1].move_count == 0 or vector._games[1].turn == vector.learners[1]
    assert vector._games[2].move_count > before


def test_the_same_seed_gives_the_same_games() -> None:
    def run(seed: int) -> list[np.ndarray]:
        vector = ElferRausVectorEnv(num_envs=3, players=4, opponents=["easy", "medium", "greedy"])
        observations, infos = vector.reset(seed=seed)
        rng = np.random.default_rng(3)
        seen = [observations]
        for _ in range(40):
            observations, _r, _t, _tr, infos = vector.step(_random_actions(infos, rng))
            seen.append(observations)
        return seen

    first, again, other = run(7), run(7), run(8)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_bad_settings_are_refused_with_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="opponents must name one level, or 3"):
        ElferRausVectorEnv(num_envs=2, players=4, opponents=["easy"])
    with pytest.raises(ValueError, match="unknown computer player 'chess'"):
        ElferRausVectorEnv(num_envs=2, opponents="chess")
    with pytest.raises(ValueError, match="seat must be 0-3 or None"):
        ElferRausVectorEnv(num_envs=2, seat=4)
    with pytest.raises(ValueError, match="seed must be one int"):
        ElferRausVectorEnv(num_envs=2).reset(seed=[1, 2])
