"""The coach's moments (``elferraus.table.coach``): what each one says of the position holds in every state of
seeded games under every preset, a seat off turn has none but the start, and every moment comes up."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from elferraus import Game
from elferraus.bots import make_bot
from elferraus.moves import DRAW
from elferraus.rules import PRESETS
from elferraus.table.coach import MOMENTS, moment
from elferraus.view import SeatView


def meaning(view: SeatView) -> dict[str, bool]:
    """What each moment says of the position, written out from the rules' words (the module's docstring)."""
    lays = any(move.card is not None for move in view.legal)
    draw = DRAW in view.legal
    mine = view.is_my_turn and bool(view.legal) and len(view.moves) > 0
    fresh = mine and not view.laid and not view.draws
    waits_for_first_turn = not view.is_my_turn and all(int(text.split()[0]) != view.seat for text in view.moves)
    return {
        "start": not view.moves or waits_for_first_turn,
        "pile_empty": fresh and view.pile == 0,
        "more": mine and bool(view.laid) and lays,
        "drawn_fits": mine and not view.laid and view.draws > 0 and lays,
        "drawn_not": mine and not view.laid and view.draws > 0 and not lays and draw,
        "may_hold": fresh and view.pile > 0 and lays and draw,
        "fits": fresh and view.pile > 0 and lays and not draw,
        "must_draw": fresh and view.pile > 0 and not lays and draw,
    }


@pytest.mark.parametrize("rules", list(PRESETS))
def test_each_moment_says_what_it_means_and_every_one_comes(rules: str) -> None:
    seen: Counter[str | None] = Counter()
    rng = random.Random(rules)
    for seed in range(8):
        game = Game.deal(players=2 + seed % 3, seed=seed, rules=rules)
        bots = [make_bot(("greedy", "random", "medium")[seat % 3], seat) for seat in range(game.players)]
        while not game.is_over():
            for seat in range(game.players):
                view = game.view(seat)
                found = moment(view)
                true = [key for key, holds in meaning(view).items() if holds]
                assert true == ([] if found is None else [found]), (found, true, view.moves[-3:])
                if seat == game.turn:
                    seen[found] += 1
            move = bots[game.turn].choose(game.view(game.turn))
            if rng.random() < 0.1 and DRAW in game.legal_moves():
                move = DRAW  # holding back, now and then
            game.push(move)
        assert {moment(game.view(seat)) for seat in range(game.players)} == {None}  # the result speaks
    must_play = PRESETS[rules].must_play
    expected = set(MOMENTS) - ({"may_hold"} if must_play else {"fits"})
    assert set(seen) - {None} == expected, seen


def test_the_start_is_every_seats_moment_until_the_opening_and_then_until_its_first_turn() -> None:
    game = Game.deal(players=4, seed=3)
    assert {moment(game.view(seat)) for seat in range(4)} == {"start"}  # the opener's turn too
    game.push(game.legal_moves()[0])
    opener = int(game.record_moves()[0].split()[0])
    mover = game.turn
    # the seat right after the opener is told its own turn's rule, not how the game starts
    assert moment(game.view(mover)) not in (None, "start")
    assert moment(game.view(opener)) is None  # it has moved, and it is not its turn
    waiting = [seat for seat in range(4) if seat not in (opener, mover)]
    assert {moment(game.view(seat)) for seat in waiting} == {"start"}
