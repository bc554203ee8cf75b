"""Elfer raus! in Gymnasium: the framework's own environment checker, vector environments, what the learner
may know, and games that follow the engine move for move."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import elferraus.gym  # noqa: F401 (registers the environment)
from elferraus import Game
from elferraus.actions import action_of
from elferraus.bots import make_bot, seat_seed
from elferraus.envs.policies import LevelPolicy
from elferraus.envs.worlds import sample_world
from elferraus.gym import ENV_ID, ElferRausEnv


@pytest.mark.parametrize(
    ("players", "rules", "opponents"),
    [
        (2, "classic", "random"),
        (4, "classic", "greedy"),
        (6, "beginners", "easy"),
        (3, "ravensburger", "medium"),
    ],
)
def test_gymnasiums_environment_checker_passes(players: int, rules: str, opponents: str) -> None:
    check_env(
        gymnasium.make(ENV_ID, players=players, rules=rules, opponents=opponents).unwrapped, skip_render_check=True
    )


def test_the_render_check_passes_and_render_shows_the_learners_hand() -> None:
    made = gymnasium.make(ENV_ID, players=3, render_mode="ansi")
    check_env(made.unwrapped)
    environment = made.unwrapped
    assert isinstance(environment, ElferRausEnv)
    environment.reset(seed=1)
    text = environment.render()
    assert isinstance(text, str)
    assert "your hand:" in text
    assert str(environment.game.hand(environment.seat)[0]) in text


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_it_runs_as_a_vector_of_environments(mode: str) -> None:
    vector = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode=mode, players=3, opponents="greedy")
    try:
        observations, infos = vector.reset(seed=3)
        assert observations.shape == (2, vector.single_observation_space.shape[0])
        for _ in range(60):
            masks = infos["action_mask"]
            actions = np.array([int(np.flatnonzero(mask)[0]) if mask.any() else 0 for mask in masks])  # 0: reset
            observations, rewards, terminated, _truncated, infos = vector.step(actions)
            assert not np.any(rewards[~terminated])
    finally:
        vector.close()


def test_the_same_seed_gives_the_same_episode() -> None:
    runs = []
    for _ in range(2):
        environment = ElferRausEnv(players=4, opponents=["easy", "medium", "greedy"])
        observation, _info = environment.reset(seed=9)
        policy = LevelPolicy("greedy", environment)
        steps = [observation]
        done = False
        while not done:
            observation, _reward, done, _truncated, _info = environment.step(policy(observation))
            steps.append(observation)
        runs.append((environment.game.record_moves(), np.array(steps)))
    assert runs[0][0] == runs[1][0]
    assert np.array_equal(runs[0][1], runs[1][1])


def test_an_episode_follows_the_engine_move_for_move() -> None:
    """The same deal and the same computers (seeded by the one rule, ``seat_seed``) with the learner's moves
    made directly on the engine give the environment's record, and its reward is the game's result."""
    for seed in range(5):
        environment = ElferRausEnv(players=4, opponents="medium", seat=seed % 4)
        _observation, info = environment.reset(seed=seed)
        game_seed = environment.game.metadata["seed"]
        engine = Game.deal(4, seed=game_seed)
        bots = {seat: make_bot("medium", seat_seed(game_seed, seat)) for seat in range(4) if seat != seed % 4}
        for seat, bot in bots.items():
            bot.start_game(seat, 4, engine.rules)
        learner = make_bot("easy", 5)
        reward, done = 0.0, False
        while not done:
            while engine.turn != seed % 4 and not engine.is_over():
                engine.push(bots[engine.turn].choose(engine.view(engine.turn)))
            move = learner.choose(info["view"])
            assert info["view"] == engine.view(seed % 4)
            engine.push(move)
            _observation, reward, done, _truncated, info = environment.step(action_of(move))
        while not engine.is_over():
            engine.push(bots[engine.turn].choose(engine.view(engine.turn)))
        assert environment.game.record_moves() == engine.record_moves()
        assert reward == (1.0 if engine.winner == seed % 4 else -1 / 3)


def test_an_illegal_action_ends_the_episode_as_a_loss_and_says_why() -> None:
    environment = ElferRausEnv(players=3)
    environment.reset(seed=2)
    illegal = int(np.flatnonzero(~environment.action_masks())[0])
    _observation, reward, terminated, truncated, info = environment.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "illegal move" in info["illegal"]
    assert environment.game is not None
    assert environment.game.move_count >= 1  # the game stays as it was


def test_dealing_again_the_cards_the_learner_cannot_see_changes_nothing_it_observes() -> None:
    rng = random.Random(8)
    environment = ElferRausEnv(players=4, opponents="greedy")
    for seed in range(6):
        observation, info = environment.reset(seed=seed)
        for _ in range(rng.randrange(0, 30)):
            observation, _reward, done, _truncated, info = environment.step(int(np.flatnonzero(info["action_mask"])[0]))
            if done:
                break
        view = info["view"]
        real = environment.game
        environment.game = sample_world(view, rng).game(view)
        assert np.array_equal(environment._observation(), observation)
        assert np.array_equal(environment.action_masks(), info["action_mask"])
        environment.game = real


def test_bad_settings_are_refused_with_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="players must be 2-6"):
        ElferRausEnv(players=1)
    with pytest.raises(ValueError, match="unknown computer player 'grandmaster'"):
        ElferRausEnv(opponents="grandmaster")
    with pytest.raises(ValueError, match="opponents must name one level, or 3"):
        ElferRausEnv(players=4, opponents=["greedy"])
    with pytest.raises(ValueError, match="seat must be 0-3"):
        ElferRausEnv(players=4, seat=4)
