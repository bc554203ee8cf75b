"""The learned player's input (``elferraus.envs.features``): one row per legal action, zero for the rest,
saying what each lay would open, from the seat's own view alone."""

from __future__ import annotations

import random

import numpy as np
import pytest

from elferraus import Game, read_position
from elferraus.actions import ACTION_COUNT, DRAW_ACTION, PASS_ACTION, action_of
from elferraus.cards import CARDS, Card
from elferraus.envs.features import FEATURE_COUNT, FEATURES, ActionFeatures
from elferraus.moves import DRAW, Move
from elferraus.rules import PRESETS

COLUMN = {name: column for column, name in enumerate(FEATURES)}
SHARED = slice(COLUMN["hand"], FEATURE_COUNT)


def _cards(text: str) -> list[Card]:
    return [Card.parse(part) for part in text.split()]


def _position(rows: str, laid: list[Card], hand: list[Card], other: int = 12) -> Game:
    """Seat 0 to move with ``hand``; seat 1 holds ``other`` of the remaining cards, the pile the rest."""
    rest = [card for card in CARDS if card not in hand and card not in laid]
    random.Random(5).shuffle(rest)
    hands = "/".join("".join(map(str, cards)) for cards in (hand, rest[:other]))
    pile = "".join(map(str, rest[other:]))
    return read_position(f"{rows} {hands} {pile} 0 -:0:- RYGB:3:free:end")


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_legal_action_has_a_row_of_its_kind_and_the_others_are_zero(preset: str, players: int) -> None:
    rng = random.Random(players)
    features = ActionFeatures()
    game = Game.deal(players, seed=players * 7, rules=preset)
    while not game.is_over():
        view = game.view(game.turn)
        rows = features.array(view)
        assert rows.shape == (ACTION_COUNT, FEATURE_COUNT)
        assert rows.dtype == np.float32
        assert np.isfinite(rows).all()
        assert (rows >= 0).all()
        legal = sorted(action_of(move) for move in view.legal)
        assert list(np.flatnonzero(rows.any(axis=1))) == legal
        for action in legal:
            kind = rows[action, : COLUMN["released"]]
            expected = "draw" if action == DRAW_ACTION else "pass" if action == PASS_ACTION else "lay"
            assert kind.sum() == 1
            assert kind[COLUMN[expected]] == 1
            assert (rows[action, SHARED] == rows[legal[0], SHARED]).all()
        game.push(rng.choice(view.legal))


def test_a_lay_says_what_it_opens_for_the_others_and_what_it_frees_of_ones_own() -> None:
    game = _position("R11-12", _cards("R11 R12"), _cards("R13 R14 G11 G10 Y10"))
    view = game.view(0)
    rows = ActionFeatures().array(view)

    r13 = rows[action_of(Move.lay(Card.parse("R13")))]
    assert r13[COLUMN["free"]] == 1
    assert r13[COLUMN["released"]] == 0
    assert r13[COLUMN["next_chance"]] == 0
    assert r13[COLUMN["own_beyond"]] == pytest.approx(0.1)
    assert r13[COLUMN["distance"]] == pytest.approx(2 / 9)
    assert r13[COLUMN["eleven"]] == 0
    assert r13[COLUMN["opens_colour"]] == 0

    g11 = rows[action_of(Move.lay(Card.parse("G11")))]
    assert g11[COLUMN["eleven"]] == 1
    assert g11[COLUMN["opens_colour"]] == 1
    assert g11[COLUMN["free"]] == 0, "G12 is not ours: the up side opens"
    assert 0 < g11[COLUMN["next_chance"]] <= 1
    assert g11[COLUMN["released"]] >= g11[COLUMN["next_chance"]]
    assert g11[COLUMN["own_beyond"]] == pytest.approx(0.1), "G10 lies beyond it, on the down side"

    shared = r13[SHARED]
    assert shared[0] == pytest.approx(5 / 20)
    assert shared[1] == pytest.approx(12 / 20)
    assert shared[COLUMN["lays"] - SHARED.start] == pytest.approx(len([m for m in view.legal if m.card]) / 10)
    assert shared[COLUMN["own_elevens"] - SHARED.start] == pytest.approx(1 / 4)
    assert shared[COLUMN["can_go_out"] - SHARED.start] == 0, "Y10 has no row yet"


def test_a_card_that_opens_nothing_of_its_own_releases_the_cards_the_others_may_hold() -> None:
    game = _position("R11-12", _cards("R11 R12"), _cards("R13 Y1 Y2"), other=20)
    rows = ActionFeatures().array(game.view(0))
    r13 = rows[action_of(Move.lay(Card.parse("R13")))]
    assert r13[COLUMN["free"]] == 0
    assert r13[COLUMN["own_beyond"]] == 0
    assert r13[COLUMN["next_chance"]] > 0
    assert r13[COLUMN["released"]] >= r13[COLUMN["next_chance"]]


def test_the_drawn_card_is_marked_and_the_turn_counts_its_draws() -> None:
    rng = random.Random(3)
    features = ActionFeatures()
    seen = 0
    for seed in range(20):
        game = Game.deal(4, seed=seed)
        features.reset()
        while not game.is_over() and seen < 5:
            view = game.view(game.turn)
            rows = features.array(view)
            if view.drawn is not None and Move.lay(view.drawn) in view.legal:
                drawn = rows[action_of(Move.lay(view.drawn))]
                assert drawn[COLUMN["drawn_card"]] == 1
                assert drawn[COLUMN["draws_this_turn"]] == pytest.approx(view.draws / 3)
                assert view.draws > 0
                others = [a for a in np.flatnonzero(rows[:, COLUMN["lay"]]) if a != action_of(Move.lay(view.drawn))]
                assert all(rows[a, COLUMN["drawn_card"]] == 0 for a in others)
                seen += 1
            game.push(DRAW if DRAW in view.legal and rng.random() < 0.7 else rng.choice(view.legal))
    assert seen == 5
