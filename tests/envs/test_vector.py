"""Self-play in batches (elferraus.vector.SelfPlay): the engine's games move for move under every preset and
player count, the compiled core and its Python twin number for number, what each row may know, seeding, and
bad input refused before any game moves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from elferraus import Game
from elferraus._pyvector import PyVecGames
from elferraus.actions import action_of, move_of
from elferraus.envs.worlds import sample_world
from elferraus.observation import SeatObserver
from elferraus.rules import PRESETS
from elferraus.vector import Position, SelfPlay


def _engine_games(env: SelfPlay) -> list[tuple[Game, SeatObserver]]:
    return [(env.game(i), SeatObserver(env.players, env.rules.max_draws)) for i in range(env.num_envs)]


def _random_step_beside(env: SelfPlay, games: list[tuple[Game, SeatObserver]]) -> None:
    """One random legal step of every game of ``env``, made in its engine game too; a game that ended is taken
    up as the one dealt in its place."""
    actions = env.random_actions()
    done = env.step(actions)[4]
    for i, action in enumerate(actions):
        games[i][0].push(move_of(int(action)))
        if done[i]:
            games[i] = (env.game(i), games[i][1])


def _assert_rows_match(env: SelfPlay, games: list[tuple[Game, SeatObserver]]) -> None:
    for i, (game, observer) in enumerate(games):
        seat = game.turn
        assert env.seat[i] == seat, f"game {i}"
        assert np.array_equal(env.obs[i], observer.observe(game, seat)), f"game {i}, move {game.move_count}"
        legal = np.zeros(82, np.bool_)
        legal[[action_of(move) for move in game.legal_moves()]] = True
        assert np.array_equal(env.mask[i], legal), f"game {i}, move {game.move_count}"


@pytest.mark.parametrize("rules", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_game_follows_the_engine_move_for_move(players: int, rules: str) -> None:
    env = SelfPlay(num_envs=3, players=players, rules=rules, seed=players * 7 + len(rules))
    env.reset()
    games = _engine_games(env)
    _assert_rows_match(env, games)
    ended = 0
    for _ in range(400):
        actions = env.random_actions()
        _obs, _mask, _seat, rewards, done = env.step(actions)
        for i, action in enumerate(actions):
            game, _observer = games[i]
            game.push(move_of(int(action)))
            if done[i]:
                ended += 1
                winner = game.winner
                assert winner is not None
                expected = np.full(players, -1.0 / (players - 1), np.float32)
                expected[winner] = 1.0
                assert np.array_equal(rewards[i], expected)
                assert rewards[i].sum() == pytest.approx(0.0, abs=1e-6)
                games[i] = (env.game(i), SeatObserver(players, env.rules.max_draws))
            else:
                assert game.winner is None
                assert not rewards[i].any()
        _assert_rows_match(env, games)
    assert ended >= 3, "games ended and were dealt again"
    assert env.finished == ended


@pytest.mark.parametrize(("players", "rules"), [(2, "classic"), (4, "ravensburger"), (6, "beginners")])
def test_the_compiled_core_and_its_python_twin_agree_number_for_number(players: int, rules: str) -> None:
    env = SelfPlay(num_envs=4, players=players, rules=rules, seed=11)
    twin = SelfPlay(num_envs=4, players=players, rules=rules, seed=11)
    twin._games = PyVecGames(
        num_envs=4,
        rules=twin.rules,
        players=players,
        seed=11,
        obs=twin.obs,
        mask=twin.mask,
        seat=twin.seat,
        rewards=twin.rewards,
        done=twin.done,
    )
    for a, b in zip(env.reset(seed=5), twin.reset(seed=5), strict=True):
        assert np.array_equal(a, b)
    for _ in range(300):
        actions = env.random_actions()
        assert np.array_equal(actions, twin.random_actions())
        for a, b in zip(env.step(actions), twin.step(actions), strict=True):
            assert np.array_equal(a, b)
        assert np.array_equal(env.hidden(), twin.hidden())
    assert env.finished == twin.finished > 0
    assert env.deal(2) == twin.deal(2)


def test_the_same_seed_gives_the_same_games_and_another_seed_others() -> None:
    def run(seed: int, reseed: int | None = None) -> list[np.ndarray]:
        env = SelfPlay(num_envs=8, players=4, seed=seed)
        env.reset(reseed)
        seen = []
        for _ in range(50):
            obs, *_ = env.step(env.random_actions())
            seen.append(obs.copy())
        return seen

    first, again, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(run(4, reseed=3), first, strict=True))


def test_no_row_holds_a_card_its_seat_may_not_know() -> None:
    """What the seat to move may not know (the other hands, the pile) is dealt again consistently with all it
    saw, its history replayed: its row stays the same. And no hidden card is ever marked in its row."""
    rng = random.Random(4)
    changed = 0
    for seed in range(8):
        env = SelfPlay(num_envs=1, players=4, rules="classic" if seed % 2 else "ravensburger", seed=seed)
        env.reset()
        game = env.game(0)
        for _ in range(rng.randrange(1, 120)):
            action = env.random_actions()
            _obs, _mask, _seat, _rewards, done = env.step(action)
            if done[0]:
                break
            game.push(move_of(int(action[0])))
        else:
            done = np.zeros(1, np.bool_)
        if done[0]:
            continue
        seat = int(env.seat[0])
        hidden = {card.index for other in range(4) if other != seat for card in game.hand(other)}
        hidden |= {card.index for card in game.pile()}
        row = env.layout.views(env.obs[0].copy())
        assert not any(row["hand"][index] or row["drawn"][index] for index in hidden)
        assert not any(row["laid_by"][:, index].any() or row["table"][index] for index in hidden)
        world = sample_world(game.view(seat), rng).game(game.view(seat))
        dealt = world.dealt
        assert dealt is not None
        changed += dealt != game.dealt
        again = SelfPlay(num_envs=1, players=4, rules=env.rules, seed=99)
        again.reset()
        again.load(0, *dealt)
        for _seat, move, _drawn in world.history():
            again.step([action_of(move)])
        assert again.seat[0] == seat
        assert np.array_equal(again.obs[0], env.obs[0])
        assert np.array_equal(again.mask[0], env.mask[0])
    assert changed >= 4, "the hidden cards were dealt anew"


def test_the_hidden_cards_are_given_to_a_critic_seat_by_seat_from_the_seat_to_move() -> None:
    env = SelfPlay(num_envs=2, players=3, seed=2)
    env.reset()
    games = _engine_games(env)
    for _ in range(40):
        _random_step_beside(env, games)
    hidden = env.hidden()
    for i, (game, _observer) in enumerate(games):
        for slot in range(3):
            held = {card.index for card in game.hand((game.turn + slot) % 3)}
            assert set(np.flatnonzero(hidden[i, slot])) == held
        assert set(np.flatnonzero(hidden[i, 3])) == {card.index for card in game.pile()}


def test_an_illegal_action_is_refused_with_its_game_and_no_game_moves() -> None:
    env = SelfPlay(num_envs=3, players=4, seed=1)
    env.reset()
    before = [array.copy() for array in (env.obs, env.mask, env.seat)]
    actions = env.random_actions()
    illegal = int(np.flatnonzero(~env.mask[1])[0])
    actions[1] = illegal
    with pytest.raises(ValueError, match=rf"game 1: action {illegal} is not legal for seat \d"):
        env.step(actions)
    actions[1] = 82
    with pytest.raises(ValueError, match="game 1: action 82 is not legal"):
        env.step(actions)
    for array, kept in zip((env.obs, env.mask, env.seat), before, strict=True):
        assert np.array_equal(array, kept)
    with pytest.raises(ValueError, match=r"one action id per game, shape \(3,\)"):
        env.step([0, 1])


def test_bad_settings_and_deals_are_refused_with_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="players must be 2-6"):
        SelfPlay(num_envs=2, players=7)
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        SelfPlay(num_envs=0)
    with pytest.raises(ValueError, match="rules must be one of"):
        SelfPlay(num_envs=1, rules="chess")
    env = SelfPlay(num_envs=2, players=2)
    for call in (lambda: env.step([0, 0]), env.random_actions, env.hidden, lambda: env.deal(0)):
        with pytest.raises(RuntimeError, match=r"no game was dealt yet: call reset\(\) first"):
            call()
    env.reset()
    deal = env.deal(0)
    with pytest.raises(ValueError, match="each card of the 80-card deck once"):
        env.load(0, deal.hands, deal.pile[1:])
    with pytest.raises(IndexError, match="game 2 does not exist"):
        env.deal(2)


def test_a_kept_game_stays_and_a_redealt_one_starts_again() -> None:
    env = SelfPlay(num_envs=3, players=4, seed=6)
    env.reset()
    for _ in range(5):
        env.step(env.random_actions())
    kept_row, deal = env.obs[0].copy(), env.deal(1)
    actions = env.random_actions()
    actions[0], actions[1] = SelfPlay.KEEP, SelfPlay.REDEAL
    _obs, _mask, _seat, rewards, done = env.step(actions)
    assert np.array_equal(env.obs[0], kept_row)
    assert done.tolist()[:2] == [False, True]
    assert not rewards[:2].any()
    assert env.deal(1) != deal
    game = env.game(1)
    assert np.array_equal(env.obs[1], SeatObserver(4, env.rules.max_draws).observe(game, game.turn))


@pytest.mark.parametrize(("players", "rules"), [(3, "classic"), (4, "ravensburger"), (5, "beginners")])
def test_a_position_in_the_middle_of_a_game_is_loaded_as_the_engine_has_it(players: int, rules: str) -> None:
    env = SelfPlay(num_envs=4, players=players, rules=rules, seed=3)
    env.reset()
    games = _engine_games(env)
    other = SelfPlay(num_envs=4, players=players, rules=rules, seed=8)
    other.reset()
    for step in range(120):
        _random_step_beside(env, games)
        if step % 7 == 0:
            for i, (game, _observer) in enumerate(games):
                other.load_position(i, Position.of_game(game))
            assert np.array_equal(other.obs, env.obs)
            assert np.array_equal(other.mask, env.mask)
            assert np.array_equal(other.seat, env.seat)
            assert np.array_equal(other.hidden(), env.hidden())
    position = Position.of_game(games[0][0])
    first, *rest = position.hands
    broken = Position(**{**position.__dict__, "hands": (first & (first - 1), *rest)})  # a card of seat 0 lost
    with pytest.raises(ValueError, match=r"each card of the .*-card deck once"):
        other.load_position(0, broken)
