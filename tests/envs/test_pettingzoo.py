"""Elfer raus! in PettingZoo: the framework's own API and seed tests, what an agent may know, and hand-dealt
games against the engine's records."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from elferraus import Rules, read_record
from elferraus.actions import action_of
from elferraus.envs.policies import LevelPolicy
from elferraus.envs.worlds import sample_world
from elferraus.moves import Move
from elferraus.pettingzoo import elferraus_v0, env, raw_env
from tests.data import DATA

GOLDEN = DATA / "golden.jsonl"
RECORDS = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]

# PettingZoo's api_test advises Box or Discrete observations; the dict with an action mask is the one
# PettingZoo's own classic games use, and the issue asks for.
DICT_OBSERVATIONS = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@DICT_OBSERVATIONS[0]
@DICT_OBSERVATIONS[1]
def test_pettingzoos_api_test_and_seed_test_pass(players: int) -> None:
    api_test(env(players=players), num_cycles=2000, verbose_progress=False)
    seed_test(lambda: env(players=players), num_cycles=500)


@pytest.mark.parametrize("rules", ["ravensburger", "beginners"])
@DICT_OBSERVATIONS[0]
@DICT_OBSERVATIONS[1]
def test_the_api_test_passes_under_every_preset(rules: str) -> None:
    api_test(env(players=3, rules=rules), num_cycles=2000, verbose_progress=False)


def test_the_environment_has_its_pettingzoo_name_and_refuses_bad_settings() -> None:
    assert elferraus_v0.env().metadata["name"] == "elferraus_v0"
    with pytest.raises(ValueError, match="players must be 2-6"):
        raw_env(players=7)
    with pytest.raises(ValueError, match="rules must be one of"):
        raw_env(rules="chess")


def _play_to_the_end(table: Any, policies: dict[str, Any]) -> dict[str, float]:
    """Every agent's final reward."""
    finals = {}
    for agent in table.agent_iter(max_iter=5000):
        observation, reward, termination, truncation, _info = table.last()
        if termination or truncation:
            finals[agent] = reward
            table.step(None)
            continue
        action = policies[agent](observation)
        assert observation["action_mask"][action] == 1
        table.step(action)
    return finals


def test_the_same_seed_deals_the_same_game_and_levels_play_it_through_their_policies() -> None:
    records = []
    for _ in range(2):
        table = raw_env(players=4)
        table.reset(seed=11)
        policies = {
            agent: LevelPolicy(level, table, seed)
            for seed, (agent, level) in enumerate(
                zip(table.possible_agents, ["greedy", "medium", "easy", "random"], strict=True)
            )
        }
        finals = _play_to_the_end(table, policies)
        assert table.game is not None
        records.append(table.game.record_moves())
        winner = table.game.winner
        assert finals == {agent: 1.0 if agent == f"player_{winner}" else -1 / 3 for agent in table.possible_agents}
        assert table.agents == []
    assert records[0] == records[1]


@pytest.mark.parametrize("record", RECORDS[:8], ids=lambda r: f"seed{r['seed']}-{len(r['hands'])}p")
def test_a_hand_dealt_game_follows_the_engines_record_move_for_move(record: dict[str, Any]) -> None:
    players = len(record["hands"])
    table = raw_env(players=players, rules=Rules.from_dict(record["rules"]))
    table.reset(seed=0)
    table.game = read_record({**record, "moves": [], "result": None})
    table.agent_selection = f"player_{table.game.turn}"
    engine = read_record({**record, "moves": [], "result": None})
    for text in record["moves"]:
        seat, action, *_ = text.split()
        assert table.agent_selection == f"player_{seat}"
        mask = table.observe(table.agent_selection)["action_mask"]
        assert sorted(np.flatnonzero(mask)) == sorted(action_of(move) for move in engine.legal_moves())
        table.step(action_of(Move.parse(action)))
        engine.push(Move.parse(action))
    assert table.game.record_moves() == record["moves"]
    winner = record["result"]["winner"]
    assert all(table.terminations.values())
    assert table.rewards == {
        f"player_{seat}": 1.0 if seat == winner else -1.0 / (players - 1) for seat in range(players)
    }


def test_dealing_again_the_cards_an_agent_cannot_see_changes_nothing_it_observes() -> None:
    rng = random.Random(4)
    table = raw_env(players=4)
    for round_ in range(6):
        table.reset(seed=round_)
        game = table.game
        assert game is not None
        for _ in range(rng.randrange(10, 120)):
            if game.is_over():
                break
            game.push(rng.choice(game.legal_moves()))
        for seat, agent in enumerate(table.possible_agents):
            view = game.view(seat)
            before = table.observe(agent)
            real = table.game
            table.game = sample_world(view, rng).game(view)
            after = table.observe(agent)
            table.game = real
            assert np.array_equal(before["observation"], after["observation"])
            assert np.array_equal(before["action_mask"], after["action_mask"])


def test_an_illegal_move_ends_the_game_with_minus_one_for_its_agent_and_raw_env_raises() -> None:
    table = env(players=3)
    table.reset(seed=2)
    agent = table.agent_selection
    mask = table.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    table.step(illegal)
    assert table.rewards[agent] == -1
    assert all(table.terminations.values())
    raw = raw_env(players=3)
    raw.reset(seed=2)
    with pytest.raises(Exception, match="illegal move"):
        raw.step(illegal)


def test_render_shows_the_table_as_text() -> None:
    table = raw_env(players=2, render_mode="ansi")
    table.reset(seed=5)
    text = table.render()
    assert isinstance(text, str)
    assert "pile: 40" in text
    assert f"player_{table.game.turn} to move" in text
    assert str(table.game.hand(table.game.turn)[0]) in text
    human = raw_env(players=2, render_mode="human")
    human.reset(seed=5)
    assert human.render() is None


def test_an_agents_view_is_its_own_and_a_policy_needs_its_environment() -> None:
    table = raw_env(players=3)
    table.reset(seed=6)
    assert table.game is not None
    for seat, agent in enumerate(table.possible_agents):
        view = table.view(agent)
        assert view.seat == seat
        assert list(view.hand) == table.game.hand(seat)
        assert view == table.game.view(seat)
    assert table.infos == {agent: {} for agent in table.possible_agents}
    with pytest.raises(TypeError, match="no environment to read the seat's view from"):
        LevelPolicy("greedy")(table.observe(table.agent_selection))
