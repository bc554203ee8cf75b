"""Elfer raus! in OpenSpiel: the framework's own random simulation test, what each player may know, resampled
worlds, round trips, and hand-dealt games against the engine's records."""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots

import elferraus.openspiel  # noqa: F401 (registers the game)
from elferraus import Card, Rules, read_record
from elferraus.actions import ACTION_COUNT, DRAW_ACTION, action_of
from elferraus.arena.players import make_player
from elferraus.arena.runner import ArenaConfig, run_arena, summarize
from elferraus.moves import Move
from elferraus.observation import Layout
from elferraus.openspiel import ElferRausState, LevelBot, ismcts_bot, max_game_length
from elferraus.rules import PRESETS
from elferraus.table.seating import seat_specs
from tests.data import DATA

GOLDEN = DATA / "golden.jsonl"
RECORDS = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
PRESET_RECORDS = [record for record in RECORDS if Rules.from_dict(record["rules"]).preset_name is not None]
"""OpenSpiel's parameters name a preset: the golden games played with one."""


def load(players: int, rules: str = "classic") -> Any:
    return pyspiel.load_game("elfer_raus", {"players": players, "rules": rules})


def play_randomly(state: Any, rng: random.Random, steps: int) -> Any:
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_openspiels_random_simulation_test_passes(players: int, rules: str) -> None:
    """pyspiel's own check of a game: legal actions, chance, returns, clones, observations, serialization."""
    pyspiel.random_sim_test(load(players, rules), num_sims=2, serialize=True, verbose=False)


def test_the_game_is_registered_with_its_parameters_and_sizes() -> None:
    game = load(4)
    assert game.get_type().short_name == "elfer_raus"
    assert game.num_players() == 4
    assert game.num_distinct_actions() == ACTION_COUNT == 82
    assert game.max_chance_outcomes() == 80
    assert game.max_game_length() == max_game_length(4, Rules.preset("classic"))
    assert game.observation_tensor_shape() == [Layout(4, history=False).size]
    assert game.information_state_tensor_shape() == [Layout(4, history=True).size]
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert str(pyspiel.load_game("elfer_raus")) == "elfer_raus(players=4,rules=classic)"


@pytest.mark.parametrize(("params", "message"), [({"players": 7}, "players must be 2-6"), ({"rules": "x"}, "rules")])
def test_bad_parameters_are_refused_with_what_was_wrong(params: dict[str, Any], message: str) -> None:
    with pytest.raises(Exception, match=message):
        pyspiel.load_game("elfer_raus", params)


@pytest.mark.parametrize("record", PRESET_RECORDS, ids=lambda record: f"seed{record['seed']}-{len(record['hands'])}p")
def test_a_hand_dealt_game_follows_the_engines_record_move_for_move(record: dict[str, Any]) -> None:
    """The record's deal dealt round the table, then its moves (each draw's card as the chance outcome):
    the legal actions are the engine's at every step, and the game ends as the record does."""
    name = Rules.from_dict(record["rules"]).preset_name
    assert name is not None
    players = len(record["hands"])
    state = load(players, name).new_initial_state()
    size = len(record["hands"][0])
    for index in range(players * size):
        state.apply_action(Card.parse(record["hands"][index % players][index // players]).index)
    engine = read_record({**record, "moves": [], "result": None})
    for text in record["moves"]:
        seat, action, *card = text.split()
        assert state.current_player() == int(seat) == engine.turn
        assert state.legal_actions() == sorted(action_of(move) for move in engine.legal_moves())
        if action == "draw":
            state.apply_action(DRAW_ACTION)
            assert state.is_chance_node()
            state.apply_action(Card.parse(card[0]).index)
        else:
            state.apply_action(action_of(Move.parse(action)))
        engine.push(Move.parse(action))
    assert state.is_terminal()
    winner = record["result"]["winner"]
    assert state.returns() == [1.0 if seat == winner else -1.0 / (players - 1) for seat in range(players)]
    assert state.game.record_moves() == record["moves"]


def _knowledge(state: Any, player: int) -> tuple[Any, ...]:
    return (
        state.observation_string(player),
        state.information_state_string(player),
        tuple(state.observation_tensor(player)),
        tuple(state.information_state_tensor(player)),
    )


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_resampled_state_looks_the_same_to_the_player_and_deals_the_rest_anew(players: int, rules: str) -> None:
    """Dealing again every card a player has not seen changes nothing he observes or knows, and keeps the
    history a real one: the resampled state's own history replays it."""
    game = load(players, rules)
    rng = random.Random(f"{players}{rules}")
    changed = 0
    for _ in range(6):
        state = play_randomly(game.new_initial_state(), rng, rng.randrange(players * 15, players * 15 + 150))
        if state.is_terminal():
            continue
        for player in range(players):
            other: ElferRausState = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0, 1))
            assert _knowledge(other, player) == _knowledge(state, player)
            assert other.current_player() == state.current_player()
            if player == state.current_player():
                assert other.legal_actions() == state.legal_actions()
            replayed = game.new_initial_state()
            for action in other.history():
                replayed.apply_action(action)
            assert str(replayed) == str(other)
            if state.game is not None and other.game is not None:
                changed += other.game.hand((player + 1) % players) != state.game.hand((player + 1) % players)
    assert changed > 0, "the hidden cards were dealt anew at least once"


def test_no_tensor_holds_a_card_of_another_hand() -> None:
    """Each seat's observation and information state name no card of another seat's hand or of the pile."""
    game = load(4)
    rng = random.Random(5)
    for _ in range(5):
        state = play_randomly(game.new_initial_state(), rng, rng.randrange(60, 200))
        if state.game is None or state.is_terminal():
            continue
        for player in range(4):
            observation = np.array(state.information_state_tensor(player))
            hand = observation[:80]
            hidden = {card.index for seat in range(4) if seat != player for card in state.game.hand(seat)}
            hidden |= {card.index for card in state.game.pile()}
            assert not any(hand[index] for index in hidden)
            assert {index for index in range(80) if hand[index]} == {card.index for card in state.game.hand(player)}
            text = state.information_state_string(player)
            for seat in range(4):
                if seat != player:
                    assert not any(f" {card} " in f" {text.split('|')[1]} " for card in state.game.hand(seat))


def test_clone_pickle_and_serialization_round_trip() -> None:
    game = load(3)
    state = play_randomly(game.new_initial_state(), random.Random(2), 120)
    clone = state.clone()
    assert str(clone) == str(state)
    assert clone.history() == state.history()
    play_randomly(clone, random.Random(3), 5)
    assert clone.history() != state.history()  # independent of the original
    for copy in (
        pickle.loads(pickle.dumps(state)),
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1],
    ):
        assert str(copy) == str(state)
        assert copy.history() == state.history()
        assert copy.information_state_string(0) == state.information_state_string(0)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)


@pytest.mark.parametrize(("players", "rules"), [(2, "classic"), (4, "ravensburger"), (6, "beginners")])
def test_a_pickled_game_and_a_pickled_state_play_on_like_the_originals(players: int, rules: str) -> None:
    """A tool that ships the game to worker processes (by pickle) gets a game that starts new states, and a
    state that plays on to the same end as the original."""
    game = load(players, rules)
    state = play_randomly(game.new_initial_state(), random.Random(players), 60)
    assert not state.is_terminal()
    copied_game = pickle.loads(pickle.dumps(game))
    assert (copied_game.rules, copied_game.players) == (game.rules, game.players)
    assert copied_game.get_parameters() == game.get_parameters()
    fresh = play_randomly(copied_game.new_initial_state(), random.Random(7), 10_000)
    again = play_randomly(game.new_initial_state(), random.Random(7), 10_000)
    assert fresh.is_terminal()
    assert fresh.history() == again.history()
    assert fresh.returns() == again.returns()
    copied_state = pickle.loads(pickle.dumps(state))
    for ended in (
        play_randomly(copied_state, random.Random(9), 10_000),
        play_randomly(state, random.Random(9), 10_000),
    ):
        assert ended.is_terminal()
    assert copied_state.history() == state.history()
    assert copied_state.returns() == state.returns()
    assert str(copied_state.get_game()) == str(game)


def test_openspiels_ismcts_bot_plays_a_whole_game() -> None:
    """The framework's own Information Set MCTS plays every seat to the end, resampling worlds as it goes."""
    game = load(3, "beginners")
    bots = [ismcts_bot(game, simulations=10, seed=seat) for seat in range(3)]
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert sorted(state.returns()) == [-0.5, -0.5, 1.0]


def test_a_seeded_ismcts_bot_plays_the_same_game_again_and_a_seeded_sampler_resamples_the_same_world() -> None:
    """Its worlds come from the bot's own seed, not from Python's global generator (a figure taken up again
    in parts plays the same games as one run)."""
    game = load(3, "beginners")

    def play() -> list[int]:
        bots = [ismcts_bot(game, simulations=6, seed=10 + seat) for seat in range(3)]
        state = game.new_initial_state()
        rng = random.Random(5)
        actions = []
        while not state.is_terminal():
            if state.is_chance_node():
                action = rng.choice(state.chance_outcomes())[0]
            else:
                action = bots[state.current_player()].step(state)
                random.random()  # the global generator moves between the runs; the bots must not care
            actions.append(action)
            state.apply_action(action)
        return actions

    assert play() == play()
    state = game.new_initial_state()
    while state.is_chance_node() or state.move_number() < 40:
        outcomes = state.chance_outcomes() if state.is_chance_node() else [(a, 1) for a in state.legal_actions()]
        state.apply_action(outcomes[len(outcomes) // 2][0])
    player = state.current_player()
    worlds = [state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)) for _ in "ab"]
    assert worlds[0].serialize() == worlds[1].serialize()
    other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(8, 0.0, 1.0))
    assert other.information_state_string(player) == state.information_state_string(player)


def test_the_built_in_levels_play_as_openspiel_bots() -> None:
    """Each level is a pyspiel.Bot; OpenSpiel's own evaluate_bots plays them against its ISMCTS to the end."""
    game = load(4)
    bots = [
        LevelBot(game, 0, "medium", seed=1),
        LevelBot(game, 1, "greedy"),
        ismcts_bot(game, simulations=8, seed=2),
        LevelBot(game, 3, "random", seed=3),
    ]
    for round_ in range(2):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(round_))
        assert sorted(returns) == pytest.approx([-1 / 3, -1 / 3, -1 / 3, 1.0])
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    other = (state.current_player() + 1) % 4
    with pytest.raises(ValueError, match=f"player {other} is not to move \\(player {state.current_player()} is\\)"):
        LevelBot(game, other, "easy").step(state)


def test_openspiels_ismcts_sits_in_the_arena() -> None:
    """``openspiel-ismcts:SIMULATIONS`` is an arena seat: it searches from a world drawn for its own view and
    plays legal moves to the end of every game (no forfeit)."""
    config = ArenaConfig(
        specs=("openspiel-ismcts:6", "greedy", "medium"), deals=1, seed=4, rules=Rules.preset("beginners")
    )
    results = list(run_arena(config))
    assert len(results) == 3  # one deal, every rotation
    assert all(result.forfeit is None and result.winner is not None for result in results)
    summary = summarize(config, results)
    assert summary.kinds["openspiel-ismcts:6"].seats == 3
    assert seat_specs("openspiel-ismcts:200,greedy", 2, commands=True) == ["openspiel-ismcts:200", "greedy"]
    assert "openspiel-ismcts:SIMULATIONS" in str(seat_specs("openspiel-ismcts:x", 1, commands=True))
    with pytest.raises(ValueError, match="at least 1 simulation"):
        make_player("openspiel-ismcts:0")


def test_a_state_waiting_for_a_drawn_card_resamples_to_one_where_drawing_was_legal() -> None:
    """The second draw of a turn says the first drawn card did not fit: every resampled world agrees."""
    game = load(2)
    rng = random.Random(12)
    found = 0
    while found < 5:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            if DRAW_ACTION in state.legal_actions() and state.game.draws_this_turn >= 1:
                state.apply_action(DRAW_ACTION)
                for player in range(2):
                    for _ in range(5):
                        other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0, 1))
                        assert other.is_chance_node()
                        assert _knowledge(other, player) == _knowledge(state, player)
                found += 1
                break
            state.apply_action(rng.choice(state.legal_actions()))
