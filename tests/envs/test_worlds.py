"""Worlds resampled from one seat's view (``elferraus.envs.worlds``): every one replays the whole history
to the same view, under every preset, for games of every kind of player."""

from __future__ import annotations

import json
import random

import pytest

from elferraus import Game
from elferraus.bots import make_bot
from elferraus.cards import Card
from elferraus.envs.worlds import sample_world
from elferraus.observation import dealt_hand
from elferraus.record import read_record
from elferraus.rules import PRESETS
from tests.data import DATA


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_world_replays_to_the_same_view(players: int, rules: str) -> None:
    rng = random.Random(f"{players}-{rules}")
    worlds = 0
    differs = 0
    for seed in range(4):
        game = Game.deal(players=players, seed=seed, rules=rules)
        bots = [make_bot(("random", "greedy", "medium")[seat % 3], seat) for seat in range(players)]
        while not game.is_over():
            if rng.random() < 0.12:
                seat = rng.choice([game.turn, rng.randrange(players)])
                view = game.view(seat)
                world = sample_world(view, rng)
                assert world.game(view).view(seat) == view
                assert list(world.hands[seat]) == dealt_hand(view)
                worlds += 1
                other = (seat + 1) % players
                differs += world.game(view).hand(other) != game.hand(other)
            game.push(bots[game.turn].choose(game.view(game.turn)))
    assert worlds > 20
    assert differs > worlds // 2, "the cards the seat has not seen are dealt anew"


def test_a_draw_that_must_have_fit_keeps_its_card_when_a_later_draw_could_take_it_too() -> None:
    """Seat 0 drew R11, which the opening shows was not dealt, kept it, and later drew three times without
    laying. Going back, the last of those draws may not take R11 (as the only 11 that must have been
    drawn it looks urgent): the kept draw, long before, is the only one that can have brought it."""
    record = json.loads((DATA / "kept-eleven-then-three-draws.json").read_text())
    game = read_record(record)
    assert game.record_moves()[-3:] == ["0 draw G5", "0 draw B3", "0 draw B13"]
    assert Card.parse("R11") in game.hand(0)
    for seat in (1, 2, 3):
        view = game.view(seat)
        for seed in range(25):
            world = sample_world(view, random.Random(seed))
            assert world.game(view).view(seat) == view
            assert Card.parse("R11") in world.game(view).hand(0)


def test_worlds_are_found_where_few_samples_of_the_hands_of_now_allow_the_kept_draws() -> None:
    """Seat 0 has just laid R13 with the pile empty. The others kept cards they drew in seven turns, so each
    must still hold (or have laid) a card that fit at each of those moments. Few samples of their hands of
    now allow that; the walk back mends them instead of giving up (before, 14 of 300 seeds found no world)."""
    game = read_record(json.loads((DATA / "kept-draws-scarce-worlds.json").read_text()))
    view = game.view(0)
    assert view.pile == 0
    assert game.record_moves()[-1] == "0 R13"
    for seed in range(60):
        world = sample_world(view, random.Random(seed))
        assert world.game(view).view(0) == view
